//! Progress of a run: a bar on a terminal, a log line every ten seconds
//! otherwise; nothing when quiet or on ranks other than 0.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// The progress display of a run.
pub struct Progress {
    bar: Option<ProgressBar>,
    last_line: Instant,
    quiet: bool,
}

impl Progress {
    /// A display for steps `first..=last` (`quiet`: none).
    pub fn new(quiet: bool, first: u64, last: u64) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let b = ProgressBar::new(last);
            b.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} it  {msg}  (left ~{eta})",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            );
            b.set_position(first);
            b
        });
        Progress {
            bar,
            last_line: Instant::now(),
            quiet,
        }
    }

    /// Shows step `iteration` with the method's values (`label` renders
    /// them briefly).
    pub fn update(&mut self, iteration: u64, label: &dyn Fn() -> String, elapsed: f64) {
        if let Some(b) = &self.bar {
            b.set_position(iteration);
            if iteration % 10 == 0 || iteration <= 2 {
                b.set_message(label());
            }
        } else if !self.quiet
            && (iteration == 1 || self.last_line.elapsed() >= Duration::from_secs(10))
        {
            self.last_line = Instant::now();
            tracing::info!("iteration {iteration} {} ({elapsed:.1} s)", label());
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
