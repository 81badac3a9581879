//! OpenCL under the device backend: a context and one in-order queue on
//! the chosen device (profiling its commands where the driver allows), the
//! program built from the generated text, buffers, and launches whose
//! arguments are set one by one.

use std::ptr;
use std::time::Duration;

use opencl3::command_queue::{CommandQueue, CL_QUEUE_PROFILING_ENABLE};
use opencl3::context::Context;
use opencl3::device::Device;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_device_id, CL_BLOCKING};

use super::platform::{cl_error, enumerate, setup_lock};
use super::profile::Pending;
use crate::backend::device::api::{Arg, DeviceApi};
use crate::backend::device::DeviceInfo;

/// An OpenCL device opened for a backend.
pub(crate) struct OpenCl {
    info: DeviceInfo,
    id: cl_device_id,
    /// Launch events whose device times are not collected yet.
    pub(super) pending: Pending,
    // Dropped in this order: the program, the queue, the context.
    program: Program,
    pub(super) queue: CommandQueue,
    context: Context,
}

// SAFETY: OpenCL objects may be used from any thread; the layer calls one
// backend from one thread at a time.
unsafe impl Send for OpenCl {}

// SAFETY: as above, for its buffers and kernels.
unsafe impl DeviceApi for OpenCl {
    type Buffer = Buffer<u8>;
    type Kernel = Kernel;

    const NAME: &'static str = "opencl";
    const NO_DEVICE: &'static str = super::platform::NO_DEVICE;

    fn devices() -> Result<Vec<DeviceInfo>, String> {
        super::devices()
    }

    fn open(info: &DeviceInfo, program: &str, wg: usize) -> Result<Self, String> {
        let _setup = setup_lock();
        let found = enumerate()?;
        let id: cl_device_id = found
            .iter()
            .find(|f| f.info.flat_index == info.flat_index)
            .map(|f| f.id)
            .ok_or_else(|| format!("OpenCL device {} is gone", info.label()))?;
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
        let program = super::build_program(&context, id, info, program, wg)?;
        Ok(OpenCl {
            info: info.clone(),
            id,
            pending: Pending::new(profiling),
            program,
            queue,
            context,
        })
    }

    fn kernel(&self, name: &str) -> Result<Kernel, String> {
        Kernel::create(&self.program, name).map_err(|e| cl_error(&format!("kernel {name}"), e))
    }

    fn kernel_limit(&self, k: &Kernel) -> Result<usize, String> {
        k.get_work_group_size(self.id).map_err(|e| {
            cl_error(
                &format!(
                    "querying a kernel's work-group limit on {}",
                    self.info.label()
                ),
                e,
            )
        })
    }

    fn alloc(&self, bytes: usize) -> Result<Buffer<u8>, String> {
        // SAFETY: a device allocation, no host pointer.
        unsafe {
            Buffer::<u8>::create(
                &self.context,
                CL_MEM_READ_WRITE,
                bytes.max(1),
                ptr::null_mut(),
            )
        }
        .map_err(|e| cl_error("allocating device memory", e))
    }

    fn write(&mut self, buf: &mut Buffer<u8>, bytes: &[u8]) -> Result<(), String> {
        // SAFETY: a blocking write of `bytes`, which the caller sized to
        // fit the buffer.
        unsafe {
            self.queue
                .enqueue_write_buffer(buf, CL_BLOCKING, 0, bytes, &[])
        }
        .map(drop)
        .map_err(|e| cl_error("writing device memory", e))
    }

    fn read(&mut self, buf: &Buffer<u8>, out: &mut [u8]) -> Result<(), String> {
        // SAFETY: a blocking read of `out.len()` bytes, which the caller
        // sized to fit the buffer.
        unsafe {
            self.queue
                .enqueue_read_buffer(buf, CL_BLOCKING, 0, out, &[])
        }
        .map(drop)
        .map_err(|e| cl_error("reading device memory", e))
    }

    unsafe fn launch(
        &mut self,
        k: &Kernel,
        groups: [usize; 2],
        wg: usize,
        args: &mut dyn Iterator<Item = Arg<'_, Buffer<u8>>>,
        loop_name: Option<&'static str>,
    ) -> Result<(), String> {
        for (n, a) in args.enumerate() {
            let n = n as u32;
            // SAFETY: the caller's arguments match the kernel's parameters.
            let r = unsafe {
                match a {
                    Arg::U32(v) => k.set_arg(n, &v),
                    Arg::I32(v) => k.set_arg(n, &v),
                    Arg::I64(v) => k.set_arg(n, &v),
                    Arg::F64(v) => k.set_arg(n, &v),
                    Arg::Buffer(b) => k.set_arg(n, &b.get()),
                    Arg::Local(bytes) => k.set_arg_local_buffer(n, bytes),
                }
            };
            r.map_err(|e| cl_error(&format!("setting argument {n}"), e))?;
        }
        let global = [groups[0] * wg, groups[1]];
        let local = [wg, 1];
        // SAFETY: every argument is set; sizes are multiples of the group.
        let event = unsafe {
            self.queue.enqueue_nd_range_kernel(
                k.get(),
                2,
                ptr::null(),
                global.as_ptr(),
                local.as_ptr(),
                &[],
            )
        }
        .map_err(|e| cl_error("enqueueing a kernel", e))?;
        if let Some(name) = loop_name {
            self.pending.push(name, event);
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), String> {
        self.queue
            .flush()
            .map_err(|e| cl_error("flushing the queue", e))
    }

    fn finish(&mut self) -> Result<(), String> {
        self.queue
            .finish()
            .map_err(|e| cl_error("waiting for the device", e))
    }

    fn times(
        &mut self,
        wait: bool,
        add: &mut dyn FnMut(&'static str, Duration),
    ) -> Result<bool, String> {
        self.collect_times(wait, add)
    }
}
