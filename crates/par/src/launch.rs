//! Starting a run on every rank: rank 0 holds the problem, cuts it into
//! parts and sends each rank its own (or, when it failed, its error); every
//! rank then builds its backend and executor. On one rank this is the whole
//! problem as one part: the same code path.

use std::sync::Arc;

use crate::block::BlockLayout;
use crate::comm::{flags, Comm, Record};
use crate::decl::{ArgKind, DatDecl, LoopDecl, MapDecl, SetDecl, Via};
use crate::part::{LocalMap, LocalSet, Part, Peer};
use crate::problem::{DatData, Problem, Shape, Values};

/// The declarations a rank needs to read a part sent to it: every set, map
/// and dat of the method.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    /// Sets.
    pub sets: Vec<&'static SetDecl>,
    /// Maps.
    pub maps: Vec<&'static MapDecl>,
    /// Dats.
    pub dats: Vec<&'static DatDecl>,
}

impl Catalog {
    /// The catalog of a method's loops and dats.
    pub fn of(loops: &[&'static LoopDecl], dats: &[&'static DatDecl]) -> Catalog {
        let mut c = Catalog {
            dats: dats.to_vec(),
            ..Catalog::default()
        };
        let add_set = |s: &'static SetDecl, sets: &mut Vec<&'static SetDecl>| {
            if !sets.iter().any(|x| x.name == s.name) {
                sets.push(s);
            }
        };
        for d in dats {
            add_set(d.set, &mut c.sets);
        }
        for l in loops {
            add_set(l.set, &mut c.sets);
            for a in l.args {
                if let ArgKind::Dat {
                    via: Via::Map(m, _) | Via::Star(m),
                    ..
                } = a.kind
                {
                    if !c.maps.iter().any(|x| x.name == m.name) {
                        c.maps.push(m);
                    }
                    add_set(m.from, &mut c.sets);
                    add_set(m.to, &mut c.sets);
                }
            }
        }
        c
    }
}

/// The owner of every element of every set of `problem`, given the owners
/// of its primary set: sets listed in the hints follow their map's first
/// target; other sets belong to rank 0.
pub fn owners(problem: &Problem, primary: Vec<u32>) -> Vec<Vec<u32>> {
    problem
        .sets
        .iter()
        .map(|s| {
            if s.decl.name == problem.hints.primary.name {
                return primary.clone();
            }
            match problem
                .hints
                .owners
                .iter()
                .find(|(set, _)| set.name == s.decl.name)
            {
                Some((_, m)) => match problem.map(m) {
                    Some(md) => {
                        let arity = md.values.len() / s.shape.len().max(1);
                        (0..s.shape.len())
                            .map(|e| primary[md.values[e * arity.max(1)] as usize])
                            .collect()
                    }
                    None => vec![0; s.shape.len()],
                },
                None => vec![0; s.shape.len()],
            }
        })
        .collect()
}

