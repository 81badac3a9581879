//! The program a device runs: a short hand-written prelude (the OpenCL and
//! CUDA spellings of what differs between them, double-double sums), the
//! method's device functions translated from its Rust kernels at build time
//! (`qflow-par-codegen`), and one entry kernel per declared loop, generated
//! here from the loop's declaration: it binds every argument as the
//! declaration says (own value, through a map, a stencil, offsets, a
//! constant, a reduction, scratch), calls the translated kernel for its
//! element and folds its reductions over the work group.

use std::fmt::Write as _;

use qflow_par_codegen::names::{self, DeviceType};

use crate::decl::{
    Access, ArgKind, Arity, DatDecl, ElemType, GlobalKind, LoopDecl, Reduction, Via,
};

/// The prelude: everything hand-written on the device side.
pub const PRELUDE: &str = r#"/* qflow device prelude: the spellings that differ between OpenCL C and
 * CUDA, and the double-double sums of reductions. Everything else is
 * generated: the kernels are translated from the Rust, the entry points
 * from the loops' declarations. */
#if defined(__OPENCL_VERSION__)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* No a*b+c -> fma contraction: the Rust kernels round every product. */
#pragma OPENCL FP_CONTRACT OFF
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define FUNC static inline
#define GLOBAL __global
#define CONSTANT __constant
#define LOCAL __local
#define KERNEL __kernel void
#define QF_AS_DOUBLE(u) as_double((ulong)(u))
#define QF_AS_ULONG(x) as_ulong((double)(x))
#define QF_INF INFINITY
#define QF_NAN NAN
#define QF_GID(d) ((uint)get_global_id(d))
#define QF_LID() ((uint)(get_local_id(0) + get_local_id(1) * get_local_size(0)))
#define QF_LSIZE() ((uint)(get_local_size(0) * get_local_size(1)))
#define QF_GROUP() ((uint)(get_group_id(0) + get_group_id(1) * get_num_groups(0)))
#define QF_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define QF_BARRIER_ALL() barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE)
#define QF_CAS64(p, cmp, val) atom_cmpxchg((volatile GLOBAL ulong*)(p), (ulong)(cmp), (ulong)(val))
#define QF_ATOMIC_ADD_INT(p, v) atomic_add((volatile GLOBAL int*)(p), (v))
#define QF_RESTRICT restrict
/* A work group's local memory, an argument of the entry kernel. */
#define QF_LOCAL_ARG(name) LOCAL double* name
#define QF_LOCAL_BIND(name)
#elif defined(__CUDACC__)
/* CUDA, compiled by NVRTC with --fmad=false: no a*b+c -> fma
 * contraction, the Rust kernels round every product. Helpers a program
 * does not call are no diagnostic (`unused`). */
typedef unsigned char uchar;
typedef unsigned int uint;
typedef unsigned long ulong;
#define FUNC static __device__ __forceinline__ __attribute__((unused))
#define GLOBAL
#define CONSTANT __constant__
#define LOCAL __shared__
#define KERNEL extern "C" __global__ void
#define QF_AS_DOUBLE(u) __longlong_as_double((long long)(u))
#define QF_AS_ULONG(x) ((ulong)__double_as_longlong(x))
#define QF_INF __longlong_as_double(0x7ff0000000000000LL)
#define QF_NAN __longlong_as_double(0x7ff8000000000000LL)
#define QF_GID(d) ((d) == 0 ? blockIdx.x * blockDim.x + threadIdx.x : blockIdx.y * blockDim.y + threadIdx.y)
#define QF_LID() (threadIdx.x + threadIdx.y * blockDim.x)
#define QF_LSIZE() (blockDim.x * blockDim.y)
#define QF_GROUP() (blockIdx.x + blockIdx.y * gridDim.x)
#define QF_BARRIER() __syncthreads()
#define QF_BARRIER_ALL() __syncthreads()
#define QF_CAS64(p, cmp, val) ((ulong)atomicCAS((unsigned long long*)(p), (unsigned long long)(cmp), (unsigned long long)(val)))
#define QF_ATOMIC_ADD_INT(p, v) atomicAdd((int*)(p), (v))
#define QF_RESTRICT __restrict__
/* A block's local memory: a part of the launch's dynamic shared memory,
 * its offset in doubles the entry kernel's argument `name_at`. */
