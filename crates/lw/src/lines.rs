//! Whole sweeps as line loops (the layer's line loops, [`qflow_par::Axis`]):
//! each sweep is ONE loop from one state dat into another, the artificial
//! viscosity filter computed on the fly (the filtered states are never
//! stored), so that a sweep reads its state and writes the new one once,
//! and every cell's switch, filtered state, flux and every interface's
//! half-point flux is computed once (the element loops of
//! [`crate::kernels`] compute a filter loop's result into `w` and, in the
//! update, an element's and its neighbours' fluxes and both its
//! interfaces).
//!
//! - **Along x** ([`sweep_x_paper`], ...): one call per row, element by
//!   element, each element's 4 cells as 4-wide vectors, a cell's
//!   neighbours the lanes beside it (shifted in from the next or previous
//!   element), what the next element needs carried in registers
//!   (`lines_x.rs`).
//! - **Along y** ([`sweep_y_paper_to_u`], ...): also one call per *row*
//!   (a line loop along x), the row's new values from the rows around it;
//!   what a row shares with the next one up (its filtered state, flux,
//!   half-point flux below and switches) is kept in [`Lines`] and reused
//!   when the call's next row is that one (as the serial backend, a
//!   thread's task or a rank's part of the rows runs them, bottom to top),
//!   else computed from the stencil. Each element's 4 cells are 4-wide
//!   vectors (no shuffles: along y the lanes never meet), AVX registers
//!   where the runner runs its AVX2 build, compiled for AVX-512 where the
//!   processor has it (`lines_y.rs`, `lanes.rs`).
//!
//! The step's last sweep along x also measures the step
//! ([`crate::kernels::residue`]),
//! an element at a time in the same vectors.
//!
//! Every value is the element kernels' expression with the same operands
//! in the same order, so the new states are their bits exactly, wherever
//! a line or a call starts. The CPU backends run these; OpenCL runs the
//! element loops.

use qflow_par::{LineOffsets, LineRead, LineWrite};

use crate::kernels::Cells;
use crate::lines_x::sweep_x;
use crate::lines_y::{sweep_y, Rows};

/// The line loops' scratch (made once for all the lines of a call): what
/// the y sweeps carry from a row to the next.
#[derive(Default)]
pub struct Lines {
    rows: Rows,
}

impl Lines {
    /// Nothing carried yet.
    pub fn new() -> Lines {
        Lines::default()
    }
}

macro_rules! sweep_x_kernels {
    ($($(#[$m:meta])* $name:ident, $cons:literal;)*) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name(
            gas: [f64; 2],
            sweep: [f64; 4],
            bc: [f64; 9],
            kind: LineRead<'_, [i32; 2]>,
            u: LineOffsets<'_, Cells>,
            mut out: LineWrite<'_, Cells>,
        ) {
            let (mut change, mut bad) = (0.0, 0.0);
            sweep_x::<$cons>(gas, sweep, &bc, &kind, &u, &mut out, None, &mut change, &mut bad);
        }
    )*};
}

sweep_x_kernels! {
    /// The step's first sweep along x with the paper's filter, a row.
    sweep_x_paper, false;
    /// The step's first sweep along x with the conservative filter, a row.
    sweep_x_conservative, true;
}

macro_rules! sweep_x_residue_kernels {
    ($($(#[$m:meta])* $name:ident, $cons:literal;)*) => {$(
        $(#[$m])*
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            gas: [f64; 2],
            sweep: [f64; 4],
            bc: [f64; 9],
            kind: LineRead<'_, [i32; 2]>,
            u: LineOffsets<'_, Cells>,
            u0: LineRead<'_, Cells>,
            mut out: LineWrite<'_, Cells>,
            change: &mut f64,
            bad: &mut f64,
        ) {
            sweep_x::<$cons>(gas, sweep, &bc, &kind, &u, &mut out, Some(&u0), change, bad);
        }
    )*};
}

sweep_x_residue_kernels! {
    /// The step's last sweep along x with the paper's filter, a row,
    /// measuring the step ([`crate::kernels::residue`]).
    sweep_x_residue_paper, false;
    /// The step's last sweep along x with the conservative filter, a row,
    /// measuring the step.
    sweep_x_residue_conservative, true;
}

macro_rules! sweep_y_kernels {
    ($($(#[$m:meta])* $name:ident, $cons:literal;)*) => {$(
        $(#[$m])*
        #[inline(always)]
        pub fn $name(
            gas: [f64; 2],
            sweep: [f64; 4],
            bc: [f64; 9],
            kind: LineOffsets<'_, [i32; 2]>,
            u: LineOffsets<'_, Cells>,
            mut out: LineWrite<'_, Cells>,
            lines: &mut Lines,
        ) {
            sweep_y::<$cons>(gas, sweep, &bc, &kind, &u, &mut out, &mut lines.rows);
        }
    )*};
}

sweep_y_kernels! {
    /// A sweep along y with the paper's filter, a row (the step's first,
    /// into `u`).
    sweep_y_paper_to_u, false;
    /// A sweep along y with the paper's filter, a row (the step's second,
    /// into `w`).
    sweep_y_paper_to_w, false;
    /// A sweep along y with the conservative filter, a row, into `u`.
    sweep_y_conservative_to_u, true;
    /// A sweep along y with the conservative filter, a row, into `w`.
    sweep_y_conservative_to_w, true;
}
