//! Ghost exchange: what each rank sends and receives, and the four ways of
//! moving it (two-sided blocking, two-sided non-blocking with persistent
//! requests, one-sided puts with general active-target or fence
//! synchronisation).

use std::os::raw::{c_int, c_void};
use std::time::{Duration, Instant};

use mpi::ffi;
use qflow_lskum::Vec4;

use super::local::LocalCompute;
use crate::cpu::CpuState;

/// How ghosts are exchanged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExchangeMode {
    /// `MPI_Sendrecv` with each neighbour in turn (increasing rank), right
    /// after the step that writes the values: no overlap.
    Blocking,
    /// Persistent `MPI_Isend`/`MPI_Irecv` started after the step that
    /// writes the values, finished by the next step that reads ghosts after
    /// it has computed its interior points: overlap.
    #[default]
    Nonblocking,
    /// `MPI_Put` into the neighbours' ghost windows, synchronised with
    /// `MPI_Win_post`/`start`/`complete`/`wait` among neighbours only; the
    /// wait is deferred as in `Nonblocking`.
    Rma,
    /// `MPI_Put` between two `MPI_Win_fence`s (collective over all ranks);
    /// the closing fence is deferred as in `Nonblocking`.
    RmaFence,
}

impl std::str::FromStr for ExchangeMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "blocking" => Ok(Self::Blocking),
            "nonblocking" => Ok(Self::Nonblocking),
            "rma" => Ok(Self::Rma),
            "rma-fence" => Ok(Self::RmaFence),
            o => Err(format!(
                "unknown exchange '{o}' (blocking, nonblocking, rma, rma-fence)"
            )),
        }
    }
}

impl ExchangeMode {
    /// The name, as on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Blocking => "blocking",
            Self::Nonblocking => "nonblocking",
            Self::Rma => "rma",
            Self::RmaFence => "rma-fence",
        }
    }

    /// Whether the exchange is finished only where the ghosts are read
    /// (after the interior points are computed).
    pub fn overlaps(self) -> bool {
        self != Self::Blocking
    }
}

/// The fields one exchange carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fields {
    /// The primitive state (after a state update).
    Prim = 0,
    /// First q-derivatives and the limiter's stencil bounds (after
    /// `q_derivatives`).
    Derivatives = 1,
    /// q-derivatives (after an inner iteration).
    Gradients = 2,
}

impl Fields {
    /// Values per point.
    pub fn width(self) -> usize {
        match self {
            Self::Prim => 4,
            Self::Derivatives => 16,
            Self::Gradients => 8,
        }
    }

    const ALL: [Fields; 3] = [Fields::Prim, Fields::Derivatives, Fields::Gradients];

    /// The arrays carried, in packing order.
    pub(crate) fn arrays(self, s: &CpuState) -> [&[Vec4]; 4] {
        let e: &[Vec4] = &[];
        match self {
            Self::Prim => [&s.prim, e, e, e],
            Self::Derivatives => [&s.qx, &s.qy, &s.q_max, &s.q_min],
            Self::Gradients => [&s.qx, &s.qy, e, e],
        }
    }

    /// The arrays carried, to write, in packing order.
    pub(crate) fn arrays_mut(self, s: &mut CpuState) -> [&mut [Vec4]; 4] {
        match self {
            Self::Prim => [&mut s.prim, &mut [], &mut [], &mut []],
            Self::Derivatives => [&mut s.qx, &mut s.qy, &mut s.q_max, &mut s.q_min],
            Self::Gradients => [&mut s.qx, &mut s.qy, &mut [], &mut []],
        }
    }

    /// 4-component arrays carried.
    pub(crate) fn count(self) -> usize {
        self.width() / 4
    }
}

/// Panics (which ends the whole job, see [`super::install_panic_abort`])
/// if an MPI call failed. MPI's default error handler aborts first anyway.
pub(crate) fn check(rc: c_int, what: &str) {
    assert!(rc == 0, "{what} failed (MPI error code {rc})");
}

/// A duplicate of `MPI_COMM_WORLD` that the exchange owns, so its messages
/// can never match anyone else's.
pub(crate) struct Comm(ffi::MPI_Comm);

