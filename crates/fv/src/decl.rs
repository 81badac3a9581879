//! The Airfoil method's data and loops, declared once for the execution
//! layer, in OP2's names.
//!
//! | loop | set | reads | writes |
//! |---|---|---|---|
//! | `save_soln` | cells | `q` | `qold` |
//! | `adt_calc` | cells | `x` (the cell's nodes), `q` | `adt` |
//! | `res_calc` | edges | `x` (2 nodes), `q`, `adt` (2 cells) | `res` += (2 cells) |
//! | `bres_calc` | boundary edges | `x` (2 nodes), `q`, `adt` (cell), `bound` | `res` += (cell) |
//! | `update` | cells | `qold`, `adt` | `q`, `res` (cleared); sum: `rms`; max: `bad` |
//!
//! This table is documentation; the layer reads the same facts from the
//! declarations below.

use qflow_par::{par_loop, Arity, DatDecl, GlobalDecl, MapDecl, Reduction, Role, SetDecl};

use crate::kernels::{adt_calc, bres_calc, res_calc, save_soln, update};

/// The mesh's nodes.
pub static NODES: SetDecl = SetDecl { name: "nodes" };
/// The cells, where the state lives.
pub static CELLS: SetDecl = SetDecl { name: "cells" };
/// The interior edges.
pub static EDGES: SetDecl = SetDecl { name: "edges" };
/// The boundary edges.
pub static BEDGES: SetDecl = SetDecl { name: "bedges" };

/// An edge's two nodes (OP2's `pedge`).
pub static PEDGE: MapDecl = MapDecl {
    name: "pedge",
    from: &EDGES,
    to: &NODES,
    arity: Arity::Fixed(2),
};
/// An edge's two cells (`pecell`): the flux leaves the first, enters the
/// second.
pub static PECELL: MapDecl = MapDecl {
    name: "pecell",
    from: &EDGES,
    to: &CELLS,
    arity: Arity::Fixed(2),
};
/// A boundary edge's two nodes (`pbedge`).
pub static PBEDGE: MapDecl = MapDecl {
    name: "pbedge",
    from: &BEDGES,
    to: &NODES,
    arity: Arity::Fixed(2),
};
/// A boundary edge's cell (`pbecell`).
pub static PBECELL: MapDecl = MapDecl {
    name: "pbecell",
    from: &BEDGES,
    to: &CELLS,
    arity: Arity::Fixed(1),
};
/// A cell's nodes (`pcell`), counter-clockwise: four for OP2's
/// quadrilaterals, any number of three or more in a mesh of polygons
/// (compressed rows).
pub static PCELL: MapDecl = MapDecl {
    name: "pcell",
    from: &CELLS,
    to: &NODES,
    arity: Arity::Variable,
};

/// Node coordinates `(x, y)`.
pub static X: DatDecl = DatDecl::f64("x", &NODES, 2, Role::Input);
/// A boundary edge's flag: 1 wall, 2 far field.
pub static BOUND: DatDecl = DatDecl::i32("bound", &BEDGES, 1, Role::Input);
/// The conserved state `[rho, rho u, rho v, rho E]`: the solution.
pub static Q: DatDecl = DatDecl::f64("q", &CELLS, 4, Role::State);
/// The state at the start of the iteration.
pub static QOLD: DatDecl = DatDecl::f64("qold", &CELLS, 4, Role::Scratch);
/// The time-step factor (area over time step).
pub static ADT: DatDecl = DatDecl::f64("adt", &CELLS, 1, Role::Scratch);
/// The residual: net outflow. Zero between iterations (`update` clears it).
pub static RES: DatDecl = DatDecl::f64("res", &CELLS, 4, Role::Scratch);

/// `[gam, gm1, cfl, eps]`.
pub static GAS: GlobalDecl = GlobalDecl::f64("gas", 4);
/// The free-stream state.
pub static QINF: GlobalDecl = GlobalDecl::f64("qinf", 4);
/// Sum of the squared state changes of a stage.
pub static RMS: GlobalDecl = GlobalDecl::reduce("rms", 1, Reduction::Sum);
/// 1 where an update left a state that is not physical, else 0.
pub static BAD: GlobalDecl = GlobalDecl::reduce("bad", 1, Reduction::Max);

par_loop! {
    /// Saves the state at the start of the iteration.
    pub static SAVE_SOLN = save_soln over CELLS {
        q: read(Q),
        qold: write(QOLD),
    }
}

par_loop! {
    /// Each cell's time-step factor.
    pub static ADT_CALC = adt_calc over CELLS with cpu(crate::lanes::adt_calc_lanes) {
        gas: global(GAS),
        x: read(X via PCELL),
        q: read(Q),
        adt: write(ADT),
    }
}

par_loop! {
    /// The interior edges' fluxes, into both cells' residuals.
    pub static RES_CALC = res_calc over EDGES with cpu(crate::lanes::res_calc_lanes) {
        gas: global(GAS),
        x1: read(X via PEDGE[0]),
        x2: read(X via PEDGE[1]),
        q1: read(Q via PECELL[0]),
        q2: read(Q via PECELL[1]),
        adt1: read(ADT via PECELL[0]),
        adt2: read(ADT via PECELL[1]),
        res1: inc(RES via PECELL[0]),
        res2: inc(RES via PECELL[1]),
    }
}

par_loop! {
    /// The boundary edges' fluxes: wall pressure or far field.
    pub static BRES_CALC = bres_calc over BEDGES {
        gas: global(GAS),
        qinf: global(QINF),
        x1: read(X via PBEDGE[0]),
        x2: read(X via PBEDGE[1]),
        q1: read(Q via PBECELL[0]),
        adt1: read(ADT via PBECELL[0]),
        bound: read(BOUND),
        res1: inc(RES via PBECELL[0]),
    }
}

par_loop! {
    /// The explicit update of a stage.
    pub static UPDATE = update over CELLS {
        qold: read(QOLD),
        q: write(Q),
        res: rw(RES),
        adt: read(ADT),
        rms: sum(RMS),
        bad: max(BAD),
    }
}

qflow_par::method_lists! {
    /// Every loop of the method.
    pub static LOOPS = [&SAVE_SOLN, &ADT_CALC, &RES_CALC, &BRES_CALC, &UPDATE];
    /// Every dat of the method (those its loops name).
    pub static DATS;
    /// Every global of the method.
    pub static GLOBALS;
}
