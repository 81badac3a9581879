//! The vector runners against the kernels element by element, on
//! arguments bound by hand with awkward values: edges whose two cells
//! are one, sides of zero length, momenta of -0.0, subnormal states,
//! spans that are no multiple of 4.

use std::sync::Mutex;

use qflow_par::kernel::{Partials, RawDat, MAX_CONST};

use super::*;
use crate::kernels::{adt_calc, res_calc};
use qflow_par::Star;

/// A small deterministic generator (no dependency for a test).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() * n as f64) as usize % n
    }
}

const GAS: [f64; 4] = [1.4, 0.4, 0.9, 0.05];

fn gas() -> RawArg {
    let mut f = [0.0; MAX_CONST];
    f[..4].copy_from_slice(&GAS);
    RawArg::Const {
        ty: ElemType::F64,
        f,
        i: [0; MAX_CONST],
        dim: 4,
    }
}

fn dat<T>(v: &mut [T], dim: usize) -> RawDat {
    RawDat {
        ptr: v.as_mut_ptr() as *mut u8,
        ty: ElemType::F64,
        dim,
        len: v.len(),
        stride: 0,
    }
}

fn mapped(dat: RawDat, access: Access, map: &[u32], arity: usize, slot: usize) -> RawArg {
    RawArg::Map {
        dat,
        access,
        map: map.as_ptr(),
        arity,
        slot,
        rows: map.len() / arity,
        adds: Adds::Plain,
    }
}

/// States with positive density and pressure, some with -0.0 or
/// subnormal momenta.
fn states(r: &mut Lcg, n: usize) -> Vec<[f64; 4]> {
    (0..n)
        .map(|k| {
            let rho = 0.5 + r.next();
            let (mut u, mut v) = (r.next() - 0.5, r.next() - 0.5);
            match k % 5 {
                0 => u = -0.0,
                1 => v = 1e-310,
                2 => (u, v) = (0.0, -0.0),
                _ => {}
            }
            [rho, rho * u, rho * v, 2.0 + r.next()]
        })
        .collect()
}

fn nodes(r: &mut Lcg, n: usize) -> Vec<[f64; 2]> {
    // Every third node on top of the one before (sides of length 0).
    let mut x: Vec<[f64; 2]> = (0..n).map(|_| [r.next(), r.next()]).collect();
    for k in (3..n).step_by(3) {
        x[k] = x[k - 1];
    }
    x
}

/// A failing runner: the vector path must not fall back here.
fn never(_: &LoopArgs<'_>, _: &[Range<usize>]) {
    panic!("fell back to the generated runner");
}

/// `res_calc` over `spans` by the vector runner against the kernel edge
/// by edge, each increment into a zeroed local value and then into its
/// cell (the generated runner), from residuals `res0`; with `own`, only
/// into the cells `lo..hi` (an owner-compute part's).
#[allow(clippy::too_many_arguments)]
fn same_residuals(
    own: Option<(u32, u32)>,
    mut x: Vec<[f64; 2]>,
    mut q: Vec<[f64; 4]>,
    mut adt: Vec<f64>,
    pedge: &[u32],
    pecell: &[u32],
    res0: &[[f64; 4]],
    spans: &[Range<usize>],
) {
    let mut want = res0.to_vec();
    for span in spans {
        for e in span.clone() {
            let (c1, c2) = (pecell[2 * e] as usize, pecell[2 * e + 1] as usize);
            let (n1, n2) = (pedge[2 * e] as usize, pedge[2 * e + 1] as usize);
            let (mut r1, mut r2) = ([0.0; 4], [0.0; 4]);
            res_calc(
                GAS, &x[n1], &x[n2], &q[c1], &q[c2], &adt[c1], &adt[c2], &mut r1, &mut r2,
            );
            let owned =
                |c: usize| own.is_none_or(|(lo, hi)| (lo as usize..hi as usize).contains(&c));
            if owned(c1) {
                for k in 0..4 {
                    want[c1][k] += r1[k];
                }
            }
            if owned(c2) {
                for k in 0..4 {
                    want[c2][k] += r2[k];
                }
            }
        }
    }
    let mut res = res0.to_vec();
    let (xd, qd, ad, rd) = (
        dat(&mut x, 2),
        dat(&mut q, 4),
        dat(&mut adt, 1),
        dat(&mut res, 4),
    );
    let mut args = [
        gas(),
        mapped(xd, Access::Read, pedge, 2, 0),
        mapped(xd, Access::Read, pedge, 2, 1),
        mapped(qd, Access::Read, pecell, 2, 0),
        mapped(qd, Access::Read, pecell, 2, 1),
        mapped(ad, Access::Read, pecell, 2, 0),
        mapped(ad, Access::Read, pecell, 2, 1),
        mapped(rd, Access::Inc, pecell, 2, 0),
        mapped(rd, Access::Inc, pecell, 2, 1),
    ];
    if let Some((lo, hi)) = own {
        for arg in &mut args[7..] {
            if let RawArg::Map { adds, .. } = arg {
                *adds = Adds::Owned { lo, hi };
            }
        }
    }
    let sink = Mutex::new(Partials::new(&[]));
    res_calc_lanes(
        &LoopArgs {
            args: &args,
            sink: &sink,
        },
        spans,
        never,
    );
    for (c, (got, want)) in res.iter().zip(&want).enumerate() {
        for k in 0..4 {
            assert_eq!(
                got[k].to_bits(),
                want[k].to_bits(),
                "cell {c}, component {k}, owned {own:?}"
            );
        }
    }
    // Atomic increments, and increments through the two slots added
    // differently, are left to the generated runner.
    let mut atomic = args;
    for arg in &mut atomic[7..] {
        if let RawArg::Map { adds, .. } = arg {
            *adds = Adds::Atomic;
        }
    }
    let mut mixed = args;
    if let RawArg::Map { adds, .. } = &mut mixed[7] {
        *adds = Adds::Owned { lo: 0, hi: 3 };
    }
    for other in [atomic, mixed] {
        assert!(Bound::of(&LoopArgs {
            args: &other,
            sink: &sink
        })
        .is_none());
    }
}

