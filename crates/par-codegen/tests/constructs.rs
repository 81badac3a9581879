//! One construct at a time: a snippet of device Rust in, the C it must
//! give out.

#![cfg(feature = "translate")]

use qflow_par_codegen::{translate, DeviceType, SourceFile, Translation};

fn file(module: &str, text: &str) -> SourceFile {
    SourceFile {
        path: format!("{module}.rs").into(),
        module: module.into(),
        text: text.into(),
    }
}

fn tr_files(files: &[SourceFile]) -> Translation {
    translate(files).unwrap_or_else(|d| {
        let d: Vec<String> = d.iter().map(|x| x.to_string()).collect();
        panic!("translation failed:\n{}", d.join("\n"))
    })
}

/// The C of one file (module `m`).
fn c_of(src: &str) -> String {
    tr_files(&[file("m", src)]).source
}

/// The definition of C function `name` in `c`.
fn def<'a>(c: &'a str, name: &str) -> &'a str {
    let start = c
        .find(&format!(" {name}("))
        .and_then(|_| {
            c.match_indices(&format!(" {name}("))
                .map(|(k, _)| k)
                .find(|&k| !c[k..].split('\n').next().unwrap().ends_with(';'))
        })
        .unwrap_or_else(|| panic!("no definition of {name} in:\n{c}"));
    let end = c[start..].find("\n}\n").map(|e| start + e + 3).unwrap();
    &c[start..end]
}

/// Asserts that `c` contains each fragment.
#[track_caller]
fn has(c: &str, fragments: &[&str]) {
    for f in fragments {
        assert!(c.contains(f), "missing `{f}` in:\n{c}");
    }
}

#[test]
fn float_literals_round_trip() {
    let c = c_of(
        "#[device] fn f() -> f64 { 0.1 + 1e-7 + 1. + 6_755_399_441_055_744.0 + 2.5e300 + 1.0 / 3.0 }",
    );
    has(
        &c,
        &["((((0.1 + 1e-7) + 1.0) + 6755399441055744.0) + 2.5e300) + (1.0 / 3.0)"],
    );
}

#[test]
fn integer_literals_take_their_type_from_suffix_or_context() {
    let c = c_of(
        "#[device] fn f(a: u64, n: usize) -> u64 {
            let x: u64 = 3;
            let y = 5u32;
            let z = 7i64;
            let h = 0xffu64;
            let mut k = 0;
            let arr = [1.0; 4];
            let mut s = 0.0;
            while k < n { s += arr[k]; k += 1; }
            let neg = -2147483648i32;
            a + x + (y as u64) + (z as u64) + h + (s as u64) + (neg as u64)
        }",
    );
    has(
        &c,
        &[
            "ulong x = 3UL;",
            "uint y = 5U;",
            "long z = 7L;",
            "ulong h = 0xffUL;",
            "ulong k = 0UL;",
            "k += 1UL;",
            "int neg = -2147483647 - 1;",
        ],
    );
}

#[test]
fn unsuffixed_integers_default_to_i32() {
    let c = c_of("#[device] fn f() -> f64 { let k = 3; let j = k * 2; j as f64 }");
    has(&c, &["int k = 3;", "int j = k * 2;", "return (double)j;"]);
}

#[test]
fn operators_keep_rust_precedence_and_order() {
    let c = c_of(
        "#[device] fn f(a: f64, b: f64, c: f64, i: u32, t: bool) -> f64 {
            let x = a + b * c - a / b - c;
            let y = (a + b) * c;
            let m = !i ^ i << 2 >> 1 & 7;
            let u = !t || a < b && b <= c;
            let r = a % b;
            if u { x + y + r + m as f64 } else { 0.0 }
        }",
    );
    has(
        &c,
        &[
            "double x = ((a + (b * c)) - (a / b)) - c;",
            "double y = (a + b) * c;",
            "uint m = (~i) ^ (((i << 2) >> 1) & 7U);",
            "bool u = (!t) || ((a < b) && (b <= c));",
            "double r = fmod(a, b);",
        ],
    );
}

