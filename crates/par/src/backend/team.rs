//! A step's threads as one team: the threads of the pool enter a step
//! together and stay in it until it ends, so that each loop of the step
//! starts by publishing its work and ends when every thread has counted
//! itself done (a barrier), instead of handing rayon a fork and a join per
//! loop.
//!
//! One thread of the pool runs the step's code (the method's step, the
//! executor, the backend); the others wait for loops in [`Team::help`],
//! spinning a little, then yielding their core. A loop's work is the
//! closure of [`super::chunks::Claims::run`] (a thread's own parts, then
//! the others' still waiting), called with each thread's index in the pool,
//! the same index the thread has outside a team: the same thread runs the
//! same parts either way.
//!
//! Outside a step (setup, output), and on a pool of one thread, loops go
//! through rayon as before. Code inside a step that calls rayon directly
//! runs on the stepping thread alone (the helpers are not stealing): correct, only
//! serial.

use std::any::Any;
use std::cell::{Cell, UnsafeCell};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// A loop's work as the helpers call it: with the thread's index.
type Work = dyn Fn(usize) + Sync + 'static;

/// Spins before a waiting thread starts yielding its core (a loop's gap on
/// an idle machine is a few microseconds: spinning catches it).
const SPINS: u32 = 4000;

/// Yields before a helper sleeps until woken (a long wait, an MPI exchange
/// or the step's own sequential work, then costs the core nothing).
const YIELDS: u32 = 200;

/// The state the threads of one step share.
pub(super) struct Team {
    /// Threads of the pool (one runs the step, the others help).
    threads: usize,
    /// The current loop's number: a helper runs each number once.
    generation: AtomicU64,
    /// Helpers done with the current loop.
    done: AtomicUsize,
    /// Helpers that have arrived (the step starts when all have).
    joined: AtomicUsize,
    /// Set when the step has ended (or unwound): the helpers leave.
    stop: AtomicBool,
    /// Set while a loop runs: a loop inside a loop's work (none today)
    /// would run through rayon, not publish over the running one.
    in_loop: AtomicBool,
    /// The current loop's work, written by the stepping thread only
    /// between loops (after every helper counted itself done, before the
    /// next number).
    work: UnsafeCell<Option<*const Work>>,
    /// Whether a helper panicked in the current step (then `panic` holds
    /// the first payload, resumed on the stepping thread).
    panicked: AtomicBool,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// Helpers asleep, and where they sleep (woken by a new loop or the
    /// step's end).
    sleepers: AtomicUsize,
    bed: Mutex<()>,
    alarm: Condvar,
}

// SAFETY: `work` is written by the stepping thread only while no helper
// reads it (between a loop's end, when every helper has counted itself
// done, and the next loop's number), and read by the helpers only after
// they saw the new number (release/acquire on `generation`); the work it
// points to is `Sync` and outlives the loop (the stepping thread returns
// from `run` only after every helper is done).
unsafe impl Sync for Team {}

thread_local! {
    /// The team whose step this thread runs (the stepping thread, during a
    /// step).
    static CURRENT: Cell<*const Team> = const { Cell::new(std::ptr::null()) };
}

/// Waits until `ready()`, spinning first, then yielding the core.
fn wait(ready: impl Fn() -> bool) {
    let mut spins = 0;
    while !ready() {
        if spins < SPINS {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// The stepping thread's marks while it runs a step: the team is current
/// on it, and at the end (or when the step unwinds) the helpers are told
/// to leave.
struct Running<'a>(&'a Team);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(std::ptr::null()));
        self.0.stop.store(true, Ordering::SeqCst);
        self.0.wake();
    }
}

impl Team {
    fn new(threads: usize) -> Self {
        Team {
            threads,
            generation: AtomicU64::new(0),
            done: AtomicUsize::new(0),
            joined: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            in_loop: AtomicBool::new(false),
            work: UnsafeCell::new(None),
            panicked: AtomicBool::new(false),
            panic: Mutex::new(None),
            sleepers: AtomicUsize::new(0),
            bed: Mutex::new(()),
            alarm: Condvar::new(),
        }
    }

