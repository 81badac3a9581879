//! The OpenCL backend: the iteration's data on the device, uploaded once,
//! and one kernel launch (or four, for the split flux residual) per step.

use std::ops::Range;
use std::ptr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::Device;
use opencl3::error_codes::ClError;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_device_id, cl_mem, CL_BLOCKING, CL_NON_BLOCKING};

use qflow_mesh::PointKind;
use qflow_lskum::forces::ForceSums;
use qflow_lskum::kernels::UpdateOutcome;
use qflow_lskum::{Geometry, Params, Vec4};

use super::device::{
    check_memory, cl_error, enumerate, select_device, setup_lock, DeviceInfo, MemoryNeeds,
};
use super::program::{build, build_options, fnv1a, KERNEL_SOURCE};
use super::tune::{self, FluxVariant, Tuned, TuningCache};
use crate::Backend;

/// The kernels' "no non-physical point" flag.
const NO_POINT: u32 = u32::MAX;

/// Most stages a scheme has (SSPRK43: 4); one non-physical flag each.
const MAX_STAGES: usize = 4;

/// `state_update`'s parameters that change from stage to stage.
const STATE_UPDATE_STAGE: u32 = 1;
const STATE_UPDATE_AVERAGE: u32 = 3;
/// `reduce_partials`' first slot and count of residue partials.
const REDUCE_FIRST_SLOT: u32 = 0;
const REDUCE_RES_COUNT: u32 = 1;
/// Every point kernel's parameter 0: `uint n`, the end of its points.
const POINT_KERNEL_END: u32 = 0;

/// Most fields moved by one call of `download_interleaved` or
/// `upload_interleaved` (the distributed layer's largest exchange: qx, qy,
/// q_max, q_min).
const MAX_FIELDS: usize = 4;

/// Smallest work group the partial-sum buffers are sized for.
const MIN_WORK_GROUP: usize = 8;

/// Options of the OpenCL backend beyond [`crate::BackendSpec`].
#[derive(Clone, Debug, Default)]
pub struct OpenClOptions {
    /// The device: `P.D`, a flat index, or part of a name (`None`: the first
    /// GPU with double precision, else the first device with it).
    pub device: Option<String>,
    /// Work-group size (`None`: measured at start, or taken from the cache).
    pub work_group: Option<usize>,
    /// Flux residual variant (`None`: measured at start, or taken from the
    /// cache).
    pub flux: Option<FluxVariant>,
    /// Where measured settings are kept.
    pub cache: TuningCache,
}

impl OpenClOptions {
    /// The options of a backend spec. The flux variant comes from the
    /// environment variable `QFLOW_OPENCL_FLUX` (`fused`, `split` or `auto`,
    /// the default), which is how the command line selects it.
    pub fn from_spec(spec: &crate::BackendSpec) -> Result<Self, String> {
        let flux = match std::env::var("QFLOW_OPENCL_FLUX") {
            Ok(v) if !v.trim().is_empty() && v.trim() != "auto" => Some(
                v.parse()
                    .map_err(|e| format!("QFLOW_OPENCL_FLUX={v}: {e} (or auto)"))?,
            ),
            _ => None,
        };
        Ok(OpenClOptions {
            device: spec.device.clone(),
            work_group: spec.work_group,
            flux,
            cache: TuningCache::Default,
        })
    }
}

/// A 4-component field of the iteration, as a distributed layer would
/// exchange it: each is what some kernel reads through the stencil
/// (`qflow_lskum::kernels` lists which).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Primitive state (read through the stencil by the local time step).
    Primitive,
    /// q-variables (q-derivatives, inner iterations, flux residual).
    Q,
    /// x-derivatives of q, current Jacobi sweep (inner iterations, flux).
    Qx,
    /// y-derivatives of q, current Jacobi sweep.
    Qy,
    /// Stencil maxima of q (flux residual's limiter).
    QMax,
    /// Stencil minima of q.
    QMin,
}

/// A list of points uploaded once, with device and host room to move one
/// field's values of those points in one transfer (a distributed layer's
/// send or receive list). Belongs to the backend that made it.
pub struct PointList {
    list: Buffer<u32>,
    packed: Buffer<f64>,
    len: usize,
}

impl PointList {
    /// Number of points.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// What `download_interleaved` keeps between calls: its point list (on the
/// host, to recognise it; on the device, once per field so that every
/// field's gather has its own packed buffer) and host room.
#[derive(Default)]
struct ExchangeIo {
    points: Option<Vec<u32>>,
    lists: Vec<PointList>,
    host: Vec<Vec4>,
}

/// A kernel argument.
#[derive(Clone, Copy)]
enum Arg {
    U(u32),
    I(i32),
    F(f64),
    M(cl_mem),
}

/// Sets all the arguments of `k`; a list that does not match the kernel's
/// parameter count is an error (`CL_INVALID_KERNEL_ARGS`), which catches a
/// kernel signature changed on one side only.
fn bind(k: &Kernel, args: &[Arg]) -> Result<(), ClError> {
    if k.num_args()? as usize != args.len() {
        return Err(ClError(opencl3::error_codes::CL_INVALID_KERNEL_ARGS));
    }
    for (i, a) in args.iter().enumerate() {
        let i = i as u32;
        // SAFETY: each argument has the size and type the kernel's parameter
        // declares (u32: uint, i32: int, f64: double, cl_mem: a buffer).
        unsafe {
            match a {
                Arg::U(v) => k.set_arg(i, v),
                Arg::I(v) => k.set_arg(i, v),
                Arg::F(v) => k.set_arg(i, v),
                Arg::M(v) => k.set_arg(i, v),
            }?;
        }
    }
    Ok(())
}

fn m<T>(b: &Buffer<T>) -> Arg {
    Arg::M(b.get())
}

/// Every kernel object; those that read or write the gradient buffers come
/// once per parity (which of the two buffer pairs holds the current
/// gradients), bound once, so that the iteration sets no arguments but the
/// stage's.
struct Kernels {
    local_time_step: Kernel,
    q_variables: Kernel,
    q_derivatives: [Kernel; 2],
    q_inner_iteration: [Kernel; 2],
    flux_residual: [Kernel; 2],
    flux_split: [[Kernel; 4]; 2],
    state_update: [Kernel; 2],
    force_sums: Kernel,
    reduce_partials: Kernel,
    gather_points: Kernel,
    scatter_points: Kernel,
}

const SPLIT_KERNELS: [&str; 4] = [
    "flux_residual_xpos",
    "flux_residual_xneg",
    "flux_residual_ypos",
    "flux_residual_yneg",
];

impl Kernels {
    fn create(program: &Program) -> Result<Self, ClError> {
        let k = |name: &str| Kernel::create(program, name);
        let two = |name: &str| -> Result<[Kernel; 2], ClError> { Ok([k(name)?, k(name)?]) };
        let split = || -> Result<[Kernel; 4], ClError> {
            Ok([
                k(SPLIT_KERNELS[0])?,
                k(SPLIT_KERNELS[1])?,
                k(SPLIT_KERNELS[2])?,
                k(SPLIT_KERNELS[3])?,
            ])
        };
        Ok(Kernels {
            local_time_step: k("local_time_step")?,
            q_variables: k("q_variables")?,
            q_derivatives: two("q_derivatives")?,
            q_inner_iteration: two("q_inner_iteration")?,
            flux_residual: two("flux_residual")?,
            flux_split: [split()?, split()?],
            state_update: two("state_update")?,
            force_sums: k("force_sums")?,
            reduce_partials: k("reduce_partials")?,
            gather_points: k("gather_points")?,
            scatter_points: k("scatter_points")?,
        })
    }

