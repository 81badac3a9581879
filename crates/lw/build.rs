//! Translates the `#[device]` kernels into OpenCL C (`$OUT_DIR/lw.cl`,
//! included as `DEVICE_SOURCE`).

fn main() {
    qflow_par_codegen::build_script(&["src/kernels.rs"], "lw");
}