#[test]
fn casts() {
    let c = c_of("#[device] fn f(x: f64, n: i32, b: bool) -> u64 { (x as i64 + n as i64 + b as i64) as u64 }");
    has(
        &c,
        &["return (ulong)((((long)x) + ((long)n)) + ((long)b));"],
    );
}

#[test]
fn indexing_values_references_nested_and_constants() {
    let c = c_of(
        "const T: [[f64; 2]; 2] = [[1.0, 2.0], [3.0, 4.0]];
        #[device] pub struct B { pub qt: [[f64; 16]; 4] }
        #[device] fn f(w: &[f64; 4], o: &mut [f64; 4], bt: &B, i: usize) -> f64 {
            let a = *w;
            o[i] = a[i] + w[i];
            let mut l = B { qt: bt.qt };
            l.qt[1][i] = 2.0;
            l.qt[1][i] + bt.qt[3][i] + T[i][1]
        }",
    );
    has(
        &c,
        &[
            "qf_arr_f64_4 a = *w;",
            "o->v[i] = a.v[i] + w->v[i];",
            "l.qt.v[1UL].v[i] = 2.0;",
            "return (l.qt.v[1UL].v[i] + bt->qt.v[3UL].v[i]) + T[i][1UL];",
            "CONSTANT double T[2][2] = {{1.0, 2.0}, {3.0, 4.0}};",
            "typedef struct { double v[16]; } qf_arr_f64_16;\ntypedef struct { qf_arr_f64_16 v[4]; } qf_arr_arr_f64_16_4;",
        ],
    );
}

#[test]
fn shadowing_gives_distinct_variables() {
    let c = c_of(
        "#[device] fn f(x: f64) -> f64 {
            let x = x + 1.0;
            let x = x * 2.0;
            let y = { let x = x - 1.0; x * x };
            for x in 0..2 { let _ = x; }
            x + y
        }",
    );
    let d = def(&c, "f");
    has(
        d,
        &[
            "double x_1 = x + 1.0;",
            "double x_2 = x_1 * 2.0;",
            "double x_3 = x_2 - 1.0;",
            "double y = x_3 * x_3;",
            "for (int x_4 = 0; x_4 < 2; x_4++)",
            "return x_2 + y;",
        ],
    );
}

#[test]
fn if_values_become_conditionals_or_temporaries() {
    let c = c_of(
        "#[device] fn f(a: f64, b: f64) -> f64 {
            let m = if a < b { a } else { b };
            let n = if if a < b { b > 0.0 } else { a > 0.0 } { 1.0 } else { 2.0 };
            let s = if a > 0.0 { let t = a.sqrt(); t + m } else if a > -1.0 { m } else { 0.0 };
            m + s + n
        }",
    );
    has(
        &c,
        &[
            "double m = a < b ? a : b;",
            "double n = (a < b ? (b > 0.0) : (a > 0.0)) ? 1.0 : 2.0;",
            "double s;\n    if (a > 0.0) {\n        double t = sqrt(a);\n        s = t + m;\n    } else {\n        s = a > (-1.0) ? m : 0.0;\n    }",
        ],
    );
}

