//! The world of an MPI job (feature `mpi`).
//!
//! rsmpi 0.8 exposes no one-sided communication, persistent requests or
//! user-defined reduction over raw bytes that fit here, so the exchanges
//! (`exchange`) and the reduction use its raw `mpi::ffi` bindings behind
//! small safe types; setup and output messages use rsmpi's safe API.
//!
//! Threads: every MPI call is made from the thread that runs the driver
//! (kernels run on a pool, MPI never does), so MPI needs
//! `MPI_THREAD_SERIALIZED` at most; [`MpiComm::init`] asks for it.

mod exchange;

use std::os::raw::{c_int, c_void};

use mpi::ffi;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;

use super::{Comm, Exchange, ExchangeMode, PeerCounts, Record, MAX_RECORD};

/// Largest message sent in one piece (MPI counts are 32-bit).
const CHUNK: usize = 1 << 30;
const TAG_BYTES: i32 = 21;

/// Panics (which ends the whole job, see [`install_panic_abort`]) if an MPI
/// call failed. MPI's default error handler aborts first anyway.
pub(crate) fn check(rc: c_int, what: &str) {
    assert!(rc == 0, "{what} failed (MPI error code {rc})");
}

/// A duplicate of `MPI_COMM_WORLD` owned by one user (an exchange, the
/// reducer), so that its messages never match anyone else's.
pub(crate) struct DupComm(ffi::MPI_Comm);

// SAFETY: a communicator handle may be used from any thread as long as calls
// are serialised, which the layer guarantees (see the module docs).
unsafe impl Send for DupComm {}

impl DupComm {
    /// Collective over `MPI_COMM_WORLD`.
    pub(crate) fn of_world() -> DupComm {
        // SAFETY: plain MPI calls with valid handles.
        let mut c: ffi::MPI_Comm = unsafe { ffi::RSMPI_COMM_NULL };
        check(
            unsafe { ffi::MPI_Comm_dup(ffi::RSMPI_COMM_WORLD, &mut c) },
            "MPI_Comm_dup",
        );
        DupComm(c)
    }

    pub(crate) fn raw(&self) -> ffi::MPI_Comm {
        self.0
    }
}

impl Drop for DupComm {
    fn drop(&mut self) {
        // SAFETY: the handle is ours; every rank drops at the same point.
        unsafe { ffi::MPI_Comm_free(&mut self.0) };
    }
}

/// The MPI reduction operator: `inout[k] = merge(in[k], inout[k])`.
///
/// # Safety
///
/// Called by MPI with buffers of `len` records of [`RECORD_BYTES`] bytes.
unsafe extern "C" fn merge_records(
    invec: *mut c_void,
    inoutvec: *mut c_void,
    len: *mut c_int,
    _datatype: *mut ffi::MPI_Datatype,
) {
    // SAFETY: MPI hands buffers of `len` elements of our datatype.
    let (a, b) = unsafe {
        let n = *len as usize;
        (
            std::slice::from_raw_parts(invec as *const u8, n * RECORD_BYTES),
            std::slice::from_raw_parts_mut(inoutvec as *mut u8, n * RECORD_BYTES),
        )
    };
    let mut acc = Record::default();
    let mut other = Record::default();
    for (x, y) in a
        .chunks_exact(RECORD_BYTES)
        .zip(b.chunks_exact_mut(RECORD_BYTES))
    {
        acc.decode_into(y);
        other.decode_into(x);
        acc.merge(&other);
        acc.encode(y);
    }
}

/// Bytes of one reduction record on the wire (room for the most values).
const RECORD_BYTES: usize = Record::encoded_len(MAX_RECORD);

/// The reduction's datatype, operator and buffers, made once.
struct Reducer {
    datatype: ffi::MPI_Datatype,
    op: ffi::MPI_Op,
    send: Vec<u8>,
    recv: Vec<u8>,
    comm: DupComm,
}

// SAFETY: handles used from one thread at a time (see the module docs).
unsafe impl Send for Reducer {}

impl Reducer {
    fn new() -> Reducer {
        // SAFETY: plain MPI calls creating handles this value owns.
        let mut datatype: ffi::MPI_Datatype = unsafe { ffi::RSMPI_DATATYPE_NULL };
        let mut op = ffi::MPI_Op(std::ptr::null_mut());
        unsafe {
            check(
                ffi::MPI_Type_contiguous(RECORD_BYTES as c_int, ffi::RSMPI_UINT8_T, &mut datatype),
                "MPI_Type_contiguous",
            );
            check(ffi::MPI_Type_commit(&mut datatype), "MPI_Type_commit");
            check(
                ffi::MPI_Op_create(Some(merge_records), 1, &mut op),
                "MPI_Op_create",
            );
        }
        Reducer {
            datatype,
            op,
            send: vec![0; RECORD_BYTES],
            recv: vec![0; RECORD_BYTES],
            comm: DupComm::of_world(),
        }
    }

    fn all_reduce(&mut self, r: &mut Record) {
        r.encode(&mut self.send);
        // SAFETY: both buffers hold one element of the datatype.
        check(
            unsafe {
                ffi::MPI_Allreduce(
                    self.send.as_ptr() as *const c_void,
                    self.recv.as_mut_ptr() as *mut c_void,
                    1,
                    self.datatype,
                    self.op,
                    self.comm.raw(),
                )
            },
            "MPI_Allreduce",
        );
        r.decode_into(&self.recv);
    }
}

impl Drop for Reducer {
    fn drop(&mut self) {
        // SAFETY: the handles are ours.
        unsafe {
            ffi::MPI_Op_free(&mut self.op);
            ffi::MPI_Type_free(&mut self.datatype);
        }
    }
}

