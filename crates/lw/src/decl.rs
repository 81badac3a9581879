//! The Lax-Wendroff method's data and loops, declared once for the
//! execution layer.
//!
//! | loop | reads | writes |
//! |---|---|---|
//! | `filter_{paper,conservative}_{x,y}` | `kind`, `u` at the sweep's neighbours | `w` |
//! | `lw_{x,y}` | `kind`, `w` at the sweep's neighbours (and the ghosts' sources) | `u` |
//! | `lw_x_residue` (a step's last sweep) | the same and `u0` | `u`; maxima: `change`, `bad` |
//! | `wave_speed` | `kind`, `u` | max: `speed` |
//! | `sweep_x_{paper,conservative}` (a step's first sweep along x) | `kind`; `u0` at the sweep's neighbours | `w` |
//! | `sweep_y_{paper,conservative}_to_{u,w}` | `kind`, `w` (`u`) at the rows around | `u` (`w`) |
//! | `sweep_x_residue_{paper,conservative}` (a step's last sweep) | `kind`; `w` at the sweep's neighbours; `u0` | `u`; maxima: `change`, `bad` |
//!
//! The `sweep_` loops are whole sweeps (filter and update in one pass, the
//! filtered states never stored) as the layer's line loops, one row per
//! call, along x and along y alike ([`crate::lines`]): the CPU backends
//! run them, OpenCL the element loops; both give the same bits.
//!
//! The cells are one structured block of `(nx + 4) x (ny + 4)` cells (two
//! ghost rows on each side), held as `(nx + 4) / 4 x (ny + 4)` elements of
//! 4 cells along x ([`crate::kernels`]); neighbours are reached by offsets,
//! so the layer derives the halos a distributed run exchanges.

use qflow_par::{par_loop, DatDecl, GlobalDecl, Reduction, Role, SetDecl, StencilDecl};

use crate::kernels::{
    filter_conservative_x, filter_conservative_y, filter_paper_x, filter_paper_y, lw_x,
    lw_x_residue, lw_y, wave_speed,
};
use crate::lines::{
    sweep_x_conservative, sweep_x_paper, sweep_x_residue_conservative, sweep_x_residue_paper,
    sweep_y_conservative_to_u, sweep_y_conservative_to_w, sweep_y_paper_to_u, sweep_y_paper_to_w,
    Lines,
};

/// The grid's cells with their ghost rows, in elements of 4 cells along x
/// ([`crate::kernels::LANES`]).
pub static CELLS: SetDecl = SetDecl { name: "cells" };

/// A filter along x: the element and its neighbours along x (the two
/// cells each side of its cells lie in them).
pub static FILTER_X_AT: StencilDecl = StencilDecl {
    name: "filter_x",
    set: &CELLS,
    offsets: &[[-1, 0, 0], [0, 0, 0], [1, 0, 0]],
};
/// The paper's filter along y.
pub static FILTER_PAPER_Y_AT: StencilDecl = StencilDecl {
    name: "filter_paper_y",
    set: &CELLS,
    offsets: &[[0, -1, 0], [0, 0, 0], [0, 1, 0]],
};
/// The conservative filter along y: two rows each side (the switches at
/// the neighbours).
pub static FILTER_CONSERVATIVE_Y_AT: StencilDecl = StencilDecl {
    name: "filter_conservative_y",
    set: &CELLS,
    offsets: &[[0, -2, 0], [0, -1, 0], [0, 0, 0], [0, 1, 0], [0, 2, 0]],
};
/// The x update: the element's x neighbours; a bottom ghost row's source
/// row (up to 3 up) and its x neighbours. Also the whole sweeps along x
/// (`sweep_x_*`): the filter's reach (two cells each side) and the
/// update's (one more) lie in the x neighbours.
pub static LW_X_AT: StencilDecl = StencilDecl {
    name: "lw_x",
    set: &CELLS,
    offsets: &[
        [-1, 0, 0],
        [0, 0, 0],
        [1, 0, 0],
        [-1, 1, 0],
        [0, 1, 0],
        [1, 1, 0],
        [-1, 2, 0],
        [0, 2, 0],
        [1, 2, 0],
        [-1, 3, 0],
        [0, 3, 0],
        [1, 3, 0],
    ],
};
/// The y update: the element's y neighbours; a bottom ghost row's source
/// row (up to 3 up) and its y neighbours (up to 4 up).
pub static LW_Y_AT: StencilDecl = StencilDecl {
    name: "lw_y",
    set: &CELLS,
    offsets: &[
        [0, -1, 0],
        [0, 0, 0],
        [0, 1, 0],
        [0, 2, 0],
        [0, 3, 0],
        [0, 4, 0],
    ],
};

