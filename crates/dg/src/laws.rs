//! The physics of DG's systems of conservation laws as types (the way
//! Trixi.jl writes an equation): each is a [`Law`] of `NV` conserved
//! variables, seen along one direction, and the kernels of `system.rs` are
//! written once over any law. A line's state is in the frame of the faces
//! it crosses: density, the momentum normal to them, the tangential
//! momenta, then the law's other variables (total energy).
//!
//! - [`Isothermal`]: `p = a^2 rho`, `(rho, m_n, m_t)`, the parameter `c`
//!   the sound speed `a`;
//! - [`IdealGas`]: the compressible Euler equations of an ideal gas, `p =
//!   (gamma - 1) (E - |m|^2 / (2 rho))`, `(rho, m_n, m_t, E)`, the
//!   parameter `c` the ratio of specific heats `gamma`;
//! - [`Isothermal3`], [`IdealGas3`]: the same in 3D, with two tangential
//!   momenta;
//! - [`Advection`]: linear advection, its velocity per direction.
//!
//! A law's functions are device code (translated for the GPU backends with
//! the kernels): the same arithmetic on every backend.

use qflow_par_macros::device;

/// A system of conservation laws along one direction, `NV` conserved
/// variables in a line's frame; `c` is the law's parameter (sound speed,
/// ratio of specific heats).
#[device]
pub trait Law<const NV: usize> {
    /// The cell's variables in a line's order along y (along x: the
    /// stored order): the normal momentum is the y one.
    const ALONG_Y: [usize; NV];
    /// The same along z (3D laws; a 2D law's is the stored order, unused).
    const ALONG_Z: [usize; NV];
    /// Whether the law's parameter differs per direction (advection's
    /// velocity: `p[1 + d]` along direction `d`) rather than one for all
    /// (`p[1]`).
    const PER_DIRECTION: bool;
    /// The flux across a face of normal `n` of the state `q`.
    fn flux(c: f64, q: &[f64; NV]) -> [f64; NV];
    /// The largest wave speed `|u_n| + c_s` of `q` (Lax-Friedrichs).
    fn max_speed(c: f64, q: &[f64; NV]) -> f64;
    /// The slowest and fastest wave speeds `u_n -+ c_s` of `q` (HLL).
    fn wave_speeds(c: f64, q: &[f64; NV]) -> (f64, f64);
    /// The quantity that must stay positive: the density (isothermal), the
    /// smaller of density and pressure (ideal gas).
    fn positive(c: f64, q: &[f64; NV]) -> f64;
}

/// The isothermal Euler equations in 2D, `(rho, m_n, m_t)`: `p = a^2
/// rho`, `c = a`. (In 1D the tangential momentum is 0.)
#[device]
pub struct Isothermal;

#[device]
impl Law<3> for Isothermal {
    const ALONG_Y: [usize; 3] = [0, 2, 1];
    const ALONG_Z: [usize; 3] = [0, 1, 2];
    const PER_DIRECTION: bool = false;
    /// `(m_n, m_n u_n + a^2 rho, m_t u_n)`.
    #[inline(always)]
    fn flux(c: f64, q: &[f64; 3]) -> [f64; 3] {
        let a2 = c * c;
        let un = q[1] / q[0];
        [q[1], q[1] * un + a2 * q[0], q[2] * un]
    }
    #[inline(always)]
    fn max_speed(c: f64, q: &[f64; 3]) -> f64 {
        (q[1] / q[0]).abs() + c
    }
    #[inline(always)]
    fn wave_speeds(c: f64, q: &[f64; 3]) -> (f64, f64) {
        let un = q[1] / q[0];
        (un - c, un + c)
    }
    #[inline(always)]
    fn positive(_c: f64, q: &[f64; 3]) -> f64 {
        q[0]
    }
}

/// The compressible Euler equations of an ideal gas in 2D, `(rho, m_n,
/// m_t, E)`, `c = gamma`.
#[device]
pub struct IdealGas;

