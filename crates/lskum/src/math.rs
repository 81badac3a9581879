//! Branch-free `exp`, `ln` and `erf` that the compiler vectorizes.
//!
//! The flux kernel evaluates these functions over small batches of
//! neighbours (`kernels::flux_residual`); written without data-dependent
//! branches (every range is computed and the result chosen by a select),
//! a loop over a batch becomes SIMD code. Each function gives the same bits
//! for the same argument whichever way it is compiled (scalar, SSE2, AVX2:
//! there are no fused multiply-adds, Rust never contracts `a * b + c`), so
//! results never depend on where in a batch a value lands.
//!
//! Accuracy, measured against glibc's `exp`/`log` and the `libm` crate's
//! `erf` (the tests below sample wide ranges and the ranges the solver sees,
//! and state the bounds they check):
//!
//! | function | method | measured max error |
//! |---|---|---|
//! | [`exp`] | reduction by `ln 2` (Cody-Waite), degree-13 Taylor polynomial, two-step scaling (subnormal results right) | 1 ulp |
//! | [`ln`] | fdlibm's `e_log.c` (mantissa in `[sqrt(2)/2, sqrt(2))`, rational in `s = f/(2+f)`) | 1 ulp (same bits as `libm::log`) |
//! | [`erf`] | fdlibm's `s_erf.c` rational approximations on `|x| < 0.84375`, `[0.84375, 1.25)`, `[1.25, 1/0.35)`, `[1/0.35, 6)` | 1 ulp; the same bits as `libm::erf` for `|x| < 1.25` |

// The constants are fdlibm's, digit for digit (more digits than a double
// holds; each rounds to the intended double).
#![allow(clippy::excessive_precision)]

use qflow_par_macros::device;

/// `ln 2`, high part (its low 32 bits are zero, so `k * LN2_HI` is exact).
#[device]
const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-1;
/// `ln 2 - LN2_HI`.
#[device]
const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;
/// `1.5 * 2^52`: adding it rounds a double of magnitude below `2^51` to an
/// integer, readable from the low bits.
#[device]
const ROUND: f64 = 6_755_399_441_055_744.0;

/// `if c { a } else { b }` with both sides already computed (a select).
#[device]
#[inline(always)]
fn sel(c: bool, a: f64, b: f64) -> f64 {
    if c {
        a
    } else {
        b
    }
}

/// `e^x`.
///
/// `x = k ln2 + r` with `|r| <= ln2/2` (`k` rounded with `ROUND`,
/// `r = (x - k LN2_HI) - k LN2_LO`), `e^r = 1 + (r + r^2 P(r))` with `P` the
/// Taylor polynomial of degree 11 (truncation below 5e-18), and the result
/// scaled by `2^k` in two exact steps. NaN gives NaN, `x < -745.2` gives 0,
/// `x > 709.8` gives infinity. Max error measured: 1 ulp.
#[device]
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    // Clamp (NaN passes through both comparisons).
    let xc = sel(x < -746.0, -746.0, x);
    let xc = sel(xc > 710.0, 710.0, xc);
    let t = xc * std::f64::consts::LOG2_E + ROUND;
    let kf = t - ROUND;
    let hi = xc - kf * LN2_HI;
    let lo = kf * LN2_LO;
    let r = hi - lo;
    // Taylor coefficients 1/n!, n = 13 down to 2.
    let mut q = 1.0 / 6_227_020_800.0;
    q = q * r + 1.0 / 479_001_600.0;
    q = q * r + 1.0 / 39_916_800.0;
    q = q * r + 1.0 / 3_628_800.0;
    q = q * r + 1.0 / 362_880.0;
    q = q * r + 1.0 / 40_320.0;
    q = q * r + 1.0 / 5_040.0;
    q = q * r + 1.0 / 720.0;
    q = q * r + 1.0 / 120.0;
    q = q * r + 1.0 / 24.0;
    q = q * r + 1.0 / 6.0;
    q = q * r + 0.5;
    let y = 1.0 + (r + (r * r) * q);
    // 2^k = 2^k1 2^k2 with k1 = floor(k/2), both exponents normal for
    // k in [-1077, 1025]; unsigned arithmetic only (k + 2048 > 0), which
    // vectorizes without 64-bit arithmetic shifts.
    let kb = t.to_bits().wrapping_sub(ROUND.to_bits()).wrapping_add(2048);
    let k1b = kb >> 1; // k1 + 1024
    let s1 = f64::from_bits((k1b - 1) << 52); // 2^k1
    let s2 = f64::from_bits((kb - k1b - 1) << 52); // 2^(k - k1)
    (y * s1) * s2
}

