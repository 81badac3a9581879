//! q-LSKUM's data and loops, declared once for the execution layer.
//!
//! | loop | reads through the stencil | writes at the point |
//! |---|---|---|
//! | `local_time_step` | `x`, `y`, `prim` | `delta`, `prim_old` |
//! | `q_variables` | - | `q` |
//! | `q_derivatives` | `x`, `y`, `q` | `qx`, `qy`, `q_max`, `q_min` |
//! | `q_inner_iteration` | `x`, `y`, `q`, `qx`, `qy` | `qx_next`, `qy_next` |
//! | `flux_residual` | `x`, `y`, `min_dist`, `q`, `qx`, `qy`, `q_max`, `q_min` | `res` (in `qx_next`) |
//! | `state_update` | - | `prim` (sums: residue, first bad stage) |
//! | `force_sums` (surface points) | `prim` of the point | (sums: forces) |
//!
//! This table is documentation; the layer reads the same facts from the
//! declarations below (halo exchanges, device bindings, checkpoints).

use qflow_par::{par_loop, Arity, DatDecl, GlobalDecl, MapDecl, Reduction, Role, SetDecl};

use crate::kernels::{
    flux_residual, force_sums, limiter_phi, local_time_step, q_derivatives, q_inner_iteration,
    q_variables, restore, state_update, FluxBatch,
};

/// The points of the cloud.
pub static POINTS: SetDecl = SetDecl { name: "points" };
/// The points that take part in the force integrals (shape points with
/// both boundary neighbours).
pub static SURFACE: SetDecl = SetDecl { name: "surface" };

/// A point's stencil: its neighbours, in the cloud's order.
pub static STENCIL: MapDecl = MapDecl {
    name: "stencil",
    from: &POINTS,
    to: &POINTS,
    arity: Arity::Variable,
};
/// A surface point's point.
pub static SURFACE_POINT: MapDecl = MapDecl {
    name: "surface_point",
    from: &SURFACE,
    to: &POINTS,
    arity: Arity::Fixed(1),
};

/// x coordinates.
pub static X: DatDecl = DatDecl::f64("x", &POINTS, 1, Role::Input);
/// y coordinates.
pub static Y: DatDecl = DatDecl::f64("y", &POINTS, 1, Role::Input);
/// Normal, x component (`(0, 1)` at interior points).
pub static NX: DatDecl = DatDecl::f64("nx", &POINTS, 1, Role::Input);
/// Normal, y component.
pub static NY: DatDecl = DatDecl::f64("ny", &POINTS, 1, Role::Input);
/// Point kind (legacy codes: wall 0, interior 1, outer 2).
pub static KIND: DatDecl = DatDecl::i32("kind", &POINTS, 1, Role::Input);
/// The limiter's length scale.
pub static MIN_DIST: DatDecl = DatDecl::f64("min_dist", &POINTS, 1, Role::Input);
/// A surface point's `[x, y, nx, ny, ds]` for the force integrals.
pub static SURFACE_GEOMETRY: DatDecl = DatDecl::f64("surface_geometry", &SURFACE, 5, Role::Input);

/// Primitive state `[rho, u, v, p]`: the solution.
pub static PRIM: DatDecl = DatDecl::f64("prim", &POINTS, 4, Role::State);
/// The state at the start of the iteration.
pub static PRIM_OLD: DatDecl = DatDecl::f64("prim_old", &POINTS, 4, Role::Scratch);
/// q-variables.
pub static Q: DatDecl = DatDecl::f64("q", &POINTS, 4, Role::Scratch);
/// x-derivatives of q.
pub static QX: DatDecl = DatDecl::f64("qx", &POINTS, 4, Role::Scratch);
/// y-derivatives of q.
pub static QY: DatDecl = DatDecl::f64("qy", &POINTS, 4, Role::Scratch);
/// An inner sweep's new x-derivatives (swapped with `qx`); between the
/// flux residual and the state update it holds the residual (the two are
/// never live at once, which saves 32 bytes per point).
pub static QX_NEXT: DatDecl = DatDecl::f64("qx_next", &POINTS, 4, Role::Scratch);
/// An inner sweep's new y-derivatives (swapped with `qy`).
pub static QY_NEXT: DatDecl = DatDecl::f64("qy_next", &POINTS, 4, Role::Scratch);
/// Stencil maxima of q.
pub static Q_MAX: DatDecl = DatDecl::f64("q_max", &POINTS, 4, Role::Scratch);
/// Stencil minima of q.
pub static Q_MIN: DatDecl = DatDecl::f64("q_min", &POINTS, 4, Role::Scratch);
/// Each point's own limiter values (`limiter_freeze`): part of the state,
/// since once frozen they are no longer computed.
pub static PHI: DatDecl = DatDecl::f64("phi", &POINTS, 4, Role::State);
/// Local time step.
pub static DELTA: DatDecl = DatDecl::f64("delta", &POINTS, 1, Role::Scratch);

