//! Backends: what runs a rank's loops on its part.
//!
//! Every backend has the same inner shape: it holds the part's dats (in
//! host memory, or on a device), binds a loop's declared arguments to them
//! the first time the loop runs, and runs it over spans of local elements.
//! [`crate::exec::Exec`] drives a backend: it decides which spans run when
//! (the core while halos travel, then the rest), moves halo values with
//! [`LocalBackend::pack`] / [`LocalBackend::unpack`] and merges reductions
//! across ranks.
//!
//! - [`cpu`]: `serial` (one thread) and `threads` (a rayon pool);
//! - [`device`]: the device backend, over a device API:
//!   - `opencl` (feature `opencl`): any OpenCL device;
//!   - `cuda` (feature `cuda`): NVIDIA GPUs, the program compiled by NVRTC;
//!
//!   both run the same program, generated from the same Rust kernels.

use std::ops::Range;
use std::sync::Arc;

use crate::decl::{DatDecl, GlobalDecl, LoopDecl};
use crate::problem::Values;

mod chunks;
pub mod cpu;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod device;
#[cfg(feature = "opencl")]
pub mod opencl;

/// A backend that runs one rank's loops.
pub trait LocalBackend: Send {
    /// A short description, e.g. `threads (4)`.
    fn name(&self) -> String;

    /// Runs `l` over `spans` of its set's local elements (each element
    /// once; the spans are owned elements, or boundary cells of a block).
    fn run(&mut self, l: &'static LoopDecl, spans: &[Range<usize>]) -> Result<(), String>;

    /// Runs `l` over `spans` as [`Self::run`] does and, where the backend
    /// can do it inside the loop's own parallel work, copies each dat of
    /// `dats` (written in place by `l`, read by no other element of it)
    /// from element `from[i]` to element `to[i]` once those are computed:
    /// a one-rank periodic halo refreshed by the loop that writes the dat
    /// instead of by a copy before the next loop that reads it. Returns
    /// whether it made the copies (then the halos of `dats` are fresh);
    /// this default makes none.
    fn run_copying(
        &mut self,
        l: &'static LoopDecl,
        spans: &[Range<usize>],
        _dats: &[&'static DatDecl],
        _from: &[u32],
        _to: &[u32],
    ) -> Result<bool, String> {
        self.run(l, spans).map(|()| false)
    }

    /// Whether the backend runs line loops ([`crate::decl::Axis`]); a
    /// method without them runs element loops instead.
    fn lines(&self) -> bool {
        false
    }

    /// Whether `run` only enqueues work for a device and returns (the
    /// layer then submits the core in one piece and waits for halos while
    /// the device computes).
    fn asynchronous(&self) -> bool {
        false
    }

    /// Starts the work enqueued so far (asynchronous backends).
    fn flush(&mut self) {}

    /// Waits until all submitted work is done.
    fn synchronize(&mut self) {}

    /// Gives `add` the device time of each loop launch completed since the
    /// last call, for an asynchronous backend that profiles its launches;
    /// `false` if it does not (the layer then waits after each loop to
    /// time it). With `wait`, after all submitted work is done; without,
    /// only when many launches are pending, so that timing does not stop
    /// the device between loops. Allocates nothing.
    fn device_times(
        &mut self,
        _wait: bool,
        _add: &mut dyn FnMut(&'static str, std::time::Duration),
    ) -> bool {
        false
    }

    /// Exchanges the values of two dats of the same set, shape and type.
    fn swap(&mut self, a: &DatDecl, b: &DatDecl);

    /// Writes the values of `dat` at the local `elements` into `out`
    /// (`dim` values per element, f64 dats).
    fn pack(&mut self, dat: &DatDecl, elements: &[u32], out: &mut [f64]);

    /// Sets the values of `dat` at the local `elements` from `values`.
    fn unpack(&mut self, dat: &DatDecl, elements: &[u32], values: &[f64]);

    /// Copies the values of `dat` at the local elements `from[i]` to the
    /// local elements `to[i]` (a rank's halo filled from its own elements:
    /// a periodic block on one rank); the values [`Self::pack`] and then
    /// [`Self::unpack`] would put there, which is what this default does.
    fn copy_elements(&mut self, dat: &DatDecl, from: &[u32], to: &[u32]) {
        copy_by_packing(self, dat, from, to)
    }

    /// Every local value of `dat`.
    fn read(&mut self, dat: &DatDecl) -> Values;

    /// Sets every local value of `dat`.
    fn write(&mut self, dat: &DatDecl, values: &Values);

    /// Sets a constant.
    fn set_const(&mut self, g: &GlobalDecl, f: &[f64], i: &[i32]);

    /// The local partial result of a reduction (accumulated over the loops
    /// since its last reset).
    fn partial(&mut self, g: &GlobalDecl) -> crate::kernel::Partials;

    /// Resets a reduction to its identity.
    fn reset(&mut self, g: &GlobalDecl);

    /// The thread pool the loops run on, if any: the driver runs each
    /// step inside it, so that no job is injected from outside (which keeps
    /// the step free of allocation).
    fn pool(&self) -> Option<Arc<rayon::ThreadPool>> {
        None
    }

    /// Bytes of dat storage held.
    fn bytes(&self) -> usize;

    /// An error the backend recorded (a device fault), which stops the run
    /// at the next reduction.
    fn error(&self) -> Option<String> {
        None
    }
}

/// The backends, by name. Optional backends exist in every build so that a
/// request for one names what is missing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// One core.
    Serial,
    /// A rayon pool.
    #[default]
    Threads,
    /// OpenCL on any vendor's GPU or on a CPU (PoCL); feature `opencl`.
    #[serde(rename = "opencl")]
    OpenCl,
    /// CUDA on NVIDIA GPUs; feature `cuda`.
    Cuda,
}

impl std::str::FromStr for BackendKind {
    type Err = String;
    /// The serde names, so the case file and the command line agree.
    fn from_str(s: &str) -> Result<Self, String> {
        use serde::de::{value::Error, IntoDeserializer};
        use serde::Deserialize;
        Self::deserialize(s.into_deserializer()).map_err(|e: Error| format!("backend '{s}': {e}"))
    }
}

impl BackendKind {
    /// The name, as on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Serial => "serial",
            Self::Threads => "threads",
            Self::OpenCl => "opencl",
            Self::Cuda => "cuda",
        }
    }

