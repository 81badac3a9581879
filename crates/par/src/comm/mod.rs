//! Communication between ranks: a [`Comm`] moves halo values
//! ([`Exchange`]), merges reductions and carries the setup and output
//! traffic. [`SelfComm`] is the world of one rank (the plain build, and
//! `mpirun -np 1`'s equivalent): the same code path, with exchanges only
//! where a periodic block wraps onto itself. With the feature `mpi`,
//! `MpiComm` is the world of an MPI job.

use std::time::Duration;

use bitrep::SumF64;

use crate::decl::Reduction;
use crate::kernel::Partials;

#[cfg(feature = "mpi")]
pub mod mpi;

/// How halos are exchanged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExchangeMode {
    /// `MPI_Sendrecv` with each neighbour in turn (increasing rank) before
    /// the loop that reads the halo: no overlap.
    Blocking,
    /// Persistent `MPI_Isend`/`MPI_Irecv` started before the loop that
    /// reads the halo, finished after it has computed its core elements:
    /// overlap.
    #[default]
    Nonblocking,
    /// `MPI_Put` into the neighbours' halo windows, synchronised with
    /// `MPI_Win_post`/`start`/`complete`/`wait` among neighbours only;
    /// finished after the core as in `Nonblocking`.
    Rma,
    /// `MPI_Put` between two `MPI_Win_fence`s (collective over all ranks);
    /// the closing fence after the core.
    RmaFence,
}

impl std::str::FromStr for ExchangeMode {
    type Err = String;
    /// The serde names, so the case file and the command line agree.
    fn from_str(s: &str) -> Result<Self, String> {
        use serde::de::{value::Error, IntoDeserializer};
        use serde::Deserialize;
        Self::deserialize(s.into_deserializer()).map_err(|e: Error| format!("exchange '{s}': {e}"))
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

    /// Whether the exchange is finished only after the core is computed.
    pub fn overlaps(self) -> bool {
        self != Self::Blocking
    }
}

/// One neighbour of an exchange: how many elements go each way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerCounts {
    /// The neighbour's rank.
    pub rank: usize,
    /// Values sent.
    pub send: usize,
    /// Values received.
    pub recv: usize,
}

/// Time and volume of halo exchanges.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ExchangeTimes {
    /// Exchanges started.
    pub exchanges: u64,
    /// Bytes sent (payload).
    pub bytes_sent: u64,
    /// Packing and posting (blocking: the whole exchange).
    pub start: Duration,
    /// Blocked waiting for halos to arrive.
    pub wait: Duration,
    /// Copying received values into the halos.
    pub unpack: Duration,
    /// Polls for progress while the core is computed.
    pub progress: Duration,
}

impl ExchangeTimes {
    /// Adds another's counts and times.
    pub fn add(&mut self, o: &ExchangeTimes) {
        self.exchanges += o.exchanges;
        self.bytes_sent += o.bytes_sent;
        self.start += o.start;
        self.wait += o.wait;
        self.unpack += o.unpack;
        self.progress += o.progress;
    }
}

/// One kind of halo exchange (a set and the dats it carries), with its
/// buffers: values for each peer in turn (peers in rank order).
pub trait Exchange: Send {
    /// Where the values to send are packed.
    fn send_buffer(&mut self) -> &mut [f64];
    /// Starts moving them (blocking mode: moves them).
    fn start(&mut self);
    /// Lets the exchange progress while the core is computed.
    fn progress(&mut self);
    /// Waits until every value has arrived.
    fn finish(&mut self);
    /// The values received (valid after `finish`).
    fn recv_buffer(&self) -> &[f64];
    /// Whether an exchange is under way.
    fn pending(&self) -> bool;
    /// Counts and times.
    fn times(&self) -> ExchangeTimes;
    /// Bytes of buffers held.
    fn bytes(&self) -> usize;
}