/// The pressure of an ideal gas of ratio `gamma` in the state `(rho, m_n,
/// m_t, E)`.
#[device]
#[inline(always)]
pub fn gas_pressure(gamma: f64, q: &[f64; 4]) -> f64 {
    (gamma - 1.0) * (q[3] - 0.5 * (q[1] * q[1] + q[2] * q[2]) / q[0])
}

#[device]
impl Law<4> for IdealGas {
    const ALONG_Y: [usize; 4] = [0, 2, 1, 3];
    const ALONG_Z: [usize; 4] = [0, 1, 2, 3];
    const PER_DIRECTION: bool = false;
    /// `(m_n, m_n u_n + p, m_t u_n, (E + p) u_n)`.
    #[inline(always)]
    fn flux(c: f64, q: &[f64; 4]) -> [f64; 4] {
        let un = q[1] / q[0];
        let p = gas_pressure(c, q);
        [q[1], q[1] * un + p, q[2] * un, (q[3] + p) * un]
    }
    #[inline(always)]
    fn max_speed(c: f64, q: &[f64; 4]) -> f64 {
        let p = gas_pressure(c, q);
        (q[1] / q[0]).abs() + (c * p / q[0]).sqrt()
    }
    #[inline(always)]
    fn wave_speeds(c: f64, q: &[f64; 4]) -> (f64, f64) {
        let un = q[1] / q[0];
        let cs = (c * gas_pressure(c, q) / q[0]).sqrt();
        (un - cs, un + cs)
    }
    #[inline(always)]
    fn positive(c: f64, q: &[f64; 4]) -> f64 {
        q[0].min(gas_pressure(c, q))
    }
}

/// The isothermal Euler equations in 3D, `(rho, m_n, m_t1, m_t2)`, `c =
/// a`.
#[device]
pub struct Isothermal3;

#[device]
impl Law<4> for Isothermal3 {
    const ALONG_Y: [usize; 4] = [0, 2, 1, 3];
    const ALONG_Z: [usize; 4] = [0, 3, 1, 2];
    const PER_DIRECTION: bool = false;
    /// `(m_n, m_n u_n + a^2 rho, m_t1 u_n, m_t2 u_n)`.
    #[inline(always)]
    fn flux(c: f64, q: &[f64; 4]) -> [f64; 4] {
        let a2 = c * c;
        let un = q[1] / q[0];
        [q[1], q[1] * un + a2 * q[0], q[2] * un, q[3] * un]
    }
    #[inline(always)]
    fn max_speed(c: f64, q: &[f64; 4]) -> f64 {
        (q[1] / q[0]).abs() + c
    }
    #[inline(always)]
    fn wave_speeds(c: f64, q: &[f64; 4]) -> (f64, f64) {
        let un = q[1] / q[0];
        (un - c, un + c)
    }
    #[inline(always)]
    fn positive(_c: f64, q: &[f64; 4]) -> f64 {
        q[0]
    }
}

/// The compressible Euler equations of an ideal gas in 3D, `(rho, m_n,
/// m_t1, m_t2, E)`, `c = gamma`.
#[device]
pub struct IdealGas3;

/// The pressure of an ideal gas of ratio `gamma` in the 3D state `(rho,
/// m_n, m_t1, m_t2, E)`.
#[device]
#[inline(always)]
pub fn gas_pressure_3d(gamma: f64, q: &[f64; 5]) -> f64 {
    (gamma - 1.0) * (q[4] - 0.5 * (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) / q[0])
}