#define QF_LOCAL_ARG(name) uint name##_at
#define QF_LOCAL_BIND(name) double* name = qf_dynamic_shared() + name##_at;
FUNC double* qf_dynamic_shared() { extern __shared__ double qf_dynamic[]; return qf_dynamic; }
#else
#error "qflow's device code needs an OpenCL C or a CUDA compiler"
#endif
#ifndef QF_WG_MAX
#define QF_WG_MAX 256
#endif

/* a + b in double-double: (hi, lo) exact to about 1e-32 relative. */
FUNC void qf_dd_add(double* hi, double* lo, double bh, double bl)
{
    double s = *hi + bh;
    double v = s - *hi;
    double e = (*hi - (s - v)) + (bh - v);
    e = e + (*lo + bl);
    double h = s + e;
    *lo = e - (h - s);
    *hi = h;
}

#if defined(QF_RED_F64) && defined(__OPENCL_VERSION__)
/* *p += v by the hardware's double-precision reduction (NVIDIA's PTX
 * `red.global.add.f64`, compute capability 6.0 and later), chosen by the
 * host for NVIDIA devices whose compiler accepts it. */
FUNC void qf_atomic_add(GLOBAL double* p, double v)
{
    asm volatile("red.global.add.f64 [%0], %1;" : : "l"(p), "d"(v) : "memory");
}
#elif defined(__CUDACC__) && __CUDA_ARCH__ >= 600
FUNC void qf_atomic_add(GLOBAL double* p, double v) { atomicAdd(p, v); }
#else
/* *p += v as one atomic compare-and-swap loop on the value's bits. */
FUNC void qf_atomic_add(GLOBAL double* p, double v)
{
    ulong old = QF_AS_ULONG(*p);
    for (;;) {
        ulong seen = QF_CAS64(p, old, QF_AS_ULONG(QF_AS_DOUBLE(old) + v));
        if (seen == old) break;
        old = seen;
    }
}
#endif

/* min and max that keep a NaN (a NaN contribution must not vanish). */
FUNC double qf_min(double a, double b) { return (isnan(a) || isnan(b)) ? QF_NAN : fmin(a, b); }
FUNC double qf_max(double a, double b) { return (isnan(a) || isnan(b)) ? QF_NAN : fmax(a, b); }

/* Value c of element e of a dat with dim values per element: stride 0
 * for an array of structures, else the elements of a structure of arrays. */
#define QF_AT(e, c, dim, stride) ((stride) ? (c) * (stride) + (e) : (e) * (dim) + (c))

/* Halo values: out[k] = value k % dim of element list[k / dim], and back. */
KERNEL qf_gather(uint n, uint dim, GLOBAL const double* src, GLOBAL const uint* list, GLOBAL double* out, uint stride)
{
    uint k = QF_GID(0);
    if (k < n * dim) out[k] = src[QF_AT(list[k / dim], k % dim, dim, stride)];
}

KERNEL qf_scatter(uint n, uint dim, GLOBAL double* dst, GLOBAL const uint* list, GLOBAL const double* values, uint stride)
{
    uint k = QF_GID(0);
    if (k < n * dim) dst[QF_AT(list[k / dim], k % dim, dim, stride)] = values[k];
}
"#;

/// The device type of an element of `dat` as its kernels take it.
pub fn dat_type(dat: &DatDecl) -> DeviceType {
    if dat.is_scalar() {
        elem_type(dat.ty, 1)
    } else {
        let s = elem_type(dat.ty, 1);
        DeviceType::Array(Box::new(s), dat.dim)
    }
}

/// The device type of `dim` values of `ty` (a scalar for `dim == 1`).
pub fn elem_type(ty: ElemType, dim: usize) -> DeviceType {
    let s = match ty {
        ElemType::F64 => DeviceType::F64,
        ElemType::I32 => DeviceType::I32,
    };
    if dim == 1 {
        s
    } else {
        DeviceType::Array(Box::new(s), dim)
    }
}

/// The scalar C type of a value type.
fn scalar(ty: ElemType) -> &'static str {
    match ty {
        ElemType::F64 => "double",
        ElemType::I32 => "int",
    }
}

