//! The functions of the corpus as the C code and the Rust call them, and
//! the inputs they are tried on.

use crate::accessors::{Offsets, Star};
use crate::common::Rng;
use crate::corpus::{access, batch, erf, gas, generic, lsq, math, misc};

/// How an argument is drawn.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Arg {
    /// Any double: edge cases and random bits.
    AnyF,
    /// A double in `[lo, hi]` (the bounds and 0 among them).
    F(f64, f64),
    /// An integer in `[lo, hi]` (as `i64` bits).
    I(i64, i64),
    /// Random 64 bits.
    Bits,
}

/// A function of the corpus called from C and from Rust on the same
/// inputs (`u64`: double bits, or integers).
pub(crate) struct Probe {
    pub name: &'static str,
    pub args: Vec<Arg>,
    /// The body of `static int probe(const ulong* in, ulong* out)`.
    pub c: &'static str,
    pub rust: fn(&[u64]) -> Vec<u64>,
}

pub(crate) fn d(u: u64) -> f64 {
    f64::from_bits(u)
}

pub(crate) fn b(x: f64) -> u64 {
    x.to_bits()
}

fn arr<const N: usize>(i: &[u64]) -> [f64; N] {
    std::array::from_fn(|k| d(i[k]))
}

pub(crate) const EDGES: &[f64] = &[
    0.0,
    -0.0,
    5e-324,
    -5e-324,
    1e-310,
    2.2250738585072014e-308,
    1e-300,
    3.7252902984e-09,
    0.5,
    0.84375,
    1.0,
    -1.0,
    1.25,
    2.0,
    2.857142857142857,
    6.0,
    -6.5,
    709.78,
    -745.13,
    800.0,
    1e300,
    f64::MAX,
    f64::MIN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

pub(crate) fn draw(a: Arg, rng: &mut Rng) -> u64 {
    match a {
        Arg::AnyF => match rng.below(4) {
            0 => b(EDGES[rng.below(EDGES.len() as u64) as usize]),
            1 => rng.next(),
            2 => b((rng.unit() - 0.5) * 20.0),
            _ => b((rng.unit() - 0.5) * 10f64.powi(rng.below(40) as i32 - 20)),
        },
        Arg::F(lo, hi) => match rng.below(16) {
            0 => b(lo),
            1 => b(hi),
            2 if lo <= 0.0 && hi >= 0.0 => b(0.0),
            _ => b(lo + (hi - lo) * rng.unit()),
        },
        Arg::I(lo, hi) => (lo + rng.below((hi - lo + 1) as u64) as i64) as u64,
        Arg::Bits => rng.next(),
    }
}

pub(crate) fn probes() -> Vec<Probe> {
    use Arg::*;
    let v4 = |lo, hi| vec![F(lo, hi); 4];
    vec![
        Probe {
            name: "rusanov_advection",
            args: vec![AnyF, AnyF, F(-3.0, 3.0)],
            c: "out[0] = B(rusanov_advection(D(0), D(1), D(2))); return 1;",
            rust: |i| vec![b(generic::rusanov_advection(d(i[0]), d(i[1]), d(i[2])))],
        },
        Probe {
            name: "rusanov_isothermal",
            args: vec![F(0.1, 4.0), F(-3.0, 3.0), F(0.1, 4.0), F(-3.0, 3.0), F(0.0, 2.0)],
            c: "qf_tup_f64_f64 r = rusanov_isothermal(D(0), D(1), D(2), D(3), D(4));\n\
                out[0] = B(r.f0); out[1] = B(r.f1); return 2;",
            rust: |i| {
                let r = generic::rusanov_isothermal(d(i[0]), d(i[1]), d(i[2]), d(i[3]), d(i[4]));
                vec![b(r.0), b(r.1)]
            },
        },
        Probe {
            name: "flux_weights",
            args: vec![AnyF, AnyF, AnyF, AnyF, F(0.0, 2.0)],
            c: "qf_tup_f64_f64 r = flux_weights(D(0), D(1), D(2), D(3), D(4));\n\
                out[0] = B(r.f0); out[1] = B(r.f1); return 2;",
            rust: |i| {
                let r = generic::flux_weights(d(i[0]), d(i[1]), d(i[2]), d(i[3]), d(i[4]));
                vec![b(r.0), b(r.1)]
            },
        },
        Probe {
            name: "weighted_3_5",
            args: vec![AnyF, AnyF, AnyF, F(-2.0, 2.0)],
            c: "out[0] = B(weighted_3_5(D(0), D(1), D(2), D(3))); return 1;",
            rust: |i| vec![b(generic::weighted_3_5(d(i[0]), d(i[1]), d(i[2]), d(i[3])))],
        },
        Probe {
            name: "exp",
            args: vec![AnyF],
            c: "out[0] = B(exp_(D(0))); return 1;",
            rust: |i| vec![b(math::exp(d(i[0])))],
        },
        Probe {
            name: "exp_range",
            args: vec![F(-760.0, 720.0)],
            c: "out[0] = B(exp_(D(0))); return 1;",
            rust: |i| vec![b(math::exp(d(i[0])))],
        },
        Probe {
            name: "ln",
            args: vec![AnyF],
            c: "out[0] = B(ln(D(0))); return 1;",
            rust: |i| vec![b(math::ln(d(i[0])))],
        },
        Probe {
            name: "powers",
            args: vec![F(-10.0, 10.0), I(-40, 40), F(-5.0, 5.0)],
            c: "qf_tup_f64_f64_f64 r = powers(D(0), (int)(long)in[1], D(2));\n\
                out[0] = B(r.f0); out[1] = B(r.f1); out[2] = B(r.f2); return 3;",
            rust: |i| {
                let r = math::powers(d(i[0]), i[1] as i64 as i32, d(i[2]));
                vec![b(r.0), b(r.1), b(r.2)]
            },
        },
        Probe {
            name: "erf",
            args: vec![AnyF],
            c: "out[0] = B(erf_(D(0))); return 1;",
            rust: |i| vec![b(erf::erf(d(i[0])))],
        },
        Probe {
            name: "erf_range",
            args: vec![F(-7.0, 7.0)],
            c: "out[0] = B(erf_(D(0))); return 1;",
            rust: |i| vec![b(erf::erf(d(i[0])))],
        },
        Probe {
            name: "q_of_primitive",
            args: vec![F(0.1, 10.0), F(-3.0, 3.0), F(-3.0, 3.0), F(0.1, 10.0)],
            c: "qf_arr_f64_4 w; for (int k = 0; k < 4; k++) w.v[k] = D(k);\n\
                qf_arr_f64_4 q = q_of_primitive(&w);\n\
                for (int k = 0; k < 4; k++) out[k] = B(q.v[k]); return 4;",
            rust: |i| gas::q_of_primitive(&arr::<4>(i)).map(b).to_vec(),
        },
        Probe {
            name: "primitive_of_q",
            args: vec![F(-5.0, 5.0), F(-5.0, 5.0), F(-5.0, 5.0), F(-10.0, -0.1)],
            c: "qf_arr_f64_4 q; for (int k = 0; k < 4; k++) q.v[k] = D(k);\n\
                qf_arr_f64_4 w = primitive_of_q(&q);\n\
                for (int k = 0; k < 4; k++) out[k] = B(w.v[k]); return 4;",
            rust: |i| gas::primitive_of_q(&arr::<4>(i)).map(b).to_vec(),
        },
        Probe {
            name: "conserved_in_frame",
            args: vec![F(0.1, 10.0), F(-3.0, 3.0), F(-3.0, 3.0), F(0.1, 10.0), F(-1.0, 1.0), F(-1.0, 1.0)],
            c: "qf_arr_f64_4 w; for (int k = 0; k < 4; k++) w.v[k] = D(k);\n\
                qf_tup_arr_f64_4_f64_f64 r = conserved_in_frame(&w, D(4), D(5));\n\
                for (int k = 0; k < 4; k++) out[k] = B(r.f0.v[k]);\n\
                out[4] = B(r.f1); out[5] = B(r.f2); return 6;",
            rust: |i| {
                let (u, p, c) = gas::conserved_in_frame(&arr::<4>(i), d(i[4]), d(i[5]));
                let mut v = u.map(b).to_vec();
                v.extend([b(p), b(c)]);
                v
            },
        },
        Probe {
            name: "primitive_of_conserved",
            args: v4(-4.0, 4.0),
            c: "qf_arr_f64_4 u; for (int k = 0; k < 4; k++) u.v[k] = D(k);\n\
                qf_arr_f64_4 w; primitive_of_conserved(&u, &w);\n\
                for (int k = 0; k < 4; k++) out[k] = B(w.v[k]); return 4;",
            rust: |i| {
                let mut w = [0.0; 4];
                gas::primitive_of_conserved(&arr::<4>(i), &mut w);
                w.map(b).to_vec()
            },
        },
        Probe {
            name: "free_stream",
            args: vec![F(0.0, 3.0), F(-10.0, 10.0)],
            c: "FreeStream st = FreeStream_new(D(0), D(1));\n\
                qf_arr_f64_4 p = FreeStream_primitive(&st);\n\
                for (int k = 0; k < 4; k++) out[k] = B(p.v[k]);\n\
                out[4] = B(FreeStream_dynamic_pressure(st)); return 5;",
            rust: |i| {
                let fs = gas::FreeStream::new(d(i[0]), d(i[1]));
                let mut v = fs.primitive().map(b).to_vec();
                v.push(b(fs.dynamic_pressure()));
                v
            },
        },
        Probe {
            name: "split_flux",
            args: vec![F(0.1, 10.0), F(-3.0, 3.0), F(-3.0, 3.0), F(0.1, 10.0), F(-1.0, 1.0), F(-1.0, 1.0)],
            c: "qf_arr_f64_4 w; for (int k = 0; k < 4; k++) w.v[k] = D(k);\n\
                qf_tup_arr_f64_4_arr_f64_4 r = split_flux(&w, D(4), D(5));\n\
                for (int k = 0; k < 4; k++) { out[k] = B(r.f0.v[k]); out[4 + k] = B(r.f1.v[k]); }\n\
                return 8;",
            rust: |i| {
                let (p, m) = gas::split_flux(&arr::<4>(i), d(i[4]), d(i[5]));
                let mut v = p.map(b).to_vec();
                v.extend(m.map(b));
                v
            },
        },
        Probe {
            name: "gradients",
            args: {
                let mut a = vec![I(0, 8), F(0.0, 3.0)];
                a.extend(vec![F(-1.0, 1.0); 16]);
                a.extend(vec![F(-2.0, 2.0); 32]);
                a
            },
            c: "qf_arr_f64_8 dx, dy; qf_arr_arr_f64_4_8 dq;\n\
                for (int k = 0; k < 8; k++) { dx.v[k] = D(2 + k); dy.v[k] = D(10 + k);\n\
                    for (int c = 0; c < 4; c++) dq.v[k].v[c] = D(18 + 4 * k + c); }\n\
                qf_tup_arr_f64_4_arr_f64_4_f64 r = gradients(&dx, &dy, &dq, (ulong)in[0], D(1));\n\
                for (int c = 0; c < 4; c++) { out[c] = B(r.f0.v[c]); out[4 + c] = B(r.f1.v[c]); }\n\
                out[8] = B(r.f2); return 9;",
            rust: |i| {
                let dx: [f64; 8] = std::array::from_fn(|k| d(i[2 + k]));
                let dy: [f64; 8] = std::array::from_fn(|k| d(i[10 + k]));
                let dq: [[f64; 4]; 8] = std::array::from_fn(|k| std::array::from_fn(|c| d(i[18 + 4 * k + c])));
                let (gx, gy, det) = lsq::gradients(&dx, &dy, &dq, i[0] as usize, d(i[1]));
                let mut v = gx.map(b).to_vec();
                v.extend(gy.map(b));
                v.push(b(det));
                v
            },
        },
        Probe {
            name: "gradients_unweighted",
            args: {
                let mut a = vec![I(0, 8), F(0.0, 0.0)];
                a.extend(vec![F(-1.0, 1.0); 16]);
                a.extend(vec![F(-2.0, 2.0); 32]);
                a
            },
            c: "qf_arr_f64_8 dx, dy; qf_arr_arr_f64_4_8 dq;\n\
                for (int k = 0; k < 8; k++) { dx.v[k] = D(2 + k); dy.v[k] = D(10 + k);\n\
                    for (int c = 0; c < 4; c++) dq.v[k].v[c] = D(18 + 4 * k + c); }\n\
                qf_tup_arr_f64_4_arr_f64_4_f64 r = gradients(&dx, &dy, &dq, (ulong)in[0], D(1));\n\
                for (int c = 0; c < 4; c++) { out[c] = B(r.f0.v[c]); out[4 + c] = B(r.f1.v[c]); }\n\
                out[8] = B(r.f2); return 9;",
            rust: |i| {
                let dx: [f64; 8] = std::array::from_fn(|k| d(i[2 + k]));
                let dy: [f64; 8] = std::array::from_fn(|k| d(i[10 + k]));
                let dq: [[f64; 4]; 8] = std::array::from_fn(|k| std::array::from_fn(|c| d(i[18 + 4 * k + c])));
                let (gx, gy, det) = lsq::gradients(&dx, &dy, &dq, i[0] as usize, d(i[1]));
                let mut v = gx.map(b).to_vec();
                v.extend(gy.map(b));
                v.push(b(det));
                v
            },
        },
        Probe {
            name: "batch_run",
            args: {
                let mut a = vec![F(-2.0, 2.0); 16];
                a.extend([I(0, 20), F(-1.0, 1.0), F(-1.0, 1.0)]);
                a
            },
            c: "qf_arr_f64_16 x; for (int k = 0; k < 16; k++) x.v[k] = D(k);\n\
                out[0] = B(batch_run(&x, (uint)in[16], D(17), D(18))); return 1;",
            rust: |i| vec![b(batch::batch_run(&arr::<16>(i), i[16] as u32, d(i[17]), d(i[18])))],
        },
        Probe {
            name: "star_bounds",
            args: {
                let mut a = vec![F(-5.0, 5.0); 28];
                a.extend([I(0, 6), I(0, 7)]);
                a
            },
            c: "GLOBAL qf_arr_f64_4* base = (GLOBAL qf_arr_f64_4*)fs; GLOBAL uint* idx = us;\n\
                const uint perm[7] = {3, 6, 1, 4, 0, 5, 2};\n\
                for (int r = 0; r < 7; r++) { idx[r] = perm[r]; for (int c = 0; c < 4; c++) base[r].v[c] = D(4 * r + c); }\n\
                qf_star_arr_f64_4 s; s.base = base; s.idx = idx; s.n = (uint)in[29]; s.own = (uint)in[28];\n\
                qf_arr_f64_4 hi, lo; ulong n = star_bounds(s, &hi, &lo);\n\
                for (int c = 0; c < 4; c++) { out[c] = B(hi.v[c]); out[4 + c] = B(lo.v[c]); }\n\
                out[8] = n; return 9;",
            rust: |i| {
                let base: Vec<[f64; 4]> = (0..7).map(|r| std::array::from_fn(|c| d(i[4 * r + c]))).collect();
                let idx = [3u32, 6, 1, 4, 0, 5, 2];
                let s = Star { base: &base, idx: &idx[..i[29] as usize], own: i[28] as usize };
                let (mut hi, mut lo) = ([0.0; 4], [0.0; 4]);
                let n = access::star_bounds(s, &mut hi, &mut lo);
                let mut v = hi.map(b).to_vec();
                v.extend(lo.map(b));
                v.push(n as u64);
                v
            },
        },
        Probe {
            name: "laplace",
            args: {
                let mut a = vec![F(-3.0, 3.0); 25];
                a.push(F(0.01, 2.0));
                a
            },
            c: "GLOBAL double* base = fs; for (int k = 0; k < 25; k++) base[k] = D(k);\n\
                qf_offsets_f64 o; o.base = base; o.at = 12; o.sy = 5; o.sz = 25;\n\
                qf_tup_f64_f64 r = laplace(o, D(25)); out[0] = B(r.f0); out[1] = B(r.f1); return 2;",
            rust: |i| {
                let base: Vec<f64> = (0..25).map(|k| d(i[k])).collect();
                let o = Offsets { base: &base, at: 12, sy: 5, sz: 25 };
                let (l, m) = access::laplace(o, d(i[25]));
                vec![b(l), b(m)]
            },
        },
        Probe {
            name: "shadowing",
            args: vec![AnyF],
            c: "out[0] = B(shadowing(D(0))); return 1;",
            rust: |i| vec![b(misc::shadowing(d(i[0])))],
        },
        Probe {
            name: "branches",
            args: vec![AnyF, AnyF],
            c: "out[0] = B(branches(D(0), D(1))); return 1;",
            rust: |i| vec![b(misc::branches(d(i[0]), d(i[1])))],
        },
        Probe {
            name: "branches_range",
            args: vec![F(-200.0, 200.0), F(-5.0, 5.0)],
            c: "out[0] = B(branches(D(0), D(1))); return 1;",
            rust: |i| vec![b(misc::branches(d(i[0]), d(i[1])))],
        },
        Probe {
            name: "loops",
            args: vec![I(0, 40), F(-10.0, 10.0)],
            c: "out[0] = B(loops((uint)in[0], D(1))); return 1;",
            rust: |i| vec![b(misc::loops(i[0] as u32, d(i[1])))],
        },
        Probe {
            name: "integers",
            args: vec![I(i32::MIN as i64, i32::MAX as i64), Bits, I(-(1 << 32), 1 << 32), Bits],
            c: "qf_tup_i32_u32_i64_u64_f64 r = integers((int)(long)in[0], (uint)in[1], (long)in[2], in[3]);\n\
                out[0] = (ulong)(long)r.f0; out[1] = r.f1; out[2] = (ulong)r.f2; out[3] = r.f3;\n\
                out[4] = B(r.f4); return 5;",
            rust: |i| {
                let r = misc::integers(i[0] as i64 as i32, i[1] as u32, i[2] as i64, i[3]);
                vec![r.0 as i64 as u64, r.1 as u64, r.2 as u64, r.3, b(r.4)]
            },
        },
        Probe {
            name: "floats",
            args: vec![F(-1e3, 1e3), F(-1e3, 1e3), I(-100, 100)],
            c: "qf_tup_f64_f64_f64_u64 r = floats(D(0), D(1), (int)(long)in[2]);\n\
                out[0] = B(r.f0); out[1] = B(r.f1); out[2] = B(r.f2); out[3] = r.f3; return 4;",
            rust: |i| {
                let r = misc::floats(d(i[0]), d(i[1]), i[2] as i64 as i32);
                vec![b(r.0), b(r.1), b(r.2), r.3]
            },
        },
        Probe {
            name: "floats_edges",
            args: vec![AnyF, AnyF, I(-100, 100)],
            c: "qf_tup_f64_f64_f64_u64 r = floats(D(0), D(1), (int)(long)in[2]);\n\
                out[0] = B(r.f0); out[1] = B(r.f1); out[2] = B(r.f2); out[3] = r.f3; return 4;",
            rust: |i| {
                let r = misc::floats(d(i[0]), d(i[1]), i[2] as i64 as i32);
                vec![b(r.0), b(r.1), b(r.2), r.3]
            },
        },
        Probe {
            name: "order",
            args: vec![AnyF],
            c: "out[0] = B(order(D(0))); return 1;",
            rust: |i| vec![b(misc::order(d(i[0])))],
        },
        Probe {
            name: "classify",
            args: vec![I(-5, 9), F(-3.0, 3.0)],
            c: "out[0] = B(classify((int)(long)in[0], D(1))); return 1;",
            rust: |i| vec![b(misc::classify(i[0] as i64 as i32, d(i[1])))],
        },
        Probe {
            name: "sort4",
            args: v4(-3.0, 3.0),
            c: "qf_arr_f64_4 v; for (int k = 0; k < 4; k++) v.v[k] = D(k);\n\
                double g = sort4(&v); for (int k = 0; k < 4; k++) out[k] = B(v.v[k]);\n\
                out[4] = B(g); return 5;",
            rust: |i| {
                let mut v = arr::<4>(i);
                let g = misc::sort4(&mut v);
                let mut o = v.map(b).to_vec();
                o.push(b(g));
                o
            },
        },
    ]
}

/// Why a probe is not compared on an OpenCL device (`None`: it is).
pub(crate) fn device_skip(name: &str) -> Option<&'static str> {
    match name {
        "powers" | "free_stream" | "branches" | "branches_range" | "floats" | "floats_edges"
        | "gradients" => {
            Some("calls the math library (powf, sin, cos, log1p, hypot, atan2): OpenCL has its own")
        }
        _ => None,
    }
}

