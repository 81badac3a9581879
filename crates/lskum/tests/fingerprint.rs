//! Scratch check: the layer-based q-LSKUM against the stored fingerprints of
//! the code before the execution layer.
use std::path::PathBuf;
use std::sync::Arc;

use qflow_lskum::settings::{ForceNormals, Limiter, Scheme};
use qflow_lskum::{decl, problem, Lskum, Settings};
use qflow_par::backend::cpu::{CpuBackend, Par};
use qflow_par::comm::{ExchangeMode, SelfComm};
use qflow_par::driver::Method;
use qflow_par::part::Part;
use qflow_par::{Exec, Values};

fn fnv(h: &mut u64, v: u64) {
    for b in v.to_le_bytes() {
        *h ^= b as u64;
        *h = h.wrapping_mul(0x100000001b3);
    }
}

#[test]
fn print_fingerprints() {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    let cloud = qflow_mesh::legacy::read(&data.join("naca0012-9600.partgrid")).unwrap();
    let configs = [
        ("default", Settings::default(), 100u64),
        ("euler", Settings { scheme: Scheme::Euler, inner_iterations: 0, cfl: 0.5, force_normals: ForceNormals::Solver, ..Settings::default() }, 100),
        ("power2-nolimiter", Settings { power: 2.0, limiter: Limiter::None, cfl: 0.3, ..Settings::default() }, 60),
        ("supersonic", Settings { mach: 1.2, aoa: 0.0, vl_const: 20.0, ..Settings::default() }, 60),
    ];
    for threads in [0usize, 2] {
    for (name, s, iters) in configs.clone() {
        let p = problem::build(&cloud, &s);
        let part = Arc::new(Part::whole(&p, &decl::LOOPS));
        let par = if threads == 0 { Par::Seq } else { Par::rayon(threads).unwrap() };
        let backend = CpuBackend::new(part.clone(), &decl::GLOBALS, par);
        let mut ex = Exec::new(part, Box::new(backend), Box::new(SelfComm), ExchangeMode::Nonblocking);
        let mut m = Lskum::new(s.clone(), cloud.len());
        m.start(&mut ex).unwrap();
        let mut h = 0xcbf29ce484222325u64;
        let mut row = [0.0; 5];
        let t = std::time::Instant::now();
        for it in 1..=iters {
            match ex.pool() { Some(pool) => pool.install(|| m.step(&mut ex, it, &mut row)), None => m.step(&mut ex, it, &mut row) }.unwrap();
            fnv(&mut h, row[1].to_bits());
            fnv(&mut h, row[0].to_bits());
            fnv(&mut h, row[2].to_bits());
            fnv(&mut h, row[3].to_bits());
            fnv(&mut h, row[4].to_bits());
        }
        let secs = t.elapsed().as_secs_f64();
        let Some(Values::F64(prim)) = ex.gather(&decl::PRIM) else { panic!() };
        let mut hf = 0xcbf29ce484222325u64;
        for v in prim { fnv(&mut hf, v.to_bits()); }
        eprintln!("FP {name} iters {iters} history {h:#018x} fields {hf:#018x}  (threads {threads}, {:.3e} s/it/pt)", secs / iters as f64 / cloud.len() as f64);
    }
    }
}
