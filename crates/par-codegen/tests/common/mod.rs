//! Shared by the tests that compile translated C: the corpus, a plain-C
//! prelude, the C compiler, a small random generator.

#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use qflow_par_codegen::SourceFile;

pub mod opencl;

/// The corpus of device code (`tests/corpus`), each file under its module
/// path in the test crate (`corpus`, `corpus::math`, ...).
pub fn corpus_files() -> Vec<SourceFile> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            let module = if stem == "mod" {
                "corpus".to_string()
            } else {
                format!("corpus::{stem}")
            };
            SourceFile {
                path: PathBuf::from("tests/corpus").join(p.file_name().unwrap()),
                module,
                text: std::fs::read_to_string(&p).unwrap(),
            }
        })
        .collect()
}

/// The prelude in plain C99: what qflow's OpenCL prelude provides, for the
/// host's C compiler.
pub const PRELUDE_C: &str = r#"#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
typedef unsigned int uint;
typedef unsigned long ulong;
#define FUNC static inline
#define GLOBAL
#define CONSTANT static const
static inline double qf_as_double(ulong u) { double d; memcpy(&d, &u, sizeof d); return d; }
static inline ulong qf_as_ulong(double x) { ulong u; memcpy(&u, &x, sizeof u); return u; }
#define QF_AS_DOUBLE(u) qf_as_double((ulong)(u))
#define QF_AS_ULONG(x) qf_as_ulong((double)(x))
#define QF_INF ((double)INFINITY)
#define QF_NAN ((double)NAN)
"#;

/// A `main` reading `probe n x0 x1 ...` lines (hexadecimal) and printing
/// `m y0 y1 ...` for each, through `run(id, in, out, fs, us)` (`fs`, `us`:
/// scratch memory, global on a device).
pub const MAIN_C: &str = r#"
int main(void)
{
    static ulong in[128], out[128];
    static double fs[256];
    static uint us[64];
    int id, n;
    while (scanf("%d %d", &id, &n) == 2) {
        for (int k = 0; k < n; k++) {
            if (scanf("%lx", &in[k]) != 1) return 2;
        }
        int m = run(id, in, out, fs, us);
        printf("%d", m);
        for (int k = 0; k < m; k++) printf(" %lx", out[k]);
        printf("\n");
    }
    return 0;
}
"#;

/// Whether `gcc` runs.
pub fn have_gcc() -> bool {
    Command::new("gcc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Extra flags for the C compiler from `QFLOW_CODEGEN_CFLAGS` (to check
/// that the comparison catches a difference: `-mfma -ffp-contract=fast`
/// makes results differ).
fn extra_cflags() -> Vec<String> {
    std::env::var("QFLOW_CODEGEN_CFLAGS")
        .map(|v| v.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

/// Compiles `c` (as `<name>.c` in a temporary directory) with `gcc -std=c99
/// -O2 -ffp-contract=off -fno-fast-math`, warnings as errors, runs it with
/// `input` on its standard input and gives its output; `None` (after
/// printing SKIPPED) without `gcc`. Panics with the compiler's messages
/// and the numbered source if it does not compile.
pub fn compile_and_run(c: &str, name: &str, input: &str) -> Option<String> {
    if !have_gcc() {
        println!("SKIPPED: no gcc on this machine");
        return None;
    }
    let dir = std::env::temp_dir().join(format!("qflow-par-codegen-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join(format!("{name}.c"));
    let exe = dir.join(name);
    std::fs::write(&src, c).unwrap();
    let out = Command::new("gcc")
        .args([
            "-std=c99",
            "-O2",
            "-ffp-contract=off",
            "-fno-fast-math",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Wno-unused-function",
            "-Wno-unused-parameter",
            "-o",
        ])
        .arg(&exe)
        .arg(&src)
        .args(extra_cflags())
        .arg("-lm")
        .output()
        .unwrap();
    if !out.status.success() {
        let numbered: Vec<String> = c
            .lines()
            .enumerate()
            .map(|(k, l)| format!("{:5} {l}", k + 1))
            .collect();
        panic!(
            "gcc failed:\n{}\n--- source ---\n{}",
            String::from_utf8_lossy(&out.stderr),
            numbered.join("\n")
        );
    }
    let mut child = Command::new(&exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let res = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        res.status.success(),
        "the C program failed: {:?}",
        res.status
    );
    let _ = std::fs::remove_dir_all(&dir);
    Some(String::from_utf8(res.stdout).unwrap())
}

/// xorshift64*: reproducible inputs without dependencies.
pub struct Rng(u64);

impl Rng {
    /// Seeded.
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    /// 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// In `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}
