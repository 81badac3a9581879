//! The CPU backends: `serial` (the calling thread) and `threads` (chunks of
//! elements on a rayon pool). Both call a loop's generated runner; only the
//! cutting into chunks differs, and a kernel computes each element
//! independently of the chunking (reductions are exact), so they give
//! bit-identical results for any thread count. Loops that increment
//! through a map (several elements adding to one target) run as the
//! backend's [`Increments`] plan says: on one thread in element order, or
//! colour by colour with each colour's elements in parallel (bit-identical
//! for any thread count too: the colouring fixes every target's order), or
//! all at once with atomic increments (the order of a target's increments,
//! and so the last bits, then depend on the threads' timing).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use crate::decl::{Access, ArgKind, DatDecl, ElemType, GlobalDecl, GlobalKind, LoopDecl, Via};
use crate::kernel::{Adds, Partials, RawArg, RawDat, MAX_CONST, MAX_REDUCED, MAX_REDUCE_DIM};
use crate::part::Part;
use crate::plan::{self, Increments};
use crate::problem::Values;

use super::chunks::{self, run_chunks, run_whole};
use fused::FusedCopies;

mod fused;
mod run;
use super::LocalBackend;

/// How a CPU backend runs the chunks of a loop.
#[derive(Clone, Debug)]
pub enum Par {
    /// One chunk, on the calling thread.
    Seq,
    /// Chunks on a rayon thread pool.
    Rayon(Arc<rayon::ThreadPool>),
}

impl Par {
    /// A pool of `threads` threads (0: one per available core).
    pub fn rayon(threads: usize) -> Result<Self, rayon::ThreadPoolBuildError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("qflow-worker-{i}"))
            .build()?;
        Ok(Par::Rayon(Arc::new(pool)))
    }

    /// Number of threads.
    pub fn threads(&self) -> usize {
        match self {
            Par::Seq => 1,
            Par::Rayon(p) => p.current_num_threads(),
        }
    }
}

/// How one argument of a loop is bound: indices into the backend's dats,
/// maps and globals.
#[derive(Clone, Copy, Debug)]
enum Plan {
    Direct {
        dat: usize,
        access: Access,
    },
    Map {
        dat: usize,
        map: usize,
        slot: usize,
        access: Access,
    },
    Star {
        dat: usize,
        map: usize,
    },
    Offsets {
        dat: usize,
        set: usize,
    },
    Const {
        global: usize,
    },
    Scratch,
    Reduce {
        global: usize,
        offset: usize,
    },
}

/// A loop bound to this backend's data.
struct Bound {
    plan: Vec<Plan>,
    raw: Vec<RawArg>,
    sink: Mutex<Partials>,
    /// The reduction globals, in the order of their values in `sink`.
    reductions: Vec<(usize, usize)>,
    serial: bool,
    /// A colouring plan: each colour's runs of elements, colour by colour.
    colours: Option<Vec<Vec<Range<usize>>>>,
    /// Whether each run is a block that one thread must run whole.
    whole_runs: bool,
    /// Work space: the runs of one colour within the spans asked for.
    runs: Vec<Range<usize>>,
    /// An owner-compute plan ([`Increments::OwnerCompute`] on threads).
    owner: Option<Owner>,
    set: usize,
}

/// A loop's owner-compute plan and each part's arguments.
struct Owner {
    plan: plan::OwnerParts,
    /// Per part, the arguments with its increments kept to its targets
    /// (refilled with `Bound::raw`).
    filtered: Vec<Vec<RawArg>>,
    /// Per part, work space: runs within the spans asked for.
    scratch: Vec<Mutex<Vec<Range<usize>>>>,
}

/// Parts per thread of an owner-compute plan: more parts let a thread
/// done early take a late one's (the machine is shared), and each seam
/// between two parts runs its elements twice.
const OWNER_PARTS_PER_THREAD: usize = 2;