// SAFETY: an MPI communicator handle may be used from any thread as long as
// calls are serialised (the run initialises MPI with at least
// MPI_THREAD_SERIALIZED when it runs kernels on a thread pool, and the
// backend makes MPI calls only from the thread running the solver's step).
unsafe impl Send for Comm {}

impl Comm {
    pub(crate) fn dup_world() -> Comm {
        let mut c: ffi::MPI_Comm = unsafe { ffi::RSMPI_COMM_NULL };
        check(
            unsafe { ffi::MPI_Comm_dup(ffi::RSMPI_COMM_WORLD, &mut c) },
            "MPI_Comm_dup",
        );
        Comm(c)
    }

    pub(crate) fn raw(&self) -> ffi::MPI_Comm {
        self.0
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        unsafe { ffi::MPI_Comm_free(&mut self.0) };
    }
}

/// An MPI group of some ranks of a communicator.
struct Group(ffi::MPI_Group);

unsafe impl Send for Group {}

impl Group {
    fn of(comm: &Comm, ranks: &[c_int]) -> Group {
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
        unsafe { ffi::MPI_Group_free(&mut self.0) };
    }
}

/// Persistent requests of one kind of exchange.
struct Requests(Vec<ffi::MPI_Request>);

unsafe impl Send for Requests {}

impl Requests {
    fn start(&mut self) {
        if !self.0.is_empty() {
            check(
                unsafe { ffi::MPI_Startall(self.0.len() as c_int, self.0.as_mut_ptr()) },
                "MPI_Startall",
            );
        }
    }