/// Flags carried by every reduction.
pub mod flags {
    /// A rank asks every rank to stop (a signal).
    pub const STOP: u64 = 1;
    /// A rank's backend failed.
    pub const ERROR: u64 = 2;
    /// The first bit of the signals behind a stop: signal `s` (below 56)
    /// sets bit `SIGNAL_SHIFT + s`, so every rank learns which signals the
    /// ranks that received one got.
    pub const SIGNAL_SHIFT: u32 = 8;
}

/// Most values one reduction carries.
pub const MAX_RECORD: usize = 16;

/// What the ranks merge in one reduction: reduced values and control
/// flags. Fixed-size, so that a step's reduction allocates nothing.
#[derive(Clone, Debug)]
pub struct Record {
    /// Values in use.
    pub n: usize,
    /// The operation of each value.
    pub ops: [Reduction; MAX_RECORD],
    /// Exact sums.
    pub sums: [SumF64; MAX_RECORD],
    /// Extrema.
    pub ext: [f64; MAX_RECORD],
    /// Control flags ([`flags`]), or-ed over ranks.
    pub flags: u64,
    /// The lowest rank that reported an error (`u64::MAX`: none).
    pub error_rank: u64,
}

impl Default for Record {
    fn default() -> Self {
        Record {
            n: 0,
            ops: [Reduction::Sum; MAX_RECORD],
            sums: Default::default(),
            ext: [0.0; MAX_RECORD],
            flags: 0,
            error_rank: u64::MAX,
        }
    }
}

impl Record {
    /// Empties the record (no values, no flags).
    pub fn clear(&mut self) {
        self.n = 0;
        self.flags = 0;
        self.error_rank = u64::MAX;
    }

    /// Adds the values of a partial result.
    pub fn push(&mut self, p: &Partials) {
        for k in 0..p.n {
            assert!(
                self.n < MAX_RECORD,
                "more than {MAX_RECORD} values in one reduction"
            );
            self.ops[self.n] = p.ops[k];
            self.sums[self.n] = p.sums[k].clone();
            self.ext[self.n] = p.ext[k];
            self.n += 1;
        }
    }

    /// Merges another rank's record.
    pub fn merge(&mut self, o: &Record) {
        for k in 0..self.n.min(o.n) {
            match self.ops[k] {
                Reduction::Sum => self.sums[k].merge(&o.sums[k]),
                Reduction::Min => self.ext[k] = ext(self.ext[k], o.ext[k], true),
                Reduction::Max => self.ext[k] = ext(self.ext[k], o.ext[k], false),
            }
        }
        self.flags |= o.flags;
        self.error_rank = self.error_rank.min(o.error_rank);
    }

    /// Value `k`.
    pub fn value(&self, k: usize) -> f64 {
        match self.ops[k] {
            Reduction::Sum => self.sums[k].value(),
            _ => self.ext[k],
        }
    }

    /// Bytes of the encoding of a record of `n` values.
    pub const fn encoded_len(n: usize) -> usize {
        24 + n * (1 + SumF64::BYTES + 8)
    }

    /// Encodes into `b` (of [`Record::encoded_len`] bytes).
    pub fn encode(&self, b: &mut [u8]) {
        b[..8].copy_from_slice(&(self.n as u64).to_le_bytes());
        b[8..16].copy_from_slice(&self.flags.to_le_bytes());
        b[16..24].copy_from_slice(&self.error_rank.to_le_bytes());
        let mut at = 24;
        for k in 0..self.n {
            b[at] = match self.ops[k] {
                Reduction::Sum => 0,
                Reduction::Min => 1,
                Reduction::Max => 2,
            };
            b[at + 1..at + 1 + SumF64::BYTES].copy_from_slice(&self.sums[k].to_bytes());
            let x = at + 1 + SumF64::BYTES;
            b[x..x + 8].copy_from_slice(&self.ext[k].to_le_bytes());
            at = x + 8;
        }
    }