    /// The smallest work-group limit of the point kernels on the device.
    fn work_group_limit(&self, id: cl_device_id) -> Result<usize, ClError> {
        let mut limit = usize::MAX;
        let mut all: Vec<&Kernel> = vec![
            &self.local_time_step,
            &self.q_variables,
            &self.force_sums,
            &self.reduce_partials,
        ];
        for p in 0..2 {
            all.extend([
                &self.q_derivatives[p],
                &self.q_inner_iteration[p],
                &self.flux_residual[p],
                &self.state_update[p],
            ]);
            all.extend(self.flux_split[p].iter());
        }
        for k in all {
            limit = limit.min(k.get_work_group_size(id)?);
        }
        Ok(limit)
    }
}

/// Device buffers. Geometry is read-only; a 4-component field holds the
/// four components of each point together (`[f64; 4]` per point, the
/// host's `Vec4` layout).
struct Buffers {
    x: Buffer<f64>,
    y: Buffer<f64>,
    nx: Buffer<f64>,
    ny: Buffer<f64>,
    min_dist: Buffer<f64>,
    kind: Buffer<u8>,
    nbr_start: Buffer<u32>,
    nbr: Buffer<u32>,
    surf_index: Buffer<u32>,
    surf_x: Buffer<f64>,
    surf_y: Buffer<f64>,
    surf_nx: Buffer<f64>,
    surf_ny: Buffer<f64>,
    surf_ds: Buffer<f64>,
    prim: Buffer<f64>,
    prim_old: Buffer<f64>,
    q: Buffer<f64>,
    /// `grad[parity] = [qx, qy]`; the flux residual goes to the other
    /// parity's `qx` (never live at the same time as those gradients).
    grad: [[Buffer<f64>; 2]; 2],
    q_max: Buffer<f64>,
    q_min: Buffer<f64>,
    delta: Buffer<f64>,
    bad: Buffer<u32>,
    results: Buffer<f64>,
    /// Per work group `(hi, lo)` of the residue; allocated once the work
    /// group is known.
    res_partials: Option<Buffer<f64>>,
    /// Per work group `(hi, lo)` of H, V, M, each `max_force_groups` long.
    force_partials: Option<Buffer<f64>>,
}

fn alloc<T>(context: &Context, flags: u64, count: usize, what: &str) -> Result<Buffer<T>, String> {
    // SAFETY: no host pointer; the size is `count` elements of T.
    unsafe { Buffer::<T>::create(context, flags, count.max(1), ptr::null_mut()) }
        .map_err(|e| cl_error(&format!("allocating {what} on the device"), e))
}

fn upload<T: Copy>(
    queue: &CommandQueue,
    buf: &mut Buffer<T>,
    data: &[T],
    what: &str,
) -> Result<(), String> {
    if data.is_empty() {
        return Ok(());
    }
    // SAFETY: blocking write of `data` (no longer than the buffer).
    unsafe { queue.enqueue_write_buffer(buf, CL_BLOCKING, 0, data, &[]) }
        .map(drop)
        .map_err(|e| cl_error(&format!("uploading {what}"), e))
}

fn zero(queue: &CommandQueue, buf: &mut Buffer<f64>, count: usize) -> Result<(), ClError> {
    // SAFETY: fills `count` doubles of a buffer that has at least that many.
    unsafe { queue.enqueue_fill_buffer(buf, &[0.0f64], 0, 8 * count.max(1), &[]) }.map(drop)
}

/// Device memory the backend needs for `geom`.
pub fn memory_needs(geom: &Geometry) -> MemoryNeeds {
    let n = geom.len() as u64;
    let m = geom.surface.len() as u64;
    let entries = geom.stencil.idx.len() as u64;
    // prim, prim_old, q, 2 x (qx, qy), q_max, q_min: 9 fields of 32 bytes;
    // delta; the partial sums at the smallest work group.
    let groups = |k: u64| k.max(1).div_ceil(MIN_WORK_GROUP as u64);
    let state = 9 * 32 * n + 8 * n + 16 * groups(n) + 3 * 16 * groups(m) + 256;
    let geometry = 5 * 8 * n + n + 4 * (n + 1) + 4 * entries + m * (4 + 5 * 8);
    MemoryNeeds {
        state_bytes: state,
        geometry_bytes: geometry,
        largest_buffer: (32 * n).max(4 * entries),
        points: n,
    }
}

/// The OpenCL backend.
pub struct OpenClBackend {
    _geom: Arc<Geometry>,
    params: Params,
    info: DeviceInfo,
    n: usize,
    m: usize,
    stages: usize,
    work_group: usize,
    flux: FluxVariant,
    tuning: &'static str,
    parity: usize,
    res_groups: usize,
    force_groups: usize,
    max_force_groups: usize,
    results: [f64; 12],
    forces: Option<ForceSums>,
    /// The stage whose non-physical point the last iteration reported.
    bad_stage: Option<usize>,
    /// Work groups of residue partials the reduction sums (those of the
    /// points the state update covers).
    update_groups: usize,
    /// Point lists and host room of the interleaved transfers.
    io: ExchangeIo,
    error: Option<String>,
    k: Kernels,
    b: Buffers,
    queue: CommandQueue,
    _program: Program,
    _context: Context,
}

fn create_queue(context: &Context, id: cl_device_id) -> Result<CommandQueue, ClError> {
    // SAFETY: `id` is the context's device.
    match unsafe { CommandQueue::create_with_properties(context, id, 0, 0) } {
        Ok(q) => Ok(q),
        // OpenCL 1.2 platforms have only the older entry point.
        Err(_) => unsafe { CommandQueue::create(context, id, 0) },
    }
}

impl OpenClBackend {
    /// Starts the backend on the device `options` names: builds the kernels,
    /// uploads the geometry and the free stream as the state, and chooses
    /// the work group and flux variant (given, cached, or measured).
    pub fn new(
        geom: Arc<Geometry>,
        params: Params,
        options: &OpenClOptions,
    ) -> Result<Self, String> {
        let setup = setup_lock();
        let found = enumerate()?;
        let infos: Vec<DeviceInfo> = found.iter().map(|f| f.info.clone()).collect();
        let chosen = select_device(&infos, options.device.as_deref())?;
        let (info, id) = (found[chosen].info.clone(), found[chosen].id);
        let n = geom.len();
        if 4 * n as u64 > u32::MAX as u64 || geom.stencil.idx.len() as u64 > u32::MAX as u64 {
            return Err(format!(
                "{n} points are more than the OpenCL backend indexes with 32-bit integers"
            ));
        }
        check_memory(&memory_needs(&geom), &info)?;
        if let Some(w) = options.work_group {
            if w == 0 || w > info.max_work_group {
                return Err(format!(
                    "work group {w}: OpenCL device {} takes work groups of 1 to {}",
                    info.label(),
                    info.max_work_group
                ));
            }
        }
        let label = info.label();
        let on = |what: &str| format!("{what} on OpenCL device {label}");
        let context = Context::from_device(&Device::new(id))
            .map_err(|e| cl_error(&on("creating a context"), e))?;
        let queue =
            create_queue(&context, id).map_err(|e| cl_error(&on("creating a command queue"), e))?;
        let wg_max = options.work_group.unwrap_or(0).max(256);
        let options_text = build_options(wg_max);
        let program = build(&context, id, &info, KERNEL_SOURCE, &options_text)?;
        let k = Kernels::create(&program).map_err(|e| cl_error(&on("creating the kernels"), e))?;
        drop(setup);
        let limit = k
            .work_group_limit(id)
            .map_err(|e| cl_error(&on("querying the kernels' work-group limits"), e))?
            .min(info.max_work_group)
            .min(wg_max);
        if let Some(w) = options.work_group {
            if w > limit {
                return Err(format!(
                    "work group {w}: qflow's kernels run in work groups of at most {limit} on \
                     OpenCL device {}",
                    info.label()
                ));
            }
        }

        let b = Self::upload_geometry(&context, &queue, &geom)?;
        let m = geom.surface.len();
        let mut be = OpenClBackend {
            stages: params.scheme.stages(),
            _geom: geom,
            params,
            info,
            n,
            m,
            work_group: options.work_group.unwrap_or_else(|| limit.min(64)),
            flux: options.flux.unwrap_or(FluxVariant::Fused),
            tuning: "given",
            parity: 0,
            res_groups: 0,
            force_groups: 0,
            max_force_groups: 0,
            results: [0.0; 12],
            forces: None,
            bad_stage: None,
            update_groups: 0,
            io: ExchangeIo::default(),
            error: None,
            k,
            b,
            queue,
            _program: program,
            _context: context,
        };
        let started = (|| -> Result<(), ClError> {
            be.bind_point_kernels()?;
            let fs = be.params.free_stream.primitive();
            be.write_state(&vec![fs; be.n])?;
            be.choose_launch(options, limit, &options_text)?;
            be.allocate_partials()?;
            be.bind_reductions()?;
            be.queue.finish()
        })();
        started.map_err(|e| cl_error(&on("starting the OpenCL backend"), e))?;
        Ok(be)
    }