#[test]
fn tuples_destructure_and_assign() {
    let c = c_of(
        "#[device] fn pair(x: f64) -> (f64, f64) { (x, -x) }
        #[device] fn f(x: f64, y: f64, j: usize) -> f64 {
            let (a, b) = (y, x);
            let (p, q) = pair(a);
            let mut u = [0.0; 2];
            let mut v = [0.0; 2];
            (u[j], v[j]) = pair(b);
            let (mut lo, mut hi) = (a, b);
            (lo, hi) = (hi, lo);
            p + q + u[0] + v[1] + lo + hi
        }",
    );
    let d = def(&c, "f");
    has(
        d,
        &[
            "double a = y;\n    double b = x;",
            "qf_tup_f64_f64 qf_t0 = pair(a);\n    double p = qf_t0.f0;\n    double q = qf_t0.f1;",
            "qf_tup_f64_f64 qf_t3 = pair(b);\n    u.v[j] = qf_t3.f0;\n    v.v[j] = qf_t3.f1;",
            "qf_tup_f64_f64 qf_t4;\n    qf_t4.f0 = hi;\n    qf_t4.f1 = lo;\n    lo = qf_t4.f0;\n    hi = qf_t4.f1;",
        ],
    );
    has(
        &c,
        &["typedef struct { double f0; double f1; } qf_tup_f64_f64;"],
    );
}

#[test]
fn structs_literals_update_syntax_and_default() {
    let c = c_of(
        "#[device] #[derive(Clone, Copy, Default)] pub struct F { pub nx: f64, pub w: [f64; 2], pub k: u32 }
        #[device] fn f(x: f64) -> F {
            let a = F { nx: x, w: [x, 1.0], k: 2 };
            let b = F { nx: -x, ..a };
            let z = F::default();
            let d: F = Default::default();
            F { k: b.k + z.k + d.k, ..b }
        }",
    );
    let d = def(&c, "f");
    has(
        d,
        &[
            "F a;\n    a.nx = x;\n    a.w = qf_t0;\n    a.k = 2U;",
            "F b = a;\n    b.nx = -x;",
            "F z;\n    z.nx = 0.0;\n    for (ulong qf_t1 = 0; qf_t1 < 2UL; qf_t1++) {\n        z.w.v[qf_t1] = 0.0;\n    }\n    z.k = 0U;",
            "F d;\n    d.nx = 0.0;",
        ],
    );
    has(
        &c,
        &["typedef struct {\n    double nx;\n    qf_arr_f64_2 w;\n    uint k;\n} F;"],
    );
}

#[test]
fn methods_auto_reference_receivers() {
    let c = c_of(
        "#[device] #[derive(Clone, Copy, Default)] pub struct Fr { pub a: f64 }
        #[device] impl Fr {
            pub fn new(a: f64) -> Self { Self { a } }
            pub fn kin(&self, j: usize) -> f64 { self.a * j as f64 }
            pub fn add(&mut self, x: f64) { self.a += x; self.bump(); }
            fn bump(&mut self) { self.a += 1.0; }
            pub fn turned(self) -> Fr { Fr { a: -self.a } }
            pub fn both(&self) -> f64 { self.turned().kin(2) + Fr::kin(self, 1) }
        }
        #[device] fn f(x: f64, r: &Fr) -> f64 {
            let mut fr = Fr::new(x);
            fr.add(1.0);
            fr.kin(3) + r.kin(4) + Fr::new(2.0).kin(5) + r.turned().a
        }",
    );
    has(
        &c,
        &[
            "FUNC void Fr_add(Fr* self, double x)",
            "self->a += x;\n    Fr_bump(self);",
            "FUNC Fr Fr_turned(Fr self)",
            "return Fr_kin(&qf_t0, 2UL) + Fr_kin(self, 1UL);",
            "Fr qf_t0 = Fr_turned(*self);",
        ],
    );
    let d = def(&c, "f");
    has(
        d,
        &[
            "Fr fr = Fr_new(x);",
            "Fr_add(&fr, 1.0);",
            "Fr qf_t0 = Fr_new(2.0);",
            "return ((Fr_kin(&fr, 3UL) + Fr_kin(r, 4UL)) + Fr_kin(&qf_t0, 5UL)) + Fr_turned(*r).a;",
        ],
    );
}

