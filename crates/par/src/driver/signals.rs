//! SIGINT, SIGTERM and SIGHUP ask a run to stop cleanly: the step under way
//! finishes, every rank agrees (the request rides on the next reduction),
//! the checkpoint, outputs and summary are written, and the process exits
//! with 128 + the signal's number.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The signals a run stops on.
pub const STOP_SIGNALS: [i32; 3] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
];

/// The first stop signal received, if any.
#[derive(Clone, Debug)]
pub struct Signals {
    received: Arc<AtomicUsize>,
}

impl Signals {
    /// Installs the handlers (once per process; later calls share them).
    pub fn install() -> Result<Signals, String> {
        static SHARED: std::sync::OnceLock<Arc<AtomicUsize>> = std::sync::OnceLock::new();
        let mut err = None;
        let received = SHARED
            .get_or_init(|| {
                let flag = Arc::new(AtomicUsize::new(0));
                for s in STOP_SIGNALS {
                    // `register_usize` stores the signal number; the first
                    // one wins below.
                    if let Err(e) = signal_hook::flag::register_usize(s, flag.clone(), s as usize) {
                        err = Some(format!("cannot handle signal {s}: {e}"));
                    }
                }
                flag
            })
            .clone();
        match err {
            Some(e) => Err(e),
            None => Ok(Signals { received }),
        }
    }

    /// The signal received, if one was.
    pub fn received(&self) -> Option<i32> {
        match self.received.load(Ordering::SeqCst) {
            0 => None,
            s => Some(s as i32),
        }
    }

    /// Forgets a received signal (tests).
    pub fn clear(&self) {
        self.received.store(0, Ordering::SeqCst);
    }
}