    fn upload_geometry(
        context: &Context,
        queue: &CommandQueue,
        g: &Geometry,
    ) -> Result<Buffers, String> {
        let n = g.len();
        let m = g.surface.len();
        let ro = CL_MEM_READ_ONLY;
        let rw = CL_MEM_READ_WRITE;
        let f = |what| alloc::<f64>(context, rw, 4 * n, what);
        let mut b = Buffers {
            x: alloc(context, ro, n, "x")?,
            y: alloc(context, ro, n, "y")?,
            nx: alloc(context, ro, n, "nx")?,
            ny: alloc(context, ro, n, "ny")?,
            min_dist: alloc(context, ro, n, "min_dist")?,
            kind: alloc(context, ro, n, "point kinds")?,
            nbr_start: alloc(context, ro, n + 1, "stencil offsets")?,
            nbr: alloc(context, ro, g.stencil.idx.len(), "stencils")?,
            surf_index: alloc(context, ro, m, "surface points")?,
            surf_x: alloc(context, ro, m, "surface x")?,
            surf_y: alloc(context, ro, m, "surface y")?,
            surf_nx: alloc(context, ro, m, "surface nx")?,
            surf_ny: alloc(context, ro, m, "surface ny")?,
            surf_ds: alloc(context, ro, m, "surface ds")?,
            prim: f("the state")?,
            prim_old: f("the iteration's start state")?,
            q: f("q")?,
            grad: [[f("qx")?, f("qy")?], [f("qx")?, f("qy")?]],
            q_max: f("q_max")?,
            q_min: f("q_min")?,
            delta: alloc(context, rw, n, "time steps")?,
            bad: alloc(context, rw, MAX_STAGES, "flags")?,
            results: alloc(context, rw, 12, "results")?,
            res_partials: None,
            force_partials: None,
        };
        upload(queue, &mut b.x, &g.x, "x")?;
        upload(queue, &mut b.y, &g.y, "y")?;
        upload(queue, &mut b.nx, &g.nx, "nx")?;
        upload(queue, &mut b.ny, &g.ny, "ny")?;
        upload(queue, &mut b.min_dist, &g.min_dist, "min_dist")?;
        let kinds: Vec<u8> = g.kind.iter().map(|&k| k as u8).collect();
        debug_assert_eq!(PointKind::Wall as u8, 0);
        upload(queue, &mut b.kind, &kinds, "point kinds")?;
        upload(queue, &mut b.nbr_start, &g.stencil.start, "stencil offsets")?;
        upload(queue, &mut b.nbr, &g.stencil.idx, "stencils")?;
        let s = &g.surface;
        let col = |f: fn(&qflow_lskum::geometry::SurfacePoint) -> f64| -> Vec<f64> {
            s.iter().map(f).collect()
        };
        let index: Vec<u32> = s.iter().map(|p| p.index).collect();
        upload(queue, &mut b.surf_index, &index, "surface points")?;
        upload(queue, &mut b.surf_x, &col(|p| p.x), "surface x")?;
        upload(queue, &mut b.surf_y, &col(|p| p.y), "surface y")?;
        upload(queue, &mut b.surf_nx, &col(|p| p.nx), "surface nx")?;
        upload(queue, &mut b.surf_ny, &col(|p| p.ny), "surface ny")?;
        upload(queue, &mut b.surf_ds, &col(|p| p.ds), "surface ds")?;
        // Touch every scratch buffer now, so that a device short of memory
        // says so here and not in the middle of a run.
        let filled = (|| -> Result<(), ClError> {
            for buf in [&mut b.q, &mut b.q_max, &mut b.q_min] {
                zero(queue, buf, 4 * n)?;
            }
            for pair in b.grad.iter_mut() {
                for buf in pair.iter_mut() {
                    zero(queue, buf, 4 * n)?;
                }
            }
            zero(queue, &mut b.delta, n)?;
            zero(queue, &mut b.results, 12)?;
            queue.finish()
        })();
        filled.map_err(|e| cl_error("initialising the device's scratch arrays", e))?;
        Ok(b)
    }