#[test]
fn references_as_arguments_and_derefs() {
    let c = c_of(
        "#[device] fn g(a: &[f64; 2], o: &mut f64) { *o += a[0]; }
        #[device] fn h(a: &[f64; 2], o: &mut f64) { g(a, o); g(&*a, &mut *o); }
        #[device] fn f(x: f64) -> f64 {
            let a = [x, x];
            let mut o = 0.0;
            h(&a, &mut o);
            g(&[1.0, 2.0], &mut o);
            o
        }",
    );
    has(
        &c,
        &[
            "(*o) += a->v[0UL];",
            "g(a, o);\n    g(a, o);",
            "h(&a, &o);",
            "qf_arr_f64_2 qf_t0;\n    qf_t0.v[0] = 1.0;\n    qf_t0.v[1] = 2.0;\n    g(&qf_t0, &o);",
        ],
    );
}

#[test]
fn effects_keep_rust_evaluation_order() {
    let c = c_of(
        "#[device] fn bump(c: &mut f64) -> f64 { *c += 1.0; *c }
        #[device] fn f(x: f64) -> f64 { let mut c = x; let a = c + bump(&mut c); a }",
    );
    let d = def(&c, "f");
    has(d, &["double c = x;\n    double qf_t1 = c;\n    double qf_t0 = bump(&c);\n    double a = qf_t1 + qf_t0;"]);
}

#[test]
fn loops() {
    let c = c_of(
        "#[device] fn f(n: usize, m: i64) -> f64 {
            let mut s = 0.0;
            for i in 0..n { s += i as f64; }
            for j in (1..=m).step_by(2) { s -= j as f64; }
            for k in (0..n).rev() { if k == 3 { continue; } s *= 0.5; }
            let mut t = 0;
            while t < 10 && s > 1.0 { t += 1; s -= 1.0; }
            loop { s += 1.0; if s > 5.0 { break; } }
            s + t as f64
        }",
    );
    has(
        &c,
        &[
            "ulong qf_t0 = n;\n    for (ulong i = 0UL; i < qf_t0; i++) {",
            "long qf_t1 = m;\n    for (long j = 1L; j <= qf_t1; j += 2UL) {",
            "for (ulong qf_t3 = qf_t2; qf_t3 > 0UL; ) {\n        qf_t3--;\n        ulong k = qf_t3;\n        if (k == 3UL) {\n            continue;\n        }",
            "while ((t < 10) && (s > 1.0)) {",
            "for (;;) {\n        s += 1.0;\n        if (s > 5.0) {\n            break;\n        }\n    }",
        ],
    );
}

#[test]
fn constants_evaluated_and_named() {
    let a = file(
        "gas",
        "pub const GAMMA: f64 = 1.4;
        pub const GM1: f64 = GAMMA - 1.0;
        pub const BATCH: usize = 4;
        const SIDES: usize = 2 * BATCH;
        const BIG: u64 = !0 >> 4;
        mod erf_consts { pub const PP: [f64; 2] = [0.5, -0.25]; }
        #[device] pub struct S { pub v: [f64; SIDES] }
        #[device] impl S { const N: usize = SIDES + 1; pub fn n(&self) -> usize { Self::N + S::N } }
        #[device] pub fn f(x: f64) -> f64 {
            use erf_consts::*;
            const L1: f64 = 0.75;
            let s = S { v: [x; SIDES] };
            x * GM1 + PP[1] + erf_consts::PP[0] + L1 + s.n() as f64 + BIG as f64 + super::gas::GAMMA
        }",
    );
    let c = tr_files(&[a]).source;
    has(
        &c,
        &[
            "#define GAMMA (1.4)\n",
            "#define GM1 (0.3999999999999999) /* GAMMA - 1.0 */",
            "#define BIG (1152921504606846975UL) /* ! 0 >> 4 */",
            "CONSTANT double erf_consts_PP[2] = {0.5, (-0.25)};",
            "#define f_L1 (0.75)",
            "#define S_N (9UL) /* SIDES + 1 */",
            "typedef struct { double v[8]; } qf_arr_f64_8;",
            "return S_N + S_N;",
            "(((x * GM1) + erf_consts_PP[1UL]) + erf_consts_PP[0UL]) + f_L1)",
        ],
    );
    // Unused constants are left out.
    assert!(!c.contains("#define BATCH"), "{c}");
}