#[device]
impl Law<5> for IdealGas3 {
    const ALONG_Y: [usize; 5] = [0, 2, 1, 3, 4];
    const ALONG_Z: [usize; 5] = [0, 3, 1, 2, 4];
    const PER_DIRECTION: bool = false;
    /// `(m_n, m_n u_n + p, m_t1 u_n, m_t2 u_n, (E + p) u_n)`.
    #[inline(always)]
    fn flux(c: f64, q: &[f64; 5]) -> [f64; 5] {
        let un = q[1] / q[0];
        let p = gas_pressure_3d(c, q);
        [q[1], q[1] * un + p, q[2] * un, q[3] * un, (q[4] + p) * un]
    }
    #[inline(always)]
    fn max_speed(c: f64, q: &[f64; 5]) -> f64 {
        let p = gas_pressure_3d(c, q);
        (q[1] / q[0]).abs() + (c * p / q[0]).sqrt()
    }
    #[inline(always)]
    fn wave_speeds(c: f64, q: &[f64; 5]) -> (f64, f64) {
        let un = q[1] / q[0];
        let cs = (c * gas_pressure_3d(c, q) / q[0]).sqrt();
        (un - cs, un + cs)
    }
    #[inline(always)]
    fn positive(c: f64, q: &[f64; 5]) -> f64 {
        q[0].min(gas_pressure_3d(c, q))
    }
}

/// Linear advection `u_t + a . grad u = 0`, one variable; the parameter
/// `c` is the velocity along the line's direction (per direction). Its
/// Lax-Friedrichs flux is the upwind flux.
#[device]
pub struct Advection;

#[device]
impl Law<1> for Advection {
    const ALONG_Y: [usize; 1] = [0];
    const ALONG_Z: [usize; 1] = [0];
    const PER_DIRECTION: bool = true;
    /// `a u`.
    #[inline(always)]
    fn flux(c: f64, q: &[f64; 1]) -> [f64; 1] {
        [c * q[0]]
    }
    #[inline(always)]
    fn max_speed(c: f64, _q: &[f64; 1]) -> f64 {
        c.abs()
    }
    #[inline(always)]
    fn wave_speeds(c: f64, _q: &[f64; 1]) -> (f64, f64) {
        (c, c)
    }
    /// The advected value (nothing need stay positive: the diagnostics of
    /// advection are its norm).
    #[inline(always)]
    fn positive(_c: f64, q: &[f64; 1]) -> f64 {
        q[0]
    }
}

/// The face flux between the states `l` and `r`: `F` 0 the local
/// Lax-Friedrichs (Rusanov) flux, the mean of the two fluxes less `lambda /
/// 2 (r - l)` with `lambda` the larger of the two sides' largest wave
/// speeds; 1 the HLL flux with Davis's wave speed estimates (the slowest
/// and fastest of the two sides'). A constant, not a value read at run
/// time: each choice is its own copy of the kernels that call it (with
/// the choice made per face, the compiler computed HLL's terms for
/// Lax-Friedrichs faces too, and 3D cells ran 1.5-2 times longer).
#[device]
#[inline(always)]
pub fn face_flux<L: Law<NV>, const NV: usize, const F: usize>(
    c: f64,
    l: &[f64; NV],
    r: &[f64; NV],
) -> [f64; NV] {
    let fl = L::flux(c, l);
    let fr = L::flux(c, r);
    let mut f = [0.0; NV];
    if F == 0 {
        let lambda = L::max_speed(c, l).max(L::max_speed(c, r));
        for v in 0..NV {
            f[v] = 0.5 * (fl[v] + fr[v]) - 0.5 * lambda * (r[v] - l[v]);
        }
    } else {
        let (sl0, sr0) = L::wave_speeds(c, l);
        let (sl1, sr1) = L::wave_speeds(c, r);
        let sl = sl0.min(sl1);
        let sr = sr0.max(sr1);
        if sl >= 0.0 {
            f = fl;
        } else if sr <= 0.0 {
            f = fr;
        } else {
            for v in 0..NV {
                f[v] = (sr * fl[v] - sl * fr[v] + sl * sr * (r[v] - l[v])) / (sr - sl);
            }
        }
    }
    f
}
