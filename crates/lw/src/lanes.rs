//! One value of an element's 4 cells as a vector, for the line sweeps
//! ([`crate::lines`], `lines_y.rs`): portable arrays (lane by lane), or
//! AVX registers (x86-64, where the runner uses its AVX2 build). Each
//! operation is the IEEE operation lane by lane, so both give the same
//! bits.

/// Whether the processor has AVX-512 (F and VL): the sweeps then run
/// their [`avx::Avx`] code compiled for it, with the same AVX operations
/// (the same bits) but 32 vector registers instead of 16, which spares
/// the y sweeps most of their spills.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

/// 4 lanes of `f64` and the operations the sweeps use on them.
pub(crate) trait Lanes: Copy {
    fn splat(x: f64) -> Self;
    /// The 4 values of `p[..4]`.
    fn load(p: &[f64]) -> Self;
    fn store(self, p: &mut [f64]);
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    /// `f64::max` lane by lane (the other value where one is NaN).
    fn max(self, o: Self) -> Self;
    fn abs(self) -> Self;
    /// The lanes one cell back along x: `[before[3], self[0], self[1],
    /// self[2]]`.
    fn prev(self, before: Self) -> Self;
    /// The lanes one cell on along x: `[self[1], self[2], self[3],
    /// after[0]]`.
    fn next(self, after: Self) -> Self;
    /// `from`'s lanes 0 and 1 (`low`) or 2 and 3, `self`'s others.
    fn keep_half(self, from: Self, low: bool) -> Self;
    /// [`crate::kernels::residue`] of 4 cells of the grid, new states `q`,
    /// densities `rho0` at the step's start, lane by lane: `most` the
    /// largest change so far per lane, `bad` whether a lane met a state
    /// that is not physical (see [`Lanes::measured`]).
    fn residue(q: &[Self; 4], rho0: Self, most: &mut Self, bad: &mut Self);
    /// What [`Lanes::residue`] accumulated from `(0, 0)`: the largest
    /// change over the lanes (a max: the same in any order), and whether
    /// any state was not physical.
    fn measured(most: Self, bad: Self) -> (f64, bool);
}

/// One value of an element's 4 cells.
pub(crate) type V = [f64; 4];

macro_rules! lanewise {
    ($($name:ident: |$a:ident, $b:ident| $e:expr;)*) => {$(
        #[inline(always)]
        fn $name(self, y: V) -> V {
            let mut o = [0.0; 4];
            for l in 0..4 {
                let ($a, $b) = (self[l], y[l]);
                o[l] = $e;
            }
            o
        }
    )*};
}