#[test]
fn builtins() {
    let c = c_of(
        "#[device] fn f(x: f64, y: f64, n: i32, u: u64, k: u32) -> f64 {
            let a = x.sqrt() + x.abs() + x.ln() + x.exp() + x.powi(n) + x.powf(y) + x.min(y) + f64::max(x, y);
            let b = f64::from_bits(x.to_bits() ^ u) + f64::INFINITY + f64::NEG_INFINITY + f64::NAN;
            let c = std::f64::consts::PI + f64::MAX + u32::MAX as f64 + f64::EPSILON;
            let d = u.wrapping_add(3).wrapping_mul(u) as f64 + k.pow(2) as f64 + x.signum();
            a + b + c + d + x.atan2(y) + x.to_radians()
        }",
    );
    has(
        &c,
        &[
            "sqrt(x) + fabs(x)) + log(x)) + exp(x)) + qf_powi_f64(x, n)) + pow(x, y)) + fmin(x, y)) + fmax(x, y)",
            "QF_AS_DOUBLE(QF_AS_ULONG(x) ^ u) + QF_INF) + (-QF_INF)) + QF_NAN",
            "3.141592653589793 + 1.7976931348623157e308) + ((double)4294967295U)) + 2.220446049250313e-16",
            "((double)((u + 3UL) * u)) + ((double)qf_pow_u32(k, 2U))",
            "(isnan(x) ? QF_NAN : copysign(1.0, x))",
            "atan2(x, y)",
            "(x * 0.017453292519943295)",
            "FUNC double qf_powi_f64(double a, int b)",
            "FUNC uint qf_pow_u32(uint b, uint e)",
        ],
    );
}

#[test]
fn imported_std_constants_and_sin_cos() {
    let c = c_of(
        "use std::f64::consts::PI;
        const HALF_TURN: f64 = PI;
        #[device] fn f(x: f64) -> f64 {
            use std::f64::consts::*;
            let (s, c) = (x * PI).sin_cos();
            s + c + HALF_TURN + SQRT_2
        }",
    );
    has(
        &c,
        &[
            "#define HALF_TURN (3.141592653589793) /* PI */",
            "double qf_t0 = x * 3.141592653589793;\n    qf_tup_f64_f64 qf_t1;\n    qf_t1.f0 = sin(qf_t0);\n    qf_t1.f1 = cos(qf_t0);",
            "double s = qf_t1.f0;",
            "return ((s + c) + HALF_TURN) + 1.4142135623730951;",
        ],
    );
}

#[test]
fn accessors() {
    let c = c_of(
        "#[device] fn f(s: Star<'_, [f64; 4]>, o: qflow_par::Offsets<f64>) -> f64 {
            let mut t = s.own()[0];
            for m in 0..s.len() { t += s.nbr(m)[1]; }
            t + o.at(1, 0, -1) + if s.is_empty() { 1.0 } else { 0.0 }
        }",
    );
    has(
        &c,
        &[
            "FUNC double f(qf_star_arr_f64_4 s, qf_offsets_f64 o)",
            "qf_arr_f64_4 qf_t0 = qf_star_arr_f64_4_own(s);\n    double t = qf_t0.v[0UL];",
            "ulong qf_t1 = qf_star_arr_f64_4_len(s);",
            "qf_arr_f64_4 qf_t2 = qf_star_arr_f64_4_nbr(s, m);",
            "qf_offsets_f64_at(o, 1, 0, -1)",
            "(qf_star_arr_f64_4_len(s) == 0UL ? 1.0 : 0.0)",
            "typedef struct { GLOBAL const qf_arr_f64_4* base; GLOBAL const uint* idx; uint n; uint own; } qf_star_arr_f64_4;",
            "typedef struct { GLOBAL const double* base; long at; long sy; long sz; } qf_offsets_f64;",
        ],
    );
}