    /// Runs `f` with the team of the step this thread runs, if there is
    /// one, it is `pool`'s (this thread is one of `pool`'s) and no loop of
    /// it is running; else returns `None` without calling `f`.
    pub(super) fn with_current<R>(
        pool: &rayon::ThreadPool,
        f: impl FnOnce(&Team) -> R,
    ) -> Option<R> {
        let t = CURRENT.with(Cell::get);
        // SAFETY: set only while the stepping thread runs the step inside
        // `run_step`, which owns the team and outlives the step; `f` runs
        // within that.
        let team = unsafe { t.as_ref() }?;
        let ours = pool.current_thread_index().is_some()
            && team.threads == pool.current_num_threads()
            && !team.in_loop.load(Ordering::Relaxed);
        ours.then(|| f(team))
    }

    /// Wakes the sleeping helpers, if any.
    fn wake(&self) {
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            let _bed = self.bed.lock();
            self.alarm.notify_all();
        }
    }

    /// Runs `work(i)` on every thread of the team (`i` its index in the
    /// pool; this thread included) and returns when all are done; a
    /// helper's panic is resumed here.
    pub(super) fn run<'a>(&self, work: &'a (dyn Fn(usize) + Sync + 'a)) {
        self.in_loop.store(true, Ordering::Relaxed);
        // SAFETY: the helpers are between loops (all counted themselves
        // done at the end of the last one), so none reads `work`; the
        // pointer's lifetime is erased, and it is used only until every
        // helper has counted itself done below, while `work` lives.
        unsafe {
            let p: *const Work =
                std::mem::transmute::<&'a (dyn Fn(usize) + Sync + 'a), &'static Work>(work);
            *self.work.get() = Some(p);
        }
        self.done.store(0, Ordering::Relaxed);
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.wake();
        let me = rayon::current_thread_index().unwrap_or(0);
        let mine = catch_unwind(AssertUnwindSafe(|| work(me)));
        wait(|| self.done.load(Ordering::Acquire) + 1 >= self.threads);
        self.in_loop.store(false, Ordering::Relaxed);
        if let Err(p) = mine {
            resume_unwind(p);
        }
        if self.panicked.load(Ordering::Acquire) {
            let helper = self.panic.lock().map(|mut p| p.take()).unwrap_or(None);
            self.panicked.store(false, Ordering::Relaxed);
            if let Some(p) = helper {
                resume_unwind(p);
            }
        }
    }

    /// Whether the step has moved past loop `seen` (a new loop, or its end).
    fn news(&self, seen: u64) -> bool {
        self.stop.load(Ordering::SeqCst) || self.generation.load(Ordering::SeqCst) != seen
    }

    /// Waits for news after loop `seen`: spinning, then yielding, then
    /// asleep until woken (or, as a safety net, a millisecond).
    fn wait_for_news(&self, seen: u64) {
        let mut spins = 0;
        while !self.news(seen) {
            if spins < SPINS {
                spins += 1;
                std::hint::spin_loop();
            } else if spins < SPINS + YIELDS {
                spins += 1;
                std::thread::yield_now();
            } else {
                self.sleepers.fetch_add(1, Ordering::SeqCst);
                if let Ok(bed) = self.bed.lock() {
                    if !self.news(seen) {
                        let _ = self.alarm.wait_timeout(bed, Duration::from_millis(1));
                    }
                }
                self.sleepers.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }

    /// A helper's life: each new loop's work with its index in the pool,
    /// until the step ends.
    fn help(&self) {
        let me = rayon::current_thread_index().unwrap_or(0);
        self.joined.fetch_add(1, Ordering::AcqRel);
        let mut seen = 0;
        loop {
            self.wait_for_news(seen);
            if self.stop.load(Ordering::SeqCst) {
                return;
            }
            seen = self.generation.load(Ordering::Acquire);
            // SAFETY: the work of loop `seen` was stored before its number
            // was published and stays valid until this helper counts
            // itself done.
            if let Some(work) = unsafe { *self.work.get() } {
                // SAFETY: as above: `work` points to the live work of the
                // loop.
                let r = catch_unwind(AssertUnwindSafe(|| unsafe { (*work)(me) }));
                if let Err(p) = r {
                    if let Ok(mut slot) = self.panic.lock() {
                        slot.get_or_insert(p);
                    }
                    self.panicked.store(true, Ordering::Release);
                }
            }
            self.done.fetch_add(1, Ordering::Release);
        }
    }
}

/// Runs `step` on a thread of `pool` with the pool's other threads as its
/// team (see the module's documentation); a pool of one thread, or a call
/// from inside the pool (a step within a step), runs it as `pool.install`
/// does. Allocates nothing: the helpers are the second halves of rayon
/// joins, stolen by the idle threads; the step starts once all have
/// arrived.
pub fn run_step<R: Send>(pool: &rayon::ThreadPool, step: impl FnOnce() -> R + Send) -> R {
    let threads = pool.current_num_threads();
    let inside = pool.current_thread_index().is_some() || !CURRENT.with(Cell::get).is_null();
    if threads < 2 || inside {
        return pool.install(step);
    }
    let team = Team::new(threads);
    pool.install(|| {
        rayon::join(
            || {
                let running = Running(&team);
                wait(|| running.0.joined.load(Ordering::Acquire) + 1 >= threads);
                CURRENT.with(|c| c.set(running.0));
                step()
            },
            || {
                use rayon::prelude::*;
                (1..threads)
                    .into_par_iter()
                    .with_max_len(1)
                    .for_each(|_| team.help())
            },
        )
        .0
    })
}

#[cfg(test)]
mod tests {
    use super::super::chunks::Claims;
    use super::run_step;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool")
    }

    /// Inside a step, every part of every loop runs exactly once, on the
    /// team (each thread runs its own parts first: with an idle machine most
    /// loops see more than one thread, which is not asserted).
    #[test]
    fn a_steps_loops_run_every_part_once() {
        for threads in [2, 3] {
            let pool = pool(threads);
            let mut claims = Claims::new(threads);
            let per_thread = 8;
            let parts = threads * per_thread;
            let runs: Vec<AtomicUsize> = (0..parts).map(|_| AtomicUsize::new(0)).collect();
            run_step(&pool, || {
                for _ in 0..200 {
                    claims.run(&pool, per_thread, &|p| {
                        runs[p].fetch_add(1, Ordering::Relaxed);
                    });
                }
            });
            for (p, r) in runs.iter().enumerate() {
                assert_eq!(
                    r.load(Ordering::Relaxed),
                    200,
                    "{threads} threads, part {p}"
                );
            }
        }
    }

    /// A step within a step runs inline (no second team, no hang), and a
    /// loop inside a step on another pool of the same size runs on that
    /// pool (every part once).
    #[test]
    fn nested_steps_and_other_pools_run_without_the_team() {
        let (a, b) = (pool(2), pool(2));
        let mut claims = Claims::new(2);
        let n = AtomicUsize::new(0);
        run_step(&a, || {
            run_step(&a, || {
                claims.run(&a, 4, &|_| {
                    n.fetch_add(1, Ordering::Relaxed);
                })
            });
            claims.run(&b, 4, &|_| {
                n.fetch_add(1, Ordering::Relaxed);
            });
        });
        assert_eq!(n.load(Ordering::Relaxed), 16);
    }

    /// A loop that panics on a helper, or the step itself panicking, ends
    /// the step with that panic (the helpers leave; nothing hangs).
    #[test]
    fn a_panic_in_a_step_ends_it() {
        let pool = pool(2);
        let mut claims = Claims::new(2);
        for in_loop in [true, false] {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_step(&pool, || {
                    claims.run(&pool, 4, &|p| {
                        if in_loop && p == 7 {
                            panic!("part 7");
                        }
                    });
                    if !in_loop {
                        panic!("the step");
                    }
                })
            }));
            assert!(r.is_err(), "in a loop: {in_loop}");
        }
        // The pool still runs steps afterwards.
        let n = AtomicUsize::new(0);
        run_step(&pool, || {
            claims.run(&pool, 4, &|_| {
                n.fetch_add(1, Ordering::Relaxed);
            })
        });
        assert_eq!(n.load(Ordering::Relaxed), 8);
    }
}