/// An executor of the whole of `problem` in this process alone (no MPI):
/// its part, the backend `spec` asks for with the method's `program` and
/// `globals`. For tests, benchmarks and programs that drive a method
/// themselves.
pub fn single_process(
    problem: &Problem,
    program: &crate::backend::Program,
    globals: &[&'static crate::decl::GlobalDecl],
    spec: &crate::backend::BackendSpec,
) -> Result<crate::Exec, String> {
    let part = Arc::new(Part::whole(problem, program.loops));
    let local = crate::backend::create(spec, part.clone(), globals, program, (0, 1))?;
    Ok(crate::Exec::new(
        part,
        local,
        Box::new(crate::comm::SelfComm),
        crate::comm::ExchangeMode::Nonblocking,
    ))
}

/// Why a loop that increments through a map and also reduces cannot run
/// on several ranks: its executed halo (run by several ranks) would count
/// its elements' reductions more than once.
pub fn indirect_increment_message(l: &LoopDecl) -> String {
    format!(
        "loop `{}` increments a dat through a map and reduces a global: on several ranks \
         its executed halo would be counted twice; split the reduction into its own loop, \
         or run on one rank",
        l.name
    )
}

/// What rank 0 gives [`distribute`]: the problem and the owner rank of
/// every element of the primary set (`None` on one rank or for blocks),
/// or the error that stopped its setup.
pub type RootSetup = Result<(Problem, Option<Vec<u32>>), String>;

/// Every rank's part (collective). Rank 0 gives the problem and the owner
/// of every element of its primary set (`None` owners: blocks, cut by the
/// layer into `strips` or boxes), or the error that stopped it; the other
/// ranks give `None`. Every rank gets its part, or every rank the error
/// (rank 0's message, on every rank).
pub fn distribute(
    comm: &dyn Comm,
    root: Option<RootSetup>,
    loops: &[&'static LoopDecl],
    catalog: &Catalog,
    strips: bool,
) -> Result<Part, String> {
    let ranks = comm.size();
    if comm.rank() != 0 {
        let m = comm.receive(0);
        return match m.first() {
            Some(1) => decode_part(&m[1..], catalog),
            Some(0) => Err(String::from_utf8_lossy(&m[1..]).into_owned()),
            _ => Err("an unknown setup message from rank 0".into()),
        };
    }
    let built = root
        .expect("rank 0 gives the problem")
        .and_then(|(problem, primary)| {
            problem.validate().map_err(|e| e.to_string())?;
            if ranks > 1 {
                if let Some(l) = loops
                    .iter()
                    .find(|l| l.has_indirect_increment() && l.has_reduction())
                {
                    return Err(indirect_increment_message(l));
                }
            }
            if ranks == 1 {
                return Ok(vec![Part::whole(&problem, loops)]);
            }
            let blocks = problem
                .sets
                .iter()
                .any(|s| matches!(s.shape, Shape::Block { .. }));
            if blocks {
                return Ok(crate::block::build_all(&problem, loops, ranks, strips));
            }
            let primary = primary.ok_or("a partition of the primary set is needed")?;
            Ok(Part::build_all(
                &problem,
                &owners(&problem, primary),
                ranks,
                loops,
            ))
        });
    match built {
        Ok(mut parts) => {
            for r in (1..ranks).rev() {
                let p = parts.pop().expect("a part per rank");
                let mut m = vec![1u8];
                encode_part(&p, &mut m);
                drop(p);
                comm.send(r, &m);
            }
            Ok(parts.pop().expect("rank 0's part"))
        }
        Err(e) => {
            let mut m = vec![0u8];
            m.extend_from_slice(e.as_bytes());
            for r in 1..ranks {
                comm.send(r, &m);
            }
            Err(e)
        }
    }
}

/// Makes every rank agree on a step that may fail on some of them
/// (collective): if any failed, every rank gets an error, rank 0 the
/// lowest failed rank's message.
pub fn agree<T>(comm: &dyn Comm, local: Result<T, String>) -> Result<T, String> {
    let mut r = Record::default();
    if local.is_err() {
        r.flags = flags::ERROR;
        r.error_rank = comm.rank() as u64;
    }
    comm.all_reduce(&mut r);
    if r.flags & flags::ERROR == 0 {
        return local;
    }
    let rank = r.error_rank as usize;
    let mut msg = match (&local, comm.rank() == rank) {
        (Err(e), true) => e.clone().into_bytes(),
        _ => Vec::new(),
    };
    comm.broadcast(rank, &mut msg);
    let text = String::from_utf8_lossy(&msg).into_owned();
    Err(if comm.size() > 1 {
        format!("rank {rank}: {text}")
    } else {
        text
    })
}

/// The executor of this rank's `part` of a distributed run (collective):
/// the method's loops and device source on the backend `spec` asks for
/// (a device backend picks the device of this rank's place on its node),
/// halos exchanged as `mode` says. Every rank gets the executor, or every
/// rank the first failure ([`agree`]).
pub fn executor(
    comm: Box<dyn crate::comm::Comm>,
    part: Arc<Part>,
    method: &dyn crate::driver::Method,
    spec: &crate::backend::BackendSpec,
    mode: crate::comm::ExchangeMode,
) -> Result<crate::Exec, String> {
    let program = crate::backend::Program {
        name: method.name(),
        loops: method.loops(),
        device_source: method.device_source(),
    };
    let local = crate::backend::create(
        spec,
        part.clone(),
        method.globals(),
        &program,
        comm.node_rank(),
    );
    let local = agree(&*comm, local)?;
    Ok(crate::Exec::new(part, local, comm, mode))
}

/// Shares the part with the backend and executor.
pub fn shared(part: Part) -> Arc<Part> {
    Arc::new(part)
}

fn put_u64(b: &mut Vec<u8>, v: u64) {
    b.extend_from_slice(&v.to_le_bytes());
}

fn put_str(b: &mut Vec<u8>, s: &str) {
    put_u64(b, s.len() as u64);
    b.extend_from_slice(s.as_bytes());
}

fn put_u32s(b: &mut Vec<u8>, v: &[u32]) {
    put_u64(b, v.len() as u64);
    for x in v {
        b.extend_from_slice(&x.to_le_bytes());
    }
}

fn put_spans(b: &mut Vec<u8>, v: &[std::ops::Range<usize>]) {
    put_u64(b, v.len() as u64);
    for r in v {
        put_u64(b, r.start as u64);
        put_u64(b, r.end as u64);
    }
}

/// Encodes a part (for sending it to its rank).
pub fn encode_part(p: &Part, b: &mut Vec<u8>) {
    put_u64(b, p.rank as u64);
    put_u64(b, p.ranks as u64);
    put_u64(b, p.sets.len() as u64);
    for s in &p.sets {
        put_str(b, s.decl.name);
        for v in [s.global_len, s.len, s.owned] {
            put_u64(b, v as u64);
        }
        put_spans(b, &s.core);
        put_spans(b, &s.rest);
        put_spans(b, &s.exec);
        put_u32s(b, &s.global);
        put_u64(b, s.peers.len() as u64);
        for q in &s.peers {
            put_u64(b, q.rank as u64);
            put_u32s(b, &q.send);
            put_u32s(b, &q.recv);
        }
        match &s.block {
            None => b.push(0),
            Some(l) => {
                b.push(1);
                for d in 0..3 {
                    for v in [
                        l.dims[d],
                        l.halo[d],
                        l.lo[d],
                        l.hi[d],
                        l.extent[d],
                        usize::from(l.periodic[d]),
                    ] {
                        put_u64(b, v as u64);
                    }
                }
            }
        }
    }
    put_u64(b, p.maps.len() as u64);
    for m in &p.maps {
        put_str(b, m.decl.name);
        put_u32s(b, &m.values);
        put_u32s(b, &m.start);
    }
    put_u64(b, p.dats.len() as u64);
    for d in &p.dats {
        put_str(b, d.decl.name);
        match &d.values {
            Values::F64(v) => {
                b.push(0);
                put_u64(b, v.len() as u64);
                for x in v {
                    b.extend_from_slice(&x.to_le_bytes());
                }
            }
            Values::I32(v) => {
                b.push(1);
                put_u64(b, v.len() as u64);
                for x in v {
                    b.extend_from_slice(&x.to_le_bytes());
                }
            }
        }
    }
}

struct Dec<'a> {
    b: &'a [u8],
    at: usize,
}

impl Dec<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let e = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or("a truncated part")?;
        let s = &self.b[self.at..e];
        self.at = e;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    fn usize(&mut self) -> Result<usize, String> {
        Ok(self.u64()? as usize)
    }
    fn count(&mut self, size: usize) -> Result<usize, String> {
        let n = self.usize()?;
        if n > (self.b.len() - self.at) / size.max(1) {
            return Err("a corrupt part (a count exceeds the message)".into());
        }
        Ok(n)
    }
    fn string(&mut self) -> Result<String, String> {
        let n = self.count(1)?;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| "a corrupt part (a name)".to_string())
    }
    fn u32s(&mut self) -> Result<Vec<u32>, String> {
        let n = self.count(4)?;
        Ok(self
            .take(4 * n)?
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4")))
            .collect())
    }
    fn spans(&mut self) -> Result<Vec<std::ops::Range<usize>>, String> {
        let n = self.count(16)?;
        (0..n).map(|_| Ok(self.usize()?..self.usize()?)).collect()
    }
}