/// Where an element lies: `[ex, ky]` ([`crate::kernels`]).
pub static KIND: DatDecl = DatDecl::i32("kind", &CELLS, 2, Role::Input);
/// The conserved states `[rho, rho u, rho v, rho E]` of the element's 4
/// cells, component by component: the solution.
pub static U: DatDecl = DatDecl::f64("u", &CELLS, 16, Role::State);
/// The filtered states of a sweep.
pub static W: DatDecl = DatDecl::f64("w", &CELLS, 16, Role::Scratch);
/// The state at the start of the step (put back if the step fails): the
/// method swaps `u` and `u0` after the step's first filter, so the first
/// update writes the new state into what was `u0`'s memory and no copy is
/// made.
pub static U0: DatDecl = DatDecl::f64("u0", &CELLS, 16, Role::Scratch);

/// `[gamma, gamma - 1]`.
pub static GAS: GlobalDecl = GlobalDecl::f64("gas", 2);
/// `[dt/2 / dx, dt/2 / dy, eta_x / 2, eta_y / 2]` of the step.
pub static SWEEP: GlobalDecl = GlobalDecl::f64("sweep", 4);
/// Region 1's state, region 2's state, the wall (1 mirror, 0 paper).
pub static BC: GlobalDecl = GlobalDecl::f64("bc", 9);
/// The largest `|q| + c`.
pub static SPEED: GlobalDecl = GlobalDecl::reduce("speed", 1, Reduction::Max);
/// The largest change of density over a step.
pub static CHANGE: GlobalDecl = GlobalDecl::reduce("change", 1, Reduction::Max);
/// 1 if an interior cell's state is not physical.
pub static BAD: GlobalDecl = GlobalDecl::reduce("bad", 1, Reduction::Max);

par_loop! {
    /// The paper's filter along x.
    pub static FILTER_PAPER_X = filter_paper_x over CELLS {
        sweep: global(SWEEP),
        kind: read(KIND),
        u: read(U at FILTER_X_AT),
        w: write(W),
    }
}
par_loop! {
    /// The paper's filter along y.
    pub static FILTER_PAPER_Y = filter_paper_y over CELLS {
        sweep: global(SWEEP),
        kind: read(KIND),
        u: read(U at FILTER_PAPER_Y_AT),
        w: write(W),
    }
}
par_loop! {
    /// The conservative filter along x.
    pub static FILTER_CONSERVATIVE_X = filter_conservative_x over CELLS {
        sweep: global(SWEEP),
        kind: read(KIND),
        u: read(U at FILTER_X_AT),
        w: write(W),
    }
}
par_loop! {
    /// The conservative filter along y.
    pub static FILTER_CONSERVATIVE_Y = filter_conservative_y over CELLS {
        sweep: global(SWEEP),
        kind: read(KIND),
        u: read(U at FILTER_CONSERVATIVE_Y_AT),
        w: write(W),
    }
}
par_loop! {
    /// The Lax-Wendroff update along x.
    pub static LW_X = lw_x over CELLS {
        gas: global(GAS),
        sweep: global(SWEEP),
        bc: global(BC),
        kind: read(KIND),
        w: read(W at LW_X_AT),
        u: write(U),
    }
}
par_loop! {
    /// The Lax-Wendroff update along y.
    pub static LW_Y = lw_y over CELLS {
        gas: global(GAS),
        sweep: global(SWEEP),
        bc: global(BC),
        kind: read(KIND),
        w: read(W at LW_Y_AT),
        u: write(U),
    }
}
par_loop! {
    /// The largest wave speed inside.
    pub static WAVE_SPEED = wave_speed over CELLS {
        gas: global(GAS),
        kind: read(KIND),
        u: read(U),
        speed: max(SPEED),
    }
}
par_loop! {
    /// The Lax-Wendroff update along x ending a step: the step's density
    /// change and the count of non-physical cells.
    pub static LW_X_RESIDUE = lw_x_residue over CELLS {
        gas: global(GAS),
        sweep: global(SWEEP),
        bc: global(BC),
        kind: read(KIND),
        w: read(W at LW_X_AT),
        u0: read(U0),
        u: write(U),
        change: max(CHANGE),
        bad: max(BAD),
    }
}

