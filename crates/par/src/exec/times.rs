//! Loop times: the host's clock around each loop on the CPU backends; on
//! a device that profiles its launches, the device's own times of them,
//! collected without stopping the device between loops.

use std::time::{Duration, Instant};

use super::Exec;
use crate::decl::LoopDecl;
use crate::driver::LoopTime;

impl Exec {
    /// Records the time of loop `l`, run since `t`.
    pub(super) fn time_loop(&mut self, l: &'static LoopDecl, t: Instant) {
        if !self.local.asynchronous() {
            self.record_time(l.name, t.elapsed());
            return;
        }
        // The device's own times of the loops' launches, as they
        // complete: the device is not stopped between loops.
        self.record_time(l.name, Duration::ZERO);
        let times = &mut self.times;
        if !self
            .local
            .device_times(false, &mut |n, d| add_time(times, n, d))
        {
            // Timings per loop on a device that does not profile: wait.
            self.local.synchronize();
            add_time(&mut self.times, l.name, t.elapsed());
        }
    }

    fn record_time(&mut self, name: &'static str, d: Duration) {
        match self.times.iter_mut().find(|x| std::ptr::eq(x.name, name)) {
            Some(x) => {
                x.calls += 1;
                x.time += d;
            }
            None => self.times.push(LoopTime {
                name,
                calls: 1,
                time: d,
            }),
        }
    }

    /// Time per loop since the last [`Exec::reset_times`], in the order the
    /// loops first ran.
    ///
    /// On a device that profiles its launches this waits for the work
    /// submitted so far, and a loop's time is the device's time of its
    /// launches (not the host's time around them).
    pub fn loop_times(&mut self) -> Vec<LoopTime> {
        let times = &mut self.times;
        self.local
            .device_times(true, &mut |n, d| add_time(times, n, d));
        self.times.clone()
    }

    /// Forgets the loop timings.
    pub fn reset_times(&mut self) {
        // Launches still pending belong to the times being forgotten.
        self.local.device_times(true, &mut |_, _| {});
        self.times.clear();
    }
}

/// Adds `d` to loop `name`'s time (the loop was recorded when it was
/// submitted).
fn add_time(times: &mut [LoopTime], name: &'static str, d: Duration) {
    if let Some(x) = times.iter_mut().find(|x| std::ptr::eq(x.name, name)) {
        x.time += d;
    }
}