    fn wait(&mut self) {
        if !self.0.is_empty() {
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

    /// Drives progress; true once all are complete (then they are inactive
    /// and [`Requests::wait`] returns at once).
    fn test(&mut self) -> bool {
        if self.0.is_empty() {
            return true;
        }
        let mut flag: c_int = 0;
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
        flag != 0
    }
}

impl Drop for Requests {
    fn drop(&mut self) {
        for r in &mut self.0 {
            unsafe { ffi::MPI_Request_free(r) };
        }
    }
}

/// A window of `f64` that neighbours put ghost values into.
struct Window {
    win: ffi::MPI_Win,
    base: *mut f64,
}

unsafe impl Send for Window {}

impl Window {
    /// Collective over `comm`.
    fn allocate(comm: &Comm, len: usize) -> Window {
        let mut base: *mut f64 = std::ptr::null_mut();
        let mut win: ffi::MPI_Win = unsafe { ffi::RSMPI_WIN_NULL };
        check(
            unsafe {
                ffi::MPI_Win_allocate(
                    (len * 8) as ffi::MPI_Aint,
                    8,
                    ffi::RSMPI_INFO_NULL,
                    comm.raw(),
                    &mut base as *mut *mut f64 as *mut c_void,
                    &mut win,
                )
            },
            "MPI_Win_allocate",
        );
        Window { win, base }
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        // Collective: every rank drops its exchange at the same point.
        unsafe { ffi::MPI_Win_free(&mut self.win) };
    }
}

/// The receive side of the ghost buffer: a vector, or a window's memory.
enum RecvBuffer {
    Local(Vec<f64>),
    Window(Window, usize),
}

impl RecvBuffer {
    fn as_slice(&self) -> &[f64] {
        match self {
            RecvBuffer::Local(v) => v,
            // SAFETY: the window holds `len` f64 and lives as long as self;
            // it is read only after the epoch that writes it is closed.
            RecvBuffer::Window(w, len) if *len > 0 => unsafe {
                std::slice::from_raw_parts(w.base, *len)
            },
            RecvBuffer::Window(..) => &[],
        }
    }

    fn as_mut_ptr(&mut self) -> *mut f64 {
        match self {
            RecvBuffer::Local(v) => v.as_mut_ptr(),
            RecvBuffer::Window(w, _) => w.base,
        }
    }
}

/// One neighbour's receive block and send list.
struct Peer {
    rank: c_int,
    /// First ghost (index among the ghosts, not local index) and count
    /// received from this rank (count 0: none).
    recv_at: usize,
    recv_len: usize,
    /// First entry in the send buffer (in points) and the number of points
    /// sent (0: none); the points are `Exchanger::send_points[send_at..]`.
    send_at: usize,
    send_len: usize,
    /// Where the sent block lands among the neighbour's ghosts.
    put_at: usize,
}

/// Time and volume of the exchanges so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ExchangeTimes {
    /// Exchanges started.
    pub exchanges: u64,
    /// Bytes sent (payload).
    pub bytes_sent: u64,
    /// Packing and posting (or, blocking, the whole exchange).
    pub start: Duration,
    /// Blocked waiting for ghosts to arrive.
    pub wait: Duration,
    /// Copying received values into the ghost slots.
    pub unpack: Duration,
    /// Polls for progress while the interior is computed.
    pub progress: Duration,
}

/// The ghost exchange of one rank.
pub(crate) struct Exchanger {
    mode: ExchangeMode,
    n_owned: usize,
    ghosts: usize,
    peers: Vec<Peer>,
    /// The local points sent, every peer's list in turn (peer order).
    send_points: Vec<u32>,
    send_buf: Vec<f64>,
    recv: RecvBuffer,
    requests: Vec<Requests>,
    origins: Option<Group>,
    targets: Option<Group>,
    /// The exchange under way, if any.
    pending: Option<Fields>,
    /// PSCW: the exposure epoch is known to be complete.
    exposed: bool,
    times: ExchangeTimes,
    // Dropped last: the requests and the window belong to it.
    comm: Comm,
}

impl Exchanger {
    /// The exchange of a part: ghosts `n_owned..n_owned + ghosts` arrive in
    /// blocks `(rank, first local index, count)`; the owned points of each
    /// send list `(rank, local points, offset among the reader's ghosts)`
    /// leave. Collective (over `MPI_COMM_WORLD`).
    pub(crate) fn new(
        mode: ExchangeMode,
        n_owned: usize,
        ghosts: usize,
        recv: &[(u32, usize, usize)],
        send: &[(u32, Vec<u32>, usize)],
    ) -> Exchanger {
        let comm = Comm::dup_world();
        let mut ranks: Vec<u32> = recv
            .iter()
            .map(|r| r.0)
            .chain(send.iter().map(|s| s.0))
            .collect();
        ranks.sort_unstable();
        ranks.dedup();
        let mut send_points = Vec::new();
        let peers: Vec<Peer> = ranks
            .iter()
            .map(|&r| {
                let (recv_at, recv_len) = recv
                    .iter()
                    .find(|b| b.0 == r)
                    .map_or((0, 0), |b| (b.1 - n_owned, b.2));
                let (list, put_at) = send
                    .iter()
                    .find(|s| s.0 == r)
                    .map_or((&[][..], 0), |s| (&s.1[..], s.2));
                let p = Peer {
                    rank: r as c_int,
                    recv_at,
                    recv_len,
                    send_at: send_points.len(),
                    put_at,
                    send_len: list.len(),
                };
                send_points.extend_from_slice(list);
                p
            })
            .collect();
        let send_at = send_points.len();
        let max_width = Fields::Derivatives.width();
        let send_buf = vec![0.0; send_at * max_width];
        let rma = matches!(mode, ExchangeMode::Rma | ExchangeMode::RmaFence);
        let recv_buf = if rma {
            RecvBuffer::Window(
                Window::allocate(&comm, ghosts * max_width),
                ghosts * max_width,
            )
        } else {
            RecvBuffer::Local(vec![0.0; ghosts * max_width])
        };
        let mut x = Exchanger {
            mode,
            n_owned,
            ghosts,
            peers,
            send_points,
            send_buf,
            recv: recv_buf,
            requests: Vec::new(),
            origins: None,
            targets: None,
            pending: None,
            exposed: false,
            times: ExchangeTimes::default(),
            comm,
        };
        match mode {
            ExchangeMode::Nonblocking => {
                for f in Fields::ALL {
                    let r = x.persistent(f);
                    x.requests.push(r);
                }
            }
            ExchangeMode::Rma => {
                let from: Vec<c_int> = x
                    .peers
                    .iter()
                    .filter(|p| p.recv_len > 0)
                    .map(|p| p.rank)
                    .collect();
                let to: Vec<c_int> = x
                    .peers
                    .iter()
                    .filter(|p| p.send_len > 0)
                    .map(|p| p.rank)
                    .collect();
                x.origins = Some(Group::of(&x.comm, &from));
                x.targets = Some(Group::of(&x.comm, &to));
            }
            _ => {}
        }
        x
    }

