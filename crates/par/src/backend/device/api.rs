//! What a device API (OpenCL, CUDA) supplies to the device backend: a
//! device opened with the program built for it, buffers, kernels, launches
//! in one in-order queue, and the device's own time of each launch. The
//! backend above it ([`super::DeviceBackend`]) is the same for every API:
//! the part's dats and maps in buffers, the entry kernels generated from
//! the loops' declarations ([`super::source`]), their arguments bound in
//! the order the entries declare them, reductions, plans and halos.

use std::time::Duration;

use super::select::DeviceInfo;

/// One argument of a kernel launch, in the order of the entry's parameters.
pub(crate) enum Arg<'a, B> {
    /// `uint`.
    U32(u32),
    /// `int`.
    I32(i32),
    /// `long`.
    I64(i64),
    /// `double`.
    F64(f64),
    /// A buffer's address.
    Buffer(&'a B),
    /// Work-group local memory of this many bytes (OpenCL: a `__local`
    /// pointer; CUDA: an offset into the launch's dynamic shared memory,
    /// `QF_LOCAL_ARG` in the prelude).
    Local(usize),
}

/// A device API under the device backend. Every call that fails returns
/// the API's error as text, saying what was being done.
///
/// # Safety
///
/// The API's buffers and kernels may move to another thread with it (the
/// layer calls one backend from one thread at a time, not always the same
/// one): the device backend that holds them is `Send`.
pub(crate) unsafe trait DeviceApi: Sized + Send {
    /// Device memory, freed when dropped.
    type Buffer;
    /// A kernel of the built program.
    type Kernel;

    /// The backend's name on the command line: `opencl`, `cuda`.
    const NAME: &'static str;

    /// What to say when the API lists no device (what to install).
    const NO_DEVICE: &'static str;

    /// The devices this API sees, in listing order.
    fn devices() -> Result<Vec<DeviceInfo>, String>;

    /// Opens device `info` of [`Self::devices`] and builds `program` (the
    /// whole device program text) for work groups of at most `wg` items.
    fn open(info: &DeviceInfo, program: &str, wg: usize) -> Result<Self, String>;

    /// The built program's kernel `name`.
    fn kernel(&self, name: &str) -> Result<Self::Kernel, String>;

    /// The largest work group kernel `k` can be launched with (its
    /// registers and local memory may allow fewer items than the device).
    fn kernel_limit(&self, k: &Self::Kernel) -> Result<usize, String>;

    /// A buffer of `bytes` bytes (at least one).
    fn alloc(&self, bytes: usize) -> Result<Self::Buffer, String>;

    /// Writes `bytes` at the start of `buf`, once the work queued before is
    /// done; returns when the host's bytes may be reused.
    fn write(&mut self, buf: &mut Self::Buffer, bytes: &[u8]) -> Result<(), String>;

    /// Reads the first `out.len()` bytes of `buf` once the work queued
    /// before is done.
    fn read(&mut self, buf: &Self::Buffer, out: &mut [u8]) -> Result<(), String>;

    /// Queues kernel `k` over `groups[0] x groups[1]` work groups of `wg`
    /// work items along x, with `args`; a `loop_name` keeps the launch's
    /// device time for [`Self::times`].
    ///
    /// # Safety
    ///
    /// `args` must match the kernel's parameters in number, order and type,
    /// and every buffer must be large enough for what the kernel reaches.
    unsafe fn launch(
        &mut self,
        k: &Self::Kernel,
        groups: [usize; 2],
        wg: usize,
        args: &mut dyn Iterator<Item = Arg<'_, Self::Buffer>>,
        loop_name: Option<&'static str>,
    ) -> Result<(), String>;

    /// Starts the work queued so far.
    fn flush(&mut self) -> Result<(), String>;

    /// Waits until all queued work is done.
    fn finish(&mut self) -> Result<(), String>;

    /// Gives `add` the device time of each timed launch completed since the
    /// last call (see [`crate::backend::LocalBackend::device_times`]):
    /// `Ok(false)` when this device does not time its launches.
    fn times(
        &mut self,
        wait: bool,
        add: &mut dyn FnMut(&'static str, Duration),
    ) -> Result<bool, String>;
}

/// Plain numbers whose every bit pattern is a value: their storage may be
/// moved to and from the device as bytes.
pub(crate) trait Plain: Copy {}
impl Plain for u8 {}
impl Plain for u32 {}
impl Plain for i32 {}
impl Plain for f64 {}

/// The bytes of `v`.
pub(crate) fn bytes<T: Plain>(v: &[T]) -> &[u8] {
    // SAFETY: plain numbers, viewed as the bytes they occupy.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

/// The bytes of `v`, to be written.
pub(crate) fn bytes_mut<T: Plain>(v: &mut [T]) -> &mut [u8] {
    // SAFETY: as above; any bytes written there make valid values of T.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, std::mem::size_of_val(v)) }
}
