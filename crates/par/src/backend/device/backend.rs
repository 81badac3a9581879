//! [`DeviceBackend`]: the part on a device of any API, and the
//! [`LocalBackend`] calls over it.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use super::api::{bytes, bytes_mut, Arg, DeviceApi};
use super::plans::DevicePlan;
use super::select::{check_fp64, check_memory, select_device, select_rank_device, DeviceInfo};
use super::source::{self, Entry, Slot};
use crate::backend::{LocalBackend, Program as MethodProgram};
use crate::decl::{DatDecl, ElemType, GlobalDecl, GlobalKind, LoopDecl, Reduction};
use crate::kernel::{identity, Partials, MAX_CONST, MAX_REDUCE_DIM};
use crate::part::Part;
use crate::plan::Increments;
use crate::problem::Values;

/// A dat on the device.
pub(super) struct DeviceDat<B> {
    pub(super) decl: &'static DatDecl,
    pub(super) buf: B,
    /// Elements.
    pub(super) len: usize,
    /// Stored as a structure of arrays.
    pub(super) soa: bool,
}

impl<B> DeviceDat<B> {
    /// The stride the kernels take (0: array of structures).
    pub(super) fn stride(&self) -> u32 {
        if self.soa {
            self.len as u32
        } else {
            0
        }
    }
}

/// A map on the device.
pub(super) struct DeviceMap<B> {
    pub(super) values: B,
    pub(super) start: Option<B>,
}

/// A global: a constant's values, or a reduction's per-group slots.
pub(super) struct DeviceGlobal<B> {
    pub(super) decl: &'static GlobalDecl,
    pub(super) f: [f64; MAX_CONST],
    pub(super) i: [i32; MAX_CONST],
    /// Per work group and value: `(hi, lo)`.
    pub(super) slots: Option<B>,
    pub(super) groups: usize,
}

/// A loop's entry kernels with their argument order.
pub(super) struct LoopKernel<K> {
    pub(super) kernel: K,
    /// The other entries of a loop that increments through a map.
    pub(super) entries: HashMap<Entry, K>,
    pub(super) slots: Vec<Slot>,
}

/// The device backend over one part, on the device API `A`.
pub(crate) struct DeviceBackend<A: DeviceApi> {
    pub(super) info: DeviceInfo,
    pub(super) part: Arc<Part>,
    // Kernels and buffers are dropped before the API (its context).
    pub(super) kernels: HashMap<usize, LoopKernel<A::Kernel>>,
    pub(super) gather: A::Kernel,
    pub(super) scatter: A::Kernel,
    pub(super) dats: Vec<DeviceDat<A::Buffer>>,
    pub(super) maps: Vec<DeviceMap<A::Buffer>>,
    pub(super) globals: Vec<DeviceGlobal<A::Buffer>>,
    pub(super) lists: HashMap<(usize, usize), A::Buffer>,
    /// How loops that increment through a map run.
    pub(super) increments: Increments,
    /// Each such loop's plan, made on its first run (`None`: it runs on
    /// one work item).
    pub(super) plans: HashMap<usize, Option<DevicePlan<A::Buffer>>>,
    /// Bound to the two-level arguments of entries that do not use them.
    pub(super) unused: A::Buffer,
    pub(super) staging: A::Buffer,
    pub(super) staging_len: usize,
    pub(super) wg: usize,
    /// Host copies of reduction slots, reused (no allocation per step).
    pub(super) host: Vec<f64>,
    pub(super) error: Option<String>,
    pub(super) api: A,
}

// SAFETY: `DeviceApi`'s contract: its buffers and kernels may move between
// threads with it; the layer calls one backend from one thread at a time.
unsafe impl<A: DeviceApi> Send for DeviceBackend<A> {}

/// The largest work group on a CPU device: on a CPU device (PoCL) each
/// work item's values live across barriers on a worker thread's stack,
/// and groups of 1024 overflowed it (DG, 2D isothermal Euler at order 8:
/// a segmentation fault), while every kernel reports 4096 as its limit.
const CPU_WORK_GROUP_MAX: usize = 256;