    /// Binds the arguments of the stencil and pointwise kernels (all but the
    /// reductions, which need the partial-sum buffers).
    fn bind_point_kernels(&mut self) -> Result<(), ClError> {
        let b = &self.b;
        let n = Arg::U(self.n as u32);
        let p = &self.params;
        bind(
            &self.k.local_time_step,
            &[
                n,
                Arg::F(p.cfl),
                m(&b.x),
                m(&b.y),
                m(&b.nbr_start),
                m(&b.nbr),
                m(&b.prim),
                m(&b.delta),
                m(&b.prim_old),
            ],
        )?;
        bind(&self.k.q_variables, &[n, m(&b.prim), m(&b.q)])?;
        for par in 0..2 {
            let (cur, other) = (&b.grad[par], &b.grad[1 - par]);
            bind(
                &self.k.q_derivatives[par],
                &[
                    n,
                    Arg::F(p.power),
                    m(&b.x),
                    m(&b.y),
                    m(&b.nbr_start),
                    m(&b.nbr),
                    m(&b.q),
                    m(&cur[0]),
                    m(&cur[1]),
                    m(&b.q_max),
                    m(&b.q_min),
                ],
            )?;
            bind(
                &self.k.q_inner_iteration[par],
                &[
                    n,
                    Arg::F(p.power),
                    m(&b.x),
                    m(&b.y),
                    m(&b.nbr_start),
                    m(&b.nbr),
                    m(&b.q),
                    m(&cur[0]),
                    m(&cur[1]),
                    m(&other[0]),
                    m(&other[1]),
                ],
            )?;
            let flux_args = [
                n,
                Arg::F(p.power),
                Arg::F(p.vl_const),
                Arg::I(p.limiter as i32),
                m(&b.x),
                m(&b.y),
                m(&b.nx),
                m(&b.ny),
                m(&b.min_dist),
                m(&b.kind),
                m(&b.nbr_start),
                m(&b.nbr),
                m(&b.q),
                m(&cur[0]),
                m(&cur[1]),
                m(&b.q_max),
                m(&b.q_min),
                m(&b.delta),
                m(&other[0]),
            ];
            bind(&self.k.flux_residual[par], &flux_args)?;
            for kk in &self.k.flux_split[par] {
                bind(kk, &flux_args)?;
            }
        }
        Ok(())
    }

    fn allocate_partials(&mut self) -> Result<(), ClError> {
        let wg = self.work_group;
        self.res_groups = self.n.div_ceil(wg);
        self.update_groups = self.res_groups;
        self.force_groups = self.m.div_ceil(wg);
        self.max_force_groups = self.force_groups.max(1);
        let ctx = &self._context;
        // SAFETY: plain device allocations, no host pointer.
        let (mut r, mut f) = unsafe {
            (
                Buffer::<f64>::create(
                    ctx,
                    CL_MEM_READ_WRITE,
                    2 * self.res_groups.max(1),
                    ptr::null_mut(),
                )?,
                Buffer::<f64>::create(
                    ctx,
                    CL_MEM_READ_WRITE,
                    2 * 3 * self.max_force_groups,
                    ptr::null_mut(),
                )?,
            )
        };
        zero(&self.queue, &mut r, 2 * self.res_groups.max(1))?;
        zero(&self.queue, &mut f, 2 * 3 * self.max_force_groups)?;
        self.b.res_partials = Some(r);
        self.b.force_partials = Some(f);
        Ok(())
    }

    fn bind_reductions(&mut self) -> Result<(), ClError> {
        let b = &self.b;
        let (Some(rp), Some(fp)) = (&b.res_partials, &b.force_partials) else {
            return Err(ClError(opencl3::error_codes::CL_INVALID_MEM_OBJECT));
        };
        let p = &self.params;
        let (fs_u, fs_v) = {
            // The free-stream velocity exactly as gas::far_field_state computes it.
            let fs = &p.free_stream;
            (fs.mach * fs.theta.cos(), fs.mach * fs.theta.sin())
        };
        let average = 0;
        for par in 0..2 {
            bind(
                &self.k.state_update[par],
                &[
                    Arg::U(self.n as u32),
                    Arg::U(0),
                    Arg::F(p.scheme.residual_factor()),
                    Arg::I(average),
                    Arg::F(fs_u),
                    Arg::F(fs_v),
                    m(&b.nx),
                    m(&b.ny),
                    m(&b.kind),
                    m(&b.prim),
                    m(&b.prim_old),
                    m(&b.grad[1 - par][0]),
                    m(&b.bad),
                    m(rp),
                ],
            )?;
        }
        bind(
            &self.k.force_sums,
            &[
                Arg::U(self.m as u32),
                Arg::U(self.max_force_groups as u32),
                Arg::F(p.free_stream.dynamic_pressure()),
                m(&b.surf_index),
                m(&b.surf_x),
                m(&b.surf_y),
                m(&b.surf_nx),
                m(&b.surf_ny),
                m(&b.surf_ds),
                m(&b.prim),
                m(fp),
            ],
        )?;
        bind(
            &self.k.reduce_partials,
            &[
                Arg::U(0),
                Arg::U(self.res_groups as u32),
                Arg::U(self.force_groups as u32),
                Arg::U(self.max_force_groups as u32),
                m(rp),
                m(fp),
                m(&b.bad),
                m(&b.results),
            ],
        )
    }

    /// Enqueues `kernel` over `items` work items in groups of `wg`.
    fn launch(
        queue: &CommandQueue,
        kernel: &Kernel,
        items: usize,
        wg: usize,
    ) -> Result<(), ClError> {
        if items == 0 {
            return Ok(());
        }
        let global = items.div_ceil(wg) * wg;
        // SAFETY: the kernel's arguments are all bound (bind_* at start) and
        // every kernel checks its index against its item count.
        unsafe {
            queue.enqueue_nd_range_kernel(kernel.get(), 1, ptr::null(), &global, &wg, &[])?;
        }
        Ok(())
    }