/// Whether two results agree: the same bits, or both NaN.
pub(crate) fn agree(a: u64, b: u64) -> bool {
    a == b || (d(a).is_nan() && d(b).is_nan())
}

/// One case: the probe, its inputs, Rust's results.
pub(crate) type Case = (usize, Vec<u64>, Vec<u64>);

/// `per` cases of each probe (edge cases first for a first argument
/// that takes any double), as input lines `probe n x0 x1 ...` and with
/// Rust's results.
pub(crate) fn cases(probes: &[Probe], per: usize, seed: u64) -> (String, Vec<Case>) {
    let mut rng = Rng::new(seed);
    let mut input = String::new();
    let mut expected = Vec::new();
    for (p, probe) in probes.iter().enumerate() {
        for case in 0..per {
            let mut args: Vec<u64> = probe.args.iter().map(|a| draw(*a, &mut rng)).collect();
            if let (Some(e), Arg::AnyF) = (EDGES.get(case), probe.args[0]) {
                args[0] = b(*e);
            }
            input.push_str(&format!("{p} {}", args.len()));
            for a in &args {
                input.push_str(&format!(" {a:x}"));
            }
            input.push('\n');
            let out = (probe.rust)(&args);
            expected.push((p, args, out));
        }
    }
    (input, expected)
}

