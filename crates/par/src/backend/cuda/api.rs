//! CUDA under the device backend, through the driver API: the device's
//! primary context, one stream that every copy and launch goes through in
//! order, the program compiled by NVRTC for the device's architecture and
//! loaded as a module, and a pair of events around each loop's launch for
//! its device time.

use std::ffi::{c_void, CString};
use std::sync::Arc;
use std::time::Duration;

use cudarc::driver::result::{self, event, function, module, stream};
use cudarc::driver::sys::{self, CUfunction_attribute};
use cudarc::driver::CudaContext;

use super::platform::{cu_error, init};
use crate::backend::device::api::{Arg, DeviceApi};
use crate::backend::device::DeviceInfo;

/// Device memory: an allocation in the context it holds.
pub(crate) struct CudaBuffer {
    ptr: sys::CUdeviceptr,
    ctx: Arc<CudaContext>,
}

impl Drop for CudaBuffer {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: allocated by `malloc_sync` in this context, freed once.
            let _ = unsafe { result::free_sync(self.ptr) };
        }
    }
}

/// Launches whose device times are not collected yet: each a loop's name
/// and a pair of events of the pool (start, end).
struct Timing {
    pool: Vec<(sys::CUevent, sys::CUevent)>,
    pending: Vec<&'static str>,
}

/// Pending launches beyond which the next loop collects their times (one
/// wait for the device per this many launches).
const COLLECT_EVERY: usize = 256;

/// The most dynamic shared memory a launch gets without asking for more.
const SHARED_DEFAULT: usize = 48 * 1024;

/// A CUDA device opened for a backend.
pub(crate) struct Cuda {
    info: DeviceInfo,
    ctx: Arc<CudaContext>,
    stream: sys::CUstream,
    module: sys::CUmodule,
    timing: Timing,
    /// A launch's argument values (8 bytes each) and their addresses,
    /// reused: no allocation per launch.
    values: Vec<u64>,
    pointers: Vec<*mut c_void>,
}

// SAFETY: the driver's handles may be used from any thread that makes the
// context current, which every call here does first; the layer calls one
// backend from one thread at a time.
unsafe impl Send for Cuda {}

impl Cuda {
    fn bind(&self) -> Result<(), String> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| cu_error("making the CUDA context current", e))
    }

    /// A fresh pair of timing events, or one of the pool's.
    fn events(&mut self, k: usize) -> Result<(sys::CUevent, sys::CUevent), String> {
        while self.timing.pool.len() <= k {
            let flags = sys::CUevent_flags::CU_EVENT_DEFAULT;
            let pair = (
                event::create(flags).map_err(|e| cu_error("creating an event", e))?,
                event::create(flags).map_err(|e| cu_error("creating an event", e))?,
            );
            self.timing.pool.push(pair);
        }
        Ok(self.timing.pool[k])
    }
}

impl Drop for Cuda {
    fn drop(&mut self) {
        if self.bind().is_err() {
            return;
        }
        // SAFETY: each handle was made here and is destroyed once, after
        // the stream's work is done.
        unsafe {
            let _ = stream::synchronize(self.stream);
            for &(a, b) in &self.timing.pool {
                let _ = event::destroy(a);
                let _ = event::destroy(b);
            }
            let _ = module::unload(self.module);
            let _ = stream::destroy(self.stream);
        }
    }
}

// SAFETY: buffers hold their context and make it current to free; kernels
// are handles into the module, valid on any thread with the context current.
unsafe impl DeviceApi for Cuda {
    type Buffer = CudaBuffer;
    type Kernel = sys::CUfunction;

    const NAME: &'static str = "cuda";
    const NO_DEVICE: &'static str = super::platform::NO_DEVICE;

    fn devices() -> Result<Vec<DeviceInfo>, String> {
        super::platform::devices()
    }

