//! The 2D right-hand-side kernels of every order (advection, isothermal
//! and compressible Euler) against a straightforward transcription of the
//! strong-form DGSEM, to the bit (the systems' over the law's flux and
//! face flux).
//!
//! The kernels run their node loops in one of two orders per order and
//! equation (line by line, or with the loop over the nodes innermost:
//! `kernels::rows_first`, `euler::iso_rows_first`, `gas::gas_rows_first`),
//! chosen for the code
//! the compiler makes of them; each node's sum must keep the same terms
//! in the same order either way. The transcription below sums, for each
//! node of each line, `sum_k D_ik (f_k - f_i)` over `k` ascending from 0,
//! then adds the last face's term and subtracts the first's, and scales
//! by `-2/h` (x first, then y subtracted), as the kernels' documentation
//! states: any reordering inside a kernel shows as a difference in the
//! last bits.

use qflow_dg::laws::{face_flux, IdealGas, Isothermal, Law};
use qflow_dg::tables::{GLL_D, GLL_W};
use qflow_par::Offsets;

/// A small deterministic generator of values in `[lo, hi)`.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
    }
}

fn d(n: usize, i: usize, k: usize) -> f64 {
    GLL_D[64 * (n - 1) + 8 * i + k]
}

fn w(n: usize, i: usize) -> f64 {
    GLL_W[8 * (n - 1) + i]
}

/// The bracket along one line: `f` the nodes' fluxes, `face_r` and
/// `face_l` the face fluxes at the last and first node.
fn line(n: usize, f: &[f64], face_l: f64, face_r: f64) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let mut s = 0.0;
            for k in 0..n {
                s += d(n, i, k) * (f[k] - f[i]);
            }
            if i == n - 1 {
                s += (face_r - f[n - 1]) / w(n, n - 1);
            }
            if i == 0 {
                s -= (face_l - f[0]) / w(n, 0);
            }
            s
        })
        .collect()
}

/// A 3 x 3 block of cells of `len` values each (the middle one at 4).
/// The upwind flux of linear advection at speed `a` between `l` and `r`,
/// written as the Lax-Friedrichs flux `(a l + a r) / 2 - |a| (r - l) / 2`
/// (the form the kernels had before they were written over a law).
fn lf_flux(a: f64, l: f64, r: f64) -> f64 {
    0.5 * (a * l + a * r) - 0.5 * a.abs() * (r - l)
}

fn block(len: usize, seed: u64, value: impl Fn(&mut Lcg, usize) -> f64) -> Vec<f64> {
    let mut g = Lcg(seed);
    (0..9 * len).map(|m| value(&mut g, m % len)).collect()
}

/// The 2D right-hand side of the middle cell (4) of a 3 x 3 block for
/// the law `L`, by the transcription: `at(cell, i, j)` the stored state at
/// node `(i, j)`, `p` the kernels' global (`p[1]` the law's parameter,
/// `p[2]` the face flux).
fn system_2d<L: Law<NV>, const NV: usize>(
    n: usize,
    p: [f64; 5],
    at: impl Fn(usize, usize, usize) -> [f64; NV],
) -> Vec<f64> {
    let nn = n * n;
    let (c, kind) = (p[1], p[2]);
    // Along y the line's state is the stored one in `L::ALONG_Y`'s order.
    let y = |s: [f64; NV]| std::array::from_fn::<f64, NV, _>(|v| s[L::ALONG_Y[v]]);
    let face = |l: [f64; NV], r: [f64; NV]| {
        if kind == 0.0 {
            face_flux::<L, NV, 0>(c, &l, &r)
        } else {
            face_flux::<L, NV, 1>(c, &l, &r)
        }
    };
    let mut want = vec![0.0; NV * nn];
    for j in 0..n {
        let f: Vec<[f64; NV]> = (0..n).map(|i| L::flux(c, &at(4, i, j))).collect();
        let fr = face(at(4, n - 1, j), at(5, 0, j));
        let fl = face(at(3, n - 1, j), at(4, 0, j));
        for v in 0..NV {
            let fv: Vec<f64> = f.iter().map(|x| x[v]).collect();
            for (i, b) in line(n, &fv, fl[v], fr[v]).into_iter().enumerate() {
                want[nn * v + n * j + i] = -p[3] * b;
            }
        }
    }
    for i in 0..n {
        let f: Vec<[f64; NV]> = (0..n).map(|j| L::flux(c, &y(at(4, i, j)))).collect();
        let fr = face(y(at(4, i, n - 1)), y(at(7, i, 0)));
        let fl = face(y(at(1, i, n - 1)), y(at(4, i, 0)));
        for v in 0..NV {
            let fv: Vec<f64> = f.iter().map(|x| x[v]).collect();
            for (j, b) in line(n, &fv, fl[v], fr[v]).into_iter().enumerate() {
                want[nn * L::ALONG_Y[v] + n * j + i] -= p[4] * b;
            }
        }
    }
    want
}