/// Natural logarithm.
///
/// fdlibm's algorithm (as in musl and the `libm` crate): `x = 2^k (1 + f)`
/// with `1 + f` in `[sqrt(2)/2, sqrt(2))`, `s = f / (2 + f)`,
/// `ln(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2))`, with the special cases chosen
/// by selects (subnormals scaled by `2^54`; `ln 0 = -inf`, `ln x = NaN` for
/// `x < 0` and NaN, `ln inf = inf`). The same bits as `libm::log`; max error
/// measured against glibc: 1 ulp.
#[device]
#[inline(always)]
pub fn ln(x: f64) -> f64 {
    const LG1: f64 = 6.666_666_666_666_735_130e-1;
    const LG2: f64 = 3.999_999_999_940_941_908e-1;
    const LG3: f64 = 2.857_142_874_366_239_149e-1;
    const LG4: f64 = 2.222_219_843_214_978_396e-1;
    const LG5: f64 = 1.818_357_216_161_805_012e-1;
    const LG6: f64 = 1.531_383_769_920_937_332e-1;
    const LG7: f64 = 1.479_819_860_511_658_591e-1;
    const X1P54: f64 = 18_014_398_509_481_984.0;
    let tiny = x < f64::MIN_POSITIVE;
    let xs = sel(tiny, x * X1P54, x);
    let ui = xs.to_bits();
    let hx = (ui >> 32).wrapping_add(0x3ff0_0000 - 0x3fe6_a09e);
    // k + 1023 + 54, kept non-negative.
    let kb = (hx >> 20)
        .wrapping_add(54)
        .wrapping_sub(if tiny { 54 } else { 0 });
    let hx = (hx & 0x000f_ffff) + 0x3fe6_a09e;
    let m = f64::from_bits((hx << 32) | (ui & 0xffff_ffff));
    let f = m - 1.0;
    let hfsq = 0.5 * f * f;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (LG2 + w * (LG4 + w * LG6));
    let t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    let r = t2 + t1;
    // dk = k as f64, exactly, without an integer-to-float conversion.
    let dk = f64::from_bits(ROUND.to_bits().wrapping_add(kb)) - (ROUND + (1023.0 + 54.0));
    let y = s * (hfsq + r) + dk * LN2_LO - hfsq + f + dk * LN2_HI;
    let y = sel(x == f64::INFINITY, x, y);
    let y = sel(x == 0.0, f64::NEG_INFINITY, y);
    sel(x < 0.0 || x.is_nan(), f64::NAN, y)
}