    fn open(info: &DeviceInfo, program: &str, wg: usize) -> Result<Self, String> {
        init()?;
        let ctx = CudaContext::new(info.device_index)
            .map_err(|e| cu_error(&format!("opening CUDA device {}", info.label()), e))?;
        let compiled = super::nvrtc::compile(program, &info.version, wg)
            .map_err(|e| format!("{e}\n(device {})", info.label()))?;
        if !compiled.log.is_empty() {
            tracing::info!("NVRTC for {}:\n{}", info.label(), compiled.log);
        }
        if let Some(path) = std::env::var_os("QFLOW_CUDA_DUMP") {
            // The whole program text as NVRTC gets it.
            match std::fs::write(&path, program) {
                Ok(()) => tracing::info!("CUDA program written to {}", path.to_string_lossy()),
                Err(e) => tracing::warn!("QFLOW_CUDA_DUMP {}: {e}", path.to_string_lossy()),
            }
        }
        // SAFETY: a cubin NVRTC made for this device's architecture.
        let load = |c: &super::nvrtc::Compiled| unsafe {
            module::load_data(c.image.as_ptr() as *const c_void)
        };
        let module = match load(&compiled) {
            // A cached cubin the driver refuses (damaged, or made for
            // another driver): compiled again.
            Err(e) if compiled.cached.is_some() => {
                tracing::warn!(
                    "the cached CUDA kernels {} did not load ({}): compiling them again",
                    compiled
                        .cached
                        .as_deref()
                        .map_or(String::new(), |p| p.display().to_string()),
                    cu_error("loading", e)
                );
                load(&super::nvrtc::compile_afresh(program, &info.version, wg)?)
            }
            r => r,
        }
        .map_err(|e| cu_error(&format!("loading qflow's kernels on {}", info.label()), e))?;
        let stream = stream::create(stream::StreamKind::NonBlocking)
            .map_err(|e| cu_error("creating a CUDA stream", e))?;
        Ok(Cuda {
            info: info.clone(),
            ctx,
            stream,
            module,
            timing: Timing {
                pool: Vec::new(),
                pending: Vec::with_capacity(4 * COLLECT_EVERY),
            },
            values: Vec::with_capacity(128),
            pointers: Vec::with_capacity(128),
        })
    }

    fn kernel(&self, name: &str) -> Result<sys::CUfunction, String> {
        self.bind()?;
        let c = CString::new(name).map_err(|_| format!("kernel name {name:?}"))?;
        // SAFETY: a function of the loaded module.
        unsafe { module::get_function(self.module, c) }
            .map_err(|e| cu_error(&format!("kernel {name}"), e))
    }

    fn kernel_limit(&self, k: &sys::CUfunction) -> Result<usize, String> {
        self.bind()?;
        let a = CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
        // SAFETY: an attribute of a function of the loaded module.
        unsafe { function::get_function_attribute(*k, a) }
            .map(|n| n.max(1) as usize)
            .map_err(|e| cu_error("querying a kernel's block limit", e))
    }

    fn alloc(&self, bytes: usize) -> Result<CudaBuffer, String> {
        self.bind()?;
        // SAFETY: a device allocation, freed by the buffer's drop.
        let ptr = unsafe { result::malloc_sync(bytes.max(1)) }.map_err(|e| {
            cu_error(
                &format!("allocating {bytes} bytes on {}", self.info.label()),
                e,
            )
        })?;
        Ok(CudaBuffer {
            ptr,
            ctx: self.ctx.clone(),
        })
    }

    fn write(&mut self, buf: &mut CudaBuffer, bytes: &[u8]) -> Result<(), String> {
        self.bind()?;
        // SAFETY: the caller sized `bytes` to fit the buffer; the host's
        // bytes are not used again before the stream has copied them.
        unsafe {
            result::memcpy_htod_async(buf.ptr, bytes, self.stream)
                .and_then(|()| stream::synchronize(self.stream))
        }
        .map_err(|e| cu_error("writing device memory", e))
    }

    fn read(&mut self, buf: &CudaBuffer, out: &mut [u8]) -> Result<(), String> {
        self.bind()?;
        // SAFETY: as above, `out` sized to fit the buffer.
        unsafe {
            result::memcpy_dtoh_async(out, buf.ptr, self.stream)
                .and_then(|()| stream::synchronize(self.stream))
        }
        .map_err(|e| cu_error("reading device memory", e))
    }