/// One kernel argument the host sets, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// `uint`: the first element, the row length, the rows, the row stride.
    Range(u8),
    /// A dat's buffer (argument `arg` of the loop).
    Dat(usize),
    /// `uint`: the dat's stride (0: array of structures; else its
    /// elements, a structure of arrays) (argument `arg`).
    DatStride(usize),
    /// A fixed-arity map's values (argument `arg`).
    MapValues(usize),
    /// A compressed-row map's row starts (argument `arg`).
    StarStart(usize),
    /// A compressed-row map's targets (argument `arg`).
    StarIdx(usize),
    /// `long`: the block's row and plane strides.
    Strides(u8),
    /// Value `c` of a constant (argument `arg`).
    Const(usize, usize),
    /// A reduction's accumulator buffer (argument `arg`).
    Accumulator(usize),
    /// A device two-level plan (loops that increment through a map): the
    /// blocks colour by colour (`uint*`), the first of this launch's
    /// (`uint`), each element's thread colour (`uchar*`), each block's
    /// number of thread colours (`uchar*`), where each block starts
    /// (`uint*`).
    Blocks(u8),
    /// Staged increments of group `g` ([`crate::plan::staged_groups`]):
    /// the work group's local copy (`LOCAL double*`, sized at launch), where
    /// each block's targets start (`uint*`), the targets (`uint*`).
    Stage(usize, u8),
    /// Each element's place among its block's staged targets, for the
    /// staged argument `arg` (`uint*`).
    StageIndex(usize),
}

/// The entry kernels of a loop that increments through a map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    /// One work item, the elements in order (the sequential plan).
    Serial,
    /// One work item per element, for the elements of one colour of a
    /// global colouring (which share no target).
    Coloured,
    /// One work item per element, every increment atomic.
    Atomic,
    /// One work group per block of a two-level plan: the block's
    /// elements computed at once, their increments added thread colour
    /// by thread colour with a barrier between.
    Blocks,
    /// As [`Entry::Blocks`], for blocks that may share targets (all of
    /// them at once): the block's local sums added to the dat atomically.
    StagedAtomic,
}

impl Entry {
    /// Every entry, the serial one first.
    pub const ALL: [Entry; 5] = [
        Entry::Serial,
        Entry::Coloured,
        Entry::Atomic,
        Entry::Blocks,
        Entry::StagedAtomic,
    ];
}

/// The stem of each loop's entry names, in the order of `loops`: the
/// loop's name, or, where an earlier loop of `loops` has the same name
/// (two loops of one kernel: a loop is named after its kernel), the name
/// and the loop's position (`heat_step__2`), so that every loop has entry
/// kernels of its own.
pub fn stems(loops: &[&LoopDecl]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(loops.len());
    for (k, l) in loops.iter().enumerate() {
        let mut stem = l.name.to_string();
        if out.contains(&stem) {
            stem = format!("{}__{k}", l.name);
        }
        out.push(stem);
    }
    out
}

/// The name of the entry kernel of the loop whose stem is `stem`
/// ([`stems`]).
pub fn entry_name(stem: &str) -> String {
    format!("qf_loop_{stem}")
}

/// The name of entry `e` of the loop whose stem is `stem`, a loop that
/// increments through a map.
pub fn entry_name_of(stem: &str, e: Entry) -> String {
    match e {
        Entry::Serial => entry_name(stem),
        Entry::Coloured => format!("qf_loop_{stem}_coloured"),
        Entry::Atomic => format!("qf_loop_{stem}_atomic"),
        Entry::Blocks => format!("qf_loop_{stem}_blocks"),
        Entry::StagedAtomic => format!("qf_loop_{stem}_staged_atomic"),
    }
}

