//! Halo exchange over MPI in four modes: two-sided blocking
//! (`MPI_Sendrecv` per neighbour in increasing rank order, which cannot
//! deadlock), two-sided non-blocking with persistent requests, one-sided
//! puts with general active-target synchronisation among neighbours only
//! (post/start/complete/wait), and one-sided puts between fences.
//!
//! Each exchange (a set and the dats it carries) owns a duplicate of the
//! world communicator, its buffers, its requests or window: several may be
//! under way at once without their messages ever matching. A periodic block
//! on one rank exchanges with itself: a copy.

use std::os::raw::{c_int, c_void};
use std::time::Instant;

use mpi::ffi;

use super::{check, DupComm};
use crate::comm::{Exchange, ExchangeMode, ExchangeTimes, PeerCounts};

/// Persistent requests of an exchange.
struct Requests(Vec<ffi::MPI_Request>);

// SAFETY: used from one thread at a time (see the module docs of `mpi`).
unsafe impl Send for Requests {}

impl Requests {
    fn start(&mut self) {
        if !self.0.is_empty() {
            // SAFETY: valid persistent requests.
            check(
                unsafe { ffi::MPI_Startall(self.0.len() as c_int, self.0.as_mut_ptr()) },
                "MPI_Startall",
            );
        }
    }

    fn wait(&mut self) {
        if !self.0.is_empty() {
            // SAFETY: valid requests.
            check(
                unsafe {
                    ffi::MPI_Waitall(
                        self.0.len() as c_int,
                        self.0.as_mut_ptr(),
                        ffi::RSMPI_STATUSES_IGNORE,
                    )
                },
                "MPI_Waitall",
            );
        }
    }

    fn test(&mut self) {
        if !self.0.is_empty() {
            let mut flag: c_int = 0;
            // SAFETY: valid requests.
            check(
                unsafe {
                    ffi::MPI_Testall(
                        self.0.len() as c_int,
                        self.0.as_mut_ptr(),
                        &mut flag,
                        ffi::RSMPI_STATUSES_IGNORE,
                    )
                },
                "MPI_Testall",
            );
        }
    }
}

impl Drop for Requests {
    fn drop(&mut self) {
        for r in &mut self.0 {
            // SAFETY: our requests, inactive (every exchange is finished).
            unsafe { ffi::MPI_Request_free(r) };
        }
    }
}

/// An MPI group of some ranks of a communicator.
struct Group(ffi::MPI_Group);

// SAFETY: as above.
unsafe impl Send for Group {}

impl Group {
    fn of(comm: &DupComm, ranks: &[c_int]) -> Group {
        // SAFETY: plain MPI calls creating a group this value owns.
        let mut all: ffi::MPI_Group = unsafe { ffi::RSMPI_GROUP_NULL };
        let mut g: ffi::MPI_Group = unsafe { ffi::RSMPI_GROUP_NULL };
        unsafe {
            check(ffi::MPI_Comm_group(comm.raw(), &mut all), "MPI_Comm_group");
            check(
                ffi::MPI_Group_incl(all, ranks.len() as c_int, ranks.as_ptr(), &mut g),
                "MPI_Group_incl",
            );
            ffi::MPI_Group_free(&mut all);
        }
        Group(g)
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        // SAFETY: our group.
        unsafe { ffi::MPI_Group_free(&mut self.0) };
    }
}

/// A window of `f64` that neighbours put halo values into.
struct Window {
    win: ffi::MPI_Win,
    base: *mut f64,
    len: usize,
}

// SAFETY: as above.
unsafe impl Send for Window {}

impl Window {
    /// Collective over `comm`.
    fn allocate(comm: &DupComm, len: usize) -> Window {
        let mut base: *mut f64 = std::ptr::null_mut();
        // SAFETY: MPI allocates `len` f64 and a window over them.
        let mut win: ffi::MPI_Win = unsafe { ffi::RSMPI_WIN_NULL };
        check(
            unsafe {
                ffi::MPI_Win_allocate(
                    (len.max(1) * 8) as ffi::MPI_Aint,
                    8,
                    ffi::RSMPI_INFO_NULL,
                    comm.raw(),
                    &mut base as *mut *mut f64 as *mut c_void,
                    &mut win,
                )
            },
            "MPI_Win_allocate",
        );
        Window { win, base, len }
    }