/// A whole sweep along y, a row at a time, as a line loop: the rows from
/// 3 below to 3 above the source row (the update's neighbours, their
/// filters' neighbours and the conservative filter's switches one
/// further), the source row up to 3 up (a bottom ghost row's).
pub static SWEEP_Y_AT: StencilDecl = StencilDecl {
    name: "sweep_y",
    set: &CELLS,
    offsets: &[
        [0, -3, 0],
        [0, -2, 0],
        [0, -1, 0],
        [0, 0, 0],
        [0, 1, 0],
        [0, 2, 0],
        [0, 3, 0],
        [0, 4, 0],
        [0, 5, 0],
        [0, 6, 0],
    ],
};

macro_rules! sweep_loops {
    ($($(#[$m:meta])* $name:ident = $kernel:ident: $from:ident -> $to:ident;)*) => {$(
        par_loop! {
            $(#[$m])*
            pub static $name = $kernel over CELLS along x {
                gas: global(GAS),
                sweep: global(SWEEP),
                bc: global(BC),
                kind: read(KIND),
                u: read($from at LW_X_AT),
                out: write($to),
            }
        }
    )*};
}

sweep_loops! {
    /// The step's first sweep along x with the paper's filter (`u0` into
    /// `w`), row by row.
    SWEEP_X_PAPER = sweep_x_paper: U0 -> W;
    /// The step's first sweep along x with the conservative filter.
    SWEEP_X_CONSERVATIVE = sweep_x_conservative: U0 -> W;
}

macro_rules! sweep_y_loops {
    ($($(#[$m:meta])* $name:ident = $kernel:ident: $from:ident -> $to:ident;)*) => {$(
        par_loop! {
            $(#[$m])*
            pub static $name = $kernel over CELLS along x {
                gas: global(GAS),
                sweep: global(SWEEP),
                bc: global(BC),
                kind: read(KIND at SWEEP_Y_AT),
                u: read($from at SWEEP_Y_AT),
                out: write($to),
                lines: scratch(Lines::new),
            }
        }
    )*};
}

sweep_y_loops! {
    /// The step's first sweep along y with the paper's filter (`w` into
    /// `u`), row by row.
    SWEEP_Y_PAPER_TO_U = sweep_y_paper_to_u: W -> U;
    /// The step's second sweep along y with the paper's filter (`u` into
    /// `w`).
    SWEEP_Y_PAPER_TO_W = sweep_y_paper_to_w: U -> W;
    /// The step's first sweep along y with the conservative filter.
    SWEEP_Y_CONSERVATIVE_TO_U = sweep_y_conservative_to_u: W -> U;
    /// The step's second sweep along y with the conservative filter.
    SWEEP_Y_CONSERVATIVE_TO_W = sweep_y_conservative_to_w: U -> W;
}

macro_rules! sweep_x_residue_loops {
    ($($(#[$m:meta])* $name:ident = $kernel:ident;)*) => {$(
        par_loop! {
            $(#[$m])*
            pub static $name = $kernel over CELLS along x {
                gas: global(GAS),
                sweep: global(SWEEP),
                bc: global(BC),
                kind: read(KIND),
                u: read(W at LW_X_AT),
                u0: read(U0),
                out: write(U),
                change: max(CHANGE),
                bad: max(BAD),
            }
        }
    )*};
}

sweep_x_residue_loops! {
    /// The step's last sweep along x with the paper's filter (`w` into
    /// `u`), row by row, measuring the step against `u0`.
    SWEEP_X_RESIDUE_PAPER = sweep_x_residue_paper;
    /// The step's last sweep along x with the conservative filter.
    SWEEP_X_RESIDUE_CONSERVATIVE = sweep_x_residue_conservative;
}

qflow_par::method_lists! {
    /// Every loop of the method.
    pub static LOOPS = [
        &FILTER_PAPER_X,
        &FILTER_PAPER_Y,
        &FILTER_CONSERVATIVE_X,
        &FILTER_CONSERVATIVE_Y,
        &LW_X,
        &LW_Y,
        &LW_X_RESIDUE,
        &WAVE_SPEED,
        &SWEEP_X_PAPER,
        &SWEEP_X_CONSERVATIVE,
        &SWEEP_Y_PAPER_TO_U,
        &SWEEP_Y_PAPER_TO_W,
        &SWEEP_Y_CONSERVATIVE_TO_U,
        &SWEEP_Y_CONSERVATIVE_TO_W,
        &SWEEP_X_RESIDUE_PAPER,
        &SWEEP_X_RESIDUE_CONSERVATIVE,
    ];
    /// Every dat of the method (those its loops name).
    pub static DATS;
    /// Every global of the method.
    pub static GLOBALS;
}