/// CFL number.
pub static CFL: GlobalDecl = GlobalDecl::f64("cfl", 1);
/// Least-squares weight exponent.
pub static POWER: GlobalDecl = GlobalDecl::f64("power", 1);
/// Venkatakrishnan's constant.
pub static VL_CONST: GlobalDecl = GlobalDecl::f64("vl_const", 1);
/// Whether the reconstruction is limited (1) or not (0).
pub static LIMITER: GlobalDecl = GlobalDecl::i32("limiter", 1);
/// The stage: `[number, residual factor, average with the start state]`.
pub static STAGE: GlobalDecl = GlobalDecl::f64("stage", 3);
/// The free stream: `[Mach number, angle of attack in radians]`.
pub static FREE_STREAM: GlobalDecl = GlobalDecl::f64("free_stream", 2);
/// The far field's point vortex: `[strength, x, y]` (strength 0: none;
/// `gas::far_field_free_stream`).
pub static VORTEX: GlobalDecl = GlobalDecl::f64("vortex", 3);
/// `rho_inf M^2 / 2`.
pub static DYNAMIC_PRESSURE: GlobalDecl = GlobalDecl::f64("dynamic_pressure", 1);
/// Sum of the squared density changes of the last stage.
pub static SUM_SQ: GlobalDecl = GlobalDecl::reduce("sum_sq", 1, Reduction::Sum);
/// The first stage at which a point went non-physical (infinity: none).
pub static BAD_STAGE: GlobalDecl = GlobalDecl::reduce("bad_stage", 1, Reduction::Min);
/// The force integrals `(H, V, M)`.
pub static FORCES: GlobalDecl = GlobalDecl::reduce("forces", 3, Reduction::Sum);

par_loop! {
    /// Local time steps and the save of the iteration's start state.
    pub static LOCAL_TIME_STEP = local_time_step over POINTS {
        cfl: global(CFL),
        x: read(X via STENCIL),
        y: read(Y via STENCIL),
        prim: read(PRIM via STENCIL),
        delta: write(DELTA),
        prim_old: write(PRIM_OLD),
    }
}

par_loop! {
    /// q-variables from the primitive state.
    pub static Q_VARIABLES = q_variables over POINTS {
        prim: read(PRIM),
        q: write(Q),
    }
}

par_loop! {
    /// First q-derivatives and the limiter's stencil bounds.
    pub static Q_DERIVATIVES = q_derivatives over POINTS {
        power: global(POWER),
        x: read(X via STENCIL),
        y: read(Y via STENCIL),
        q: read(Q via STENCIL),
        qx: write(QX),
        qy: write(QY),
        q_max: write(Q_MAX),
        q_min: write(Q_MIN),
    }
}

par_loop! {
    /// Each point's own limiter values (until they are frozen).
    pub static LIMITER_PHI = limiter_phi over POINTS {
        vl_const: global(VL_CONST),
        x: read(X via STENCIL),
        y: read(Y via STENCIL),
        min_dist: read(MIN_DIST),
        q: read(Q),
        qx: read(QX),
        qy: read(QY),
        q_max: read(Q_MAX),
        q_min: read(Q_MIN),
        phi: write(PHI),
    }
}

par_loop! {
    /// One inner (Jacobi) sweep of the q-derivatives.
    pub static Q_INNER_ITERATION = q_inner_iteration over POINTS {
        power: global(POWER),
        x: read(X via STENCIL),
        y: read(Y via STENCIL),
        q: read(Q via STENCIL),
        qx: read(QX via STENCIL),
        qy: read(QY via STENCIL),
        qx_new: write(QX_NEXT),
        qy_new: write(QY_NEXT),
    }
}

par_loop! {
    /// The flux residual (into `qx_next`, free until the next sweep).
    pub static FLUX_RESIDUAL = flux_residual over POINTS {
        power: global(POWER),
        vl_const: global(VL_CONST),
        limiter: global(LIMITER),
        x: read(X via STENCIL),
        y: read(Y via STENCIL),
        nx: read(NX),
        ny: read(NY),
        kind: read(KIND),
        min_dist: read(MIN_DIST via STENCIL),
        q: read(Q via STENCIL),
        qx: read(QX via STENCIL),
        qy: read(QY via STENCIL),
        q_max: read(Q_MAX via STENCIL),
        q_min: read(Q_MIN via STENCIL),
        phi: read(PHI via STENCIL),
        delta: read(DELTA),
        bt: scratch(FluxBatch::new),
        res: write(QX_NEXT),
    }
}

par_loop! {
    /// The state update of a Runge-Kutta stage.
    pub static STATE_UPDATE = state_update over POINTS {
        stage: global(STAGE),
        free_stream: global(FREE_STREAM),
        vortex: global(VORTEX),
        x: read(X),
        y: read(Y),
        nx: read(NX),
        ny: read(NY),
        kind: read(KIND),
        prim_old: read(PRIM_OLD),
        res: read(QX_NEXT),
        prim: rw(PRIM),
        sum_sq: sum(SUM_SQ),
        bad: min(BAD_STAGE),
    }
}

par_loop! {
    /// Puts back the iteration's start state (after a non-physical stage).
    pub static RESTORE = restore over POINTS {
        prim_old: read(PRIM_OLD),
        prim: write(PRIM),
    }
}

par_loop! {
    /// The force integrals over the surface points.
    pub static FORCE_SUMS = force_sums over SURFACE {
        dynamic_pressure: global(DYNAMIC_PRESSURE),
        surface: read(SURFACE_GEOMETRY),
        prim: read(PRIM via SURFACE_POINT[0]),
        forces: sum(FORCES),
    }
}

qflow_par::method_lists! {
    /// Every loop of the method.
    pub static LOOPS = [
        &LOCAL_TIME_STEP,
        &Q_VARIABLES,
        &Q_DERIVATIVES,
        &Q_INNER_ITERATION,
        &LIMITER_PHI,
        &FLUX_RESIDUAL,
        &STATE_UPDATE,
        &RESTORE,
        &FORCE_SUMS,
    ];
    /// Every dat of the method (those its loops name).
    pub static DATS;
    /// Every global of the method.
    pub static GLOBALS;
}