/// fdlibm's `erf` constants (`s_erf.c`).
mod erf_consts {
    pub const ERX: f64 = 8.450_629_115_104_675_292_97e-1;
    pub const EFX8: f64 = 1.027_033_336_764_100_690_53;
    pub const PP: [f64; 5] = [
        1.283_791_670_955_125_585_61e-1,
        -3.250_421_072_470_014_993_70e-1,
        -2.848_174_957_559_851_047_66e-2,
        -5.770_270_296_489_441_591_57e-3,
        -2.376_301_665_665_016_260_84e-5,
    ];
    pub const QQ: [f64; 5] = [
        3.979_172_239_591_553_528_19e-1,
        6.502_224_998_876_729_444_85e-2,
        5.081_306_281_875_765_627_76e-3,
        1.324_947_380_043_216_445_26e-4,
        -3.960_228_278_775_368_123_20e-6,
    ];
    pub const PA: [f64; 7] = [
        -2.362_118_560_752_659_440_77e-3,
        4.148_561_186_837_483_316_66e-1,
        -3.722_078_760_357_013_238_47e-1,
        3.183_466_199_011_617_536_74e-1,
        -1.108_946_942_823_966_774_76e-1,
        3.547_830_432_561_823_593_71e-2,
        -2.166_375_594_868_790_843_00e-3,
    ];
    pub const QA: [f64; 6] = [
        1.064_208_804_008_442_282_86e-1,
        5.403_979_177_021_710_489_37e-1,
        7.182_865_441_419_626_628_68e-2,
        1.261_712_198_087_616_421_12e-1,
        1.363_708_391_202_905_073_62e-2,
        1.198_449_984_679_910_741_70e-2,
    ];
    pub const RA: [f64; 8] = [
        -9.864_944_034_847_148_227_05e-3,
        -6.938_585_727_071_817_643_72e-1,
        -1.055_862_622_532_329_098_14e1,
        -6.237_533_245_032_600_603_96e1,
        -1.623_966_694_625_734_703_55e2,
        -1.846_050_929_067_110_359_94e2,
        -8.128_743_550_630_659_342_46e1,
        -9.814_329_344_169_145_485_92,
    ];
    pub const SA: [f64; 8] = [
        1.965_127_166_743_925_712_92e1,
        1.376_577_541_435_190_426_00e2,
        4.345_658_774_752_292_288_21e2,
        6.453_872_717_332_678_803_36e2,
        4.290_081_400_275_678_333_86e2,
        1.086_350_055_417_794_351_34e2,
        6.570_249_770_319_281_701_35,
        -6.042_441_521_485_809_874_38e-2,
    ];
    pub const RB: [f64; 7] = [
        -9.864_942_924_700_099_285_97e-3,
        -7.992_832_376_805_230_065_74e-1,
        -1.775_795_491_775_475_198_89e1,
        -1.606_363_848_558_219_160_62e2,
        -6.375_664_433_683_896_277_22e2,
        -1.025_095_131_611_077_249_54e3,
        -4.835_191_916_086_513_970_19e2,
    ];
    pub const SB: [f64; 7] = [
        3.033_806_074_348_245_829_24e1,
        3.257_925_129_965_739_188_26e2,
        1.536_729_586_084_436_959_94e3,
        3.199_858_219_508_595_539_08e3,
        2.553_050_406_433_164_425_83e3,
        4.745_285_412_069_553_672_15e2,
        -2.244_095_244_658_581_833_62e1,
    ];
}

/// `|x|` below which [`erf_near`] is exact to fdlibm's design and
/// [`erf_tail`] is not needed.
#[device]
pub const ERF_TAIL_FROM: f64 = 1.25;

/// `erf(x)` for `|x| < 1.25` (fdlibm's two rational approximations on
/// `|x| < 0.84375` and `[0.84375, 1.25)`, both evaluated, one selected); the
/// same bits as `libm::erf` there. Arguments with `|x| >= 1.25` (and NaN)
/// need [`erf_tail`]: [`erf`] does both.
#[device]
#[inline(always)]
pub fn erf_near(x: f64) -> f64 {
    use erf_consts::*;
    let ax = x.abs();
    // |x| < 0.84375: erf = x + x R(x^2).
    let z = x * x;
    let r = PP[0] + z * (PP[1] + z * (PP[2] + z * (PP[3] + z * PP[4])));
    let s = 1.0 + z * (QQ[0] + z * (QQ[1] + z * (QQ[2] + z * (QQ[3] + z * QQ[4]))));
    let small = x + x * (r / s);
    // |x| < 2^-28 (avoids underflow).
    let tiny = 0.125 * (8.0 * x + EFX8 * x);
    // 0.84375 <= |x| < 1.25: erf = sign (1 - (1 - erx - P/Q)).
    let s = ax - 1.0;
    let p = PA[0] + s * (PA[1] + s * (PA[2] + s * (PA[3] + s * (PA[4] + s * (PA[5] + s * PA[6])))));
    let q = 1.0 + s * (QA[0] + s * (QA[1] + s * (QA[2] + s * (QA[3] + s * (QA[4] + s * QA[5])))));
    let mid = 1.0 - (1.0 - ERX - p / q);
    let mid = sel(x < 0.0, -mid, mid);
    let y = sel(ax < 0.84375, small, mid);
    sel(ax < 3.725_290_298_461_914e-9, tiny, y)
}