    unsafe fn launch(
        &mut self,
        k: &sys::CUfunction,
        groups: [usize; 2],
        wg: usize,
        args: &mut dyn Iterator<Item = Arg<'_, CudaBuffer>>,
        loop_name: Option<&'static str>,
    ) -> Result<(), String> {
        self.bind()?;
        // Each value in 8 bytes, its own bytes first (a 4-byte parameter
        // reads the first four).
        let low = |b: [u8; 4]| {
            let mut w = [0u8; 8];
            w[..4].copy_from_slice(&b);
            u64::from_ne_bytes(w)
        };
        self.values.clear();
        let mut shared = 0usize;
        for a in args {
            self.values.push(match a {
                Arg::U32(v) => low(v.to_ne_bytes()),
                Arg::I32(v) => low(v.to_ne_bytes()),
                Arg::I64(v) => u64::from_ne_bytes(v.to_ne_bytes()),
                Arg::F64(v) => u64::from_ne_bytes(v.to_ne_bytes()),
                Arg::Buffer(b) => b.ptr,
                Arg::Local(bytes) => {
                    // The offset, in doubles, of this part of the block's
                    // dynamic shared memory (`QF_LOCAL_ARG`).
                    let at = shared / 8;
                    shared += bytes.next_multiple_of(8);
                    low((at as u32).to_ne_bytes())
                }
            });
        }
        self.pointers.clear();
        let base = self.values.as_mut_ptr();
        for i in 0..self.values.len() {
            // SAFETY: within the vector, which is not touched again until
            // the launch below has read the values.
            self.pointers.push(unsafe { base.add(i) } as *mut c_void);
        }
        if shared > SHARED_DEFAULT {
            let a = CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
            // SAFETY: an attribute of a function of the loaded module.
            unsafe { function::set_function_attribute(*k, a, shared as i32) }
                .map_err(|e| cu_error(&format!("asking for {shared} bytes of shared memory"), e))?;
        }
        let timed = match loop_name {
            Some(name) => {
                let n = self.timing.pending.len();
                let (start, _) = self.events(n)?;
                // SAFETY: an event of this context on this context's stream.
                unsafe { event::record(start, self.stream) }
                    .map_err(|e| cu_error("recording an event", e))?;
                Some((n, name))
            }
            None => None,
        };
        // SAFETY: the caller's arguments match the kernel's parameters.
        unsafe {
            result::launch_kernel(
                *k,
                (groups[0] as u32, groups[1] as u32, 1),
                (wg as u32, 1, 1),
                shared as u32,
                self.stream,
                &mut self.pointers,
            )
        }
        .map_err(|e| {
            cu_error(
                &format!("launching {} x {} blocks of {wg}", groups[0], groups[1]),
                e,
            )
        })?;
        if let Some((n, name)) = timed {
            let (_, end) = self.timing.pool[n];
            // SAFETY: as above.
            unsafe { event::record(end, self.stream) }
                .map_err(|e| cu_error("recording an event", e))?;
            self.timing.pending.push(name);
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), String> {
        // A stream starts its work as it is queued.
        Ok(())
    }

    fn finish(&mut self) -> Result<(), String> {
        self.bind()?;
        // SAFETY: this context's stream.
        unsafe { stream::synchronize(self.stream) }
            .map_err(|e| cu_error("waiting for the device", e))
    }

    fn times(
        &mut self,
        wait: bool,
        add: &mut dyn FnMut(&'static str, Duration),
    ) -> Result<bool, String> {
        if !wait && self.timing.pending.len() < COLLECT_EVERY {
            return Ok(true);
        }
        self.finish()?;
        for (k, name) in self.timing.pending.drain(..).enumerate() {
            let (start, end) = self.timing.pool[k];
            // SAFETY: two recorded events of this context, completed.
            let ms = unsafe { event::elapsed(start, end) }
                .map_err(|e| cu_error("reading a launch's time", e))?;
            add(name, Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3));
        }
        Ok(true)
    }
}
