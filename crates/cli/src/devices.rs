//! `qflow devices`: the OpenCL platforms and devices this machine has.

use anyhow::Result;

/// The device list as text.
pub fn report() -> Result<String> {
    anyhow::bail!("this build has no OpenCL backend: build with `--features opencl`")
}