    /// The persistent requests of one kind of exchange: receives first.
    fn persistent(&mut self, f: Fields) -> Requests {
        let w = f.width();
        let tag = f as c_int;
        let mut reqs = Vec::new();
        let recv_base = self.recv.as_mut_ptr();
        let send_base = self.send_buf.as_mut_ptr();
        for p in &self.peers {
            if p.recv_len > 0 {
                let mut r: ffi::MPI_Request = unsafe { ffi::RSMPI_REQUEST_NULL };
                check(
                    unsafe {
                        ffi::MPI_Recv_init(
                            recv_base.add(p.recv_at * w) as *mut c_void,
                            (p.recv_len * w) as c_int,
                            ffi::RSMPI_DOUBLE,
                            p.rank,
                            tag,
                            self.comm.raw(),
                            &mut r,
                        )
                    },
                    "MPI_Recv_init",
                );
                reqs.push(r);
            }
        }
        for p in &self.peers {
            if p.send_len > 0 {
                let mut r: ffi::MPI_Request = unsafe { ffi::RSMPI_REQUEST_NULL };
                check(
                    unsafe {
                        ffi::MPI_Send_init(
                            send_base.add(p.send_at * w) as *const c_void,
                            (p.send_len * w) as c_int,
                            ffi::RSMPI_DOUBLE,
                            p.rank,
                            tag,
                            self.comm.raw(),
                            &mut r,
                        )
                    },
                    "MPI_Send_init",
                );
                reqs.push(r);
            }
        }
        Requests(reqs)
    }

    pub(crate) fn mode(&self) -> ExchangeMode {
        self.mode
    }

    /// The exchange under way, if any.
    pub(crate) fn pending(&self) -> Option<Fields> {
        self.pending
    }

    pub(crate) fn times(&self) -> ExchangeTimes {
        self.times
    }

    pub(crate) fn reset_times(&mut self) {
        self.times = ExchangeTimes::default();
    }

    /// Bytes of buffers held.
    pub(crate) fn bytes(&self) -> usize {
        8 * (self.send_buf.len() + self.ghosts * Fields::Derivatives.width())
            + 4 * self.send_points.len()
    }

    /// Whether this rank exchanges with anyone.
    pub(crate) fn has_peers(&self) -> bool {
        !self.peers.is_empty()
    }

    fn pack(&mut self, f: Fields, local: &mut impl LocalCompute) {
        let n = self.send_points.len() * f.width();
        local.pack(f, &self.send_points, &mut self.send_buf[..n]);
    }

    fn unpack(&mut self, f: Fields, local: &mut impl LocalCompute) {
        let t = Instant::now();
        let n = self.ghosts * f.width();
        local.unpack(f, self.n_owned, &self.recv.as_slice()[..n]);
        self.times.unpack += t.elapsed();
    }