    /// Decodes a record (into `self`, which keeps its storage).
    pub fn decode_into(&mut self, b: &[u8]) {
        let u = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
        self.n = (u(0) as usize).min(MAX_RECORD);
        self.flags = u(8);
        self.error_rank = u(16);
        let mut at = 24;
        for k in 0..self.n {
            self.ops[k] = match b[at] {
                0 => Reduction::Sum,
                1 => Reduction::Min,
                _ => Reduction::Max,
            };
            let s: &[u8; SumF64::BYTES] =
                b[at + 1..at + 1 + SumF64::BYTES].try_into().expect("a sum");
            // Only `encode` writes records.
            self.sums[k] = SumF64::from_bytes(s).expect("a valid exact sum");
            let x = at + 1 + SumF64::BYTES;
            self.ext[k] = f64::from_le_bytes(b[x..x + 8].try_into().expect("8 bytes"));
            at = x + 8;
        }
    }
}

/// Min (`min = true`) or max of two values, a NaN kept (the merge of two
/// partial minima or maxima, here and in the CPU backend).
pub(crate) fn ext(a: f64, b: f64, min: bool) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if min {
        a.min(b)
    } else {
        a.max(b)
    }
}

/// The ranks of a run, as the layer uses them.
pub trait Comm: Send {
    /// This rank.
    fn rank(&self) -> usize;
    /// Ranks in all.
    fn size(&self) -> usize;
    /// A name for summaries (`one process`, `MPI (4 ranks)`).
    fn describe(&self) -> String;
    /// An exchange with these peers (`send`/`recv` counted in values).
    /// Collective: every rank creates its exchanges in the same order.
    fn exchange(&self, peers: &[PeerCounts], mode: ExchangeMode) -> Box<dyn Exchange>;
    /// Merges every rank's record (all ranks get the result).
    fn all_reduce(&self, r: &mut Record);
    /// Sends bytes to rank `dest`.
    fn send(&self, dest: usize, bytes: &[u8]);
    /// Receives bytes from rank `source`.
    fn receive(&self, source: usize) -> Vec<u8>;
    /// Rank `root`'s bytes on every rank.
    fn broadcast(&self, root: usize, bytes: &mut Vec<u8>);
    /// Ends every rank of the job at once (after a fault on one).
    fn abort(&self, code: i32) -> !;
    /// Whether every rank calls this within `grace` of this rank: a rank
    /// that ran into an error asks whether the others ran into it too
    /// (an error every rank has, or agreed). If they did not, they are
    /// waiting for this rank in an exchange or a reduction, and only
    /// [`Comm::abort`] frees them. Collective in that sense only: ranks
    /// that never call it are what it detects.
    fn all_arrive_within(&self, grace: std::time::Duration) -> bool {
        let _ = grace;
        self.size() == 1
    }
    /// This rank's index among the ranks on its node, and their number
    /// (threads per rank and devices per node follow from them).
    fn node_rank(&self) -> (usize, usize) {
        (0, 1)
    }
}

/// The world of one rank.
#[derive(Debug, Default)]
pub struct SelfComm;

/// The exchange of a rank with itself (a periodic block wrapping onto one
/// rank): the packed values become the received ones by a swap of the two
/// buffers, not a copy (the executor packs the whole send buffer before
/// every exchange, so the stale values the swap leaves there are never
/// read).
struct SelfExchange {
    send: Vec<f64>,
    recv: Vec<f64>,
    pending: bool,
    times: ExchangeTimes,
}

impl Exchange for SelfExchange {
    fn send_buffer(&mut self) -> &mut [f64] {
        &mut self.send
    }
    fn start(&mut self) {
        self.times.exchanges += 1;
        self.pending = true;
    }
    fn progress(&mut self) {}
    fn finish(&mut self) {
        if self.pending {
            std::mem::swap(&mut self.send, &mut self.recv);
            self.pending = false;
        }
    }
    fn recv_buffer(&self) -> &[f64] {
        &self.recv
    }
    fn pending(&self) -> bool {
        self.pending
    }
    fn times(&self) -> ExchangeTimes {
        self.times
    }
    fn bytes(&self) -> usize {
        8 * (self.send.len() + self.recv.len())
    }
}