    fn slice(&self) -> &[f64] {
        // SAFETY: the window holds at least `len` f64 while it lives; it is
        // read only after the epoch that writes it is closed.
        unsafe { std::slice::from_raw_parts(self.base, self.len) }
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        // SAFETY: collective: every rank drops its exchanges at the same point.
        unsafe { ffi::MPI_Win_free(&mut self.win) };
    }
}

/// One neighbour: where its values sit in the buffers.
struct Peer {
    rank: c_int,
    send_at: usize,
    send: usize,
    recv_at: usize,
    recv: usize,
    /// Where this rank's block lands in the neighbour's receive buffer.
    put_at: usize,
}

enum Recv {
    Local(Vec<f64>),
    Window(Window),
}

/// One halo exchange over MPI.
pub(crate) struct MpiExchange {
    mode: ExchangeMode,
    me: c_int,
    peers: Vec<Peer>,
    send: Vec<f64>,
    recv: Recv,
    requests: Option<Requests>,
    origins: Option<Group>,
    targets: Option<Group>,
    pending: bool,
    exposed: bool,
    times: ExchangeTimes,
    // Dropped last: the requests and the window belong to it.
    comm: DupComm,
}

impl MpiExchange {
    /// Collective over the world (every rank creates its exchanges in the
    /// same order).
    pub(crate) fn new(me: usize, counts: &[PeerCounts], mode: ExchangeMode) -> MpiExchange {
        let comm = DupComm::of_world();
        let me = me as c_int;
        let (mut send_at, mut recv_at) = (0, 0);
        let mut peers: Vec<Peer> = counts
            .iter()
            .map(|c| {
                let p = Peer {
                    rank: c.rank as c_int,
                    send_at,
                    send: c.send,
                    recv_at,
                    recv: c.recv,
                    put_at: 0,
                };
                send_at += c.send;
                recv_at += c.recv;
                p
            })
            .collect();
        // Where each block lands on its receiver: the receiver tells.
        for p in peers.iter_mut().filter(|p| p.rank != me) {
            let mine = p.recv_at as u64;
            let mut theirs = 0u64;
            // SAFETY: one u64 each way with the neighbour, in increasing
            // rank order on every rank (no deadlock).
            check(
                unsafe {
                    ffi::MPI_Sendrecv(
                        &mine as *const u64 as *const c_void,
                        1,
                        ffi::RSMPI_UINT64_T,
                        p.rank,
                        7,
                        &mut theirs as *mut u64 as *mut c_void,
                        1,
                        ffi::RSMPI_UINT64_T,
                        p.rank,
                        7,
                        comm.raw(),
                        ffi::RSMPI_STATUS_IGNORE,
                    )
                },
                "MPI_Sendrecv",
            );
            p.put_at = theirs as usize;
        }
        let rma = matches!(mode, ExchangeMode::Rma | ExchangeMode::RmaFence);
        let recv = if rma {
            Recv::Window(Window::allocate(&comm, recv_at))
        } else {
            Recv::Local(vec![0.0; recv_at])
        };
        let mut x = MpiExchange {
            mode,
            me,
            peers,
            send: vec![0.0; send_at],
            recv,
            requests: None,
            origins: None,
            targets: None,
            pending: false,
            exposed: false,
            times: ExchangeTimes::default(),
            comm,
        };
        match mode {
            ExchangeMode::Nonblocking => x.requests = Some(x.persistent()),
            ExchangeMode::Rma => {
                let from: Vec<c_int> = x
                    .peers
                    .iter()
                    .filter(|p| p.recv > 0 && p.rank != me)
                    .map(|p| p.rank)
                    .collect();
                let to: Vec<c_int> = x
                    .peers
                    .iter()
                    .filter(|p| p.send > 0 && p.rank != me)
                    .map(|p| p.rank)
                    .collect();
                x.origins = Some(Group::of(&x.comm, &from));
                x.targets = Some(Group::of(&x.comm, &to));
            }
            _ => {}
        }
        x
    }