    /// Whether this build has the backend.
    pub fn available(self) -> bool {
        match self {
            Self::Serial | Self::Threads => true,
            Self::OpenCl => cfg!(feature = "opencl"),
            Self::Cuda => cfg!(feature = "cuda"),
        }
    }

    /// Whether the backend runs on a device (`--device`, `--work-group`).
    pub fn on_device(self) -> bool {
        matches!(self, Self::OpenCl | Self::Cuda)
    }

    /// Whether this machine can run the backend, before any work: the
    /// build has it and, for CUDA, the driver, a device and NVRTC load;
    /// else the one-line reason. (OpenCL's runtime and devices are checked
    /// when its backend starts, with their own errors.)
    pub fn probe(self) -> Result<(), String> {
        if !self.available() {
            return Err(missing(self));
        }
        #[cfg(feature = "cuda")]
        if self == Self::Cuda {
            return cuda::probe();
        }
        Ok(())
    }
}

/// Which backend to create and how.
#[derive(Clone, Debug, Default)]
pub struct BackendSpec {
    /// The backend.
    pub kind: BackendKind,
    /// Threads of the threads backend (0: one per core).
    pub threads: usize,
    /// Device of a device backend: an index or part of a name (`None`: the
    /// first suitable device).
    pub device: Option<String>,
    /// Work-group size of a device backend (`None`: 64, or the device's
    /// largest if smaller).
    pub work_group: Option<usize>,
    /// How the CPU backends run loops that increment through a map.
    pub increments: crate::plan::Increments,
    /// Elements per block of a two-level plan (0: 128).
    pub block_size: usize,
    /// How dats with several values per element are stored.
    pub layout: crate::layout::Layout,
}

impl BackendSpec {
    /// The serial backend, every other setting at its default.
    pub fn serial() -> Self {
        BackendSpec {
            kind: BackendKind::Serial,
            ..BackendSpec::default()
        }
    }

    /// The threads backend with `threads` threads (0: one per core), every
    /// other setting at its default.
    pub fn threads(threads: usize) -> Self {
        BackendSpec {
            kind: BackendKind::Threads,
            threads,
            ..BackendSpec::default()
        }
    }
}