    /// Enqueues the point kernel `kernel` over the points `r`: the points
    /// from `r.start` on are addressed through the global work offset
    /// (which `get_global_id` includes), and parameter 0 (`uint n`, the
    /// bound every point kernel checks its index against) is set to
    /// `r.end`, so that no point outside `r` is written.
    fn launch_range(
        queue: &CommandQueue,
        kernel: &Kernel,
        r: Range<usize>,
        wg: usize,
    ) -> Result<(), ClError> {
        if r.is_empty() {
            return Ok(());
        }
        // SAFETY: parameter 0 of every point kernel is `uint n`.
        unsafe { kernel.set_arg(POINT_KERNEL_END, &(r.end as u32))? };
        let global = r.len().div_ceil(wg) * wg;
        let offset = r.start;
        let offset_ptr = if offset == 0 {
            ptr::null()
        } else {
            &offset as *const usize
        };
        // SAFETY: the kernel's other arguments are all bound (bind_* at
        // start) and every point kernel checks its index against `n`.
        unsafe {
            queue.enqueue_nd_range_kernel(kernel.get(), 1, offset_ptr, &global, &wg, &[])?;
        }
        Ok(())
    }

    fn enqueue_flux(&self, r: Range<usize>) -> Result<(), ClError> {
        let p = self.parity;
        match self.flux {
            FluxVariant::Fused => {
                Self::launch_range(&self.queue, &self.k.flux_residual[p], r, self.work_group)
            }
            FluxVariant::Split => {
                for kk in &self.k.flux_split[p] {
                    Self::launch_range(&self.queue, kk, r.clone(), self.work_group)?;
                }
                Ok(())
            }
        }
    }

    fn reset_flags(&mut self) -> Result<(), ClError> {
        // SAFETY: fills the MAX_STAGES flags of `bad`.
        unsafe {
            self.queue
                .enqueue_fill_buffer(&mut self.b.bad, &[NO_POINT], 0, 4 * MAX_STAGES, &[])
        }
        .map(drop)
    }

    /// Uploads a state to `prim` and `prim_old`.
    fn write_state(&mut self, prim: &[Vec4]) -> Result<(), ClError> {
        let data = &prim.as_flattened()[..4 * self.n];
        if !data.is_empty() {
            // SAFETY: blocking writes of 4 n doubles into buffers of 4 n.
            unsafe {
                self.queue
                    .enqueue_write_buffer(&mut self.b.prim, CL_BLOCKING, 0, data, &[])?;
                self.queue
                    .enqueue_write_buffer(&mut self.b.prim_old, CL_BLOCKING, 0, data, &[])?;
            }
        }
        self.reset_flags()?;
        self.parity = 0;
        self.forces = None;
        Ok(())
    }

    /// Measures (or takes from the cache) the work group and flux variant
    /// that the options leave open.
    fn choose_launch(
        &mut self,
        o: &OpenClOptions,
        limit: usize,
        build: &str,
    ) -> Result<(), ClError> {
        let free_wg = o.work_group.is_none();
        let free_flux = o.flux.is_none();
        if !free_wg && !free_flux {
            return Ok(());
        }
        let key = format!(
            "{}|{}|{}|{:016x}|2^{}",
            self.info.platform,
            self.info.name,
            self.info.driver,
            fnv1a(&[KERNEL_SOURCE.as_bytes(), build.as_bytes()]),
            usize::BITS - self.n.max(1).leading_zeros() - 1
        )
        .replace('\t', " ");
        let file = o.cache.file();
        if free_wg && free_flux {
            if let Some(t) = file.as_deref().and_then(|f| tune::lookup(f, &key)) {
                if t.work_group <= limit {
                    self.work_group = t.work_group;
                    self.flux = t.flux;
                    self.tuning = "cached";
                    return Ok(());
                }
            }
        }
        // Inputs of the flux residual: the free stream's q, gradients, bounds.
        let wg0 = self.work_group;
        let all = 0..self.n;
        Self::launch_range(&self.queue, &self.k.local_time_step, all.clone(), wg0)?;
        Self::launch_range(&self.queue, &self.k.q_variables, all.clone(), wg0)?;
        Self::launch_range(&self.queue, &self.k.q_derivatives[0], all, wg0)?;
        self.queue.finish()?;
        let wgs = match o.work_group {
            Some(w) => vec![w],
            None => tune::candidates(limit),
        };
        let fluxes = match o.flux {
            Some(f) => vec![f],
            None => vec![FluxVariant::Fused, FluxVariant::Split],
        };
        let mut best = (Duration::MAX, wgs[0], fluxes[0]);
        for &flux in &fluxes {
            for &wg in &wgs {
                self.work_group = wg;
                self.flux = flux;
                // The first launch compiles for the work-group size on some
                // drivers (PoCL): untimed.
                let t = Instant::now();
                self.enqueue_flux(0..self.n)?;
                self.queue.finish()?;
                let reps = if t.elapsed() > Duration::from_millis(250) {
                    1
                } else {
                    3
                };
                for _ in 0..reps {
                    let t = Instant::now();
                    self.enqueue_flux(0..self.n)?;
                    self.queue.finish()?;
                    let d = t.elapsed();
                    if d < best.0 {
                        best = (d, wg, flux);
                    }
                }
            }
        }
        self.work_group = best.1;
        self.flux = best.2;
        self.tuning = "measured";
        if free_wg && free_flux {
            if let Some(f) = file {
                tune::store(
                    &f,
                    &key,
                    Tuned {
                        work_group: best.1,
                        flux: best.2,
                    },
                );
            }
        }
        Ok(())
    }

    /// The device.
    pub fn device(&self) -> &DeviceInfo {
        &self.info
    }

    /// The work-group size in use.
    pub fn work_group(&self) -> usize {
        self.work_group
    }

    /// The flux residual variant in use.
    pub fn flux_variant(&self) -> FluxVariant {
        self.flux
    }

    /// How the launch settings were chosen: `given`, `cached` or `measured`.
    pub fn tuning(&self) -> &'static str {
        self.tuning
    }

    /// The first device error, if one stopped the backend.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Records a device error (the first one stops the backend: every later
    /// step does nothing, and the next state update reports point 0 as
    /// non-physical so that the solver stops).
    fn check(&mut self, what: &str, r: Result<(), ClError>) {
        if let Err(e) = r {
            if self.error.is_none() {
                let msg = cl_error(&format!("{what} on OpenCL device {}", self.info.label()), e);
                eprintln!("qflow: {msg}; the run cannot go on");
                self.error = Some(msg);
            }
        }
    }

    /// Records an error met outside the backend's steps (by a layer that
    /// moves data through it, e.g. the distributed layer's exchange), as
    /// [`OpenClBackend::error`] reports it: the first one stops the backend.
    pub fn record_error(&mut self, msg: String) {
        if self.error.is_none() {
            eprintln!("qflow: {msg}; the run cannot go on");
            self.error = Some(msg);
        }
    }

    fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// A list of points (indices below [`Backend::len`]) for
    /// [`OpenClBackend::download_points`] and [`OpenClBackend::upload_points`].
    pub fn point_list(&mut self, points: &[u32]) -> Result<PointList, String> {
        if let Some(&bad) = points.iter().find(|&&p| p as usize >= self.n) {
            return Err(format!(
                "point {bad} is not one of the backend's {} points",
                self.n
            ));
        }
        let ctx = &self._context;
        let mut list: Buffer<u32> = alloc(ctx, CL_MEM_READ_ONLY, points.len(), "a point list")?;
        let packed: Buffer<f64> = alloc(ctx, CL_MEM_READ_WRITE, 4 * points.len(), "a point list")?;
        upload(&self.queue, &mut list, points, "a point list")?;
        Ok(PointList {
            list,
            packed,
            len: points.len(),
        })
    }

    fn field(&self, f: Field) -> &Buffer<f64> {
        let g = &self.b.grad[self.parity];
        match f {
            Field::Primitive => &self.b.prim,
            Field::Q => &self.b.q,
            Field::Qx => &g[0],
            Field::Qy => &g[1],
            Field::QMax => &self.b.q_max,
            Field::QMin => &self.b.q_min,
        }
    }

    /// The values of `field` at the points of `list`, in list order: one
    /// gather kernel and one transfer of `32 * list.len()` bytes. This is how
    /// a distributed layer would read the values its neighbours need.
    pub fn download_points(
        &mut self,
        field: Field,
        list: &mut PointList,
        out: &mut [Vec4],
    ) -> Result<(), String> {
        if out.len() != list.len {
            return Err(format!(
                "{} values for a list of {} points",
                out.len(),
                list.len
            ));
        }
        if list.len == 0 {
            return Ok(());
        }
        let r = (|| -> Result<(), ClError> {
            let k = &self.k.gather_points;
            bind(
                k,
                &[
                    Arg::U(list.len as u32),
                    m(&list.list),
                    m(self.field(field)),
                    m(&list.packed),
                ],
            )?;
            Self::launch(&self.queue, k, list.len, self.work_group)?;
            // SAFETY: blocking read of 4 len doubles from a buffer of 4 len.
            unsafe {
                self.queue.enqueue_read_buffer(
                    &list.packed,
                    CL_BLOCKING,
                    0,
                    out.as_flattened_mut(),
                    &[],
                )?;
            }
            Ok(())
        })();
        r.map_err(|e| cl_error("reading the values of a point list", e))
    }

    /// Sets `field` at the points of `list` to `values` (in list order): one
    /// transfer and one scatter kernel. This is how a distributed layer would
    /// write the ghost values it received.
    pub fn upload_points(
        &mut self,
        field: Field,
        list: &mut PointList,
        values: &[Vec4],
    ) -> Result<(), String> {
        if values.len() != list.len {
            return Err(format!(
                "{} values for a list of {} points",
                values.len(),
                list.len
            ));
        }
        if list.len == 0 {
            return Ok(());
        }
        let r = (|| -> Result<(), ClError> {
            // SAFETY: blocking write of 4 len doubles into a buffer of 4 len.
            unsafe {
                self.queue.enqueue_write_buffer(
                    &mut list.packed,
                    CL_BLOCKING,
                    0,
                    values.as_flattened(),
                    &[],
                )?;
            }
            let k = &self.k.scatter_points;
            bind(
                k,
                &[
                    Arg::U(list.len as u32),
                    m(&list.list),
                    m(&list.packed),
                    m(self.field(field)),
                ],
            )?;
            Self::launch(&self.queue, k, list.len, self.work_group)
        })();
        self.forces = None;
        r.map_err(|e| cl_error("writing the values of a point list", e))
    }

    // The steps over a range `r` of points, as `CpuBackend` has them: each
    // writes the outputs of the points of `r` only and reads any point
    // through the stencils, so that a distributed layer can compute the
    // points whose stencils are wholly local while ghost values travel, and
    // the rest after. Over `0..len()` they are the `Backend` steps. The
    // launches are asynchronous (an in-order queue): a step returns once
    // its kernel is enqueued.

    /// [`Backend::local_time_step`] over the points `r` (the non-physical
    /// flags of the iteration are reset with the first range, at 0).
    pub fn local_time_step_range(&mut self, r: Range<usize>) {
        if self.failed() {
            return;
        }
        let flags = if r.start == 0 {
            self.reset_flags()
        } else {
            Ok(())
        };
        let res = flags.and_then(|_| {
            Self::launch_range(&self.queue, &self.k.local_time_step, r, self.work_group)
        });
        self.check("local_time_step", res);
    }

    /// [`Backend::q_variables`] over the points `r`.
    pub fn q_variables_range(&mut self, r: Range<usize>) {
        if self.failed() {
            return;
        }
        let res = Self::launch_range(&self.queue, &self.k.q_variables, r, self.work_group);
        self.check("q_variables", res);
    }

    /// [`Backend::q_derivatives`] over the points `r`.
    pub fn q_derivatives_range(&mut self, r: Range<usize>) {
        if self.failed() {
            return;
        }
        let k = &self.k.q_derivatives[self.parity];
        let res = Self::launch_range(&self.queue, k, r, self.work_group);
        self.check("q_derivatives", res);
    }

    /// One inner sweep of the q-derivatives over the points `r`, into the
    /// other gradient buffers; [`OpenClBackend::finish_inner_iteration`]
    /// makes them the current ones once every point is done.
    pub fn q_inner_iteration_range(&mut self, r: Range<usize>) {
        if self.failed() {
            return;
        }
        let k = &self.k.q_inner_iteration[self.parity];
        let res = Self::launch_range(&self.queue, k, r, self.work_group);
        self.check("q_inner_iteration", res);
    }

    /// Makes the inner sweep's new gradients the current ones.
    pub fn finish_inner_iteration(&mut self) {
        self.parity ^= 1;
    }

    /// [`Backend::flux_residual`] over the points `r`.
    pub fn flux_residual_range(&mut self, r: Range<usize>) {
        if self.failed() {
            return;
        }
        let res = self.enqueue_flux(r);
        self.check("flux_residual", res);
    }

    /// [`Backend::state_update`] over the points `0..count`, whose residue
    /// and non-physical flags it reduces (a distributed layer's owned
    /// points; the ghosts after them are the neighbours' to update).
    pub fn state_update_first(&mut self, stage: usize, count: usize) -> UpdateOutcome {
        if self.failed() {
            return UpdateOutcome {
                bad_point: Some(0),
                ..Default::default()
            };
        }
        let count = count.min(self.n);
        self.forces = None;
        let k = &self.k.state_update[self.parity];
        let average = self.params.scheme == qflow_lskum::settings::Scheme::Ssprk43 && stage == 2;
        let groups = count.div_ceil(self.work_group);
        let r = (|| -> Result<(), ClError> {
            if groups != self.update_groups {
                // SAFETY: this parameter is `uint res_count`.
                unsafe {
                    self.k
                        .reduce_partials
                        .set_arg(REDUCE_RES_COUNT, &(groups as u32))?
                };
                self.update_groups = groups;
            }
            // SAFETY: these parameters are `uint stage` and `int average`.
            unsafe {
                k.set_arg(STATE_UPDATE_STAGE, &(stage.min(MAX_STAGES - 1) as u32))?;
                k.set_arg(STATE_UPDATE_AVERAGE, &(average as i32))?;
            }
            // Always from point 0: the residue's partial sums are indexed by
            // work group.
            Self::launch_range(&self.queue, k, 0..count, self.work_group)
        })();
        self.check("state_update", r);
        if self.failed() || stage + 1 < self.stages {
            return UpdateOutcome {
                bad_point: self.error.as_ref().map(|_| 0),
                ..Default::default()
            };
        }
        match self.finish_iteration() {
            Ok(o) => o,
            Err(e) => {
                self.check("reducing the residue and forces", Err(e));
                UpdateOutcome {
                    bad_point: Some(0),
                    ..Default::default()
                }
            }
        }
    }