    fn recv_ptr(&mut self) -> *mut f64 {
        match &mut self.recv {
            Recv::Local(v) => v.as_mut_ptr(),
            Recv::Window(w) => w.base,
        }
    }

    /// Persistent requests: receives first.
    fn persistent(&mut self) -> Requests {
        let mut reqs = Vec::new();
        let recv = self.recv_ptr();
        let send = self.send.as_mut_ptr();
        for p in self
            .peers
            .iter()
            .filter(|p| p.rank != self.me && p.recv > 0)
        {
            // SAFETY: the buffers live as long as the requests (both ours).
            let mut r: ffi::MPI_Request = unsafe { ffi::RSMPI_REQUEST_NULL };
            check(
                unsafe {
                    ffi::MPI_Recv_init(
                        recv.add(p.recv_at) as *mut c_void,
                        p.recv as c_int,
                        ffi::RSMPI_DOUBLE,
                        p.rank,
                        0,
                        self.comm.raw(),
                        &mut r,
                    )
                },
                "MPI_Recv_init",
            );
            reqs.push(r);
        }
        for p in self
            .peers
            .iter()
            .filter(|p| p.rank != self.me && p.send > 0)
        {
            // SAFETY: as above.
            let mut r: ffi::MPI_Request = unsafe { ffi::RSMPI_REQUEST_NULL };
            check(
                unsafe {
                    ffi::MPI_Send_init(
                        send.add(p.send_at) as *const c_void,
                        p.send as c_int,
                        ffi::RSMPI_DOUBLE,
                        p.rank,
                        0,
                        self.comm.raw(),
                        &mut r,
                    )
                },
                "MPI_Send_init",
            );
            reqs.push(r);
        }
        Requests(reqs)
    }

    fn window(&self) -> ffi::MPI_Win {
        match &self.recv {
            Recv::Window(w) => w.win,
            Recv::Local(_) => unreachable!("a one-sided exchange has a window"),
        }
    }

    fn put_all(&mut self) {
        let win = self.window();
        for p in self
            .peers
            .iter()
            .filter(|p| p.send > 0 && p.rank != self.me)
        {
            // SAFETY: inside an access epoch; the target has room at
            // `put_at` (it told us).
            check(
                unsafe {
                    ffi::MPI_Put(
                        self.send.as_ptr().add(p.send_at) as *const c_void,
                        p.send as c_int,
                        ffi::RSMPI_DOUBLE,
                        p.rank,
                        p.put_at as ffi::MPI_Aint,
                        p.send as c_int,
                        ffi::RSMPI_DOUBLE,
                        win,
                    )
                },
                "MPI_Put",
            );
        }
    }

    /// Copies the blocks a rank sends to itself (a periodic wrap).
    fn copy_self(&mut self) {
        let me = self.me;
        let recv = self.recv_ptr();
        for p in self.peers.iter().filter(|p| p.rank == me) {
            debug_assert_eq!(p.send, p.recv);
            // SAFETY: disjoint buffers; the ranges are within them.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    self.send.as_ptr().add(p.send_at),
                    recv.add(p.recv_at),
                    p.recv,
                )
            };
        }
    }
}

impl Exchange for MpiExchange {
    fn send_buffer(&mut self) -> &mut [f64] {
        &mut self.send
    }

