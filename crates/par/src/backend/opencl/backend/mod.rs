//! The OpenCL backend: a part's dats and maps in device buffers, uploaded
//! once; every loop one launch (per group of equally long rows), its
//! arguments bound as the declaration says; reductions folded per work
//! group (double-double sums) into per-group slots on the device, read back
//! only when the layer asks for their value.

use crate::plan::Increments;
use std::collections::HashMap;
use std::ops::Range;
use std::ptr;
use std::sync::Arc;

use opencl3::command_queue::{CommandQueue, CL_QUEUE_PROFILING_ENABLE};
use opencl3::context::Context;
use opencl3::device::Device;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_mem, CL_BLOCKING};

use super::device::{
    check_memory, cl_error, enumerate, select_device, setup_lock, DeviceInfo, MemoryNeeds,
};
use super::source::{self, Entry, Slot};
use crate::backend::{LocalBackend, Program as MethodProgram};
use crate::decl::{
    ArgKind, DatDecl, ElemType, GlobalDecl, GlobalKind, LoopDecl, Reduction, Role, Via,
};
use crate::kernel::{identity, Partials, MAX_CONST, MAX_REDUCE_DIM};
use crate::part::Part;
use crate::problem::Values;

mod launch;
mod plans;
mod profile;

use plans::{BlockArgs, DevicePlan};

/// A dat on the device.
struct DeviceDat {
    decl: &'static DatDecl,
    buf: Buffer<u8>,
    /// Elements.
    len: usize,
    /// Stored as a structure of arrays.
    soa: bool,
}

impl DeviceDat {
    /// The stride the kernels take (0: array of structures).
    fn stride(&self) -> u32 {
        if self.soa {
            self.len as u32
        } else {
            0
        }
    }
}

/// A map on the device.
struct DeviceMap {
    values: Buffer<u32>,
    start: Option<Buffer<u32>>,
}

/// A global: a constant's values, or a reduction's per-group slots.
struct DeviceGlobal {
    decl: &'static GlobalDecl,
    f: [f64; MAX_CONST],
    i: [i32; MAX_CONST],
    /// Per work group and value: `(hi, lo)`.
    slots: Option<Buffer<f64>>,
    groups: usize,
}

/// A loop's kernel with its argument order.
struct LoopKernel {
    kernel: Kernel,
    /// The other entries of a loop that increments through a map.
    entries: HashMap<Entry, Kernel>,
    slots: Vec<Slot>,
}

/// The OpenCL backend over one part.
pub struct OpenClBackend {
    info: DeviceInfo,
    part: Arc<Part>,
    // Dropped before the context.
    kernels: HashMap<usize, LoopKernel>,
    gather: Kernel,
    scatter: Kernel,
    dats: Vec<DeviceDat>,
    maps: Vec<DeviceMap>,
    globals: Vec<DeviceGlobal>,
    lists: HashMap<(usize, usize), Buffer<u32>>,
    /// How loops that increment through a map run.
    increments: Increments,
    /// Each such loop's plan, made on its first run (`None`: it runs on
    /// one work item).
    plans: HashMap<usize, Option<DevicePlan>>,
    /// Bound to the two-level arguments of entries that do not use them.
    unused: Buffer<u8>,
    staging: Buffer<f64>,
    staging_len: usize,
    wg: usize,
    /// Host copies of reduction slots, reused (no allocation per step).
    host: Vec<f64>,
    error: Option<String>,
    /// Launch events whose device times are not collected yet.
    pending: profile::Pending,
    _program: Program,
    queue: CommandQueue,
    context: Context,
}

// SAFETY: OpenCL objects may be used from any thread; the layer calls one
// backend from one thread at a time.
unsafe impl Send for OpenClBackend {}

fn new_buffer<T>(context: &Context, count: usize) -> Result<Buffer<T>, String> {
    // SAFETY: a device allocation, no host pointer.
    unsafe { Buffer::<T>::create(context, CL_MEM_READ_WRITE, count.max(1), ptr::null_mut()) }
        .map_err(|e| cl_error("allocating device memory", e))
}