#[test]
fn names_paths_aliases_and_files() {
    let lib = file("", "pub type Vec4 = [f64; 4];\nuse crate::math::exp;\n");
    let math = file(
        "math",
        "#[device] pub fn exp(x: f64) -> f64 { x + 1.0 }\n#[device] pub fn erf(x: f64) -> f64 { exp(x) }",
    );
    let gas = file(
        "gas",
        "use super::Vec4;\n#[device] pub fn q(w: &Vec4) -> crate::Vec4 {\n    [crate::math::exp(w[0]), super::math::erf(w[1]), self::g(w[2]), math::exp(w[3])]\n}\n#[device] fn g(x: f64) -> f64 { x }",
    );
    let t = tr_files(&[lib, math, gas]);
    has(
        &t.source,
        &[
            "FUNC double exp_(double x);",
            "FUNC double erf_(double x)\n{\n    return exp_(x);\n}",
            "FUNC qf_arr_f64_4 q(const qf_arr_f64_4* w)",
            "qf_t0.v[0] = exp_(w->v[0UL]);\n    qf_t0.v[1] = erf_(w->v[1UL]);\n    qf_t0.v[2] = g(w->v[2UL]);",
            "/* math::exp (math.rs:1) */\nFUNC double exp_(double x)",
            "/* gas::q (gas.rs:2) */",
        ],
    );
    let names: Vec<(&str, &str)> = t
        .functions
        .iter()
        .map(|f| (f.rust_path.as_str(), f.c_name.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("math::exp", "exp_"),
            ("math::erf", "erf_"),
            ("gas::q", "q"),
            ("gas::g", "g")
        ]
    );
    let q = &t.functions[2];
    assert_eq!(q.ret, DeviceType::Array(Box::new(DeviceType::F64), 4));
    assert_eq!(q.params[0].name, "w");
    assert!(q.params[0].by_ref && !q.params[0].mutable);
}

#[test]
fn layout_order_signatures_and_determinism() {
    let src = "const K: [f64; 2] = [1.0, 2.0];
        #[device] #[derive(Default)] pub struct P { pub a: [f64; 3] }
        #[device] impl P { pub fn new() -> P { P::default() } pub fn add(&mut self, s: Star<'_, f64>) { self.a[0] += s.own() * K[0]; } }
        #[device] pub fn run(p: &mut P, x: i64) -> (f64, i64) { (p.a[0], x) }";
    let t = tr_files(&[file("m", src)]);
    let s = &t.source;
    let pos = |x: &str| s.find(x).unwrap_or_else(|| panic!("no `{x}` in:\n{s}"));
    assert!(pos("/* ---- types ---- */") < pos("/* ---- accessors ---- */"));
    assert!(pos("} P;") < pos("/* ---- accessors ---- */"));
    assert!(pos("/* ---- accessors ---- */") < pos("/* ---- constants ---- */"));
    assert!(pos("/* ---- constants ---- */") < pos("/* ---- prototypes ---- */"));
    assert!(pos("/* ---- prototypes ---- */") < pos("/* ---- functions ---- */"));
    assert!(pos("qf_arr_f64_3;") < pos("} P;"));
    has(
        s,
        &[
            "FUNC void P_add(P* self, qf_star_f64 s);",
            "FUNC qf_tup_f64_i64 run(P* p, long x);",
        ],
    );
    let sig = &t.functions[1];
    assert_eq!(sig.c_name, "P_add");
    assert!(sig.params[0].by_ref && sig.params[0].mutable && sig.params[0].name == "self");
    assert_eq!(
        sig.params[1].ty,
        DeviceType::Star(Box::new(DeviceType::F64))
    );
    assert_eq!(sig.ret, DeviceType::Unit);
    assert_eq!(
        t,
        tr_files(&[file("m", src)]),
        "the same input gives the same output"
    );
}

