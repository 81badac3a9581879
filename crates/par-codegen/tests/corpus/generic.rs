//! Generic device functions: a conservation law as a type (a trait with
//! an associated constant and functions, implemented by field-less
//! structs), a flux written once over any law, generic functions calling
//! generic functions, const parameters in array lengths and loop bounds.

use qflow_par_macros::device;

/// A conservation law in one direction, with `NV` conserved variables.
#[device]
pub trait Law<const NV: usize> {
    /// The number of conserved variables (as the law counts them).
    const NVAR: usize;
    /// The flux of state `u` at parameter `p` (a speed).
    fn flux(u: &[f64; NV], p: f64) -> [f64; NV];
    /// The largest wave speed of state `u`.
    fn max_speed(u: &[f64; NV], p: f64) -> f64;
}

/// Linear advection at speed `p`.
#[device]
pub struct Advection;

#[device]
impl Law<1> for Advection {
    const NVAR: usize = 1;
    fn flux(u: &[f64; 1], p: f64) -> [f64; 1] {
        [p * u[0]]
    }
    fn max_speed(_u: &[f64; 1], p: f64) -> f64 {
        p.abs()
    }
}

/// Isothermal gas dynamics at sound speed `p`: density and momentum.
#[device]
pub struct Isothermal;

#[device]
impl Law<2> for Isothermal {
    const NVAR: usize = 2;
    fn flux(u: &[f64; 2], p: f64) -> [f64; 2] {
        let v = u[1] / u[0];
        [u[1], u[1] * v + p * p * u[0]]
    }
    fn max_speed(u: &[f64; 2], p: f64) -> f64 {
        (u[1] / u[0]).abs() + p
    }
}

/// The local Lax-Friedrichs (Rusanov) flux of any law.
#[device]
pub fn rusanov<L: Law<NV>, const NV: usize>(ul: &[f64; NV], ur: &[f64; NV], p: f64) -> [f64; NV] {
    let fl = L::flux(ul, p);
    let fr = L::flux(ur, p);
    let s = L::max_speed(ul, p).max(L::max_speed(ur, p));
    let mut f = [0.0; NV];
    for v in 0..L::NVAR {
        f[v] = 0.5 * (fl[v] + fr[v]) - 0.5 * s * (ur[v] - ul[v]);
    }
    f
}

/// `sum_i w^i x_i` over an array of any length.
#[device]
pub fn weighted<const N: usize>(x: &[f64; N], w: f64) -> f64 {
    let mut s = 0.0;
    let mut wi = 1.0;
    for i in 0..N {
        s += wi * x[i];
        wi *= w;
    }
    s
}

/// A generic function calling generic functions.
#[device]
pub fn flux_weight<L, const NV: usize>(ul: &[f64; NV], ur: &[f64; NV], p: f64, w: f64) -> f64
where
    L: Law<NV>,
{
    let f = rusanov::<L, NV>(ul, ur, p);
    weighted::<NV>(&f, w)
}

/// The number of values per law, as a constant argument.
pub const TWO: usize = 2;

/// Rusanov's flux of advection.
#[device]
pub fn rusanov_advection(a: f64, b: f64, p: f64) -> f64 {
    rusanov::<Advection, 1>(&[a], &[b], p)[0]
}

/// Rusanov's flux of isothermal gas dynamics, both components.
#[device]
pub fn rusanov_isothermal(r0: f64, m0: f64, r1: f64, m1: f64, c: f64) -> (f64, f64) {
    let f = rusanov::<Isothermal, TWO>(&[r0, m0], &[r1, m1], c);
    (f[0], f[1])
}

/// Nested generic calls, two laws.
#[device]
pub fn flux_weights(r0: f64, m0: f64, r1: f64, m1: f64, c: f64) -> (f64, f64) {
    let a = flux_weight::<Advection, 1>(&[r0], &[r1], c, m0);
    let b = flux_weight::<Isothermal, { 1 + 1 }>(&[r0, m0], &[r1, m1], c, m1);
    (a, b)
}

/// A const parameter of a larger array, called with two lengths.
#[device]
pub fn weighted_3_5(x0: f64, x1: f64, x2: f64, w: f64) -> f64 {
    weighted::<3>(&[x0, x1, x2], w) + weighted::<5>(&[x0, x1, x2, x1, x0], w)
}
