//! Loop times from the device's own clock: each loop's launches keep
//! their events (the queue profiles), and their start-to-end times are
//! summed per loop once they have completed, so the layer need not wait
//! after every loop to time it.

use std::time::Duration;

use opencl3::event::Event;

use super::api::OpenCl;
use super::platform::cl_error;

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
        // Room for a loop's launches beyond the collection threshold: no
        // allocation while a run iterates.
        Pending {
            on,
            launches: Vec::with_capacity(if on { 4 * COLLECT_EVERY } else { 0 }),
        }
    }

    /// Keeps a loop's launch event (dropped when the queue does not profile).
    pub(super) fn push(&mut self, name: &'static str, event: Event) {
        if self.on {
            self.launches.push((name, event));
        }
    }
}

impl OpenCl {
    /// See [`crate::backend::LocalBackend::device_times`].
    pub(super) fn collect_times(
        &mut self,
        wait: bool,
        add: &mut dyn FnMut(&'static str, Duration),
    ) -> Result<bool, String> {
        if !self.pending.on {
            return Ok(false);
        }
        if !wait && self.pending.launches.len() < COLLECT_EVERY {
            return Ok(true);
        }
        if let Err(e) = self.queue.finish() {
            self.pending.launches.clear();
            return Err(cl_error("waiting for the device", e));
        }
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
            add(name, Duration::from_nanos(nanos));
        }
        Ok(true)
    }
}