impl Lanes for V {
    #[inline(always)]
    fn splat(x: f64) -> V {
        [x; 4]
    }
    #[inline(always)]
    fn load(p: &[f64]) -> V {
        [p[0], p[1], p[2], p[3]]
    }
    #[inline(always)]
    fn store(self, p: &mut [f64]) {
        p[..4].copy_from_slice(&self);
    }
    lanewise! {
        add: |a, b| a + b;
        sub: |a, b| a - b;
        mul: |a, b| a * b;
        div: |a, b| a / b;
        max: |a, b| a.max(b);
    }
    #[inline(always)]
    fn abs(self) -> V {
        [self[0].abs(), self[1].abs(), self[2].abs(), self[3].abs()]
    }
    #[inline(always)]
    fn prev(self, before: V) -> V {
        [before[3], self[0], self[1], self[2]]
    }
    #[inline(always)]
    fn next(self, after: V) -> V {
        [self[1], self[2], self[3], after[0]]
    }
    #[inline(always)]
    fn keep_half(self, from: V, low: bool) -> V {
        if low {
            [from[0], from[1], self[2], self[3]]
        } else {
            [self[0], self[1], from[2], from[3]]
        }
    }
    #[inline(always)]
    fn residue(q: &[V; 4], rho0: V, most: &mut V, bad: &mut V) {
        for l in 0..4 {
            let d = (q[0][l] - rho0[l]).abs();
            // As `kernels::residue`, every lane counted.
            let fine = q[0][l] > 0.0
                && 2.0 * q[0][l] * q[3][l] > q[1][l] * q[1][l] + q[2][l] * q[2][l]
                && d.is_finite()
                && q[3][l].is_finite();
            most[l] = if d > most[l] { d } else { most[l] };
            bad[l] = if fine { bad[l] } else { 1.0 };
        }
    }
    #[inline(always)]
    fn measured(most: V, bad: V) -> (f64, bool) {
        let mut m = 0.0;
        for x in most {
            m = if x > m { x } else { m };
        }
        (m, bad.iter().any(|&b| b > 0.0))
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx {
    //! [`Lanes`] in AVX registers. Only used where the processor has AVX2
    //! ([`qflow_par::kernel::use_avx2`]: the runner then runs its AVX2
    //! build, into which these functions are inlined).
    use super::Lanes;
    use std::arch::x86_64::*;

    /// 4 values in an AVX register.
    #[derive(Clone, Copy)]
    pub(crate) struct Avx(__m256d);

    // SAFETY (every `unsafe` below): AVX is present wherever these run
    // (see the module's comment); loads and stores are of 4 values of a
    // slice checked to hold them.
    impl Lanes for Avx {
        #[inline(always)]
        fn splat(x: f64) -> Avx {
            unsafe { Avx(_mm256_set1_pd(x)) }
        }
        #[inline(always)]
        fn load(p: &[f64]) -> Avx {
            assert!(p.len() >= 4);
            unsafe { Avx(_mm256_loadu_pd(p.as_ptr())) }
        }
        #[inline(always)]
        fn store(self, p: &mut [f64]) {
            assert!(p.len() >= 4);
            unsafe { _mm256_storeu_pd(p.as_mut_ptr(), self.0) }
        }
        #[inline(always)]
        fn add(self, o: Avx) -> Avx {
            unsafe { Avx(_mm256_add_pd(self.0, o.0)) }
        }
        #[inline(always)]
        fn sub(self, o: Avx) -> Avx {
            unsafe { Avx(_mm256_sub_pd(self.0, o.0)) }
        }
        #[inline(always)]
        fn mul(self, o: Avx) -> Avx {
            unsafe { Avx(_mm256_mul_pd(self.0, o.0)) }
        }
        #[inline(always)]
        fn div(self, o: Avx) -> Avx {
            unsafe { Avx(_mm256_div_pd(self.0, o.0)) }
        }
        #[inline(always)]
        fn max(self, o: Avx) -> Avx {
            // maxpd gives its second operand where either is NaN; f64::max
            // gives the one that is not NaN.
            unsafe {
                let m = _mm256_max_pd(self.0, o.0);
                let o_nan = _mm256_cmp_pd::<_CMP_UNORD_Q>(o.0, o.0);
                Avx(_mm256_blendv_pd(m, self.0, o_nan))
            }
        }
        #[inline(always)]
        fn abs(self) -> Avx {
            unsafe { Avx(_mm256_andnot_pd(_mm256_set1_pd(-0.0), self.0)) }
        }
        #[inline(always)]
        fn prev(self, before: Avx) -> Avx {
            unsafe {
                // [b2, b3, s0, s1], then lanes 1, 0, 3, 2 of it and self.
                let t = _mm256_permute2f128_pd::<0x21>(before.0, self.0);
                Avx(_mm256_shuffle_pd::<0b0101>(t, self.0))
            }
        }
        #[inline(always)]
        fn next(self, after: Avx) -> Avx {
            unsafe {
                // [s2, s3, a0, a1], then lanes 1, 0, 3, 2 of self and it.
                let t = _mm256_permute2f128_pd::<0x21>(self.0, after.0);
                Avx(_mm256_shuffle_pd::<0b0101>(self.0, t))
            }
        }
        #[inline(always)]
        fn keep_half(self, from: Avx, low: bool) -> Avx {
            unsafe {
                Avx(if low {
                    _mm256_blend_pd::<0b0011>(self.0, from.0)
                } else {
                    _mm256_blend_pd::<0b1100>(self.0, from.0)
                })
            }
        }
        #[inline(always)]
        fn residue(q: &[Avx; 4], rho0: Avx, most: &mut Avx, bad: &mut Avx) {
            let d = q[0].sub(rho0).abs();
            unsafe {
                // maxpd(d, most) is `d > most ? d : most` lane by lane (most
                // where d is NaN): the scalar select.
                most.0 = _mm256_max_pd(d.0, most.0);
                let inf = _mm256_set1_pd(f64::INFINITY);
                let two_re = Avx::splat(2.0).mul(q[0]).mul(q[3]);
                let m2 = q[1].mul(q[1]).add(q[2].mul(q[2]));
                // Ordered comparisons: false where a value is NaN, as in
                // the scalar code; `x.is_finite()` is `|x| < inf`.
                let fine = _mm256_and_pd(
                    _mm256_and_pd(
                        _mm256_cmp_pd::<_CMP_GT_OQ>(q[0].0, _mm256_setzero_pd()),
                        _mm256_cmp_pd::<_CMP_GT_OQ>(two_re.0, m2.0),
                    ),
                    _mm256_and_pd(
                        _mm256_cmp_pd::<_CMP_LT_OQ>(d.0, inf),
                        _mm256_cmp_pd::<_CMP_LT_OQ>(q[3].abs().0, inf),
                    ),
                );
                // `bad`: all bits set in a lane that met a bad state.
                let all = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
                bad.0 = _mm256_or_pd(bad.0, _mm256_andnot_pd(fine, all));
            }
        }
        #[inline(always)]
        fn measured(most: Avx, bad: Avx) -> (f64, bool) {
            let mut m = [0.0; 4];
            most.store(&mut m);
            let (m, _) = <super::V as Lanes>::measured(m, [0.0; 4]);
            (m, unsafe { _mm256_movemask_pd(bad.0) } != 0)
        }
    }
}