    /// The stage (0-based) whose non-physical point the last state update
    /// reported, if it reported one: the device finds it only at the
    /// iteration's last stage.
    pub fn bad_stage(&self) -> Option<usize> {
        self.bad_stage
    }

    /// Sends the steps enqueued so far to the device without waiting for
    /// them (so that it computes while the host waits for something else).
    pub fn flush(&mut self) {
        if self.failed() {
            return;
        }
        let r = self.queue.flush();
        self.check("submitting work", r);
    }

    /// Copies `prim` to `prim_old` over the points `r` (what the local time
    /// step does for the points it computes).
    pub fn save_start_state(&mut self, r: Range<usize>) {
        if self.failed() || r.is_empty() {
            return;
        }
        let (at, bytes) = (32 * r.start, 32 * r.len());
        // SAFETY: a device-to-device copy of a range inside both buffers.
        let res = unsafe {
            self.queue
                .enqueue_copy_buffer(&self.b.prim, &mut self.b.prim_old, at, at, bytes, &[])
        }
        .map(drop);
        self.check("saving the iteration's start state", res);
    }

    /// The values of `fields` at `points`, interleaved per point:
    /// `out[(j * fields.len() + a) * 4 + c]` is component `c` of field
    /// `fields[a]` at `points[j]`. One gather kernel per field and one wait
    /// for the transfers; the list is uploaded on the first call and kept
    /// while later calls pass the same list. This is how a distributed
    /// layer packs the values its neighbours read.
    pub fn download_interleaved(
        &mut self,
        fields: &[Field],
        points: &[u32],
        out: &mut [f64],
    ) -> Result<(), String> {
        let w = 4 * fields.len();
        if out.len() != w * points.len() || fields.len() > MAX_FIELDS {
            return Err(format!(
                "{} values for {} fields of {} points",
                out.len(),
                fields.len(),
                points.len()
            ));
        }
        if points.is_empty() {
            return Ok(());
        }
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let cached = self.io.points.as_deref() == Some(points);
        if !cached {
            let mut lists = Vec::with_capacity(MAX_FIELDS);
            for _ in 0..MAX_FIELDS {
                lists.push(self.point_list(points)?);
            }
            self.io.lists = lists;
            self.io.points = Some(points.to_vec());
        }
        let len = points.len();
        self.io.host.resize(MAX_FIELDS * len, [0.0; 4]);
        let lists = std::mem::take(&mut self.io.lists);
        let mut host = std::mem::take(&mut self.io.host);
        let r = (|| -> Result<(), ClError> {
            for (a, &f) in fields.iter().enumerate() {
                let list = &lists[a];
                let k = &self.k.gather_points;
                bind(
                    k,
                    &[
                        Arg::U(len as u32),
                        m(&list.list),
                        m(self.field(f)),
                        m(&list.packed),
                    ],
                )?;
                Self::launch(&self.queue, k, len, self.work_group)?;
            }
            for (a, chunk) in host.chunks_mut(len).take(fields.len()).enumerate() {
                let last = a + 1 == fields.len();
                // SAFETY: a read of 4 len doubles from a buffer of 4 len;
                // the last read blocks, and the queue is in order, so every
                // read is done before `host` is used.
                unsafe {
                    self.queue.enqueue_read_buffer(
                        &lists[a].packed,
                        if last { CL_BLOCKING } else { CL_NON_BLOCKING },
                        0,
                        chunk.as_flattened_mut(),
                        &[],
                    )?;
                }
            }
            Ok(())
        })();
        self.io.lists = lists;
        let res = r.map_err(|e| cl_error("reading the values of a point list", e));
        if res.is_ok() {
            for (j, o) in out.chunks_exact_mut(w).enumerate() {
                for (a, o) in o.chunks_exact_mut(4).enumerate() {
                    o.copy_from_slice(&host[a * len + j]);
                }
            }
        }
        self.io.host = host;
        res
    }

    /// Sets `fields` of the points `first..first + values.len() / (4 *
    /// fields.len())` from `values`, interleaved per point as
    /// [`OpenClBackend::download_interleaved`] gives them: one transfer per
    /// field (the points are contiguous). This is how a distributed layer
    /// writes the ghost values it received.
    pub fn upload_interleaved(
        &mut self,
        fields: &[Field],
        first: usize,
        values: &[f64],
    ) -> Result<(), String> {
        let w = 4 * fields.len();
        let len = values.len().checked_div(w).unwrap_or(0);
        if w == 0 || fields.len() > MAX_FIELDS || values.len() != w * len || first + len > self.n {
            return Err(format!(
                "{} values for {} fields of the points from {first} of {}",
                values.len(),
                fields.len(),
                self.n
            ));
        }
        if len == 0 {
            return Ok(());
        }
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        self.io.host.resize(fields.len() * len, [0.0; 4]);
        let mut host = std::mem::take(&mut self.io.host);
        for (j, v) in values.chunks_exact(w).enumerate() {
            for (a, v) in v.chunks_exact(4).enumerate() {
                host[a * len + j].copy_from_slice(v);
            }
        }
        let parity = self.parity;
        let r = (|| -> Result<(), ClError> {
            for (a, &f) in fields.iter().enumerate() {
                let b = &mut self.b;
                let buf = match f {
                    Field::Primitive => &mut b.prim,
                    Field::Q => &mut b.q,
                    Field::Qx => &mut b.grad[parity][0],
                    Field::Qy => &mut b.grad[parity][1],
                    Field::QMax => &mut b.q_max,
                    Field::QMin => &mut b.q_min,
                };
                let last = a + 1 == fields.len();
                // SAFETY: a write of 4 len doubles at point `first` of a
                // buffer of 4 n doubles (first + len <= n); the last write
                // blocks, and the queue is in order, so every write is done
                // (and `host` free) when this returns.
                unsafe {
                    self.queue.enqueue_write_buffer(
                        buf,
                        if last { CL_BLOCKING } else { CL_NON_BLOCKING },
                        32 * first,
                        host[a * len..(a + 1) * len].as_flattened(),
                        &[],
                    )?;
                }
            }
            Ok(())
        })();
        self.io.host = host;
        if fields.contains(&Field::Primitive) {
            self.forces = None;
        }
        r.map_err(|e| cl_error("writing the values of a range of points", e))
    }