impl Comm for SelfComm {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn describe(&self) -> String {
        "one process".into()
    }
    fn exchange(&self, peers: &[PeerCounts], _mode: ExchangeMode) -> Box<dyn Exchange> {
        let send: usize = peers.iter().map(|p| p.send).sum();
        let recv: usize = peers.iter().map(|p| p.recv).sum();
        assert!(
            peers.iter().all(|p| p.rank == 0) && send == recv,
            "a rank alone exchanges only with itself"
        );
        Box::new(SelfExchange {
            send: vec![0.0; send],
            recv: vec![0.0; recv],
            pending: false,
            times: ExchangeTimes::default(),
        })
    }
    fn all_reduce(&self, _r: &mut Record) {}
    fn send(&self, _dest: usize, _bytes: &[u8]) {
        panic!("a rank alone sends to no one")
    }
    fn receive(&self, _source: usize) -> Vec<u8> {
        panic!("a rank alone receives from no one")
    }
    fn broadcast(&self, _root: usize, _bytes: &mut Vec<u8>) {}
    fn abort(&self, code: i32) -> ! {
        std::process::exit(code)
    }
}

/// A shared world (several executors in turn over one MPI job, as tests
/// run them).
impl<T: Comm + Sync + ?Sized> Comm for std::sync::Arc<T> {
    fn rank(&self) -> usize {
        (**self).rank()
    }
    fn size(&self) -> usize {
        (**self).size()
    }
    fn describe(&self) -> String {
        (**self).describe()
    }
    fn exchange(&self, peers: &[PeerCounts], mode: ExchangeMode) -> Box<dyn Exchange> {
        (**self).exchange(peers, mode)
    }
    fn all_reduce(&self, r: &mut Record) {
        (**self).all_reduce(r)
    }
    fn send(&self, dest: usize, bytes: &[u8]) {
        (**self).send(dest, bytes)
    }
    fn receive(&self, source: usize) -> Vec<u8> {
        (**self).receive(source)
    }
    fn broadcast(&self, root: usize, bytes: &mut Vec<u8>) {
        (**self).broadcast(root, bytes)
    }
    fn abort(&self, code: i32) -> ! {
        (**self).abort(code)
    }
    fn all_arrive_within(&self, grace: std::time::Duration) -> bool {
        (**self).all_arrive_within(grace)
    }
    fn node_rank(&self) -> (usize, usize) {
        (**self).node_rank()
    }
}

#[cfg(test)]
mod name_tests {
    use super::ExchangeMode;
    use crate::backend::BackendKind;

    #[test]
    fn names_parse_back_and_unknown_names_list_the_known() {
        for m in [
            ExchangeMode::Blocking,
            ExchangeMode::Nonblocking,
            ExchangeMode::Rma,
            ExchangeMode::RmaFence,
        ] {
            assert_eq!(m.name().parse::<ExchangeMode>(), Ok(m));
        }
        for b in [
            BackendKind::Serial,
            BackendKind::Threads,
            BackendKind::OpenCl,
            BackendKind::Cuda,
        ] {
            assert_eq!(b.name().parse::<BackendKind>(), Ok(b));
        }
        let e = "carrier-pigeon".parse::<ExchangeMode>().unwrap_err();
        assert!(
            e.contains("carrier-pigeon") && e.contains("rma-fence"),
            "{e}"
        );
        let e = "metal".parse::<BackendKind>().unwrap_err();
        assert!(
            e.contains("metal") && e.contains("opencl") && e.contains("cuda"),
            "{e}"
        );
    }
}
