//! Control flow and scalar arithmetic: shadowing, `if` values, nested
//! loops with `break` and `continue`, early returns, integer operations,
//! casts, and the order in which Rust evaluates operands with effects.

use qflow_par_macros::device;

/// A tolerance.
const TOL: f64 = 16.0 * f64::EPSILON;
/// A bit mask.
const MASK: u32 = !0xff00_u32;
/// A table.
const TABLE: [i32; 6] = [3, -1, 4, -1, 5, -9];
/// A nested table.
const GRID: [[u32; 3]; 2] = [[1, 2, 3], [0xffff_ffff, 5, MASK]];
/// Steps of a walk.
const STEPS: usize = TABLE.len() * 2 - (GRID[0][2] as usize) + 1;

/// Shadowing, in the same block and in nested ones.
#[device]
pub fn shadowing(x: f64) -> f64 {
    let y = x * 2.0;
    let y = y + 1.0;
    let z = {
        let y = y * y;
        let x = y - x;
        x / 3.0
    };
    let mut acc = 0.0;
    for y in 0..3 {
        let y = y as f64 * z;
        acc += y;
    }
    let x = if acc > y { acc - y } else { y - acc };
    let (x, y) = (y, x);
    x * 10.0 + y
}

/// `if` as a value, as a conditional expression and with statements; an
/// early return.
#[device]
pub fn branches(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return 0.0;
    }
    let m = if a < b { a } else { b };
    let s = if a > 0.0 {
        let t = a.sqrt();
        t + m
    } else if a > -1.0 {
        m * 2.0
    } else {
        let u = -a;
        if u > 100.0 {
            return -1.0;
        }
        u.ln_1p()
    };
    let flag = a > b && (b > 0.0 || s > TOL);
    let k = if flag { 3 } else { -2 };
    s * k as f64 + m.clamp(-1.0, 1.0) + b.signum()
}

/// Nested loops with `break`, `continue`, `while` and `loop`.
#[device]
pub fn loops(n: u32, x: f64) -> f64 {
    let mut total = 0.0;
    let mut i = 0u32;
    while i < n {
        i += 1;
        if i % 3 == 0 {
            continue;
        }
        for j in 0..i {
            if j > 5 {
                break;
            }
            for k in (j..=j + 2).rev().step_by(1) {
                total += (k as f64) * x - j as f64;
            }
        }
    }
    let mut steps = 0usize;
    loop {
        steps += 1;
        total *= 0.5;
        if total.abs() < 1.0 || steps >= STEPS {
            break;
        }
    }
    total + steps as f64
}

/// Integer arithmetic of each type, bit operations, shifts, casts.
#[device]
pub fn integers(a: i32, b: u32, c: i64, d: u64) -> (i32, u32, i64, u64, f64) {
    let q = if a != i32::MIN && b != 0 {
        a / (b as i32 | 1) + a % 7
    } else {
        0
    };
    let r = (b ^ MASK).wrapping_mul(2_654_435_761) >> 7 | (b & 0xf) << 3;
    let s = (c >> 3) - ((c & 0x3fff) << 2) + (a as i64).abs() * -(TABLE[(b % 6) as usize] as i64);
    let t = d
        .wrapping_add(GRID[1][(b % 3) as usize] as u64)
        .wrapping_sub(d >> 61)
        ^ !d;
    let mut u = 0u64;
    for k in 0..4 {
        u = u.wrapping_mul(31).wrapping_add((t >> (16 * k)) & 0xffff);
    }
    let p = (a % 5).pow(3) + (b % 11).pow(2) as i32 - a.signum();
    let small = (a as f64 / 3.0) as i32 + (c as f64 * 0.25) as i32;
    let mx = a.max(-5).min(1000) + q.clamp(-3, 3) + small.min(p);
    (mx, r, s, u, d as f64 / (b as f64 + 1.0))
}

/// Float operations: `%`, `powi`, `min`/`max`, `recip`, conversions.
#[device]
pub fn floats(x: f64, y: f64, n: i32) -> (f64, f64, f64, u64) {
    let mut a = x % y;
    a += y.powi(n % 5) * 1e-3;
    a -= x.min(y).max(-1e300).recip();
    let mut b = x;
    b %= 3.5;
    b /= 2.0;
    b *= y.floor() + y.ceil() + y.round() + y.trunc() + y.fract();
    let bits = (x * y).to_bits() >> 12;
    let c = f64::from_bits(0x3ff0_0000_0000_0000 | bits) - 1.0;
    let d = (x.hypot(y) + x.atan2(y) + (x * 1e-3).sin() * (y * 1e-3).cos()).to_degrees();
    (a + c, b, d, bits ^ (n as u64))
}

/// Increments `*c` and gives twice its new value.
#[device]
fn bump(c: &mut f64) -> f64 {
    *c += 1.0;
    *c * 2.0
}

/// Operands are evaluated left to right even where a later one has
/// effects.
#[device]
pub fn order(x: f64) -> f64 {
    let mut c = x;
    let a = c + bump(&mut c);
    let b = bump(&mut c) + c;
    let d = [c, bump(&mut c), c];
    let e = c * 10.0 + if c > 0.0 { bump(&mut c) } else { -bump(&mut c) };
    a + b * 3.0 + d[0] * 5.0 + d[1] * 7.0 + d[2] * 11.0 + e + c
}

/// A pair of values swapped and a tuple returned and destructured.
#[device]
fn min_max(a: f64, b: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (a, b);
    if lo > hi {
        (lo, hi) = (hi, lo);
    }
    (lo, hi)
}

/// Sorts `v` by a bubble sort on pairs, and returns a digest.
#[device]
pub fn sort4(v: &mut [f64; 4]) -> f64 {
    for pass in 0..3 {
        for k in 0..3 - pass {
            let (lo, hi) = min_max(v[k], v[k + 1]);
            v[k] = lo;
            v[k + 1] = hi;
        }
    }
    let mut digest = 0.0;
    let mut k = 0;
    while k < v.len() {
        digest = digest * 3.0 + v[k];
        k += 1;
    }
    digest
}

/// A wall point.
pub const WALL: i32 = 0;
/// An interior point.
pub const INTERIOR: i32 = 1;

/// `match` on integers (constants, literals, ranges, `|`, a guard, a
/// binding) and on `bool`.
#[device]
pub fn classify(kind: i32, x: f64) -> f64 {
    let scale = match kind {
        WALL => 0.5,
        INTERIOR | 3 => 1.0,
        4..=6 => 2.0 + x,
        -3..0 if x > 0.0 => -x,
        k => k as f64 * 0.25,
    };
    let mut acc = 0.0;
    match (kind % 3) as u32 {
        0 => acc += scale,
        1 => {
            let t = scale * 3.0;
            acc -= t;
        }
        _ => {}
    }
    let b = match x > 1.0 {
        true => 1.0,
        false => -1.0,
    };
    acc + scale * b
}