/// The arguments the entry kernel of `l` takes, in order.
pub fn slots(l: &LoopDecl) -> Vec<Slot> {
    let mut s: Vec<Slot> = (0..4).map(Slot::Range).collect();
    let mut strides = false;
    for (k, a) in l.args.iter().enumerate() {
        match a.kind {
            ArgKind::Dat { via, dat, .. } => {
                s.push(Slot::Dat(k));
                if !dat.is_scalar() && matches!(via, Via::Direct | Via::Map(..)) {
                    s.push(Slot::DatStride(k));
                }
                match via {
                    Via::Direct => {}
                    Via::Map(..) => s.push(Slot::MapValues(k)),
                    Via::Star(_) => {
                        s.push(Slot::StarStart(k));
                        s.push(Slot::StarIdx(k));
                    }
                    Via::Offsets(_) => strides = true,
                }
            }
            ArgKind::Global { global, .. } => match global.kind {
                GlobalKind::Const(_) => s.extend((0..global.dim).map(|c| Slot::Const(k, c))),
                GlobalKind::Reduce(_) => s.push(Slot::Accumulator(k)),
            },
            ArgKind::Scratch { .. } => {}
        }
    }
    if strides {
        s.push(Slot::Strides(0));
        s.push(Slot::Strides(1));
    }
    if serial(l) {
        s.extend((0..5).map(Slot::Blocks));
        for (g, args) in crate::plan::staged_groups(l).iter().enumerate() {
            s.extend((0..3).map(|p| Slot::Stage(g, p)));
            s.extend(args.iter().map(|&k| Slot::StageIndex(k)));
        }
    }
    s
}

/// Whether a loop runs on one work item (increments through a map: their
/// order is the layer's, not the device's).
pub fn serial(l: &LoopDecl) -> bool {
    l.has_indirect_increment()
}

/// The entry kernel of loop `l`, its names from `stem` ([`stems`]) (and,
/// for a loop that increments through a map, one entry per [`Entry`]).
pub fn entry(l: &LoopDecl, stem: &str) -> String {
    if !serial(l) {
        return entry_as(l, &entry_name(stem), None);
    }
    Entry::ALL
        .iter()
        .map(|&e| entry_as(l, &entry_name_of(stem, e), Some(e)))
        .collect()
}

