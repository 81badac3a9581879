//! `build_script` end to end: a method crate's files in a temporary
//! directory, the outputs it writes, and what `rustc` makes of them.

#![cfg(feature = "translate")]

use std::path::{Path, PathBuf};
use std::process::Command;

use qflow_par_codegen::build_script_in;

/// A fresh directory with a crate's `src/` files.
fn krate(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "qflow-par-codegen-build-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// Compiles a library that includes `<out>/<name>.rs` (with `OUT_DIR` set,
/// as cargo sets it) and a check of its constants; `None` without rustc,
/// else the compiler's success and messages.
fn rustc_include(out: &Path, name: &str, check: &str) -> Option<(bool, String)> {
    if !Command::new("rustc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        println!("SKIPPED: no rustc on the PATH");
        return None;
    }
    let lib = out.join("includer.rs");
    std::fs::write(
        &lib,
        format!("include!(concat!(env!(\"OUT_DIR\"), \"/{name}.rs\"));\n{check}\n"),
    )
    .unwrap();
    let res = Command::new("rustc")
        .args([
            "--edition",
            "2021",
            "--crate-type",
            "lib",
            "--emit",
            "metadata",
            "-o",
        ])
        .arg(out.join("libincluder.rmeta"))
        .arg(&lib)
        .env("OUT_DIR", out)
        .output()
        .unwrap();
    Some((
        res.status.success(),
        String::from_utf8_lossy(&res.stderr).into_owned(),
    ))
}

const LIB: &str = "pub mod gas;\npub type Vec4 = [f64; 4];\n";

const GAS: &str = "use crate::Vec4;
use qflow_par_macros::device;

#[device]
pub fn kinetic(w: &Vec4) -> f64 {
    0.5 * w[0] * (w[1] * w[1] + w[2] * w[2])
}

#[device]
pub fn total(w: &Vec4) -> f64 {
    kinetic(w) + w[3] * 2.5
}
";

#[test]
fn writes_the_source_and_its_constants() {
    let dir = krate("ok", &[("src/lib.rs", LIB), ("src/gas.rs", GAS)]);
    let out = dir.join("out");
    let lines = build_script_in(&dir, &out, &["src/lib.rs", "src/gas.rs"], "kernels").unwrap();
    assert_eq!(
        lines,
        [
            format!(
                "cargo:rerun-if-changed={}",
                dir.join("src/lib.rs").display()
            ),
            format!(
                "cargo:rerun-if-changed={}",
                dir.join("src/gas.rs").display()
            ),
        ]
    );
    let cl = std::fs::read_to_string(out.join("kernels.cl")).unwrap();
    assert!(
        cl.contains(
            "/* gas::kinetic (src/gas.rs:5) */\nFUNC double kinetic(const qf_arr_f64_4* w)"
        ),
        "{cl}"
    );
    assert!(
        cl.contains("return kinetic(w) + (w->v[3UL] * 2.5);"),
        "{cl}"
    );
    let rs = std::fs::read_to_string(out.join("kernels.rs")).unwrap();
    assert!(
        rs.contains("pub const DEVICE_SOURCE: &str = include_str!(concat!(env!(\"OUT_DIR\"), \"/kernels.cl\"));"),
        "{rs}"
    );
    assert!(
        rs.contains("pub const DEVICE_FUNCTIONS: &[&str] = &[\"kinetic\", \"total\"];"),
        "{rs}"
    );
    assert!(!rs.contains("compile_error"), "{rs}");
    let check = format!(
        "const _: () = assert!(DEVICE_FUNCTIONS.len() == 2);\n\
         const _: () = assert!(DEVICE_SOURCE.len() == {});",
        cl.len()
    );
    if let Some((ok, msg)) = rustc_include(&out, "kernels", &check) {
        assert!(ok, "the generated file does not compile:\n{msg}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn translation_errors_become_compile_errors() {
    let bad = "use qflow_par_macros::device;\n#[device]\npub fn f(x: f64) -> f64 {\n    let g = |y: f64| y;\n    g(x)\n}\n\
               #[device]\npub fn h(x: f64) -> f64 { h(x) }\n";
    let dir = krate("bad", &[("src/lib.rs", LIB), ("src/gas.rs", bad)]);
    let out = dir.join("out");
    build_script_in(&dir, &out, &["src/lib.rs", "src/gas.rs"], "kernels").unwrap();
    let rs = std::fs::read_to_string(out.join("kernels.rs")).unwrap();
    assert!(
        rs.contains(
            "compile_error!(\"src/gas.rs:4:13: closures are not supported in device code (translated \
             to OpenCL C)\");"
        ),
        "{rs}"
    );
    assert!(
        rs.contains("compile_error!(\"src/gas.rs:8:27: recursion is not supported in device code"),
        "{rs}"
    );
    assert!(rs.contains("pub const DEVICE_SOURCE: &str = \"\";"), "{rs}");
    assert!(
        rs.contains("pub const DEVICE_FUNCTIONS: &[&str] = &[];"),
        "{rs}"
    );
    assert_eq!(std::fs::read_to_string(out.join("kernels.cl")).unwrap(), "");
    if let Some((ok, msg)) = rustc_include(&out, "kernels", "") {
        assert!(!ok, "compiles despite the errors");
        assert!(
            msg.contains("src/gas.rs:4:13: closures are not supported"),
            "{msg}"
        );
        assert!(
            msg.contains("src/gas.rs:8:27: recursion is not supported"),
            "{msg}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_file_is_a_compile_error() {
    let dir = krate("missing", &[("src/lib.rs", LIB)]);
    let out = dir.join("out");
    build_script_in(&dir, &out, &["src/lib.rs", "src/nope.rs"], "k").unwrap();
    let rs = std::fs::read_to_string(out.join("k.rs")).unwrap();
    assert!(
        rs.contains("compile_error!(\"src/nope.rs:1:1: cannot read the file:"),
        "{rs}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