/// Decodes a part encoded by [`encode_part`], its declarations found by
/// name in `catalog`.
pub fn decode_part(b: &[u8], catalog: &Catalog) -> Result<Part, String> {
    let mut d = Dec { b, at: 0 };
    let rank = d.usize()?;
    let ranks = d.usize()?;
    let ns = d.count(8)?;
    let mut sets = Vec::with_capacity(ns);
    for _ in 0..ns {
        let name = d.string()?;
        let decl = *catalog
            .sets
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| format!("unknown set `{name}`"))?;
        let (global_len, len, owned) = (d.usize()?, d.usize()?, d.usize()?);
        let core = d.spans()?;
        let rest = d.spans()?;
        let exec = d.spans()?;
        let global = d.u32s()?;
        let np = d.count(24)?;
        let mut peers = Vec::with_capacity(np);
        for _ in 0..np {
            peers.push(Peer {
                rank: d.usize()?,
                send: d.u32s()?,
                recv: d.u32s()?,
            });
        }
        let block = match d.u8()? {
            0 => None,
            _ => {
                let mut l = BlockLayout {
                    dims: [0; 3],
                    periodic: [false; 3],
                    halo: [0; 3],
                    lo: [0; 3],
                    hi: [0; 3],
                    extent: [0; 3],
                };
                for k in 0..3 {
                    l.dims[k] = d.usize()?;
                    l.halo[k] = d.usize()?;
                    l.lo[k] = d.usize()?;
                    l.hi[k] = d.usize()?;
                    l.extent[k] = d.usize()?;
                    l.periodic[k] = d.usize()? != 0;
                }
                Some(l)
            }
        };
        sets.push(LocalSet {
            decl,
            global_len,
            len,
            owned,
            core,
            rest,
            global,
            peers,
            block,
            blocks: Vec::new(),
            exec,
        });
    }
    let nm = d.count(8)?;
    let mut maps = Vec::with_capacity(nm);
    for _ in 0..nm {
        let name = d.string()?;
        let decl = *catalog
            .maps
            .iter()
            .find(|m| m.name == name)
            .ok_or_else(|| format!("unknown map `{name}`"))?;
        maps.push(LocalMap {
            decl,
            values: d.u32s()?,
            start: d.u32s()?,
        });
    }
    let nd = d.count(8)?;
    let mut dats = Vec::with_capacity(nd);
    for _ in 0..nd {
        let name = d.string()?;
        let decl = *catalog
            .dats
            .iter()
            .find(|x| x.name == name)
            .ok_or_else(|| format!("unknown dat `{name}`"))?;
        let values = match d.u8()? {
            0 => {
                let n = d.count(8)?;
                Values::F64(
                    d.take(8 * n)?
                        .chunks_exact(8)
                        .map(|c| f64::from_le_bytes(c.try_into().expect("8")))
                        .collect(),
                )
            }
            _ => {
                let n = d.count(4)?;
                Values::I32(
                    d.take(4 * n)?
                        .chunks_exact(4)
                        .map(|c| i32::from_le_bytes(c.try_into().expect("4")))
                        .collect(),
                )
            }
        };
        dats.push(DatData { decl, values });
    }
    if d.at != b.len() {
        return Err("a corrupt part (trailing bytes)".into());
    }
    Ok(Part {
        rank,
        ranks,
        sets,
        maps,
        dats,
    })
}