fn bytes_of(v: &Values) -> &[u8] {
    match v {
        // SAFETY: plain numbers, viewed as bytes.
        Values::F64(x) => unsafe {
            std::slice::from_raw_parts(x.as_ptr() as *const u8, 8 * x.len())
        },
        // SAFETY: as above.
        Values::I32(x) => unsafe {
            std::slice::from_raw_parts(x.as_ptr() as *const u8, 4 * x.len())
        },
    }
}

/// The largest work group on a CPU device (see [`OpenClBackend::new`]).
const CPU_WORK_GROUP_MAX: usize = 256;

impl OpenClBackend {
    /// The backend on the device `device` asks for (`None`: the first
    /// suitable one), with work groups of `work_group` elements (`None`:
    /// 64), for a method's `program` and `globals`.
    pub fn new(
        part: Arc<Part>,
        globals: &[&'static GlobalDecl],
        program: &MethodProgram,
        device: Option<&str>,
        work_group: Option<usize>,
        increments: Increments,
        layout: crate::layout::Layout,
    ) -> Result<Self, String> {
        let _setup = setup_lock();
        let found = enumerate()?;
        let infos: Vec<DeviceInfo> = found.iter().map(|f| f.info.clone()).collect();
        let chosen = select_device(&infos, device)?;
        let (info, id) = (found[chosen].info.clone(), found[chosen].id);
        super::device::check_fp64(&info)?;
        let needs = memory_needs(&part);
        check_memory(&needs, &info)?;
        // The largest group the device takes; on a CPU device (PoCL) each
        // work item's values live across barriers on a worker thread's
        // stack, and groups of 1024 overflowed it (DG, 2D isothermal Euler
        // at order 8: a segmentation fault), while every kernel reports
        // 4096 as its limit.
        let device_limit = if info.device_type == "CPU" {
            info.max_work_group.clamp(1, CPU_WORK_GROUP_MAX)
        } else {
            info.max_work_group.max(1)
        };
        let wg = match work_group {
            Some(w) if w == 0 || !w.is_power_of_two() => {
                return Err(format!(
                    "--work-group {w}: give a power of two (the reductions halve it)"
                ))
            }
            Some(w) if w > device_limit => {
                return Err(format!(
                    "--work-group {w}: at most {device_limit} on {}{}",
                    info.label(),
                    if info.device_type == "CPU" {
                        " (a CPU device keeps a group's private values on one thread's stack)"
                    } else {
                        ""
                    }
                ))
            }
            Some(w) => w,
            None => 64.min(1 << (usize::BITS - 1 - device_limit.leading_zeros())),
        };
        let context = Context::from_device(&Device::new(id))
            .map_err(|e| cl_error(&format!("creating a context on {}", info.label()), e))?;
        // An in-order queue on our context and device that profiles its
        // commands (loop times from the device's clock), else a plain one.
        let create = |props| {
            // SAFETY: an in-order queue with these properties.
            unsafe { CommandQueue::create_with_properties(&context, id, props, 0) }.or_else(|_| {
                #[allow(deprecated)]
                // SAFETY: as above (OpenCL 1.x entry point).
                unsafe {
                    CommandQueue::create(&context, id, props)
                }
            })
        };
        let (queue, profiling) = match create(CL_QUEUE_PROFILING_ENABLE) {
            Ok(q) => (q, true),
            Err(_) => (
                create(0).map_err(|e| cl_error("creating a command queue", e))?,
                false,
            ),
        };
        let text = source::program(program.device_source, program.loops);
        let built = super::build_program(&context, id, &info, &text, wg)?;
        let kernel = |name: &str| {
            Kernel::create(&built, name).map_err(|e| cl_error(&format!("kernel {name}"), e))
        };
        let mut kernels = HashMap::new();
        let stems = source::stems(program.loops);
        for (l, stem) in program.loops.iter().zip(&stems) {
            if l.line.is_some() {
                continue;
            }
            kernels.insert(
                *l as *const LoopDecl as usize,
                LoopKernel {
                    kernel: kernel(&source::entry_name(stem))?,
                    entries: if source::serial(l) {
                        Entry::ALL[1..]
                            .iter()
                            .map(|&e| Ok((e, kernel(&source::entry_name_of(stem, e))?)))
                            .collect::<Result<_, String>>()?
                    } else {
                        HashMap::new()
                    },
                    slots: source::slots(l),
                },
            );
        }
        let gather = kernel("qf_gather")?;
        let scatter = kernel("qf_scatter")?;
        // A kernel may allow smaller work groups than the device (its
        // registers, its local memory): launching a larger one fails, or
        // crashes some drivers. The smallest limit over the kernels rules.
        let mut limit = usize::MAX;
        for (name, k) in kernels
            .values()
            .flat_map(|k: &LoopKernel| std::iter::once(&k.kernel).chain(k.entries.values()))
            .map(|k| ("a loop kernel", k))
            .chain([("qf_gather", &gather), ("qf_scatter", &scatter)])
        {
            let m = k
                .get_work_group_size(id)
                .map_err(|e| cl_error(&format!("querying the work-group limit of {name}"), e))?;
            limit = limit.min(m.max(1));
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
        let mut dats = Vec::new();
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
            let bytes = bytes_of(values);
            let mut buf = new_buffer::<u8>(&context, bytes.len())?;
            // SAFETY: a blocking write of `bytes` into a buffer that large.
            unsafe { queue.enqueue_write_buffer(&mut buf, CL_BLOCKING, 0, bytes, &[]) }
                .map_err(|e| cl_error(&format!("uploading `{}`", d.decl.name), e))?;
            dats.push(DeviceDat {
                decl: d.decl,
                buf,
                len: d.values.len() / d.decl.dim.max(1),
                soa,
            });
        }
        let upload_u32 = |v: &[u32]| -> Result<Buffer<u32>, String> {
            let mut b = new_buffer::<u32>(&context, v.len())?;
            if !v.is_empty() {
                // SAFETY: blocking write into a buffer of that length.
                unsafe { queue.enqueue_write_buffer(&mut b, CL_BLOCKING, 0, v, &[]) }
                    .map_err(|e| cl_error("uploading a map", e))?;
            }
            Ok(b)
        };
        let mut maps = Vec::new();
        for m in &part.maps {
            let start = if m.start.is_empty() {
                None
            } else {
                Some(upload_u32(&m.start)?)
            };
            maps.push(DeviceMap {
                values: upload_u32(&m.values)?,
                start,
            });
        }
        let globals = globals
            .iter()
            .map(|&g| DeviceGlobal {
                decl: g,
                f: [0.0; MAX_CONST],
                i: [0; MAX_CONST],
                slots: None,
                groups: 0,
            })
            .collect();
        let staging = new_buffer::<f64>(&context, 1)?;
        let unused = new_buffer::<u8>(&context, 1)?;
        Ok(OpenClBackend {
            info,
            part,
            kernels,
            gather,
            scatter,
            dats,
            maps,
            globals,
            lists: HashMap::new(),
            increments,
            plans: HashMap::new(),
            unused,
            staging,
            staging_len: 1,
            wg,
            host: Vec::new(),
            error: None,
            pending: profile::Pending::new(profiling),
            _program: built,
            queue,
            context,
        })
    }

    /// The device.
    pub fn device(&self) -> &DeviceInfo {
        &self.info
    }

    /// The work-group size.
    pub fn work_group(&self) -> usize {
        self.wg
    }

    fn dat(&self, d: &DatDecl) -> usize {
        self.dats
            .iter()
            .position(|x| x.decl.name == d.name)
            .unwrap_or_else(|| panic!("dat `{}` is not on the device", d.name))
    }

    fn global(&self, g: &GlobalDecl) -> usize {
        self.globals
            .iter()
            .position(|x| x.decl.name == g.name)
            .unwrap_or_else(|| panic!("global `{}` is not declared", g.name))
    }

    fn run_spans(&mut self, l: &'static LoopDecl, spans: &[Range<usize>]) -> Result<(), String> {
        if source::serial(l) && self.run_planned(l, spans)? {
            return Ok(());
        }
        // Consecutive spans of one length at a constant stride go in one
        // two-dimensional launch (the rows of a block's box).
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

    fn fail<T: Default>(&mut self, r: Result<T, String>) -> T {
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
}

/// Device memory a part needs.
pub fn memory_needs(part: &Part) -> MemoryNeeds {
    let mut needs = MemoryNeeds {
        state_bytes: 0,
        geometry_bytes: 0,
        largest_buffer: 0,
        elements: 0,
    };
    for d in &part.dats {
        let b = (d.values.len() * d.values.ty().bytes()) as u64;
        if d.decl.role == Role::Input {
            needs.geometry_bytes += b;
        } else {
            needs.state_bytes += b;
        }
        needs.largest_buffer = needs.largest_buffer.max(b);
    }
    for m in &part.maps {
        let b = 4 * (m.values.len() + m.start.len()) as u64;
        needs.geometry_bytes += b;
        needs.largest_buffer = needs.largest_buffer.max(b);
    }
    needs.elements = part.sets.iter().map(|s| s.len as u64).max().unwrap_or(0);
    needs
}

impl LocalBackend for OpenClBackend {
    fn name(&self) -> String {
        format!("opencl ({})", self.info.name)
    }

    fn run(&mut self, l: &'static LoopDecl, spans: &[Range<usize>]) -> Result<(), String> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if l.line.is_some() {
            return Err(format!(
                "loop `{}` is a line loop, which OpenCL does not run",
                l.name
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
        let r = self
            .queue
            .flush()
            .map_err(|e| cl_error("flushing the queue", e));
        self.fail(r);
    }

    fn device_times(
        &mut self,
        wait: bool,
        add: &mut dyn FnMut(&'static str, std::time::Duration),
    ) -> bool {
        self.collect_times(wait, add)
    }

    fn synchronize(&mut self) {
        let r = self
            .queue
            .finish()
            .map_err(|e| cl_error("waiting for the device", e));
        self.fail(r);
    }

    fn swap(&mut self, a: &DatDecl, b: &DatDecl) {
        let (ia, ib) = (self.dat(a), self.dat(b));
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
        let r = (|| -> Result<(), String> {
            let n = elements.len() * dat.dim;
            if n == 0 {
                return Ok(());
            }
            let list = self.list(elements)?;
            self.staging(n)?;
            let d = self.dat(dat);
            // SAFETY: arguments match qf_gather's parameters.
            unsafe {
                let k = &self.gather;
                k.set_arg(0, &(elements.len() as u32))
                    .and_then(|_| k.set_arg(1, &(dat.dim as u32)))
                    .and_then(|_| k.set_arg(2, &self.dats[d].buf.get()))
                    .and_then(|_| k.set_arg(3, &list))
                    .and_then(|_| k.set_arg(4, &self.staging.get()))
                    .and_then(|_| k.set_arg(5, &self.dats[d].stride()))
                    .map_err(|e| cl_error("binding a halo gather", e))?;
                let g = [n.div_ceil(64) * 64];
                self.queue
                    .enqueue_nd_range_kernel(
                        k.get(),
                        1,
                        ptr::null(),
                        g.as_ptr(),
                        [64usize].as_ptr(),
                        &[],
                    )
                    .map_err(|e| cl_error("a halo gather", e))?;
                self.queue
                    .enqueue_read_buffer(&self.staging, CL_BLOCKING, 0, &mut out[..n], &[])
                    .map_err(|e| cl_error("reading halo values", e))?;
            }
            Ok(())
        })();
        if r.is_err() {
            out.fill(f64::NAN);
        }
        self.fail(r);
    }

    fn unpack(&mut self, dat: &DatDecl, elements: &[u32], values: &[f64]) {
        let r = (|| -> Result<(), String> {
            let n = elements.len() * dat.dim;
            if n == 0 {
                return Ok(());
            }
            let list = self.list(elements)?;
            self.staging(n)?;
            let d = self.dat(dat);
            // SAFETY: blocking write, then arguments matching qf_scatter's.
            unsafe {
                self.queue
                    .enqueue_write_buffer(&mut self.staging, CL_BLOCKING, 0, &values[..n], &[])
                    .map_err(|e| cl_error("writing halo values", e))?;
                let k = &self.scatter;
                k.set_arg(0, &(elements.len() as u32))
                    .and_then(|_| k.set_arg(1, &(dat.dim as u32)))
                    .and_then(|_| k.set_arg(2, &self.dats[d].buf.get()))
                    .and_then(|_| k.set_arg(3, &list))
                    .and_then(|_| k.set_arg(4, &self.staging.get()))
                    .and_then(|_| k.set_arg(5, &self.dats[d].stride()))
                    .map_err(|e| cl_error("binding a halo scatter", e))?;
                let g = [n.div_ceil(64) * 64];
                self.queue
                    .enqueue_nd_range_kernel(
                        k.get(),
                        1,
                        ptr::null(),
                        g.as_ptr(),
                        [64usize].as_ptr(),
                        &[],
                    )
                    .map_err(|e| cl_error("a halo scatter", e))?;
            }
            Ok(())
        })();
        self.fail(r);
    }

    fn read(&mut self, dat: &DatDecl) -> Values {
        let d = self.dat(dat);
        let n = self.dats[d].len * dat.dim;
        let r = (|| -> Result<Values, String> {
            let mut bytes = vec![0u8; n * dat.ty.bytes()];
            // SAFETY: blocking read of the whole buffer.
            unsafe {
                self.queue
                    .enqueue_read_buffer(&self.dats[d].buf, CL_BLOCKING, 0, &mut bytes, &[])
            }
            .map_err(|e| cl_error(&format!("reading `{}`", dat.name), e))?;
            Ok(match dat.ty {
                ElemType::F64 => Values::F64(
                    bytes
                        .chunks_exact(8)
                        .map(|c| f64::from_le_bytes(c.try_into().expect("8")))
                        .collect(),
                ),
                ElemType::I32 => Values::I32(
                    bytes
                        .chunks_exact(4)
                        .map(|c| i32::from_le_bytes(c.try_into().expect("4")))
                        .collect(),
                ),
            })
        })();
        match r {
            Ok(v) if self.dats[d].soa => crate::layout::to_aos(&v, dat.dim),
            Ok(v) => v,
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
        let d = self.dat(dat);
        let soa;
        let values = if self.dats[d].soa {
            soa = crate::layout::to_soa(values, dat.dim);
            &soa
        } else {
            values
        };
        let bytes = bytes_of(values);
        // SAFETY: blocking write of at most the buffer's size.
        let r = unsafe {
            self.queue
                .enqueue_write_buffer(&mut self.dats[d].buf, CL_BLOCKING, 0, bytes, &[])
        }
        .map(drop)
        .map_err(|e| cl_error(&format!("writing `{}`", dat.name), e));
        self.fail(r);
    }

    fn set_const(&mut self, g: &GlobalDecl, f: &[f64], i: &[i32]) {
        let k = self.global(g);
        self.globals[k].f[..f.len()].copy_from_slice(f);
        self.globals[k].i[..i.len()].copy_from_slice(i);
    }

    fn partial(&mut self, g: &GlobalDecl) -> Partials {
        let k = self.global(g);
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
        // SAFETY: blocking read of the whole buffer.
        let r = unsafe { self.queue.enqueue_read_buffer(buf, CL_BLOCKING, 0, v, &[]) }
            .map(drop)
            .map_err(|e| cl_error("reading a reduction", e));
        if let Err(e) = r {
            self.error.get_or_insert(e);
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
        let k = self.global(g);
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
            // SAFETY: blocking write of the buffer's size.
            let r = unsafe {
                self.queue
                    .enqueue_write_buffer(buf, CL_BLOCKING, 0, init, &[])
            }
            .map(drop)
            .map_err(|e| cl_error("resetting a reduction", e));
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