/// The share of a loop's elements that an owner-compute plan may run twice
/// before it warns (OP2's 720k mesh: 0.25%, after RCM 0.4%; a METIS
/// partition ordering 7%).
const OWNER_REDUNDANCY_WARNING: f64 = 0.1;

struct Global {
    decl: &'static GlobalDecl,
    f: [f64; MAX_CONST],
    i: [i32; MAX_CONST],
    acc: Partials,
}

/// A CPU backend over one part.
pub struct CpuBackend {
    par: Par,
    part: Arc<Part>,
    dats: Vec<Values>,
    names: Vec<&'static DatDecl>,
    globals: Vec<Global>,
    bound: HashMap<usize, Bound>,
    increments: Increments,
    block_size: usize,
    /// Which dats are stored as structures of arrays.
    soa: Vec<bool>,
    /// Each dat's stride (0: array of structures), kept so that binding a
    /// loop's arguments allocates nothing.
    strides: Vec<usize>,
    /// Which parts of a loop on the threads are still to run.
    claims: chunks::Claims,
    /// The one-rank halo copies, planned for the threads.
    halo: chunks::HaloCopies,
    /// The same copies made by the loops that write the dats.
    fused: FusedCopies,
}

impl CpuBackend {
    /// A backend over `part` running its chunks as `par` says, with the
    /// method's globals.
    pub fn new(part: Arc<Part>, globals: &[&'static GlobalDecl], par: Par) -> Self {
        let dats = part.dats.iter().map(|d| d.values.clone()).collect();
        let names: Vec<&'static DatDecl> = part.dats.iter().map(|d| d.decl).collect();
        let names_len = names.len();
        let globals = globals
            .iter()
            .map(|&g| {
                let ops = match g.kind {
                    GlobalKind::Reduce(op) => vec![op; g.dim],
                    GlobalKind::Const(_) => Vec::new(),
                };
                Global {
                    decl: g,
                    f: [0.0; MAX_CONST],
                    i: [0; MAX_CONST],
                    acc: Partials::new(&ops),
                }
            })
            .collect();
        CpuBackend {
            claims: chunks::Claims::new(par.threads()),
            halo: chunks::HaloCopies::default(),
            fused: FusedCopies::default(),
            par,
            part,
            dats,
            names,
            globals,
            bound: HashMap::new(),
            increments: Increments::Sequential,
            block_size: 128,
            soa: vec![false; names_len],
            strides: vec![0; names_len],
        }
    }

    /// The backend storing dats as `layout` says, for the loops it may
    /// run ([`crate::layout::soa_dats`]).
    pub fn with_layout(mut self, layout: crate::layout::Layout, loops: &[&LoopDecl]) -> Self {
        self.soa = crate::layout::soa_dats(&self.names, loops, layout);
        for (d, v) in self.dats.iter_mut().enumerate() {
            if self.soa[d] {
                *v = crate::layout::to_soa(v, self.names[d].dim);
            }
        }
        self.strides = (0..self.dats.len()).map(|d| self.stride(d)).collect();
        self
    }

    /// The stride of dat `d` (0: array of structures).
    fn stride(&self, d: usize) -> usize {
        if self.soa[d] {
            self.dats[d].len() / self.names[d].dim
        } else {
            0
        }
    }

    /// The backend running loops that increment through a map as
    /// `increments` says (`block_size` elements per block of a two-level
    /// plan; 0: 128).
    pub fn with_increments(mut self, increments: Increments, block_size: usize) -> Self {
        self.increments = increments;
        if block_size > 0 {
            self.block_size = block_size;
        }
        self
    }

    /// The plan of loop `l` (`None`: it runs in element order on one
    /// thread: no increment through a map, the sequential plan, or too
    /// many colours).
    fn colouring(&self, l: &LoopDecl) -> Option<Vec<Vec<Range<usize>>>> {
        match plan::loop_runs(&self.part, l, self.increments, self.block_size) {
            Ok(Some(r)) => {
                tracing::debug!(
                    "loop `{}`: {} plan, {} colours, elements per colour {:?}",
                    l.name,
                    self.increments.name(),
                    r.len(),
                    r.iter()
                        .map(|c| c.iter().map(|x| x.len()).sum::<usize>())
                        .collect::<Vec<_>>()
                );
                Some(r)
            }
            Ok(None) => None,
            Err(e) => {
                tracing::warn!(
                    "loop `{}`: {e}; it runs in element order on one thread",
                    l.name
                );
                None
            }
        }
    }

    /// The owner-compute plan of `l` on the threads (`None`: the loop runs
    /// in element order on one thread, which gives the plan's bits: on one
    /// thread, or a loop the plan cannot take).
    fn owner_plan(&self, l: &LoopDecl) -> Option<Owner> {
        let threads = self.par.threads();
        if threads < 2 {
            return None;
        }
        match plan::owner_parts(&self.part, l, threads * OWNER_PARTS_PER_THREAD) {
            Ok(Some(plan)) => {
                let twice = plan.redundancy(self.part.set(l.set).map_or(0, |s| s.len));
                tracing::debug!(
                    "loop `{}`: owner-compute plan, {} parts, {} runs, {:.2}% of the elements \
                     run twice",
                    l.name,
                    plan.owned.len(),
                    plan.runs.iter().map(Vec::len).sum::<usize>(),
                    100.0 * twice
                );
                if twice > OWNER_REDUNDANCY_WARNING {
                    tracing::warn!(
                        "loop `{}`: the owner-compute plan runs {:.0}% of its elements twice \
                         (their targets' numbering is scattered); a bandwidth-reducing \
                         reordering (fv: reorder = \"rcm\") or another strategy may run faster",
                        l.name,
                        100.0 * twice
                    );
                }
                let parts = plan.owned.len();
                Some(Owner {
                    plan,
                    filtered: vec![Vec::new(); parts],
                    scratch: (0..parts).map(|_| Mutex::new(Vec::new())).collect(),
                })
            }
            Ok(None) => None,
            Err(e) => {
                tracing::warn!(
                    "loop `{}`: no owner-compute plan ({e}); it runs in element order on one thread",
                    l.name
                );
                None
            }
        }
    }

    /// The serial backend.
    pub fn serial(part: Arc<Part>, globals: &[&'static GlobalDecl]) -> Self {
        Self::new(part, globals, Par::Seq)
    }

    /// How chunks run.
    pub fn par(&self) -> &Par {
        &self.par
    }

    fn dat_index(&self, d: &DatDecl) -> usize {
        self.names
            .iter()
            .position(|n| n.name == d.name)
            .unwrap_or_else(|| panic!("dat `{}` is not part of the problem", d.name))
    }

    fn global_index(&self, g: &GlobalDecl) -> usize {
        self.globals
            .iter()
            .position(|x| x.decl.name == g.name)
            .unwrap_or_else(|| panic!("global `{}` is not declared by the method", g.name))
    }

    fn bind(&self, l: &'static LoopDecl) -> Bound {
        if let Err(e) = l.validate() {
            panic!("{e}");
        }
        let set = self.part.set_index(l.set).unwrap_or_else(|| {
            panic!(
                "loop `{}`: set `{}` is not part of the problem",
                l.name, l.set.name
            )
        });
        let map_index = |m: &crate::decl::MapDecl| {
            self.part.map_index(m).unwrap_or_else(|| {
                panic!(
                    "loop `{}`: map `{}` is not part of the problem",
                    l.name, m.name
                )
            })
        };
        let mut plan = Vec::new();
        let mut ops = Vec::new();
        let mut reductions = Vec::new();
        for a in l.args {
            plan.push(match a.kind {
                ArgKind::Dat { dat, via, access } => {
                    let d = self.dat_index(dat);
                    match via {
                        Via::Direct => Plan::Direct { dat: d, access },
                        Via::Map(m, slot) => Plan::Map {
                            dat: d,
                            map: map_index(m),
                            slot,
                            access,
                        },
                        Via::Star(m) => Plan::Star {
                            dat: d,
                            map: map_index(m),
                        },
                        Via::Offsets(_) => Plan::Offsets { dat: d, set },
                    }
                }
                ArgKind::Scratch { .. } => Plan::Scratch,
                ArgKind::Global { global, .. } => {
                    let g = self.global_index(global);
                    match global.kind {
                        GlobalKind::Const(_) => Plan::Const { global: g },
                        GlobalKind::Reduce(op) => {
                            assert!(
                                global.dim <= MAX_REDUCE_DIM,
                                "global `{}`: too many values",
                                global.name
                            );
                            let offset = ops.len();
                            ops.extend(std::iter::repeat_n(op, global.dim));
                            assert!(
                                ops.len() <= MAX_REDUCED,
                                "loop `{}`: too many reduced values",
                                l.name
                            );
                            reductions.push((g, offset));
                            Plan::Reduce { global: g, offset }
                        }
                    }
                }
            });
        }
        let raw = Vec::with_capacity(plan.len());
        let colours = match self.increments {
            Increments::Colouring | Increments::TwoLevel if l.has_indirect_increment() => {
                self.colouring(l)
            }
            _ => None,
        };
        let owner = match self.increments {
            Increments::OwnerCompute if l.has_indirect_increment() => self.owner_plan(l),
            _ => None,
        };
        Bound {
            serial: l.has_indirect_increment()
                && colours.is_none()
                && owner.is_none()
                && self.increments != Increments::Atomics,
            owner,
            colours,
            whole_runs: self.increments == Increments::TwoLevel,
            runs: Vec::new(),
            plan,
            raw,
            sink: Mutex::new(Partials::new(&ops)),
            reductions,
            set,
        }
    }

    /// The arguments' memory, now (dats may have been swapped since the
    /// last call).
    fn fill_raw(&mut self, key: usize) {
        let strides = &self.strides;
        let b = self.bound.get_mut(&key).expect("bound");
        b.raw.clear();
        for p in &b.plan {
            let dat = |dats: &mut Vec<Values>, names: &[&'static DatDecl], d: usize, len: usize| {
                let (ptr, ty) = match &mut dats[d] {
                    Values::F64(v) => (v.as_mut_ptr() as *mut u8, ElemType::F64),
                    Values::I32(v) => (v.as_mut_ptr() as *mut u8, ElemType::I32),
                };
                RawDat {
                    ptr,
                    ty,
                    dim: names[d].dim,
                    len,
                    stride: strides[d],
                }
            };
            let set_len = |decl: &DatDecl| self.part.set(decl.set).map_or(0, |s| s.len);
            b.raw.push(match *p {
                Plan::Direct { dat: d, access } => {
                    let len = set_len(self.names[d]);
                    RawArg::Direct {
                        dat: dat(&mut self.dats, &self.names, d, len),
                        access,
                    }
                }
                Plan::Map {
                    dat: d,
                    map,
                    slot,
                    access,
                } => {
                    let m = &self.part.maps[map];
                    let len = set_len(self.names[d]);
                    let arity = match m.decl.arity {
                        crate::decl::Arity::Fixed(a) => a,
                        crate::decl::Arity::Variable => unreachable!("validated"),
                    };
                    RawArg::Map {
                        dat: dat(&mut self.dats, &self.names, d, len),
                        access,
                        map: m.values.as_ptr(),
                        arity,
                        slot,
                        rows: m.values.len() / arity.max(1),
                        adds: if access == Access::Inc && self.increments == Increments::Atomics {
                            Adds::Atomic
                        } else {
                            Adds::Plain
                        },
                    }
                }
                Plan::Star { dat: d, map } => {
                    let m = &self.part.maps[map];
                    let len = set_len(self.names[d]);
                    RawArg::Star {
                        dat: dat(&mut self.dats, &self.names, d, len),
                        start: m.start.as_ptr(),
                        idx: m.values.as_ptr(),
                        rows: m.start.len() - 1,
                        own: m.decl.from.name == m.decl.to.name,
                    }
                }
                Plan::Offsets { dat: d, set } => {
                    let s = &self.part.sets[set];
                    let b = s.block.as_ref().expect("offsets on a block");
                    let st = b.strides();
                    RawArg::Offsets {
                        dat: dat(&mut self.dats, &self.names, d, s.len),
                        sy: st[1] as isize,
                        sz: st[2] as isize,
                    }
                }
                Plan::Const { global } => {
                    let g = &self.globals[global];
                    let ty = match g.decl.kind {
                        GlobalKind::Const(t) => t,
                        GlobalKind::Reduce(_) => ElemType::F64,
                    };
                    RawArg::Const {
                        ty,
                        f: g.f,
                        i: g.i,
                        dim: g.decl.dim,
                    }
                }
                Plan::Scratch => RawArg::Scratch,
                Plan::Reduce { global, offset } => {
                    let g = &self.globals[global];
                    let op = match g.decl.kind {
                        GlobalKind::Reduce(op) => op,
                        GlobalKind::Const(_) => unreachable!("validated"),
                    };
                    RawArg::Reduce {
                        op,
                        dim: g.decl.dim,
                        offset,
                    }
                }
            });
        }
        if let Some(o) = &mut b.owner {
            for (f, own) in o.filtered.iter_mut().zip(&o.plan.owned) {
                f.clear();
                f.extend_from_slice(&b.raw);
                for a in f.iter_mut() {
                    if let RawArg::Map {
                        access: Access::Inc,
                        adds,
                        ..
                    } = a
                    {
                        *adds = Adds::Owned {
                            lo: own.start,
                            hi: own.end,
                        };
                    }
                }
            }
        }
    }

    fn two_mut(&mut self, a: usize, b: usize) -> (&mut Values, &mut Values) {
        assert_ne!(a, b);
        if a < b {
            let (x, y) = self.dats.split_at_mut(b);
            (&mut x[a], &mut y[0])
        } else {
            let (x, y) = self.dats.split_at_mut(a);
            (&mut y[0], &mut x[b])
        }
    }
}

impl LocalBackend for CpuBackend {
    fn name(&self) -> String {
        match &self.par {
            Par::Seq => "serial".into(),
            Par::Rayon(_) => format!("threads ({})", self.par.threads()),
        }
    }

    fn run(&mut self, l: &'static LoopDecl, spans: &[Range<usize>]) -> Result<(), String> {
        self.run_after(l, spans, None)
    }

    fn run_copying(
        &mut self,
        l: &'static LoopDecl,
        spans: &[Range<usize>],
        dats: &[&'static DatDecl],
        from: &[u32],
        to: &[u32],
    ) -> Result<bool, String> {
        self.run_fused(l, spans, dats, from, to)
    }

    fn lines(&self) -> bool {
        true
    }

    fn swap(&mut self, a: &DatDecl, b: &DatDecl) {
        let (ia, ib) = (self.dat_index(a), self.dat_index(b));
        assert!(
            a.set.name == b.set.name && a.dim == b.dim && a.ty == b.ty,
            "swap of `{}` and `{}`: different shapes",
            a.name,
            b.name
        );
        assert_eq!(
            self.soa[ia], self.soa[ib],
            "dats of one set and shape share a layout"
        );
        let (x, y) = self.two_mut(ia, ib);
        std::mem::swap(x, y);
    }

    fn pack(&mut self, dat: &DatDecl, elements: &[u32], out: &mut [f64]) {
        let d = self.dat_index(dat);
        let (dim, stride) = (dat.dim, self.stride(d));
        let Values::F64(v) = &self.dats[d] else {
            panic!("dat `{}`: only f64 dats are exchanged", dat.name)
        };
        for (o, &e) in out.chunks_exact_mut(dim).zip(elements) {
            let e = e as usize;
            if stride == 0 {
                // An element's values together: one copy.
                o.copy_from_slice(&v[e * dim..(e + 1) * dim]);
                continue;
            }
            for (c, x) in o.iter_mut().enumerate() {
                *x = v[crate::layout::at(e, c, dim, stride)];
            }
        }
    }

    fn unpack(&mut self, dat: &DatDecl, elements: &[u32], values: &[f64]) {
        let d = self.dat_index(dat);
        let (dim, stride) = (dat.dim, self.stride(d));
        let Values::F64(v) = &mut self.dats[d] else {
            panic!("dat `{}`: only f64 dats are exchanged", dat.name)
        };
        for (x, &e) in values.chunks_exact(dim).zip(elements) {
            let e = e as usize;
            if stride == 0 {
                v[e * dim..(e + 1) * dim].copy_from_slice(x);
                continue;
            }
            for (c, &y) in x.iter().enumerate() {
                v[crate::layout::at(e, c, dim, stride)] = y;
            }
        }
    }

    fn copy_elements(&mut self, dat: &DatDecl, from: &[u32], to: &[u32]) {
        let d = self.dat_index(dat);
        match (&mut self.dats[d], self.soa[d], &self.par) {
            // Values together: element by element, on the threads.
            (Values::F64(v), false, Par::Rayon(pool)) => {
                self.halo.copy(v, dat.dim, from, to, pool, &mut self.claims)
            }
            (Values::F64(v), false, Par::Seq) => chunks::copy_elements(v, dat.dim, from, to, None),
            _ => super::copy_by_packing(self, dat, from, to),
        }
    }

    fn read(&mut self, dat: &DatDecl) -> Values {
        let d = self.dat_index(dat);
        if self.soa[d] {
            return crate::layout::to_aos(&self.dats[d], dat.dim);
        }
        self.dats[d].clone()
    }

    fn write(&mut self, dat: &DatDecl, values: &Values) {
        let d = self.dat_index(dat);
        assert!(
            values.ty() == self.dats[d].ty() && values.len() == self.dats[d].len(),
            "dat `{}`: {} values given for {}",
            dat.name,
            values.len(),
            self.dats[d].len()
        );
        let soa;
        let values = if self.soa[d] {
            soa = crate::layout::to_soa(values, dat.dim);
            &soa
        } else {
            values
        };
        match (&mut self.dats[d], values) {
            (Values::F64(a), Values::F64(b)) => a.copy_from_slice(b),
            (Values::I32(a), Values::I32(b)) => a.copy_from_slice(b),
            _ => unreachable!("checked"),
        }
    }

    fn set_const(&mut self, g: &GlobalDecl, f: &[f64], i: &[i32]) {
        let k = self.global_index(g);
        let x = &mut self.globals[k];
        assert!(
            f.len() <= MAX_CONST && i.len() <= MAX_CONST,
            "global `{}`: too many values",
            g.name
        );
        x.f[..f.len()].copy_from_slice(f);
        x.i[..i.len()].copy_from_slice(i);
    }

    fn partial(&mut self, g: &GlobalDecl) -> Partials {
        self.globals[self.global_index(g)].acc.clone()
    }

    fn reset(&mut self, g: &GlobalDecl) {
        let k = self.global_index(g);
        self.globals[k].acc.reset();
    }

    fn pool(&self) -> Option<Arc<rayon::ThreadPool>> {
        match &self.par {
            Par::Seq => None,
            Par::Rayon(p) => Some(p.clone()),
        }
    }

    fn bytes(&self) -> usize {
        self.dats.iter().map(|v| v.len() * v.ty().bytes()).sum()
    }
}