    fn start(&mut self) {
        assert!(!self.pending, "an exchange started while under way");
        let t = Instant::now();
        self.times.exchanges += 1;
        self.times.bytes_sent += 8 * self
            .peers
            .iter()
            .filter(|p| p.rank != self.me)
            .map(|p| p.send as u64)
            .sum::<u64>();
        match self.mode {
            ExchangeMode::Blocking => {
                let recv = self.recv_ptr();
                for p in self.peers.iter().filter(|p| p.rank != self.me) {
                    // SAFETY: in increasing rank order on every rank.
                    check(
                        unsafe {
                            ffi::MPI_Sendrecv(
                                self.send.as_ptr().add(p.send_at) as *const c_void,
                                p.send as c_int,
                                ffi::RSMPI_DOUBLE,
                                p.rank,
                                0,
                                recv.add(p.recv_at) as *mut c_void,
                                p.recv as c_int,
                                ffi::RSMPI_DOUBLE,
                                p.rank,
                                0,
                                self.comm.raw(),
                                ffi::RSMPI_STATUS_IGNORE,
                            )
                        },
                        "MPI_Sendrecv",
                    );
                }
            }
            ExchangeMode::Nonblocking => self.requests.as_mut().expect("requests").start(),
            ExchangeMode::Rma => {
                let (o, g) = (
                    self.origins.as_ref().expect("groups").0,
                    self.targets.as_ref().expect("groups").0,
                );
                let win = self.window();
                // SAFETY: our window and groups.
                unsafe {
                    check(ffi::MPI_Win_post(o, 0, win), "MPI_Win_post");
                    check(ffi::MPI_Win_start(g, 0, win), "MPI_Win_start");
                }
                self.put_all();
                self.exposed = false;
            }
            ExchangeMode::RmaFence => {
                // SAFETY: collective over the exchange's communicator.
                check(
                    unsafe { ffi::MPI_Win_fence(ffi::MPI_MODE_NOPRECEDE as c_int, self.window()) },
                    "MPI_Win_fence",
                );
                self.put_all();
            }
        }
        self.pending = true;
        self.times.start += t.elapsed();
    }

    fn progress(&mut self) {
        if !self.pending {
            return;
        }
        let t = Instant::now();
        match self.mode {
            ExchangeMode::Nonblocking => self.requests.as_mut().expect("requests").test(),
            ExchangeMode::Rma if !self.exposed => {
                let mut flag: c_int = 0;
                // SAFETY: completes the exposure epoch if every origin is done.
                check(
                    unsafe { ffi::MPI_Win_test(self.window(), &mut flag) },
                    "MPI_Win_test",
                );
                self.exposed = flag != 0;
            }
            _ => {}
        }
        self.times.progress += t.elapsed();
    }

    fn finish(&mut self) {
        if !self.pending {
            return;
        }
        let t = Instant::now();
        match self.mode {
            ExchangeMode::Blocking => {}
            ExchangeMode::Nonblocking => self.requests.as_mut().expect("requests").wait(),
            ExchangeMode::Rma => {
                let win = self.window();
                // SAFETY: closes the epochs opened in `start`.
                check(unsafe { ffi::MPI_Win_complete(win) }, "MPI_Win_complete");
                if !self.exposed {
                    check(unsafe { ffi::MPI_Win_wait(win) }, "MPI_Win_wait");
                }
                self.exposed = true;
            }
            ExchangeMode::RmaFence => {
                // SAFETY: collective, closes the fence epoch.
                check(
                    unsafe { ffi::MPI_Win_fence(ffi::MPI_MODE_NOSUCCEED as c_int, self.window()) },
                    "MPI_Win_fence",
                );
            }
        }
        self.copy_self();
        self.pending = false;
        self.times.wait += t.elapsed();
    }

    fn recv_buffer(&self) -> &[f64] {
        match &self.recv {
            Recv::Local(v) => v,
            Recv::Window(w) => w.slice(),
        }
    }

    fn pending(&self) -> bool {
        self.pending
    }

    fn times(&self) -> ExchangeTimes {
        self.times
    }

    fn bytes(&self) -> usize {
        let recv = match &self.recv {
            Recv::Local(v) => v.len(),
            Recv::Window(w) => w.len,
        };
        8 * (self.send.len() + recv)
    }
}

impl Drop for MpiExchange {
    fn drop(&mut self) {
        // Every rank has the same exchange under way at the same point.
        self.finish();
    }
}
