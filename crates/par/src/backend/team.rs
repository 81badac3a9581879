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
use std::sync::Mutex;

/// A loop's work as the helpers call it: with the thread's index.
type Work = dyn Fn(usize) + Sync + 'static;

/// Spins before a waiting thread starts yielding its core (a loop's gap on
/// an idle machine is a few microseconds: spinning catches it; a long wait,
/// an MPI exchange say, then costs the core's other users little).
const SPINS: u32 = 4000;

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
    /// The current loop's work, written by the stepping thread only between loops
    /// (after every helper counted itself done, before the next number).
    work: UnsafeCell<Option<*const Work>>,
    /// A helper's panic, resumed on the stepping thread at the end of the loop.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

// SAFETY: `work` is written by the stepping thread only while no helper reads it
// (between a loop's end, when every helper has counted itself done, and the
// next loop's number), and read by the helpers only after they saw the new
// number (release/acquire on `generation`); the work it points to is `Sync`
// and outlives the loop (the stepping thread returns from `run` only after every
// helper is done).
unsafe impl Sync for Team {}

thread_local! {
    /// The team whose step this thread runs (the stepping thread, during a step).
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
        self.0.stop.store(true, Ordering::Release);
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
            work: UnsafeCell::new(None),
            panic: Mutex::new(None),
        }
    }

    /// The team of the step this thread runs, if it has `threads` threads.
    pub(super) fn current(threads: usize) -> Option<&'static Team> {
        let t = CURRENT.with(Cell::get);
        // SAFETY: set only while the stepping thread runs the step inside
        // `run_step`, which owns the team and outlives the step.
        let team = unsafe { t.as_ref() }?;
        (team.threads == threads).then_some(team)
    }

    /// Runs `work(i)` on every thread of the team (`i` its index in the
    /// pool; this thread included) and returns when all are done; a
    /// helper's panic is resumed here.
    pub(super) fn run<'a>(&self, work: &'a (dyn Fn(usize) + Sync + 'a)) {
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
        self.generation.fetch_add(1, Ordering::Release);
        let me = rayon::current_thread_index().unwrap_or(0);
        let mine = catch_unwind(AssertUnwindSafe(|| work(me)));
        wait(|| self.done.load(Ordering::Acquire) + 1 >= self.threads);
        if let Err(p) = mine {
            resume_unwind(p);
        }
        let helper = self.panic.lock().map(|mut p| p.take()).unwrap_or(None);
        if let Some(p) = helper {
            resume_unwind(p);
        }
    }

    /// A helper's life: each new loop's work with its index in the pool,
    /// until the step ends.
    fn help(&self) {
        let me = rayon::current_thread_index().unwrap_or(0);
        self.joined.fetch_add(1, Ordering::AcqRel);
        let mut seen = 0;
        loop {
            wait(|| {
                self.stop.load(Ordering::Acquire) || self.generation.load(Ordering::Acquire) != seen
            });
            if self.stop.load(Ordering::Acquire) {
                return;
            }
            seen = self.generation.load(Ordering::Acquire);
            // SAFETY: the work of loop `seen` was stored before its number
            // was published and stays valid until this helper counts
            // itself done.
            let work = unsafe { (*self.work.get()).expect("a published loop") };
            // SAFETY: as above: `work` points to the live work of the loop.
            let r = catch_unwind(AssertUnwindSafe(|| unsafe { (*work)(me) }));
            if let Err(p) = r {
                if let Ok(mut slot) = self.panic.lock() {
                    slot.get_or_insert(p);
                }
            }
            self.done.fetch_add(1, Ordering::Release);
        }
    }
}

/// Runs `step` on a thread of `pool` with the pool's other threads as its
/// team (see the module's documentation); a pool of one thread runs it as
/// `pool.install` does. Allocates nothing: the helpers are the second
/// halves of rayon joins, stolen by the idle threads; the step starts once
/// all have arrived.
pub fn run_step<R: Send>(pool: &rayon::ThreadPool, step: impl FnOnce() -> R + Send) -> R {
    let threads = pool.current_num_threads();
    if threads < 2 {
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