impl<A: DeviceApi> DeviceBackend<A> {
    /// The backend on the device `device` asks for (`None`: the first
    /// suitable one), with work groups of `work_group` elements (`None`:
    /// 64), for a method's `program` and `globals`.
    pub(crate) fn new(
        part: Arc<Part>,
        globals: &[&'static GlobalDecl],
        program: &MethodProgram,
        device: Option<&str>,
        work_group: Option<usize>,
        increments: Increments,
        layout: crate::layout::Layout,
    ) -> Result<Self, String> {
        let infos = A::devices()?;
        if infos.is_empty() {
            return Err(A::NO_DEVICE.into());
        }
        let info = infos[select_device(&infos, device)?].clone();
        check_fp64(&info)?;
        check_memory(&super::memory_needs(&part), &info)?;
        let device_limit = if info.device_type == "CPU" {
            info.max_work_group.clamp(1, CPU_WORK_GROUP_MAX)
        } else {
            info.max_work_group.max(1)
        };
        let wg = super::work_group(work_group, device_limit, &info)?;
        let text = source::program(program.device_source, program.loops);
        let api = A::open(&info, &text, wg)?;
        let mut kernels = HashMap::new();
        let stems = source::stems(program.loops);
        for (l, stem) in program.loops.iter().zip(&stems) {
            if l.line.is_some() {
                continue;
            }
            kernels.insert(
                *l as *const LoopDecl as usize,
                LoopKernel {
                    kernel: api.kernel(&source::entry_name(stem))?,
                    entries: if source::serial(l) {
                        Entry::ALL[1..]
                            .iter()
                            .map(|&e| Ok((e, api.kernel(&source::entry_name_of(stem, e))?)))
                            .collect::<Result<_, String>>()?
                    } else {
                        HashMap::new()
                    },
                    slots: source::slots(l),
                },
            );
        }
        let gather = api.kernel("qf_gather")?;
        let scatter = api.kernel("qf_scatter")?;
        // A kernel may allow smaller work groups than the device (its
        // registers, its local memory): launching a larger one fails, or
        // crashes some drivers. The smallest limit over the kernels rules.
        let mut limit = usize::MAX;
        for k in kernels
            .values()
            .flat_map(|k: &LoopKernel<A::Kernel>| {
                std::iter::once(&k.kernel).chain(k.entries.values())
            })
            .chain([&gather, &scatter])
        {
            limit = limit.min(api.kernel_limit(k)?.max(1));
        }
        let wg = if wg <= limit {
            wg
        } else if work_group.is_some() {
            return Err(format!(
                "--work-group {wg}: the kernels allow at most {limit} on {} (give a power of two up to it)",
                info.label()
            ));
        } else {
            // The default, lowered to the largest power of two allowed.
            1 << (usize::BITS - 1 - limit.leading_zeros())
        };
        let mut me = DeviceBackend {
            unused: api.alloc(1)?,
            staging: api.alloc(8)?,
            staging_len: 1,
            info,
            part: part.clone(),
            kernels,
            gather,
            scatter,
            dats: Vec::new(),
            maps: Vec::new(),
            globals: globals
                .iter()
                .map(|&g| DeviceGlobal {
                    decl: g,
                    f: [0.0; MAX_CONST],
                    i: [0; MAX_CONST],
                    slots: None,
                    groups: 0,
                })
                .collect(),
            lists: HashMap::new(),
            increments,
            plans: HashMap::new(),
            wg,
            host: Vec::new(),
            error: None,
            api,
        };
        let decls: Vec<&DatDecl> = part.dats.iter().map(|d| d.decl).collect();
        let soa = crate::layout::soa_dats(&decls, program.loops, layout);
        for (d, &soa) in part.dats.iter().zip(&soa) {
            let transposed;
            let values = if soa {
                transposed = crate::layout::to_soa(&d.values, d.decl.dim);
                &transposed
            } else {
                &d.values
            };
            let buf = me
                .upload_values(values)
                .map_err(|e| format!("uploading `{}`: {e}", d.decl.name))?;
            me.dats.push(DeviceDat {
                decl: d.decl,
                buf,
                len: d.values.len() / d.decl.dim.max(1),
                soa,
            });
        }
        for m in &part.maps {
            let start = if m.start.is_empty() {
                None
            } else {
                Some(me.upload(&m.start)?)
            };
            let values = me.upload(&m.values)?;
            me.maps.push(DeviceMap { values, start });
        }
        Ok(me)
    }

    /// A device copy of `values`.
    pub(super) fn upload<T: super::api::Plain>(
        &mut self,
        values: &[T],
    ) -> Result<A::Buffer, String> {
        let b = bytes(values);
        let mut buf = self.api.alloc(b.len().max(1))?;
        if !b.is_empty() {
            self.api.write(&mut buf, b)?;
        }
        Ok(buf)
    }

    fn upload_values(&mut self, v: &Values) -> Result<A::Buffer, String> {
        match v {
            Values::F64(x) => self.upload(x),
            Values::I32(x) => self.upload(x),
        }
    }

    pub(super) fn run_spans(
        &mut self,
        l: &'static LoopDecl,
        spans: &[Range<usize>],
    ) -> Result<(), String> {
        if source::serial(l) && self.run_planned(l, spans)? {
            return Ok(());
        }
        // Consecutive spans of one length at a constant stride go in one
        // two-dimensional launch (the rows of a block's box), in pieces of
        // at most `MAX_ROWS` rows.
        let mut k = 0;
        while k < spans.len() {
            let s = &spans[k];
            if s.is_empty() {
                k += 1;
                continue;
            }
            let mut rows = 1;
            let mut stride = 0;
            if k + 1 < spans.len() && spans[k + 1].len() == s.len() && spans[k + 1].start > s.start
            {
                stride = spans[k + 1].start - s.start;
                while k + rows < spans.len()
                    && rows < MAX_ROWS
                    && spans[k + rows].len() == s.len()
                    && spans[k + rows].start == s.start + rows * stride
                {
                    rows += 1;
                }
            }
            self.launch(l, s.start, s.len(), rows, stride, Entry::Serial, None)?;
            k += rows;
        }
        Ok(())
    }

    pub(super) fn fail<T: Default>(&mut self, r: Result<T, String>) -> T {
        match r {
            Ok(v) => v,
            Err(e) => {
                if self.error.is_none() {
                    self.error = Some(e);
                }
                T::default()
            }
        }
    }

    /// The halo kernel `gather` (else `scatter`) over `n` values of `dat`
    /// at the elements of `list`, through the staging buffer.
    fn halo(&mut self, gather: bool, dat: &DatDecl, elements: &[u32]) -> Result<(), String> {
        let n = elements.len() * dat.dim;
        self.list(elements)?;
        self.staging(n)?;
        let d = dat_index(&self.dats, dat);
        let key = (elements.as_ptr() as usize, elements.len());
        let k = if gather { &self.gather } else { &self.scatter };
        let args = [
            Arg::U32(elements.len() as u32),
            Arg::U32(dat.dim as u32),
            Arg::Buffer(&self.dats[d].buf),
            Arg::Buffer(&self.lists[&key]),
            Arg::Buffer(&self.staging),
            Arg::U32(self.dats[d].stride()),
        ];
        // SAFETY: the arguments of qf_gather and qf_scatter (the prelude),
        // the staging buffer and list sized for `n` values.
        unsafe {
            self.api
                .launch(k, [n.div_ceil(64), 1], 64, &mut args.into_iter(), None)
        }
        .map_err(|e| format!("a halo {}: {e}", if gather { "gather" } else { "scatter" }))
    }
}

/// The device backend on API `A` as `spec` says: under several ranks,
/// local rank `r` of a node's `n` takes the device [`select_rank_device`]
/// gives it.
pub(crate) fn create<A: DeviceApi + 'static>(
    spec: &crate::backend::BackendSpec,
    part: Arc<Part>,
    globals: &[&'static GlobalDecl],
    program: &MethodProgram,
    node: (usize, usize),
) -> Result<Box<dyn LocalBackend>, String> {
    let device = if node.1 > 1 {
        let list = A::devices()?;
        if list.is_empty() {
            return Err(A::NO_DEVICE.into());
        }
        let d = select_rank_device(&list, spec.device.as_deref(), node.0, node.1)?;
        // One line per node: its first rank says that ranks share devices.
        if let (Some(line), 0) = (&d.shared, node.0) {
            eprintln!("{line}");
        }
        Some(d.spec)
    } else {
        spec.device.clone()
    };
    Ok(Box::new(DeviceBackend::<A>::new(
        part,
        globals,
        program,
        device.as_deref(),
        spec.work_group,
        spec.increments,
        spec.layout,
    )?))
}

/// Rows of one launch at most (CUDA's grid has at most 65,535 along y).
const MAX_ROWS: usize = 65_535;

/// The position of `d` among `dats`.
pub(super) fn dat_index<B>(dats: &[DeviceDat<B>], d: &DatDecl) -> usize {
    dats.iter()
        .position(|x| x.decl.name == d.name)
        .unwrap_or_else(|| panic!("dat `{}` is not on the device", d.name))
}

/// The position of `g` among `globals`.
pub(super) fn global_index<B>(globals: &[DeviceGlobal<B>], g: &GlobalDecl) -> usize {
    globals
        .iter()
        .position(|x| x.decl.name == g.name)
        .unwrap_or_else(|| panic!("global `{}` is not declared", g.name))
}

impl<A: DeviceApi> LocalBackend for DeviceBackend<A> {
    fn name(&self) -> String {
        format!("{} ({})", A::NAME, self.info.name)
    }