macro_rules! orders {
    ($($m:ident = $n:literal),*) => {$(
        mod $m {
            use super::*;
            use qflow_dg::$m::euler::{iso_lserk_2d, iso_rhs_2d, Euler2, IsoWork2};
            use qflow_dg::$m::gas::{gas_rhs_2d, Gas2, GasWork2};
            use qflow_dg::$m::kernels::{rhs_2d, Cell2};

            const N: usize = $n;

            fn cells<const L: usize>(v: &[f64]) -> Vec<[f64; L]> {
                v.chunks(L).map(|c| c.try_into().unwrap()).collect()
            }

            #[test]
            fn advection_2d_equals_the_transcription() {
                let (ax, ay) = (0.7, -1.3);
                let p = [N as f64, ax, ay, 2.0 / 0.3, 2.0 / 0.2];
                for seed in 1..4 {
                    let v = block(N * N, seed, |g, _| g.next(-1.0, 1.0));
                    let c: Vec<Cell2> = cells(&v);
                    let mut r = [0.0; N * N];
                    rhs_2d(p, Offsets::new(&c, 4, 3, 0), &mut r);
                    // The middle cell's node (i, j) and its neighbours'.
                    let at = |cell: usize, i: usize, j: usize| c[cell][N * j + i];
                    let mut want = [0.0; N * N];
                    for j in 0..N {
                        let f: Vec<f64> = (0..N).map(|i| ax * at(4, i, j)).collect();
                        let fr = lf_flux(ax, at(4, N - 1, j), at(5, 0, j));
                        let fl = lf_flux(ax, at(3, N - 1, j), at(4, 0, j));
                        for (i, b) in line(N, &f, fl, fr).into_iter().enumerate() {
                            want[N * j + i] = -p[3] * b;
                        }
                    }
                    for i in 0..N {
                        let f: Vec<f64> = (0..N).map(|j| ay * at(4, i, j)).collect();
                        let fr = lf_flux(ay, at(4, i, N - 1), at(7, i, 0));
                        let fl = lf_flux(ay, at(1, i, N - 1), at(4, i, 0));
                        for (j, b) in line(N, &f, fl, fr).into_iter().enumerate() {
                            want[N * j + i] -= p[4] * b;
                        }
                    }
                    for m in 0..N * N {
                        assert_eq!(r[m].to_bits(), want[m].to_bits(), "n = {N}, value {m}: {} against {}", r[m], want[m]);
                    }
                }
            }

            #[test]
            fn isothermal_euler_2d_equals_the_transcription() {
                let a = 0.9;
                let p = [N as f64, a, 0.0, 2.0 / 0.3, 2.0 / 0.2];
                let nn = N * N;
                for seed in 1..4 {
                    let v = block(3 * nn, seed, |g, m| {
                        if m < nn { g.next(0.5, 2.0) } else { g.next(-0.8, 0.8) }
                    });
                    let c: Vec<Euler2> = cells(&v);
                    let mut r = [0.0; 3 * N * N];
                    iso_rhs_2d(p, Offsets::new(&c, 4, 3, 0), &mut r, &mut IsoWork2::new());
                    // Node (i, j) of a cell as (rho, rho u, rho v).
                    let at = |cell: usize, i: usize, j: usize| {
                        let m = N * j + i;
                        [c[cell][m], c[cell][nn + m], c[cell][2 * nn + m]]
                    };
                    let want = system_2d::<Isothermal, 3>(N, p, at);
                    for m in 0..3 * nn {
                        assert_eq!(r[m].to_bits(), want[m].to_bits(), "n = {N}, value {m}: {} against {}", r[m], want[m]);
                    }
                }
            }

            #[test]
            fn ideal_gas_2d_equals_the_transcription() {
                let nn = N * N;
                for (seed, flux) in [(1, 0.0), (2, 1.0), (3, 1.0)] {
                    let p = [N as f64, 1.4, flux, 2.0 / 0.3, 2.0 / 0.2];
                    // Densities and energies high enough for a positive
                    // pressure; momenta of both signs (HLL's three cases).
                    let v = block(4 * nn, seed, |g, m| match m / nn {
                        0 => g.next(0.5, 2.0),
                        3 => g.next(3.0, 6.0),
                        _ => g.next(-2.5, 2.5),
                    });
                    let c: Vec<Gas2> = cells(&v);
                    let mut r = [0.0; 4 * N * N];
                    gas_rhs_2d(p, Offsets::new(&c, 4, 3, 0), &mut r, &mut GasWork2::new());
                    let at = |cell: usize, i: usize, j: usize| {
                        let m = N * j + i;
                        std::array::from_fn::<f64, 4, _>(|v| c[cell][nn * v + m])
                    };
                    let want = system_2d::<IdealGas, 4>(N, p, at);
                    for m in 0..4 * nn {
                        assert_eq!(r[m].to_bits(), want[m].to_bits(), "n = {N}, flux {flux}, value {m}: {} against {}", r[m], want[m]);
                    }
                }
            }

            /// A low-storage stage (2D Euler) is the right-hand side and
            /// the update `k = A k + dt r`, `un = u + B k`, to the bit,
            /// whatever its work space held before (fresh, NaN, another
            /// cell's values: the layer keeps one per chunk of cells).
            #[test]
            fn isothermal_euler_2d_stage_ignores_its_work_space() {
                let p = [N as f64, 0.9, 0.0, 2.0 / 0.3, 2.0 / 0.2];
                let st = [-0.41, 0.73, 1e-2];
                let nn = N * N;
                let v = block(3 * nn, 7, |g, m| {
                    if m < nn { g.next(0.5, 2.0) } else { g.next(-0.8, 0.8) }
                });
                let c: Vec<Euler2> = cells(&v);
                let mut r = [0.0; 3 * N * N];
                iso_rhs_2d(p, Offsets::new(&c, 4, 3, 0), &mut r, &mut IsoWork2::new());
                let k0: Euler2 = std::array::from_fn(|m| 0.01 * m as f64 - 0.3);
                let mut stale = IsoWork2::new();
                stale.r = [f64::NAN; 3 * N * N];
                stale.g = [[f64::NAN; 64]; 3];
                let mut other = IsoWork2::new();
                other.r = [7.5; 3 * N * N];
                other.g = [[-3.25; 64]; 3];
                for mut w in [IsoWork2::new(), stale, other] {
                    let mut k = k0;
                    let mut un = [0.0; 3 * N * N];
                    iso_lserk_2d(p, st, Offsets::new(&c, 4, 3, 0), &mut k, &mut un, &mut w);
                    for m in 0..3 * nn {
                        let kw = st[0] * k0[m] + st[2] * r[m];
                        let uw = c[4][m] + st[1] * kw;
                        assert_eq!(k[m].to_bits(), kw.to_bits(), "n = {N}, k value {m}");
                        assert_eq!(un[m].to_bits(), uw.to_bits(), "n = {N}, u value {m}");
                    }
                }
            }
        }
    )*};
}

orders!(
    o1 = 1,
    o2 = 2,
    o3 = 3,
    o4 = 4,
    o5 = 5,
    o6 = 6,
    o7 = 7,
    o8 = 8
);