/// The probes as C functions `probe_<k>` and `run(id, in, out)`.
pub(crate) fn c_probes(probes: &[Probe]) -> String {
    let mut c = String::from("\n#define D(k) QF_AS_DOUBLE(in[k])\n#define B(x) QF_AS_ULONG(x)\n");
    for (p, probe) in probes.iter().enumerate() {
        c.push_str(&format!(
            "FUNC int probe_{p}(const ulong* in, ulong* out, GLOBAL double* fs, GLOBAL uint* us) \
             /* {} */\n{{\n(void)fs;\n(void)us;\n{}\n}}\n",
            probe.name,
            probe.c.replace("; return ", ";\nreturn ")
        ));
    }
    c.push_str(
        "FUNC int run(int id, const ulong* in, ulong* out, GLOBAL double* fs, GLOBAL uint* us)\n\
         {\n    switch (id) {\n",
    );
    for p in 0..probes.len() {
        c.push_str(&format!(
            "    case {p}: return probe_{p}(in, out, fs, us);\n"
        ));
    }
    c.push_str("    default: return -1;\n    }\n}\n");
    c
}

/// Compares a program's output lines with Rust's results: the number of
/// differing cases per probe, and a description of the first few.
pub(crate) fn compare(
    probes: &[Probe],
    output: &str,
    expected: &[Case],
) -> (Vec<usize>, Vec<String>) {
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines.len(), expected.len(), "one result line per case");
    let mut bad = Vec::new();
    let mut per_probe = vec![0usize; probes.len()];
    for (line, (p, args, want)) in lines.iter().zip(expected) {
        let got: Vec<u64> = line
            .split_whitespace()
            .skip(1)
            .map(|x| u64::from_str_radix(x, 16).unwrap())
            .collect();
        if got.len() != want.len() || got.iter().zip(want).any(|(g, w)| !agree(*g, *w)) {
            per_probe[*p] += 1;
            if bad.len() < 12 {
                let show = |v: &[u64]| {
                    v.iter()
                        .map(|x| format!("{:e}", d(*x)))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                bad.push(format!(
                    "{}({}): C [{}] Rust [{}]\n    C bits {:x?}\n    Rust bits {:x?}",
                    probes[*p].name,
                    show(args),
                    show(&got),
                    show(want),
                    got,
                    want
                ));
            }
        }
    }
    (per_probe, bad)
}