    /// The primitive state of the points `r`, read back from the device.
    pub fn download_state_range(
        &mut self,
        r: Range<usize>,
        out: &mut [Vec4],
    ) -> Result<(), String> {
        if out.len() != r.len() || r.end > self.n {
            return Err(format!(
                "{} states for the points {r:?} of {}",
                out.len(),
                self.n
            ));
        }
        if r.is_empty() {
            return Ok(());
        }
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        // SAFETY: a blocking read of the states of the points `r`.
        unsafe {
            self.queue.enqueue_read_buffer(
                &self.b.prim,
                CL_BLOCKING,
                32 * r.start,
                out.as_flattened_mut(),
                &[],
            )
        }
        .map(drop)
        .map_err(|e| cl_error("reading the state", e))
    }

    /// The last stage of an iteration: the force sums' level 1, level 2 of
    /// all reductions, and one read of the 96 bytes of results.
    fn finish_iteration(&mut self) -> Result<UpdateOutcome, ClError> {
        Self::launch(&self.queue, &self.k.force_sums, self.m, self.work_group)?;
        self.reduce(0)?;
        let r = &self.results;
        let mut out = UpdateOutcome {
            sum_sq: dd(r[0], r[1]),
            bad_point: None,
        };
        self.bad_stage = None;
        for s in 0..self.stages.min(MAX_STAGES) {
            let flag = r[8 + s];
            if flag != NO_POINT as f64 {
                out.bad_point = Some(flag as usize);
                self.bad_stage = Some(s);
                break;
            }
        }
        self.forces = if out.bad_point.is_none() {
            Some(self.force_sums_of_results())
        } else {
            None
        };
        Ok(out)
    }

    fn force_sums_of_results(&self) -> ForceSums {
        let r = &self.results;
        ForceSums {
            h: dd(r[2], r[3]),
            v: dd(r[4], r[5]),
            m: dd(r[6], r[7]),
        }
    }

    /// Level 2 of the reductions from slot `first_slot` on, and the read.
    fn reduce(&mut self, first_slot: u32) -> Result<(), ClError> {
        let k = &self.k.reduce_partials;
        // SAFETY: this parameter is `uint first_slot`.
        unsafe { k.set_arg(REDUCE_FIRST_SLOT, &first_slot)? };
        Self::launch(
            &self.queue,
            k,
            (4 - first_slot as usize) * self.work_group,
            self.work_group,
        )?;
        // SAFETY: blocking read of the 12 results.
        unsafe {
            self.queue.enqueue_read_buffer(
                &self.b.results,
                CL_BLOCKING,
                0,
                &mut self.results,
                &[],
            )?;
        }
        Ok(())
    }
}

/// The exact sum of a double-double, as the accumulator the CPU backends use.
fn dd(hi: f64, lo: f64) -> bitrep::SumF64 {
    let mut s = bitrep::SumF64::default();
    s.add(hi);
    s.add(lo);
    s
}

impl Drop for OpenClBackend {
    fn drop(&mut self) {
        let _ = self.queue.finish();
    }
}

impl Backend for OpenClBackend {
    fn name(&self) -> String {
        format!(
            "opencl ({}, work group {}, flux {})",
            self.info.name,
            self.work_group,
            self.flux.name()
        )
    }

    fn len(&self) -> usize {
        self.n
    }

    fn set_state(&mut self, prim: &[Vec4]) {
        if self.failed() {
            return;
        }
        let r = self.write_state(prim);
        self.check("uploading the state", r);
    }

    fn state(&mut self, out: &mut [Vec4]) {
        let n = self.n;
        let r = if self.failed() {
            Err(ClError(0))
        } else if n == 0 {
            Ok(())
        } else {
            // SAFETY: blocking read of the 4 n doubles of the state.
            unsafe {
                self.queue.enqueue_read_buffer(
                    &self.b.prim,
                    CL_BLOCKING,
                    0,
                    &mut out.as_flattened_mut()[..4 * n],
                    &[],
                )
            }
            .map(drop)
        };
        if r.is_err() {
            if !self.failed() {
                self.check("reading the state", r);
            }
            out.iter_mut().for_each(|w| *w = [f64::NAN; 4]);
        }
    }

    fn restore_iteration_start(&mut self) {
        if self.failed() {
            return;
        }
        let bytes = 32 * self.n.max(1);
        // SAFETY: device-to-device copy of two buffers of the same size.
        let r = unsafe {
            self.queue
                .enqueue_copy_buffer(&self.b.prim_old, &mut self.b.prim, 0, 0, bytes, &[])
        }
        .map(drop)
        .and_then(|_| self.reset_flags());
        self.forces = None;
        self.check("restoring the iteration's start state", r);
    }

    fn local_time_step(&mut self) {
        self.local_time_step_range(0..self.n);
    }

    fn q_variables(&mut self) {
        self.q_variables_range(0..self.n);
    }

    fn q_derivatives(&mut self) {
        self.q_derivatives_range(0..self.n);
    }

    fn q_inner_iteration(&mut self) {
        self.q_inner_iteration_range(0..self.n);
        self.finish_inner_iteration();
    }

    fn flux_residual(&mut self) {
        self.flux_residual_range(0..self.n);
    }

    /// The non-physical check and the residue of a stage other than the
    /// iteration's last are deferred to its last stage (no host round trip
    /// per stage): those stages report nothing, and the last reports the
    /// first non-physical point of the first stage that had one (the later
    /// stages then leave the state as that stage made it).
    fn state_update(&mut self, stage: usize) -> UpdateOutcome {
        self.state_update_first(stage, self.n)
    }

    fn force_sums(&mut self) -> ForceSums {
        if let Some(f) = &self.forces {
            return f.clone();
        }
        if self.failed() {
            return ForceSums::default();
        }
        let r = Self::launch(&self.queue, &self.k.force_sums, self.m, self.work_group)
            .and_then(|_| self.reduce(1));
        self.check("the force sums", r);
        if self.failed() {
            return ForceSums::default();
        }
        let f = self.force_sums_of_results();
        self.forces = Some(f.clone());
        f
    }

    fn synchronize(&mut self) {
        if self.failed() {
            return;
        }
        let r = self.queue.finish();
        self.check("waiting for the device", r);
    }

    fn state_bytes(&self) -> usize {
        let fields = 9 * 32 * self.n + 8 * self.n;
        fields + 16 * self.res_groups.max(1) + 48 * self.max_force_groups + 8 * 12 + 16
    }
}