/// `erf(x)` for `|x| >= 1.25`, infinities and NaN: `sign (1 - erfc |x|)` with
/// fdlibm's `erfc(x) = exp(-z^2 - 0.5625) exp((z - x)(z + x) + R/S) / x`
/// (`z` is `x` with its low 32 bits cleared, `R/S` one of two rational
/// approximations in `1/x^2`, chosen by a select), and `sign (1 - 2^-1022)`
/// from `|x| >= 6`. The value for `|x| < 1.25` is meaningless.
#[device]
#[inline(always)]
pub fn erf_tail(x: f64) -> f64 {
    use erf_consts::*;
    let ax = x.abs();
    // Keep the argument in the approximations' range (NaN stays NaN).
    let xa = sel(ax > 6.0, 6.0, ax);
    let s = 1.0 / (xa * xa);
    let near = xa < 2.857_142_857_142_857;
    let ra = RA[0]
        + s * (RA[1]
            + s * (RA[2] + s * (RA[3] + s * (RA[4] + s * (RA[5] + s * (RA[6] + s * RA[7]))))));
    let rb =
        RB[0] + s * (RB[1] + s * (RB[2] + s * (RB[3] + s * (RB[4] + s * (RB[5] + s * RB[6])))));
    let r = sel(near, ra, rb);
    let big_s = 1.0
        + s * (sel(near, SA[0], SB[0])
            + s * (sel(near, SA[1], SB[1])
                + s * (sel(near, SA[2], SB[2])
                    + s * (sel(near, SA[3], SB[3])
                        + s * (sel(near, SA[4], SB[4])
                            + s * (sel(near, SA[5], SB[5])
                                + s * (sel(near, SA[6], SB[6]) + s * sel(near, SA[7], 0.0))))))));
    let z = f64::from_bits(xa.to_bits() & 0xffff_ffff_0000_0000);
    let erfc = exp(-z * z - 0.5625) * exp((z - xa) * (z + xa) + r / big_s) / xa;
    let y = 1.0 - erfc;
    let y = sel(ax >= 6.0, 1.0 - f64::MIN_POSITIVE, y);
    let y = sel(x < 0.0, -y, y);
    sel(x.is_nan(), x, y)
}

/// Whether `erf(x)` needs [`erf_tail`]: `|x| >= 1.25` or NaN.
#[device]
#[inline(always)]
pub fn erf_needs_tail(x: f64) -> bool {
    x.abs() >= ERF_TAIL_FROM || x.is_nan()
}

