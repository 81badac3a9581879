//! Translates the `#[device]` kernels into OpenCL C (`$OUT_DIR/dg.rs`,
//! included as `DEVICE_SOURCE`).

fn main() {
    qflow_par_codegen::build_script(
        &[
            "src/kernels.rs",
            "src/kernels3.rs",
            "src/euler.rs",
            "src/euler3.rs",
            "src/tables.rs",
        ],
        "dg",
    );
}