/// The world of an MPI job.
pub struct MpiComm {
    world: SimpleCommunicator,
    node: (usize, usize),
    reducer: std::sync::Mutex<Reducer>,
    /// A communicator of its own for [`Comm::all_arrive_within`], so that
    /// its barrier never matches another rank's collective.
    faults: DupComm,
    // Dropped last: finalizes MPI.
    _universe: Option<mpi::environment::Universe>,
}

// SAFETY: every MPI call is made from one thread at a time (the driver's;
// see the module docs), which MPI_THREAD_SERIALIZED allows.
unsafe impl Send for MpiComm {}
// SAFETY: as above: calls are serialised by the layer.
unsafe impl Sync for MpiComm {}

impl MpiComm {
    /// Initialises MPI (`MPI_THREAD_SERIALIZED`) and returns the world, or
    /// `None` if MPI was initialised already.
    pub fn init() -> Option<MpiComm> {
        let (universe, _threading) = mpi::initialize_with_threading(mpi::Threading::Serialized)?;
        let world = universe.world();
        let node = {
            let n = world.split_shared(world.rank());
            (n.rank() as usize, n.size() as usize)
        };
        let comm = MpiComm {
            world,
            node,
            reducer: std::sync::Mutex::new(Reducer::new()),
            faults: DupComm::of_world(),
            _universe: Some(universe),
        };
        install_panic_abort(comm.world.rank());
        Some(comm)
    }

    /// Whether this process was started by an MPI launcher (`mpirun`,
    /// `mpiexec`, `srun`): the environment variables they set.
    pub fn launched() -> bool {
        [
            "OMPI_COMM_WORLD_SIZE",
            "PMI_SIZE",
            "PMIX_RANK",
            "MPI_LOCALNRANKS",
            "SLURM_STEP_NUM_TASKS",
        ]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
    }

    /// The number of ranks the launcher started (from its environment;
    /// `None` if unknown).
    pub fn launched_ranks() -> Option<usize> {
        ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"]
            .iter()
            .find_map(|v| std::env::var(v).ok()?.parse().ok())
    }
}

impl Comm for MpiComm {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn describe(&self) -> String {
        format!("MPI ({} ranks)", self.size())
    }

    fn exchange(&self, peers: &[PeerCounts], mode: ExchangeMode) -> Box<dyn Exchange> {
        Box::new(exchange::MpiExchange::new(self.rank(), peers, mode))
    }

    fn all_reduce(&self, r: &mut Record) {
        let mut red = match self.reducer.lock() {
            Ok(g) => g,
            Err(e) => e.into_inner(),
        };
        red.all_reduce(r);
    }

    fn send(&self, dest: usize, bytes: &[u8]) {
        let p = self.world.process_at_rank(dest as i32);
        p.send_with_tag(&(bytes.len() as u64).to_le_bytes()[..], TAG_BYTES);
        for c in bytes.chunks(CHUNK) {
            p.send_with_tag(c, TAG_BYTES);
        }
    }

    fn receive(&self, source: usize) -> Vec<u8> {
        let p = self.world.process_at_rank(source as i32);
        let mut len = [0u8; 8];
        p.receive_into_with_tag(&mut len[..], TAG_BYTES);
        let mut out = vec![0u8; u64::from_le_bytes(len) as usize];
        for c in out.chunks_mut(CHUNK) {
            p.receive_into_with_tag(c, TAG_BYTES);
        }
        out
    }

    fn broadcast(&self, root: usize, bytes: &mut Vec<u8>) {
        let r = self.world.process_at_rank(root as i32);
        let mut len = (bytes.len() as u64).to_le_bytes();
        r.broadcast_into(&mut len[..]);
        if self.rank() != root {
            *bytes = vec![0u8; u64::from_le_bytes(len) as usize];
        }
        for c in bytes.chunks_mut(CHUNK) {
            r.broadcast_into(c);
        }
    }

    fn abort(&self, code: i32) -> ! {
        abort(code)
    }

    fn all_arrive_within(&self, grace: std::time::Duration) -> bool {
        let deadline = std::time::Instant::now() + grace;
        let mut request: ffi::MPI_Request = unsafe { ffi::RSMPI_REQUEST_NULL };
        // SAFETY: a non-blocking barrier on our own communicator; the
        // request is tested until it completes or the deadline passes (then
        // the caller aborts the job, so a pending request is never reused).
        check(
            unsafe { ffi::MPI_Ibarrier(self.faults.raw(), &mut request) },
            "MPI_Ibarrier",
        );
        loop {
            let mut done: c_int = 0;
            // SAFETY: `request` is the barrier's, still pending.
            check(
                unsafe { ffi::MPI_Test(&mut request, &mut done, ffi::RSMPI_STATUS_IGNORE) },
                "MPI_Test",
            );
            if done != 0 {
                return true;
            }
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    fn node_rank(&self) -> (usize, usize) {
        self.node
    }
}

/// Ends the whole job at once (`MPI_Abort`), from any rank.
pub fn abort(code: i32) -> ! {
    // SAFETY: a plain MPI call on the world communicator.
    unsafe {
        ffi::MPI_Abort(ffi::RSMPI_COMM_WORLD, code);
    }
    std::process::exit(code)
}

/// Makes a panic on any thread of this rank end the whole job (after the
/// usual panic message, prefixed with the rank), so that a bug on one rank
/// never leaves the others waiting for it.
pub fn install_panic_abort(rank: i32) {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        eprintln!("rank {rank}: panic; ending the MPI job");
        default(info);
        abort(101);
    }));
}
