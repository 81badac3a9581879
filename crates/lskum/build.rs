//! Translates the `#[device]` items of the kernels into OpenCL C
//! (`$OUT_DIR/lskum.cl`, included as `DEVICE_SOURCE`): the device code
//! of every backend that is not a CPU is these same functions.

fn main() {
    qflow_par_codegen::build_script(
        &[
            "src/lib.rs",
            "src/gas.rs",
            "src/math.rs",
            "src/flux.rs",
            "src/limiter.rs",
            "src/kernels/lsq.rs",
            "src/kernels/residual.rs",
            "src/kernels/update.rs",
        ],
        "lskum",
    );
}
