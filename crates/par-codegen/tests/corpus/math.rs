//! Branch-free `exp` and `ln`: range reduction by `ln 2`, polynomials in
//! the reduced argument, and the exponent handled with integer arithmetic
//! on the bits (fdlibm's method for `ln`).

use qflow_par_macros::device;

/// `ln 2`, upper part (exact products with small integers).
const LN2_HI: f64 = 6.93147180369123816490e-01;
/// `ln 2 - LN2_HI`.
const LN2_LO: f64 = 1.90821492927058770002e-10;
/// `1.5 * 2^52`: adding it rounds to an integer held in the low bits.
const SHIFTER: f64 = 6_755_399_441_055_744.0;
/// Bits of `SHIFTER`.
const SHIFTER_BITS: u64 = 0x4338_0000_0000_0000;
/// `2^54`, to scale subnormal arguments.
const TWO54: f64 = 18_014_398_509_481_984.0;

/// `c ? a : b` on values already computed.
#[device]
pub fn select(c: bool, a: f64, b: f64) -> f64 {
    if c {
        a
    } else {
        b
    }
}

/// `e^x`: `x = k ln 2 + r`, `e^r` by its Taylor polynomial of degree 12,
/// scaled by `2^k` in two exact steps (subnormal results right).
#[device]
pub fn exp(x: f64) -> f64 {
    let xc = select(x < -746.0, -746.0, x);
    let xc = select(xc > 710.0, 710.0, xc);
    let t = xc * std::f64::consts::LOG2_E + SHIFTER;
    let kf = t - SHIFTER;
    let r = (xc - kf * LN2_HI) - kf * LN2_LO;
    let mut p = 1.0 / 479_001_600.0;
    p = p * r + 1.0 / 39_916_800.0;
    p = p * r + 1.0 / 3_628_800.0;
    p = p * r + 1.0 / 362_880.0;
    p = p * r + 1.0 / 40_320.0;
    p = p * r + 1.0 / 5_040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    let y = 1.0 + (r + (r * r) * p);
    // k + 2048 from the low bits of t, then 2^k = 2^(k/2) 2^(k - k/2).
    let kb = t.to_bits().wrapping_sub(SHIFTER_BITS).wrapping_add(2048) & 0xfff;
    let k1 = kb >> 1;
    let s1 = f64::from_bits((k1 - 1) << 52);
    let s2 = f64::from_bits((kb - k1 - 1) << 52);
    let y = (y * s1) * s2;
    select(x != x, x, y)
}

/// Natural logarithm: `x = 2^k m` with `m` in `[sqrt(2)/2, sqrt(2))`,
/// `f = m - 1`, `s = f / (2 + f)`, a rational in `s^2`.
#[device]
pub fn ln(x: f64) -> f64 {
    const L1: f64 = 6.666666666666735130e-01;
    const L2: f64 = 3.999999999940941908e-01;
    const L3: f64 = 2.857142874366239149e-01;
    const L4: f64 = 2.222219843214978396e-01;
    const L5: f64 = 1.818357216161805012e-01;
    const L6: f64 = 1.531383769920937332e-01;
    const L7: f64 = 1.479819860511658591e-01;
    let tiny = x < f64::MIN_POSITIVE;
    let xs = select(tiny, x * TWO54, x);
    let bits = xs.to_bits();
    let hx = (bits >> 32).wrapping_add(0x3ff0_0000 - 0x3fe6_a09e);
    let k = ((hx >> 20) & 0x7ff) as i64 - 1023 - if tiny { 54 } else { 0 };
    let hx = (hx & 0x000f_ffff) + 0x3fe6_a09e;
    let m = f64::from_bits((hx << 32) | (bits & 0xffff_ffff));
    let f = m - 1.0;
    let hfsq = 0.5 * f * f;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (L2 + w * (L4 + w * L6));
    let t2 = z * (L1 + w * (L3 + w * (L5 + w * L7)));
    let r = t2 + t1;
    let dk = k as f64;
    let y = s * (hfsq + r) + dk * LN2_LO - hfsq + f + dk * LN2_HI;
    let y = select(x == f64::INFINITY, x, y);
    let y = select(x == 0.0, f64::NEG_INFINITY, y);
    select(x < 0.0 || x.is_nan(), f64::NAN, y)
}

/// `x^n` for an integer `n` by the library's `powi`, and `|x|^y`.
#[device]
pub fn powers(x: f64, n: i32, y: f64) -> (f64, f64, f64) {
    (x.powi(n), x.powi(3), x.abs().powf(y))
}