    /// Starts the exchange of `f` from the owned points of `local`
    /// (blocking mode: does it all, ghosts of `local` included). A previous
    /// exchange must be finished.
    pub(crate) fn start(&mut self, f: Fields, local: &mut impl LocalCompute) {
        assert!(
            self.pending.is_none(),
            "an exchange was started while another was under way"
        );
        let t = Instant::now();
        self.pack(f, local);
        let w = f.width();
        self.times.exchanges += 1;
        self.times.bytes_sent += 8 * (w * self.send_points.len()) as u64;
        match self.mode {
            ExchangeMode::Blocking => {
                self.times.start += t.elapsed();
                let t = Instant::now();
                let recv_base = self.recv.as_mut_ptr();
                for p in &self.peers {
                    check(
                        unsafe {
                            ffi::MPI_Sendrecv(
                                self.send_buf.as_ptr().add(p.send_at * w) as *const c_void,
                                (p.send_len * w) as c_int,
                                ffi::RSMPI_DOUBLE,
                                p.rank,
                                f as c_int,
                                recv_base.add(p.recv_at * w) as *mut c_void,
                                (p.recv_len * w) as c_int,
                                ffi::RSMPI_DOUBLE,
                                p.rank,
                                f as c_int,
                                self.comm.raw(),
                                ffi::RSMPI_STATUS_IGNORE,
                            )
                        },
                        "MPI_Sendrecv",
                    );
                }
                self.times.wait += t.elapsed();
                self.unpack(f, local);
                return;
            }
            ExchangeMode::Nonblocking => self.requests[f as usize].start(),
            ExchangeMode::Rma => {
                let (origins, targets) = (
                    self.origins.as_ref().expect("rma groups").0,
                    self.targets.as_ref().expect("rma groups").0,
                );
                let win = self.window();
                unsafe {
                    check(ffi::MPI_Win_post(origins, 0, win), "MPI_Win_post");
                    check(ffi::MPI_Win_start(targets, 0, win), "MPI_Win_start");
                }
                self.put_all(f);
                self.exposed = false;
            }
            ExchangeMode::RmaFence => {
                let win = self.window();
                check(
                    unsafe { ffi::MPI_Win_fence(ffi::MPI_MODE_NOPRECEDE as c_int, win) },
                    "MPI_Win_fence",
                );
                self.put_all(f);
            }
        }
        self.pending = Some(f);
        self.times.start += t.elapsed();
    }

    fn window(&self) -> ffi::MPI_Win {
        match &self.recv {
            RecvBuffer::Window(w, _) => w.win,
            RecvBuffer::Local(_) => unreachable!("one-sided exchange without a window"),
        }
    }

    fn put_all(&mut self, f: Fields) {
        let w = f.width();
        let win = self.window();
        for p in &self.peers {
            if p.send_len == 0 {
                continue;
            }
            let n = (p.send_len * w) as c_int;
            check(
                unsafe {
                    ffi::MPI_Put(
                        self.send_buf.as_ptr().add(p.send_at * w) as *const c_void,
                        n,
                        ffi::RSMPI_DOUBLE,
                        p.rank,
                        (p.put_at * w) as ffi::MPI_Aint,
                        n,
                        ffi::RSMPI_DOUBLE,
                        win,
                    )
                },
                "MPI_Put",
            );
        }
    }

    /// Drives the exchange under way while the interior is computed.
    pub(crate) fn progress(&mut self) {
        let Some(f) = self.pending else { return };
        let t = Instant::now();
        match self.mode {
            ExchangeMode::Nonblocking => {
                self.requests[f as usize].test();
            }
            ExchangeMode::Rma if !self.exposed => {
                let mut flag: c_int = 0;
                // Completes the exposure epoch if every origin is done.
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

    fn complete(&mut self, f: Fields) {
        let t = Instant::now();
        match self.mode {
            ExchangeMode::Blocking => {}
            ExchangeMode::Nonblocking => self.requests[f as usize].wait(),
            ExchangeMode::Rma => {
                let win = self.window();
                check(unsafe { ffi::MPI_Win_complete(win) }, "MPI_Win_complete");
                if !self.exposed {
                    check(unsafe { ffi::MPI_Win_wait(win) }, "MPI_Win_wait");
                }
                self.exposed = true;
            }
            ExchangeMode::RmaFence => {
                check(
                    unsafe { ffi::MPI_Win_fence(ffi::MPI_MODE_NOSUCCEED as c_int, self.window()) },
                    "MPI_Win_fence",
                );
            }
        }
        self.times.wait += t.elapsed();
        self.pending = None;
    }

    /// Finishes the exchange under way, if any, into the ghosts of `local`.
    pub(crate) fn finish(&mut self, local: &mut impl LocalCompute) {
        if let Some(f) = self.pending {
            self.complete(f);
            self.unpack(f, local);
        }
    }

    /// Finishes the exchange under way, if any, dropping what arrives.
    pub(crate) fn finish_discard(&mut self) {
        if let Some(f) = self.pending {
            self.complete(f);
        }
    }
}

impl Drop for Exchanger {
    fn drop(&mut self) {
        // Every rank has the same exchange under way at the same point.
        self.finish_discard();
    }
}