/// What a backend needs of the method besides the part: the loops it may
/// run (a device backend compiles them all at start) and their device
/// source.
#[derive(Clone, Copy, Debug)]
pub struct Program {
    /// A name for messages and caches (the method's).
    pub name: &'static str,
    /// Every loop the method may run.
    pub loops: &'static [&'static LoopDecl],
    /// The device functions translated from the method's Rust kernels.
    pub device_source: &'static str,
}

/// The backend `spec` asks for, on `part`, for a method's `program` and
/// `globals`. `node` is this rank's index among the ranks of its node and
/// their number: the threads backend then takes its share of the cores
/// (unless `spec.threads` says), a device backend its device.
pub fn create(
    spec: &BackendSpec,
    part: Arc<crate::part::Part>,
    globals: &[&'static GlobalDecl],
    program: &Program,
    node: (usize, usize),
) -> Result<Box<dyn LocalBackend>, String> {
    if spec.increments == crate::plan::Increments::StagedAtomics && !spec.kind.on_device() {
        return Err(format!(
            "the increment strategy `staged-atomics` runs on devices (--backend opencl or \
             cuda), not on the {} backend: on CPUs use `two-level` or `atomics`",
            spec.kind.name()
        ));
    }
    match spec.kind {
        BackendKind::Serial => Ok(Box::new(
            cpu::CpuBackend::new(part, globals, cpu::Par::Seq)
                .with_increments(spec.increments, spec.block_size)
                .with_layout(spec.layout, program.loops),
        )),
        BackendKind::Threads => {
            let threads = if spec.threads > 0 {
                spec.threads
            } else {
                let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                (cores / node.1.max(1)).max(1)
            };
            let par = cpu::Par::rayon(threads)
                .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
            Ok(Box::new(
                cpu::CpuBackend::new(part, globals, par)
                    .with_increments(spec.increments, spec.block_size)
                    .with_layout(spec.layout, program.loops),
            ))
        }
        #[cfg(feature = "opencl")]
        BackendKind::OpenCl => device::create::<opencl::Api>(spec, part, globals, program, node),
        #[cfg(feature = "cuda")]
        BackendKind::Cuda => device::create::<cuda::Api>(spec, part, globals, program, node),
        #[allow(unreachable_patterns)]
        kind => Err(missing(kind)),
    }
}

/// The device backends a test can run on here, OpenCL first: each one
/// this build has whose test device exists (`opencl::device_for_tests`,
/// `cuda::device_for_tests`; with `QFLOW_REQUIRE_OPENCL` or
/// `QFLOW_REQUIRE_CUDA` set, a missing one fails the test instead of being
/// left out), and that `QFLOW_TEST_DEVICES` names if it is set (a list:
/// `cuda`, `opencl,cuda`).
pub fn test_devices() -> Vec<BackendKind> {
    let wanted = std::env::var("QFLOW_TEST_DEVICES").ok();
    let wants = |k: BackendKind| {
        wanted
            .as_deref()
            .is_none_or(|w| w.split(',').any(|x| x.trim() == k.name()))
    };
    #[allow(unused_mut)]
    let mut kinds = Vec::new();
    #[cfg(feature = "opencl")]
    if wants(BackendKind::OpenCl) && opencl::device_for_tests() {
        kinds.push(BackendKind::OpenCl);
    }
    #[cfg(feature = "cuda")]
    if wants(BackendKind::Cuda) && cuda::device_for_tests() {
        kinds.push(BackendKind::Cuda);
    }
    let _ = wants;
    kinds
}

/// The error for a backend this build does not have.
fn missing(kind: BackendKind) -> String {
    match kind {
        BackendKind::OpenCl => "this build has no OpenCL backend: build with `--features opencl` \
             (scripts/install-deps.sh installs an OpenCL runtime)"
            .into(),
        BackendKind::Cuda => "this build has no CUDA backend: build with `--features cuda` \
             (the CUDA driver and NVRTC are loaded at run time: the build needs neither)"
            .into(),
        k => format!("the {} backend is missing from this build", k.name()),
    }
}

/// [`LocalBackend::copy_elements`] by [`LocalBackend::pack`] into a buffer
/// and [`LocalBackend::unpack`] from it.
pub(crate) fn copy_by_packing<B: LocalBackend + ?Sized>(
    b: &mut B,
    dat: &DatDecl,
    from: &[u32],
    to: &[u32],
) {
    let mut buf = vec![0.0; from.len() * dat.dim];
    b.pack(dat, from, &mut buf);
    b.unpack(dat, to, &buf);
}
