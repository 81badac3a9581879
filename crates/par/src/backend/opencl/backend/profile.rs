//! Loop times from the device's own clock: each loop's launches keep
//! their events (the queue profiles), and their start-to-end times are
//! summed per loop once they have completed, so the layer need not wait
//! after every loop to time it.

use std::time::Duration;

use opencl3::event::Event;

use super::OpenClBackend;
use crate::backend::opencl::device::cl_error;

/// Pending launches beyond which the next loop collects their times
/// (one wait for the device per this many launches).
const COLLECT_EVERY: usize = 256;

/// The launches of loops whose times are not collected yet.
pub(super) struct Pending {
    /// Whether the queue profiles (a device may refuse it).
    pub(super) on: bool,
    launches: Vec<(&'static str, Event)>,
}

impl Pending {
    /// No launches yet; `on` when the queue profiles.
    pub(super) fn new(on: bool) -> Pending {
        Pending {
            on,
            launches: Vec::new(),
        }
    }

    /// Keeps a loop's launch event (dropped when the queue does not profile).
    pub(super) fn push(&mut self, name: &'static str, event: Event) {
        if self.on {
            self.launches.push((name, event));
        }
    }
}

impl OpenClBackend {
    /// See [`crate::backend::LocalBackend::device_times`].
    pub(super) fn collect_times(&mut self, wait: bool) -> Option<Vec<(&'static str, Duration)>> {
        if !self.pending.on {
            return None;
        }
        if !wait && self.pending.launches.len() < COLLECT_EVERY {
            return Some(Vec::new());
        }
        if let Err(e) = self.queue.finish() {
            self.pending.launches.clear();
            let r: Result<(), String> = Err(cl_error("waiting for the device", e));
            self.fail(r);
            return Some(Vec::new());
        }
        let mut out: Vec<(&'static str, Duration)> = Vec::new();
        for (name, event) in self.pending.launches.drain(..) {
            let nanos = match (
                event.profiling_command_start(),
                event.profiling_command_end(),
            ) {
                (Ok(s), Ok(e)) => e.saturating_sub(s),
                // No profiling information after all: time by waiting.
                _ => {
                    self.pending.on = false;
                    0
                }
            };
            let d = Duration::from_nanos(nanos);
            match out.iter_mut().find(|x| std::ptr::eq(x.0, name)) {
                Some(x) => x.1 += d,
                None => out.push((name, d)),
            }
        }
        Some(out)
    }
}