    fn run(&mut self, l: &'static LoopDecl, spans: &[Range<usize>]) -> Result<(), String> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if l.line.is_some() {
            return Err(format!(
                "loop `{}` is a line loop, which the {} backend does not run",
                l.name,
                A::NAME
            ));
        }
        let r = self.run_spans(l, spans);
        if let Err(e) = &r {
            self.error = Some(e.clone());
        }
        r
    }

    fn asynchronous(&self) -> bool {
        true
    }

    fn flush(&mut self) {
        let r = self.api.flush();
        self.fail(r);
    }

    fn device_times(
        &mut self,
        wait: bool,
        add: &mut dyn FnMut(&'static str, std::time::Duration),
    ) -> bool {
        let r = self.api.times(wait, add);
        match r {
            Ok(on) => on,
            Err(e) => {
                self.fail::<()>(Err(e));
                true
            }
        }
    }

    fn synchronize(&mut self) {
        let r = self.api.finish();
        self.fail(r);
    }

    fn swap(&mut self, a: &DatDecl, b: &DatDecl) {
        let (ia, ib) = (dat_index(&self.dats, a), dat_index(&self.dats, b));
        assert!(
            a.set.name == b.set.name && a.dim == b.dim && a.ty == b.ty,
            "swap of `{}` and `{}`",
            a.name,
            b.name
        );
        self.dats.swap(ia, ib);
        // The names stay with the positions: swap the decls back.
        let (da, db) = (self.dats[ia].decl, self.dats[ib].decl);
        self.dats[ia].decl = db;
        self.dats[ib].decl = da;
    }

    fn pack(&mut self, dat: &DatDecl, elements: &[u32], out: &mut [f64]) {
        let n = elements.len() * dat.dim;
        if n == 0 {
            return;
        }
        let r = self.halo(true, dat, elements).and_then(|()| {
            self.api
                .read(&self.staging, bytes_mut(&mut out[..n]))
                .map_err(|e| format!("reading halo values: {e}"))
        });
        if r.is_err() {
            out.fill(f64::NAN);
        }
        self.fail(r);
    }

    fn unpack(&mut self, dat: &DatDecl, elements: &[u32], values: &[f64]) {
        let n = elements.len() * dat.dim;
        if n == 0 {
            return;
        }
        let r = self
            .staging(n)
            .and_then(|()| {
                self.api
                    .write(&mut self.staging, bytes(&values[..n]))
                    .map_err(|e| format!("writing halo values: {e}"))
            })
            .and_then(|()| self.halo(false, dat, elements));
        self.fail(r);
    }

    fn read(&mut self, dat: &DatDecl) -> Values {
        let d = dat_index(&self.dats, dat);
        let n = self.dats[d].len * dat.dim;
        let mut v = match dat.ty {
            ElemType::F64 => Values::F64(vec![0.0; n]),
            ElemType::I32 => Values::I32(vec![0; n]),
        };
        let out = match &mut v {
            Values::F64(x) => bytes_mut(x),
            Values::I32(x) => bytes_mut(x),
        };
        let r = self
            .api
            .read(&self.dats[d].buf, out)
            .map_err(|e| format!("reading `{}`: {e}", dat.name));
        match r {
            Ok(()) if self.dats[d].soa => crate::layout::to_aos(&v, dat.dim),
            Ok(()) => v,
            Err(e) => {
                self.error.get_or_insert(e);
                match dat.ty {
                    ElemType::F64 => Values::F64(vec![f64::NAN; n]),
                    ElemType::I32 => Values::I32(vec![0; n]),
                }
            }
        }
    }

    fn write(&mut self, dat: &DatDecl, values: &Values) {
        let d = dat_index(&self.dats, dat);
        let soa;
        let values = if self.dats[d].soa {
            soa = crate::layout::to_soa(values, dat.dim);
            &soa
        } else {
            values
        };
        let b = match values {
            Values::F64(x) => bytes(x),
            Values::I32(x) => bytes(x),
        };
        let r = self
            .api
            .write(&mut self.dats[d].buf, b)
            .map_err(|e| format!("writing `{}`: {e}", dat.name));
        self.fail(r);
    }

    fn set_const(&mut self, g: &GlobalDecl, f: &[f64], i: &[i32]) {
        let k = global_index(&self.globals, g);
        self.globals[k].f[..f.len()].copy_from_slice(f);
        self.globals[k].i[..i.len()].copy_from_slice(i);
    }

    fn partial(&mut self, g: &GlobalDecl) -> Partials {
        let k = global_index(&self.globals, g);
        let GlobalKind::Reduce(op) = g.kind else {
            panic!("global `{}` is not a reduction", g.name)
        };
        let dim = g.dim;
        let mut p = Partials::new(&[op; MAX_REDUCE_DIM][..dim]);
        let (groups, slots) = (self.globals[k].groups, &self.globals[k].slots);
        let Some(buf) = slots else { return p };
        let v = &mut self.host;
        v.clear();
        v.resize(2 * dim * groups, 0.0);
        if let Err(e) = self.api.read(buf, bytes_mut(v)) {
            self.error
                .get_or_insert(format!("reading a reduction: {e}"));
            return p;
        }
        for grp in 0..groups {
            for c in 0..dim {
                let (hi, lo) = (v[2 * (grp * dim + c)], v[2 * (grp * dim + c) + 1]);
                match op {
                    Reduction::Sum => {
                        p.sums[c].add(hi);
                        p.sums[c].add(lo);
                    }
                    Reduction::Min => {
                        p.ext[c] = if hi.is_nan() || p.ext[c].is_nan() {
                            f64::NAN
                        } else {
                            p.ext[c].min(hi)
                        }
                    }
                    Reduction::Max => {
                        p.ext[c] = if hi.is_nan() || p.ext[c].is_nan() {
                            f64::NAN
                        } else {
                            p.ext[c].max(hi)
                        }
                    }
                }
            }
        }
        p
    }

    fn reset(&mut self, g: &GlobalDecl) {
        let k = global_index(&self.globals, g);
        let GlobalKind::Reduce(op) = g.kind else {
            return;
        };
        let n = 2 * g.dim * self.globals[k].groups;
        if let Some(buf) = &mut self.globals[k].slots {
            let init = &mut self.host;
            init.clear();
            for _ in 0..n / 2 {
                init.extend_from_slice(&[identity(op), 0.0]);
            }
            let r = self
                .api
                .write(buf, bytes(init))
                .map_err(|e| format!("resetting a reduction: {e}"));
            self.fail(r);
        }
    }

    fn bytes(&self) -> usize {
        self.dats
            .iter()
            .map(|d| d.len * d.decl.dim * d.decl.ty.bytes())
            .sum()
    }

    fn error(&self) -> Option<String> {
        self.error.clone()
    }
}
