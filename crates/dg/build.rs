//! Translates the `#[device]` kernels into OpenCL C once per order
//! (`$OUT_DIR/dg_o<n>.rs`, included as `crate::o<n>::device`, with its
//! `DEVICE_SOURCE`): the kernel files are the same for every order, each
//! translation sees them with its own `DG_ORDER` (a generated root module
//! holding `pub const DG_ORDER: usize = n;`), so a run's program holds
//! the kernels of its order only, their elements sized for it.

use std::path::Path;

/// The kernel files, relative to the crate.
const FILES: [&str; 10] = [
    "src/kernels.rs",
    "src/kernels3.rs",
    "src/laws.rs",
    "src/system.rs",
    "src/euler.rs",
    "src/gas.rs",
    "src/system3.rs",
    "src/euler3.rs",
    "src/gas3.rs",
    "src/tables.rs",
];

fn main() {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let out = std::env::var_os("OUT_DIR").expect("OUT_DIR");
    let (manifest, out) = (Path::new(&manifest), Path::new(&out));
    for f in FILES {
        println!("cargo:rerun-if-changed={}", manifest.join(f).display());
    }
    for n in 1..=8 {
        // The order's root module, as `src/lib.rs` of a crate of its own
        // (the kernels' `use super::DG_ORDER` resolves to it).
        let root = out.join(format!("order{n}"));
        let lib = root.join("src/lib.rs");
        std::fs::create_dir_all(lib.parent().unwrap()).expect("creating OUT_DIR/order<n>/src");
        write_if_changed(&lib, &format!("pub const DG_ORDER: usize = {n};\n"));
        // The kernel files copied beside it (same relative paths, so the
        // same module paths and diagnostics as the crate's own files).
        for f in FILES {
            let text = std::fs::read_to_string(manifest.join(f)).expect("reading a kernel file");
            write_if_changed(&root.join(f), &text);
        }
        let mut files = FILES.to_vec();
        files.push("src/lib.rs");
        // Only the crate's files are watched (printed above), not the
        // copies.
        qflow_par_codegen::build_script_in(&root, out, &files, &format!("dg_o{n}"))
            .expect("writing the translation");
    }
}

/// Writes `text` to `path` unless it holds it already (an unchanged file
/// keeps its time: no rebuild of what depends on it).
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).expect("writing into OUT_DIR");
    }
}