#[test]
fn debug_asserts_are_dropped() {
    let c = c_of("#[device] fn f(x: f64) -> f64 { debug_assert!(x > 0.0, \"x = {x}\"); x }");
    assert!(!c.contains("assert"), "{c}");
    has(&c, &["return x;"]);
}

#[test]
fn match_becomes_if_chains_or_conditionals() {
    let c = c_of(
        "const WALL: i32 = 0;
        #[device] fn f(kind: i32, x: f64) -> f64 {
            let a = match kind { WALL => 0.5, 1 | 3 => 1.0, -2..=-1 => 2.0, _ => x };
            let b = match kind {
                4..8 if x > 0.0 => { let t = x * 2.0; t + 1.0 }
                k => k as f64,
            };
            match x > 1.0 { true => return a, false => {} }
            a + b
        }",
    );
    has(
        &c,
        &[
            "double a = kind == WALL ? 0.5 : ((kind == 1) || (kind == 3) ? 1.0 : (kind >= -2 && kind <= -1 ? 2.0 : x));",
            "double b;\n    if ((kind >= 4 && kind < 8) && (x > 0.0)) {\n        double t = x * 2.0;\n        b = t + 1.0;\n    } else {\n        b = (double)kind;\n    }",
            "bool qf_t0 = x > 1.0;\n    if (qf_t0 == true) {\n        return a;\n    } else {\n    }\n    return a + b;",
        ],
    );
}

#[test]
fn a_let_without_value_takes_the_type_of_its_assignments() {
    let c = c_of("#[device] fn f(c: bool) -> f64 { let x; if c { x = 1.0; } else { x = 2.0; } x }");
    has(&c, &["double x;\n    if (c) {\n        x = 1.0;\n    } else {\n        x = 2.0;\n    }\n    return x;"]);
}

#[test]
fn generic_functions_are_copied_per_argument_list() {
    let c = c_of(
        "#[device] trait Law<const NV: usize> { const NVAR: usize; fn flux(u: &[f64; NV]) -> [f64; NV]; }\n\
         #[device] struct Burgers;\n\
         #[device] impl Law<1> for Burgers { const NVAR: usize = 1; \
             fn flux(u: &[f64; 1]) -> [f64; 1] { [0.5 * u[0] * u[0]] } }\n\
         const ONE: usize = 1;\n\
         #[device] fn total<L: Law<NV>, const NV: usize>(u: &[f64; NV]) -> f64 {\n\
             let f = L::flux(u); let mut s = 0.0; for v in 0..L::NVAR { s += f[v]; } s }\n\
         #[device] fn twice<L: Law<NV>, const NV: usize>(u: &[f64; NV]) -> f64 {\n\
             total::<L, NV>(u) + total::<L, ONE>(u) }\n\
         #[device] fn g(a: f64) -> f64 { twice::<Burgers, 1>(&[a]) }",
    );
    // One copy per argument list (`NV` and `ONE` are both 1), named by it;
    // the calls point at the copies; the trait's items are the impl's.
    has(
        &c,
        &[
            "double total__Burgers__1(const qf_arr_f64_1* u)",
            "double twice__Burgers__1(const qf_arr_f64_1* u)",
            "return total__Burgers__1(u) + total__Burgers__1(u);",
            "twice__Burgers__1(",
            "Burgers_flux(u)",
            "Burgers_NVAR",
        ],
    );
    assert_eq!(
        c.matches("FUNC double total__Burgers__1(").count(),
        2,
        "{c}"
    );
    assert!(
        !c.contains("total(") && !c.contains("typedef struct {} Burgers"),
        "{c}"
    );
}
