//! Messages outside the iteration: the scatter of the parts from rank 0,
//! agreement on errors, the gather of the state for outputs, and the job's
//! abort on a panic.
//!
//! Rank 0 reads, checks and partitions; every other rank waits for exactly
//! one setup message from it, which is either its part or an error. So a
//! failure on rank 0 (a bad cloud file, say) reaches every rank before
//! anyone waits for anything else: the job stops with one message, never
//! hangs.

use mpi::point_to_point::{Destination, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;
use qflow_lskum::Vec4;

use super::part::LocalPart;

/// `MPI_COMM_WORLD`, as rsmpi gives it.
pub type World = SimpleCommunicator;

const TAG_SETUP: i32 = 11;
const TAG_GATHER: i32 = 12;
const TAG_AGREE: i32 = 13;

/// Largest message sent in one piece (MPI counts are 32-bit).
const CHUNK: usize = 1 << 30;

/// Sends `bytes` to `dest` (any length: a length header, then pieces).
pub fn send_bytes(world: &World, dest: i32, tag: i32, bytes: &[u8]) {
    let p = world.process_at_rank(dest);
    p.send_with_tag(&(bytes.len() as u64).to_le_bytes()[..], tag);
    for c in bytes.chunks(CHUNK) {
        p.send_with_tag(c, tag);
    }
}

/// Receives what [`send_bytes`] sent from `source`.
pub fn receive_bytes(world: &World, source: i32, tag: i32) -> Vec<u8> {
    let p = world.process_at_rank(source);
    let mut len = [0u8; 8];
    p.receive_into_with_tag(&mut len[..], tag);
    let len = u64::from_le_bytes(len) as usize;
    let mut out = vec![0u8; len];
    for c in out.chunks_mut(CHUNK) {
        p.receive_into_with_tag(c, tag);
    }
    out
}

/// Rank `root`'s `bytes` on every rank (collective; `bytes` is read on the
/// root only).
pub fn broadcast_bytes(world: &World, root: i32, bytes: &[u8]) -> Vec<u8> {
    let r = world.process_at_rank(root);
    let mut len = (bytes.len() as u64).to_le_bytes();
    r.broadcast_into(&mut len[..]);
    let mut out = if world.rank() == root {
        bytes.to_vec()
    } else {
        vec![0u8; u64::from_le_bytes(len) as usize]
    };
    for c in out.chunks_mut(CHUNK) {
        r.broadcast_into(c);
    }
    out
}

/// Rank 0: sends rank `dest` its part, with `info` (the run's settings, in
/// whatever encoding the caller chooses).
pub fn send_part(world: &World, dest: i32, info: &[u8], part: &LocalPart) {
    let body = part.to_bytes();
    let mut m = Vec::with_capacity(9 + info.len() + body.len());
    m.push(1u8);
    m.extend_from_slice(&(info.len() as u64).to_le_bytes());
    m.extend_from_slice(info);
    m.extend_from_slice(&body);
    drop(body);
    send_bytes(world, dest, TAG_SETUP, &m);
}

/// Rank 0: tells every other rank that the setup failed, instead of
/// sending its part.
pub fn send_error_to_all(world: &World, message: &str) {
    let mut m = vec![0u8];
    m.extend_from_slice(message.as_bytes());
    for r in 1..world.size() {
        send_bytes(world, r, TAG_SETUP, &m);
    }
}

/// Ranks other than 0: waits for the setup message from rank 0: the run's
/// `info` and this rank's part, or rank 0's error.
pub fn receive_part(world: &World) -> Result<(Vec<u8>, LocalPart), String> {
    let m = receive_bytes(world, 0, TAG_SETUP);
    match m.first() {
        Some(1) if m.len() >= 9 => {
            let n = u64::from_le_bytes(m[1..9].try_into().expect("8 bytes")) as usize;
            let info = m.get(9..9 + n).ok_or("a truncated setup message")?.to_vec();
            let part = LocalPart::from_bytes(&m[9 + n..])
                .ok_or_else(|| "a corrupt part in the setup message".to_string())?;
            Ok((info, part))
        }
        Some(0) => Err(String::from_utf8_lossy(&m[1..]).into_owned()),
        _ => Err("an unknown setup message from rank 0".into()),
    }
}

/// Makes every rank agree on the outcome of a step that may fail on some
/// ranks (collective). If any rank failed, every rank gets an error: rank 0
/// the failed ranks' messages (`rank r: message`, one per line; ranks
/// with the same message share a line, `ranks 0, 1: message`), the others
/// an empty message (only rank 0 reports).
pub fn agree<T>(world: &World, local: Result<T, String>) -> Result<T, String> {
    let failed = i32::from(local.is_err());
    let mut any = 0i32;
    world.all_reduce_into(&failed, &mut any, mpi::collective::SystemOperation::max());
    if any == 0 {
        return local;
    }
    let mine = match &local {
        Err(e) => e.clone(),
        Ok(_) => String::new(),
    };
    if world.rank() == 0 {
        if world.size() == 1 {
            return Err(mine);
        }
        // (message, ranks), in order of the first rank with each message.
        let mut groups: Vec<(String, Vec<i32>)> = Vec::new();
        let mut add = |r: i32, m: String| {
            if m.is_empty() {
                return;
            }
            match groups.iter_mut().find(|g| g.0 == m) {
                Some(g) => g.1.push(r),
                None => groups.push((m, vec![r])),
            }
        };
        add(0, mine);
        for r in 1..world.size() {
            let m = receive_bytes(world, r, TAG_AGREE);
            add(r, String::from_utf8_lossy(&m).into_owned());
        }
        let lines: Vec<String> = groups
            .into_iter()
            .map(|(m, ranks)| match ranks.as_slice() {
                [r] => format!("rank {r}: {m}"),
                _ => {
                    let list: Vec<String> = ranks.iter().map(|r| r.to_string()).collect();
                    format!("ranks {}: {m}", list.join(", "))
                }
            })
            .collect();
        Err(lines.join("\n"))
    } else {
        send_bytes(world, 0, TAG_AGREE, mine.as_bytes());
        Err(String::new())
    }
}

/// Gathers the owned points' states on rank 0 in the cloud's original
/// numbering (collective): `state` is the rank's local state, `global` the
/// cloud index of each local point, the first `owned` of them owned.
/// `Some` (of `global_len` states) on rank 0, `None` elsewhere.
pub fn gather_owned(
    world: &World,
    state: &[Vec4],
    global: &[u32],
    owned: usize,
    global_len: usize,
) -> Option<Vec<Vec4>> {
    let encode = || {
        let mut b = Vec::with_capacity(owned * 36);
        for j in 0..owned {
            b.extend_from_slice(&global[j].to_le_bytes());
            for v in &state[j] {
                b.extend_from_slice(&v.to_le_bytes());
            }
        }
        b
    };
    if world.rank() != 0 {
        send_bytes(world, 0, TAG_GATHER, &encode());
        return None;
    }
    let mut out = vec![[f64::NAN; 4]; global_len];
    let mut put = |b: &[u8]| {
        for rec in b.chunks_exact(36) {
            let i = u32::from_le_bytes(rec[..4].try_into().expect("4 bytes")) as usize;
            for c in 0..4 {
                out[i][c] =
                    f64::from_le_bytes(rec[4 + 8 * c..12 + 8 * c].try_into().expect("8 bytes"));
            }
        }
    };
    put(&encode());
    for r in 1..world.size() {
        put(&receive_bytes(world, r, TAG_GATHER));
    }
    Some(out)
}

/// Ends the whole job at once (`MPI_Abort`), from any rank.
pub fn abort(code: i32) -> ! {
    unsafe {
        mpi::ffi::MPI_Abort(mpi::ffi::RSMPI_COMM_WORLD, code);
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

/// What rank 0 scatters.
pub struct ScatterInput<'a> {
    /// The whole cloud, in its original numbering.
    pub cloud: &'a qflow_mesh::Cloud,
    /// One part per rank.
    pub partition: &'a qflow_mesh::partition::Partition,
    /// Locality order of the points within each part's classes (e.g. a
    /// reverse Cuthill-McKee `new_of_old`); `None`: the cloud's order.
    pub order: Option<&'a [u32]>,
    /// Normals of the force sums.
    pub force_normals: qflow_lskum::settings::ForceNormals,
    /// The state to start from, by cloud point; `None`: `fill` everywhere.
    pub state: Option<&'a [Vec4]>,
    /// The state everywhere when `state` is `None`.
    pub fill: Vec4,
    /// The run's settings for every rank, encoded by the caller.
    pub info: &'a [u8],
}

/// Gives every rank its part (collective). Rank 0 passes what to scatter,
/// or the error that stopped it from getting that far (which every rank
/// then returns); the other ranks pass `Err` with any text (unused). Every
/// rank returns the run's info and its part.
pub fn scatter(
    world: &World,
    input: Result<ScatterInput<'_>, String>,
) -> Result<(Vec<u8>, LocalPart), String> {
    if world.rank() != 0 {
        return receive_part(world);
    }
    let input = match input {
        Ok(i) => i,
        Err(e) => {
            send_error_to_all(world, &e);
            return Err(e);
        }
    };
    let ranks = world.size() as usize;
    if input.partition.parts() != ranks || input.partition.len() != input.cloud.len() {
        let e = format!(
            "a partition into {} parts of {} points for {ranks} ranks and {} points",
            input.partition.parts(),
            input.partition.len(),
            input.cloud.len()
        );
        send_error_to_all(world, &e);
        return Err(e);
    }
    let layouts = input.partition.layouts(input.cloud, input.order);
    let mut scratch = Vec::new();
    let mut own = None;
    for l in &layouts {
        let part = LocalPart::build(
            input.cloud,
            input.force_normals,
            l,
            ranks as u32,
            input.state,
            input.fill,
            &mut scratch,
        );
        if l.part == 0 {
            own = Some(part);
        } else {
            send_part(world, l.part as i32, input.info, &part);
        }
    }
    Ok((input.info.to_vec(), own.expect("a part for rank 0")))
}