/// The entry kernel of loop `l` named `name`: one work item per element
/// (`None`: a loop without increments through maps), or entry `e` of a
/// loop with them.
fn entry_as(l: &LoopDecl, name: &str, entry: Option<Entry>) -> String {
    let mut params = Vec::new();
    let mut setup = String::new();
    let mut call = Vec::new();
    let mut after = String::new();
    // The increments through maps (added thread colour by thread colour
    // in a two-level block).
    let mut after_inc = String::new();
    // A two-level block's staged increments: into the local copy.
    let groups = crate::plan::staged_groups(l);
    let group_of = |k: usize| groups.iter().position(|g| g.contains(&k));
    // A two-level entry: work group by block, increments staged.
    let blocked = matches!(entry, Some(Entry::Blocks | Entry::StagedAtomic));
    let mut reds: Vec<(String, Reduction, usize, usize)> = Vec::new();
    // The first argument that reads each (map, slot): later ones reuse its
    // target index instead of loading it again.
    let mut targets: Vec<(&str, usize, usize)> = Vec::new();
    for slot in slots(l) {
        let p = match slot {
            Slot::Range(0) => "uint qf_first".to_string(),
            Slot::Range(1) => "uint qf_len".to_string(),
            Slot::Range(2) => "uint qf_rows".to_string(),
            Slot::Range(_) => "uint qf_stride".to_string(),
            Slot::Dat(k) => {
                let ArgKind::Dat { dat, access, .. } = l.args[k].kind else {
                    unreachable!()
                };
                // A dat no argument of the loop writes is read through a
                // restricted pointer (a GPU's read-only cache).
                let c = if access.writes() { "" } else { "const " };
                let restricted = !access.writes() && !written(l, dat.name);
                let r = if restricted { " QF_RESTRICT" } else { "" };
                format!("GLOBAL {c}{}*{r} a{k}", scalar(dat.ty))
            }
            Slot::DatStride(k) => format!("uint s{k}"),
            Slot::MapValues(k) | Slot::StarIdx(k) => {
                format!("GLOBAL const uint* QF_RESTRICT m{k}")
            }
            Slot::StarStart(k) => format!("GLOBAL const uint* s{k}"),
            Slot::Strides(0) => "long qf_sy".to_string(),
            Slot::Strides(_) => "long qf_sz".to_string(),
            Slot::Const(k, c) => {
                let ArgKind::Global { global, .. } = l.args[k].kind else {
                    unreachable!()
                };
                let t = match global.kind {
                    GlobalKind::Const(ElemType::I32) => "int",
                    _ => "double",
                };
                format!("{t} g{k}_{c}")
            }
            Slot::Accumulator(k) => format!("GLOBAL double* r{k}"),
            Slot::Blocks(0) => "GLOBAL const uint* qf_blocks".to_string(),
            Slot::Blocks(1) => "uint qf_boff".to_string(),
            Slot::Blocks(2) => "GLOBAL const uchar* qf_tcol".to_string(),
            Slot::Blocks(3) => "GLOBAL const uchar* qf_ncol".to_string(),
            Slot::Blocks(_) => "GLOBAL const uint* qf_bstart".to_string(),
            Slot::Stage(g, 0) => format!("QF_LOCAL_ARG(qf_st{g})"),
            Slot::Stage(g, 1) => format!("GLOBAL const uint* qf_sts{g}"),
            Slot::Stage(g, _) => format!("GLOBAL const uint* qf_stt{g}"),
            Slot::StageIndex(k) => format!("GLOBAL const uint* qf_sti{k}"),
        };
        params.push(p);
    }
    for (k, a) in l.args.iter().enumerate() {
        let name = format!("v{k}");
        match a.kind {
            ArgKind::Dat { dat, via, access } => {
                let t = names::c_type(&dat_type(dat));
                let c = if access.writes() { "" } else { "const " };
                let base = format!("((GLOBAL {c}{t}*)a{k})");
                match via {
                    Via::Direct | Via::Map(..) => {
                        let at = match via {
                            Via::Map(m, slot) => {
                                let Arity::Fixed(n) = m.arity else {
                                    unreachable!("validated")
                                };
                                match targets.iter().find(|t| t.0 == m.name && t.1 == slot) {
                                    Some(&(_, _, first)) => format!("e{first}"),
                                    None => {
                                        targets.push((m.name, slot, k));
                                        format!("m{k}[i * {n}u + {slot}u]")
                                    }
                                }
                            }
                            _ => "i".to_string(),
                        };
                        // A staged increment reaches its target through
                        // the block's local copy: a copy of an index
                        // loaded before would go unread (a warning).
                        let staged = access == Access::Inc && blocked && group_of(k).is_some();
                        if !(staged && at.starts_with('e')) {
                            let _ = writeln!(setup, "        uint e{k} = {at};");
                        }
                        if access == Access::Inc && matches!(via, Via::Map(..)) {
                            // A zeroed local value, added to the target
                            // after the call (two arguments may reach one
                            // element).
                            let _ = writeln!(setup, "        {t} {name};");
                            let (sc, dim) = (scalar(dat.ty), dat.dim);
                            for c in 0..dim {
                                let v = if dat.is_scalar() {
                                    name.clone()
                                } else {
                                    format!("{name}.v[{c}]")
                                };
                                let _ = writeln!(setup, "        {v} = 0;");
                                let at = if dat.is_scalar() {
                                    format!("e{k}")
                                } else {
                                    format!("QF_AT(e{k}, {c}u, {dim}u, s{k})")
                                };
                                let staged = group_of(k).filter(|_| blocked);
                                let _ = if let Some(g) = staged {
                                    writeln!(
                                        after_inc,
                                        "        qf_st{g}[qf_sti{k}[i] * {dim}u + {c}u] += {v};"
                                    )
                                } else if entry == Some(Entry::Atomic) {
                                    let add = match dat.ty {
                                        ElemType::F64 => "qf_atomic_add",
                                        ElemType::I32 => "QF_ATOMIC_ADD_INT",
                                    };
                                    writeln!(
                                        after_inc,
                                        "        {add}(&((GLOBAL {sc}*)a{k})[{at}], {v});"
                                    )
                                } else {
                                    writeln!(
                                        after_inc,
                                        "        ((GLOBAL {sc}*)a{k})[{at}] += {v};"
                                    )
                                };
                            }
                            call.push(format!("&{name}"));
                            continue;
                        }
                        let sc = scalar(dat.ty);
                        let dim = dat.dim;
                        if access == Access::Write {
                            let _ = writeln!(setup, "        {t} {name};");
                        } else if dat.is_scalar() {
                            let _ = writeln!(setup, "        {t} {name} = {base}[e{k}];");
                        } else {
                            // Either layout, chosen per run (`s{k}`).
                            let _ = writeln!(
                                setup,
                                "        {t} {name};\n        if (s{k} == 0) {name} = {base}[e{k}]; else {{"
                            );
                            for c in 0..dim {
                                let _ = writeln!(
                                    setup,
                                    "            {name}.v[{c}] = ((GLOBAL {c_}{sc}*)a{k})[{c}u * s{k} + e{k}];",
                                    c_ = if access.writes() { "" } else { "const " }
                                );
                            }
                            let _ = writeln!(setup, "        }}");
                        }
                        call.push(format!("&{name}"));
                        if access.writes() {
                            if dat.is_scalar() {
                                let _ = writeln!(after, "        {base}[e{k}] = {name};");
                            } else {
                                let _ = writeln!(
                                    after,
                                    "        if (s{k} == 0) {base}[e{k}] = {name}; else {{"
                                );
                                for c in 0..dim {
                                    let _ = writeln!(
                                        after,
                                        "            ((GLOBAL {sc}*)a{k})[{c}u * s{k} + e{k}] = {name}.v[{c}];"
                                    );
                                }
                                let _ = writeln!(after, "        }}");
                            }
                        }
                    }
                    Via::Star(_) => {
                        let st = names::c_type(&DeviceType::Star(Box::new(dat_type(dat))));
                        let _ = writeln!(
                            setup,
                            "        {st} {name};\n        {name}.base = {base};\n        {name}.idx = m{k} + s{k}[i];\n        \
                             {name}.n = s{k}[i + 1] - s{k}[i];\n        {name}.own = i;"
                        );
                        call.push(name);
                    }
                    Via::Offsets(_) => {
                        let ot = names::c_type(&DeviceType::Offsets(Box::new(dat_type(dat))));
                        let _ = writeln!(
                            setup,
                            "        {ot} {name};\n        {name}.base = {base};\n        {name}.at = (long)i;\n        \
                             {name}.sy = qf_sy;\n        {name}.sz = qf_sz;"
                        );
                        call.push(name);
                    }
                }
            }
            ArgKind::Global { global, .. } => match global.kind {
                GlobalKind::Const(ty) => {
                    if global.dim == 1 {
                        call.push(format!("g{k}_0"));
                    } else {
                        let t = names::c_type(&elem_type(ty, global.dim));
                        let _ = writeln!(setup, "        {t} {name};");
                        for c in 0..global.dim {
                            let _ = writeln!(setup, "        {name}.v[{c}] = g{k}_{c};");
                        }
                        call.push(name);
                    }
                }
                GlobalKind::Reduce(op) => {
                    let t = names::c_type(&elem_type(ElemType::F64, global.dim));
                    let id = match op {
                        Reduction::Sum => "0.0",
                        Reduction::Min => "QF_INF",
                        Reduction::Max => "(-QF_INF)",
                    };
                    if global.dim == 1 {
                        let _ = writeln!(setup, "        double {name} = {id};");
                    } else {
                        let _ = writeln!(setup, "        {t} {name};");
                        for c in 0..global.dim {
                            let _ = writeln!(setup, "        {name}.v[{c}] = {id};");
                        }
                    }
                    call.push(format!("&{name}"));
                    for c in 0..global.dim {
                        let v = if global.dim == 1 {
                            name.clone()
                        } else {
                            format!("{name}.v[{c}]")
                        };
                        let acc = format!("qf_r{k}_{c}");
                        let _ = match op {
                            Reduction::Sum => writeln!(
                                after,
                                "        qf_dd_add(&{acc}_hi, &{acc}_lo, {v}, 0.0);"
                            ),
                            Reduction::Min => {
                                writeln!(after, "        {acc}_hi = qf_min({acc}_hi, {v});")
                            }
                            Reduction::Max => {
                                writeln!(after, "        {acc}_hi = qf_max({acc}_hi, {v});")
                            }
                        };
                        reds.push((acc, op, k, c));
                    }
                }
            },
            ArgKind::Scratch { ty, ctor } => {
                let _ = writeln!(setup, "        {ty} {name} = {ctor}();");
                call.push(format!("&{name}"));
            }
        }
    }
    let mut s = String::new();
    let _ = writeln!(s, "/* loop {} over {}: {} */", l.name, l.set.name, l.kernel);
    let _ = writeln!(s, "KERNEL {}({})\n{{", name, params.join(", "));
    for slot in slots(l) {
        if let Slot::Stage(g, 0) = slot {
            let _ = writeln!(s, "    QF_LOCAL_BIND(qf_st{g})");
        }
    }
    for (acc, op, _, _) in &reds {
        let _ = match op {
            Reduction::Sum => writeln!(s, "    double {acc}_hi = 0.0;\n    double {acc}_lo = 0.0;"),
            Reduction::Min => writeln!(s, "    double {acc}_hi = QF_INF;"),
            Reduction::Max => writeln!(s, "    double {acc}_hi = (-QF_INF);"),
        };
    }
    let call = format!("        {}({});\n", l.kernel, call.join(", "));
    let body = format!("{setup}{call}{after}{after_inc}");
    if blocked {
        // Each staged group's local copy zeroed before, and added to the
        // dat after (one target per work item at a time; no two blocks of
        // a launch share a target, else the adds are atomic).
        let (mut zero, mut flush) = (String::new(), String::new());
        for (g, args) in groups.iter().enumerate() {
            let ArgKind::Dat { dat, .. } = l.args[args[0]].kind else {
                unreachable!()
            };
            let (dim, k) = (dat.dim, args[0]);
            let stride = if !dat.is_scalar() {
                format!("s{k}")
            } else {
                "0".into()
            };
            let target = format!("((GLOBAL double*)a{k})[QF_AT(qf_e, qf_c, {dim}u, {stride})]");
            let value = format!("qf_st{g}[qf_t * {dim}u + qf_c]");
            let add = if entry == Some(Entry::StagedAtomic) {
                format!("qf_atomic_add(&{target}, {value})")
            } else {
                format!("{target} += {value}")
            };
            let _ = writeln!(
                zero,
                "    uint qf_t0_{g} = qf_sts{g}[qf_blk];\n    uint qf_tn_{g} = qf_sts{g}[qf_blk + 1] - qf_t0_{g};\n    \
                 for (uint qf_t = QF_LID(); qf_t < qf_tn_{g} * {dim}u; qf_t += QF_LSIZE()) qf_st{g}[qf_t] = 0.0;"
            );
            let _ = writeln!(
                flush,
                "    for (uint qf_t = QF_LID(); qf_t < qf_tn_{g}; qf_t += QF_LSIZE()) {{\n        \
                 uint qf_e = qf_stt{g}[qf_t0_{g} + qf_t];\n        \
                 for (uint qf_c = 0; qf_c < {dim}u; qf_c++) {add};\n    }}"
            );
        }
        if !groups.is_empty() {
            zero.push_str("    QF_BARRIER();\n");
        }
        // Work item `QF_LID()` of the group takes that element of its
        // block; items past the span compute for its first element and
        // store nothing.
        let _ = writeln!(
            s,
            "    uint qf_blk = qf_blocks[qf_boff + QF_GROUP()];\n    uint i = qf_bstart[qf_blk] + QF_LID();\n    \
             int qf_on = i < qf_bstart[qf_blk + 1] && i >= qf_first && i < qf_first + qf_len;\n    uint qf_tc = qf_on ? qf_tcol[i] : 255u;\n    \
             if (!qf_on) i = qf_first;\n{zero}    {{\n{setup}{call}        if (qf_on) {{\n{after}        }}\n        \
             for (uint qf_c = 0; qf_c < qf_ncol[qf_blk]; qf_c++) {{\n            if (qf_tc == qf_c) {{\n{after_inc}            }}\n            \
             QF_BARRIER_ALL();\n        }}\n    }}\n{flush}"
        );
    } else if entry == Some(Entry::Serial) {
        let _ = writeln!(
            s,
            "    if (QF_GID(0) == 0 && QF_GID(1) == 0) {{\n    for (uint qf_y = 0; qf_y < qf_rows; qf_y++)\n    \
             for (uint qf_x = 0; qf_x < qf_len; qf_x++) {{\n        uint i = qf_first + qf_x + qf_y * qf_stride;\n{body}    }}\n    }}"
        );
    } else {
        let _ = writeln!(
            s,
            "    uint qf_x = QF_GID(0);\n    uint qf_y = QF_GID(1);\n    if (qf_x < qf_len && qf_y < qf_rows) {{\n        \
             uint i = qf_first + qf_x + qf_y * qf_stride;\n{body}    }}"
        );
    }
    if !reds.is_empty() {
        // The low parts of double-double sums only where there are sums.
        let sums = reds.iter().any(|r| r.1 == Reduction::Sum);
        let _ = writeln!(
            s,
            "    LOCAL double qf_lhi[QF_WG_MAX];\n{}    uint qf_l = QF_LID();\n    \
             uint qf_ls = QF_LSIZE();\n    uint qf_g = QF_GROUP();",
            if sums {
                "    LOCAL double qf_llo[QF_WG_MAX];\n"
            } else {
                ""
            }
        );
        let nv = reds.len();
        for (v, (acc, op, _, _)) in reds.iter().enumerate() {
            let fold = match op {
                Reduction::Sum => {
                    "double qf_h = qf_lhi[qf_l]; double qf_o = qf_llo[qf_l]; \
                     qf_dd_add(&qf_h, &qf_o, qf_lhi[qf_l + qf_s], qf_llo[qf_l + qf_s]); \
                     qf_lhi[qf_l] = qf_h; qf_llo[qf_l] = qf_o;"
                }
                Reduction::Min => "qf_lhi[qf_l] = qf_min(qf_lhi[qf_l], qf_lhi[qf_l + qf_s]);",
                Reduction::Max => "qf_lhi[qf_l] = qf_max(qf_lhi[qf_l], qf_lhi[qf_l + qf_s]);",
            };
            let store = match op {
                Reduction::Sum => format!(
                    "uint qf_at = 2 * (qf_g * {dim}u + {c}u); double qf_h = r{k}[qf_at]; \
                     double qf_o = r{k}[qf_at + 1]; qf_dd_add(&qf_h, &qf_o, qf_lhi[0], qf_llo[0]); \
                     r{k}[qf_at] = qf_h; r{k}[qf_at + 1] = qf_o;",
                    k = reds[v].2,
                    c = reds[v].3,
                    dim = reds.iter().filter(|x| x.2 == reds[v].2).count()
                ),
                Reduction::Min => format!(
                    "r{k}[2 * (qf_g * {dim}u + {c}u)] = qf_min(r{k}[2 * (qf_g * {dim}u + {c}u)], qf_lhi[0]);",
                    k = reds[v].2,
                    c = reds[v].3,
                    dim = reds.iter().filter(|x| x.2 == reds[v].2).count()
                ),
                Reduction::Max => format!(
                    "r{k}[2 * (qf_g * {dim}u + {c}u)] = qf_max(r{k}[2 * (qf_g * {dim}u + {c}u)], qf_lhi[0]);",
                    k = reds[v].2,
                    c = reds[v].3,
                    dim = reds.iter().filter(|x| x.2 == reds[v].2).count()
                ),
            };
            let lo = if *op == Reduction::Sum {
                format!("    qf_llo[qf_l] = {acc}_lo;\n")
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "    /* reduced value {v} of {nv} */\n    qf_lhi[qf_l] = {acc}_hi;\n{lo}    QF_BARRIER();\n    \
                 for (uint qf_s = qf_ls / 2; qf_s > 0; qf_s >>= 1) {{\n        if (qf_l < qf_s) {{ {fold} }}\n        QF_BARRIER();\n    }}\n    \
                 if (qf_l == 0) {{ {store} }}\n    QF_BARRIER();"
            );
        }
    }
    s.push_str("}\n");
    s
}

/// The whole program of a method: prelude, translated device functions,
/// one entry per loop.
pub fn program(device_source: &str, loops: &[&LoopDecl]) -> String {
    let mut s = String::from(PRELUDE);
    s.push_str("\n/* ---- translated from the method's Rust kernels ---- */\n");
    s.push_str(device_source);
    s.push_str("\n/* ---- entry points, from the loops' declarations ---- */\n");
    // Line loops run on the CPU backends only.
    for (l, stem) in loops.iter().zip(stems(loops)) {
        if l.line.is_none() {
            s.push_str(&entry(l, &stem));
        }
    }
    s
}

/// Whether some argument of loop `l` writes dat `name` (then no argument
/// may read it through a restricted pointer).
fn written(l: &LoopDecl, name: &str) -> bool {
    l.args.iter().any(|a| {
        matches!(a.kind, ArgKind::Dat { dat, access, .. } if dat.name == name && access.writes())
    })
}