/// The error function, [`erf_near`] or [`erf_tail`] by a select.
#[device]
#[inline(always)]
pub fn erf(x: f64) -> f64 {
    sel(erf_needs_tail(x), erf_tail(x), erf_near(x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Distance in units in the last place (0 for equal values, both NaN or
    /// equal infinities).
    pub(crate) fn ulps(a: f64, b: f64) -> u64 {
        if a == b || (a.is_nan() && b.is_nan()) {
            return 0;
        }
        if a.is_nan() || b.is_nan() || a.is_infinite() || b.is_infinite() {
            return u64::MAX;
        }
        // Map the doubles onto a monotonic integer line.
        let key = |v: f64| {
            let b = v.to_bits() as i64;
            if b < 0 {
                i64::MIN - b
            } else {
                b
            }
        };
        key(a).abs_diff(key(b))
    }

    /// Max ulp error of `f` against `g` on `n` points spread evenly over
    /// `[lo, hi]` (a deterministic sweep, so the bound it states is
    /// repeatable).
    fn sweep(f: fn(f64) -> f64, g: fn(f64) -> f64, lo: f64, hi: f64, n: usize) -> u64 {
        (0..=n)
            .map(|i| {
                let x = lo + (hi - lo) * (i as f64 / n as f64);
                ulps(f(x), g(x))
            })
            .max()
            .unwrap()
    }

    const N: usize = 2_000_000;

    #[test]
    fn exp_is_within_one_ulp_of_glibc() {
        // wide range, the solver's exp(-S^2) range and its density range
        let e = [
            sweep(exp, f64::exp, -745.0, 709.0, N),
            sweep(exp, f64::exp, -40.0, 0.0, N),
            sweep(exp, f64::exp, -3.0, 3.0, N),
        ];
        println!("exp: max ulp {e:?}");
        assert!(e.iter().all(|&u| u <= 1), "{e:?}");
    }

    #[test]
    fn exp_special_values() {
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(-0.0), 1.0);
        assert!(exp(f64::NAN).is_nan());
        assert_eq!(exp(f64::INFINITY), f64::INFINITY);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp(710.0), f64::INFINITY);
        assert_eq!(exp(-746.0), 0.0);
        assert_eq!(exp(709.7), f64::exp(709.7));
        // subnormal results
        for x in [-708.5, -720.0, -740.0, -745.0] {
            assert!(ulps(exp(x), f64::exp(x)) <= 1, "{x}");
        }
    }

    #[test]
    fn ln_is_libm_log_and_within_one_ulp_of_glibc() {
        let e = [
            sweep(ln, f64::ln, 1e-300, 1e300, N),
            sweep(ln, f64::ln, 0.0, 4.0, N),
            sweep(ln, f64::ln, 0.5, 2.0, N),
        ];
        println!("ln: max ulp {e:?}");
        assert!(e.iter().all(|&u| u <= 1), "{e:?}");
        assert_eq!(sweep(ln, libm::log, 0.0, 10.0, N), 0);
    }

    #[test]
    fn ln_special_values() {
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert_eq!(ln(-0.0), f64::NEG_INFINITY);
        assert!(ln(-1.0).is_nan());
        assert!(ln(f64::NAN).is_nan());
        assert!(ln(f64::NEG_INFINITY).is_nan());
        assert_eq!(ln(f64::INFINITY), f64::INFINITY);
        for x in [5e-324, 1e-310, 2.2e-308, f64::MIN_POSITIVE, f64::MAX] {
            assert_eq!(ln(x), libm::log(x), "{x}");
        }
    }

    #[test]
    fn erf_is_within_one_ulp_of_libm_and_the_same_bits_near_zero() {
        let e = [
            sweep(erf, libm::erf, -7.0, 7.0, N),
            sweep(erf, libm::erf, 1.2, 3.0, N),
            sweep(erf, libm::erf, -3.0, -1.2, N),
        ];
        println!("erf: max ulp {e:?}");
        assert!(e.iter().all(|&u| u <= 1), "{e:?}");
        assert_eq!(sweep(erf, libm::erf, -1.25, 1.25, N), 0);
    }

    #[test]
    fn erf_special_values() {
        assert_eq!(erf(0.0), 0.0);
        assert_eq!(erf(f64::INFINITY), 1.0);
        assert_eq!(erf(f64::NEG_INFINITY), -1.0);
        assert!(erf(f64::NAN).is_nan());
        for x in [
            1e-300, -1e-20, 3e-9, 5e-324, 6.0, -6.0, 30.0, 1.25, -1.25, 0.84375,
        ] {
            assert!(ulps(erf(x), libm::erf(x)) <= 1, "{x}");
        }
    }

    proptest! {
        #[test]
        fn exp_anywhere(x in -750.0f64..712.0) {
            prop_assert!(ulps(exp(x), f64::exp(x)) <= 1, "{x}");
        }

        #[test]
        fn exp_small(x in -1.0f64..1.0) {
            prop_assert!(ulps(exp(x), f64::exp(x)) <= 1, "{x}");
        }

        #[test]
        fn ln_anywhere(x in 0.0f64..f64::MAX) {
            prop_assert_eq!(ln(x), libm::log(x));
            prop_assert!(ulps(ln(x), f64::ln(x)) <= 1, "{x}");
        }

        #[test]
        fn ln_any_bits(b in 0u64..0x7ff0_0000_0000_0000) {
            let x = f64::from_bits(b);
            prop_assert_eq!(ln(x), libm::log(x));
        }

        #[test]
        fn erf_anywhere(x in -30.0f64..30.0) {
            prop_assert!(ulps(erf(x), libm::erf(x)) <= 1, "{x}");
        }

        #[test]
        fn erf_solver_range(x in -1.25f64..1.25) {
            prop_assert_eq!(erf(x), libm::erf(x));
        }
    }
}