#[test]
fn res_calc_four_edges_at_a_time_gives_the_kernels_bits() {
    if !qflow_par::kernel::use_avx2() {
        eprintln!("no AVX2 here");
        return;
    }
    let mut r = Lcg(7);
    let (cells, nn, edges) = (37, 41, 203);
    let x = nodes(&mut r, nn);
    let q = states(&mut r, cells);
    let adt: Vec<f64> = (0..cells).map(|_| r.next() + 0.1).collect();
    let pedge: Vec<u32> = (0..2 * edges).map(|_| r.below(nn) as u32).collect();
    let mut pecell: Vec<u32> = (0..2 * edges).map(|_| r.below(cells) as u32).collect();
    for e in (0..edges).step_by(7) {
        pecell[2 * e + 1] = pecell[2 * e]; // an edge between a cell and itself
    }
    let res0 = vec![[0.25; 4]; cells];
    // Every cell; every cell as one part's (each group of four edges
    // found all owned at once); a part of the cells (groups with cells of
    // both kinds, the increments one by one); no cell.
    for own in [None, Some((0, cells as u32)), Some((10, 25)), Some((5, 5))] {
        same_residuals(
            own,
            x.clone(),
            q.clone(),
            adt.clone(),
            &pedge,
            &pecell,
            &res0,
            &[0..5, 5..5, 5..103, 103..edges],
        );
    }
    // The groups in one part's cells: 8 edges among cells 0..4, owned.
    let near: Vec<u32> = (0..16).map(|k| (k % 4) as u32).collect();
    same_residuals(
        Some((0, 4)),
        x.clone(),
        q.clone(),
        adt.clone(),
        &pedge[..16],
        &near,
        &res0,
        &[0..4, 4..8],
    );
    // Four edges of length 0 between equal states: fluxes of +0.0 into
    // residuals of -0.0, where the second cell's `-0.0 + (0 - 0)` is
    // +0.0 and `-0.0 - 0` would stay -0.0.
    let pecell: Vec<u32> = (0..8).collect();
    same_residuals(
        None,
        vec![[0.5, 0.5]],
        vec![[1.0, -0.3, 0.2, 2.5]; 8],
        vec![0.7; 8],
        &[0; 8],
        &pecell,
        &[[-0.0; 4]; 8],
        &[0..4, 4..4],
    );
}

#[test]
fn adt_calc_four_cells_at_a_time_gives_the_kernels_bits() {
    if !qflow_par::kernel::use_avx2() {
        eprintln!("no AVX2 here");
        return;
    }
    let mut r = Lcg(11);
    let (cells, nn) = (58, 40);
    let mut x = nodes(&mut r, nn);
    let mut q = states(&mut r, cells);
    // Quadrilaterals, and in two groups of four a triangle or a hexagon
    // (those groups go cell by cell).
    let mut start = vec![0u32];
    let mut pcell = Vec::new();
    for c in 0..cells {
        let n = match c {
            9 => 3,
            30 => 6,
            _ => 4,
        };
        pcell.extend((0..n).map(|_| r.below(nn) as u32));
        start.push(pcell.len() as u32);
    }
    let spans = [0..3, 3..3, 3..29, 29..cells];
    let want: Vec<f64> = (0..cells)
        .map(|c| {
            let row = &pcell[start[c] as usize..start[c + 1] as usize];
            let mut a = 0.0;
            adt_calc(GAS, Star::of_row(&x, row), &q[c], &mut a);
            a
        })
        .collect();
    let mut adt = vec![f64::NAN; cells];
    let (xd, qd, ad) = (dat(&mut x, 2), dat(&mut q, 4), dat(&mut adt, 1));
    let mut args = vec![gas()];
    args.push(RawArg::Star {
        dat: xd,
        start: start.as_ptr(),
        idx: pcell.as_ptr(),
        rows: cells,
        own: false,
    });
    args.push(RawArg::Direct {
        dat: qd,
        access: Access::Read,
    });
    args.push(RawArg::Direct {
        dat: ad,
        access: Access::Write,
    });
    let sink = Mutex::new(Partials::new(&[]));
    adt_calc_lanes(
        &LoopArgs {
            args: &args,
            sink: &sink,
        },
        &spans,
        never,
    );
    for c in 0..cells {
        assert_eq!(adt[c].to_bits(), want[c].to_bits(), "cell {c}");
    }
    // A structure-of-arrays state is left to the generated runner.
    let mut soa = args.clone();
    if let RawArg::Direct { dat, .. } = &mut soa[2] {
        dat.stride = cells;
    }
    assert!(AdtBound::of(&LoopArgs {
        args: &soa,
        sink: &sink
    })
    .is_none());
}
