//! The translation computes what the Rust computes, bit for bit: the
//! corpus of device code in `tests/corpus` runs natively here, and its
//! translation, compiled by the host's C compiler with a plain-C prelude
//! (`gcc -std=c99 -O2 -ffp-contract=off -fno-fast-math`), runs on the same
//! inputs (thousands per function, edge cases included: zeros of both
//! signs, subnormals, infinities, NaN). Every result must have the same
//! bits (NaN results: both NaN; the payload of a NaN depends on which
//! operand each compiler puts first).
//!
//! Skipped, with a printed SKIPPED line, only where there is no `gcc`.

#![cfg(feature = "translate")]

#[path = "corpus/mod.rs"]
mod corpus;

mod common;
mod probes;

use common::{compile_and_run, corpus_files, opencl, PRELUDE_C};
use probes::{cases, compare, device_skip, probes};

/// The accessors as the execution layer gives them to CPU kernels.
pub mod accessors {
    /// An element and its neighbours through a compressed-row map.
    #[derive(Clone, Copy)]
    pub struct Star<'a, T> {
        pub base: &'a [T],
        pub idx: &'a [u32],
        pub own: usize,
    }

    impl<T: Copy> Star<'_, T> {
        pub fn len(&self) -> usize {
            self.idx.len()
        }
        pub fn is_empty(&self) -> bool {
            self.idx.is_empty()
        }
        pub fn own(&self) -> T {
            self.base[self.own]
        }
        pub fn nbr(&self, m: usize) -> T {
            self.base[self.idx[m] as usize]
        }
    }

    /// A structured block element's neighbourhood.
    #[derive(Clone, Copy)]
    pub struct Offsets<'a, T> {
        pub base: &'a [T],
        pub at: isize,
        pub sy: isize,
        pub sz: isize,
    }

    impl<T: Copy> Offsets<'_, T> {
        pub fn at(&self, dx: i32, dy: i32, dz: i32) -> T {
            self.base
                [(self.at + dx as isize + dy as isize * self.sy + dz as isize * self.sz) as usize]
        }
    }
}

/// Cases per probe.
const CASES: usize = 3000;

fn translation() -> qflow_par_codegen::Translation {
    qflow_par_codegen::translate(&corpus_files()).unwrap_or_else(|d| {
        let d: Vec<String> = d.iter().map(|x| x.to_string()).collect();
        panic!("translation failed:\n{}", d.join("\n"))
    })
}

#[test]
fn translated_corpus_computes_the_same_bits_as_rust() {
    let t = translation();
    let probes = probes();
    let (input, expected) = cases(&probes, CASES, 0x5eed_1234_abcd_0001);
    let mut c = String::from(PRELUDE_C);
    c.push_str(&t.source);
    c.push_str(&probes::c_probes(&probes));
    c.push_str(common::MAIN_C);
    let Some(output) = compile_and_run(&c, "corpus", &input) else {
        return;
    };
    let (per_probe, bad) = compare(&probes, &output, &expected);
    for (p, probe) in probes.iter().enumerate() {
        println!("{:>24}: {CASES} cases, {} differ", probe.name, per_probe[p]);
    }
    assert!(bad.is_empty(), "results differ:\n{}", bad.join("\n"));
}

/// The translation is OpenCL C: clang's OpenCL front end takes it (with
/// the prelude's definitions), warnings as errors.
#[test]
fn translated_corpus_is_opencl_c() {
    let t = translation();
    let mut cl = String::from(opencl::PRELUDE_CL);
    cl.push_str(&t.source);
    opencl::syntax_check(&cl, "corpus");
}

/// On an OpenCL device (PoCL's CPU device where installed), the
/// translation computes what the Rust computes, bit for bit, but where
/// the math library is involved (OpenCL has its own `sin`, `pow`, ...).
#[test]
fn translated_corpus_on_an_opencl_device_computes_the_same_bits() {
    let t = translation();
    let probes: Vec<_> = probes()
        .into_iter()
        .filter(|p| device_skip(p.name).is_none())
        .collect();
    let (input, expected) = cases(&probes, CASES, 0x5eed_1234_abcd_0002);
    let mut cl = String::from(opencl::PRELUDE_CL);
    cl.push_str(&t.source);
    cl.push_str(&probes::c_probes(&probes));
    cl.push_str(opencl::KERNEL_CL);
    let Some(output) = opencl::run(&cl, "corpus", &input) else {
        return;
    };
    let (per_probe, bad) = compare(&probes, &output, &expected);
    for (p, probe) in probes.iter().enumerate() {
        println!(
            "{:>24}: {CASES} cases on the device, {} differ",
            probe.name, per_probe[p]
        );
    }
    for p in self::probes::probes() {
        if let Some(why) = device_skip(p.name) {
            println!("{:>24}: not compared on the device: {why}", p.name);
        }
    }
    assert!(bad.is_empty(), "results differ:\n{}", bad.join("\n"));
}
