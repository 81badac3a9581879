//! The Lax-Wendroff method for the run driver. A step of `dt` is the
//! paper's split sequence of sweeps X(dt/2), Y(dt/2), Y(dt/2), X(dt/2), each
//! the artificial viscosity filter and then the two-step update. The time
//! step is fixed from the initial state, `dt = cfl min(dx, dy) / max(|q| +
//! c)`; the last step is shortened to end at the final time. The history
//! holds the time and the largest rate of change of density over the step
//! (`max |rho_new - rho_old| / dt` over the cells; it falls as the flow
//! settles).

use qflow_par::driver::{Declared, Method, StepError};
use qflow_par::{Exec, LoopDecl};

use crate::decl::*;
use crate::settings::{Grid, Settings, Setup, Viscosity};

/// The kernels as OpenCL C, translated from [`crate::kernels`] at build
/// time (`DEVICE_SOURCE`).
mod device {
    include!(concat!(env!("OUT_DIR"), "/lw.rs"));
}
pub use device::{DEVICE_FUNCTIONS, DEVICE_SOURCE};

/// The columns of the method's history.
pub const COLUMNS: [&str; 2] = ["time", "drho_dt"];

/// The steps a run of `settings` on `grid` takes to its final time (not
/// rounded to an integer beyond `ceil`, infinite if the set-up fails) and
/// the time step, from the initial state's two regions (as
/// [`Method::start`] computes it on the device).
pub fn steps_to_end(grid: &Grid, settings: &Settings) -> (f64, f64) {
    let Ok(shock) = crate::problem::shock(settings) else {
        return (f64::INFINITY, 0.0);
    };
    let bc = crate::problem::bc(settings, &shock);
    let g = settings.gamma;
    let speed = |q: &[f64]| {
        let p = crate::problem::primitive(q, g);
        (p.u * p.u + p.v * p.v).sqrt() + (g * p.p / p.rho).sqrt()
    };
    let [dx, dy] = grid.spacing();
    let dt = settings.cfl * dx.min(dy) / speed(&bc[0..4]).max(speed(&bc[4..8]));
    ((settings.final_time / dt).ceil(), dt)
}

/// The Lax-Wendroff method on one rank.
pub struct Lw {
    settings: Settings,
    grid: Grid,
    shock: crate::exact::ObliqueShock,
    /// The fixed time step (from the initial state, by [`Method::start`]).
    dt: f64,
    /// The simulated time after the last step.
    time: f64,
    /// The backend runs line loops (each sweep one loop, row by row,
    /// [`crate::lines`]); else the element loops.
    lines: bool,
}

impl Lw {
    /// The method for `settings` on `grid` (both validated).
    pub fn new(settings: Settings, grid: Grid) -> Result<Self, String> {
        grid.validate()?;
        settings.validate()?;
        let shock = crate::problem::shock(&settings)?;
        Ok(Lw {
            settings,
            grid,
            shock,
            dt: 0.0,
            time: 0.0,
            lines: false,
        })
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The grid.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The fixed time step (0 before [`Method::start`]).
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// The sweep constants for a step of `dt`:
    /// `[dt/2 / dx, dt/2 / dy, eta_x / 2, eta_y / 2]` with
    /// `eta = nu (1 - nu)`, `nu = 3 (dt/2) / h`.
    pub fn sweep_constants(&self, dt: f64) -> [f64; 4] {
        let [dx, dy] = self.grid.spacing();
        let h = 0.5 * dt;
        let eta = |d: f64| {
            let nu = 3.0 * h / d;
            nu * (1.0 - nu)
        };
        [h / dx, h / dy, 0.5 * eta(dx), 0.5 * eta(dy)]
    }

    /// The filters of a step's sweeps along x and y.
    fn filters(&self) -> (&'static LoopDecl, &'static LoopDecl) {
        // Element loops on every backend: as line loops (each cell's
        // switch once) they ran slower (docs/performance.md 5).
        match self.settings.viscosity {
            Viscosity::Paper => (&FILTER_PAPER_X, &FILTER_PAPER_Y),
            Viscosity::Conservative => (&FILTER_CONSERVATIVE_X, &FILTER_CONSERVATIVE_Y),
        }
    }
}

impl Lw {
    /// Runs each sweep as one line loop (`on`, the default where the
    /// backend of `ex` runs them: filter and update in one pass,
    /// [`crate::lines`]) or as a filter loop and an update loop over
    /// elements (what OpenCL runs; the same bits).
    pub fn use_line_loops(&mut self, on: bool, ex: &Exec) {
        self.lines = on && ex.lines();
    }

    /// Whether the sweeps run as line loops.
    pub fn line_loops(&self) -> bool {
        self.lines
    }

    /// The line loops of a step's four sweeps for the filter: x (`u0` into
    /// `w`), y (into `u`), y (into `w`), x (into `u`, measuring the step).
    fn sweeps(&self) -> [&'static LoopDecl; 4] {
        match self.settings.viscosity {
            Viscosity::Paper => [
                &SWEEP_X_PAPER,
                &SWEEP_Y_PAPER_TO_U,
                &SWEEP_Y_PAPER_TO_W,
                &SWEEP_X_RESIDUE_PAPER,
            ],
            Viscosity::Conservative => [
                &SWEEP_X_CONSERVATIVE,
                &SWEEP_Y_CONSERVATIVE_TO_U,
                &SWEEP_Y_CONSERVATIVE_TO_W,
                &SWEEP_X_RESIDUE_CONSERVATIVE,
            ],
        }
    }

    /// A step's sweeps as element loops: X, Y, Y, X, each a filter (`u`
    /// into `w`) and an update (`w` into `u`). After the first filter the
    /// step's start moves to `u0` (a swap, no copy); the last update
    /// measures the step against it.
    fn element_sweeps(&self, ex: &mut Exec) -> Result<(), StepError> {
        let (fx, fy) = self.filters();
        ex.run(fx)?;
        ex.swap(&U, &U0);
        ex.run(&LW_X)?;
        for _ in 0..2 {
            ex.run(fy)?;
            ex.run(&LW_Y)?;
        }
        ex.run(fx)?;
        ex.run(&LW_X_RESIDUE)?;
        Ok(())
    }
}

impl Lw {
    /// Where the state just computed is first not physical, in grid order
    /// (`", first at cell (i, j), x = .., y = .."`; on rank 0, which
    /// gathers the state: every rank takes part; empty elsewhere).
    fn first_non_physical(&self, ex: &mut Exec) -> String {
        let Some(qflow_par::Values::F64(block)) = ex.gather(&U) else {
            return String::new();
        };
        let q = crate::problem::interior(&self.grid, &block);
        // As `kernels::residue` (whose infinite density change is an
        // infinite density here).
        let bad = |q: &[f64; 4]| {
            !(q[0] > 0.0
                && 2.0 * q[0] * q[3] > q[1] * q[1] + q[2] * q[2]
                && q[0].is_finite()
                && q[3].is_finite())
        };
        match q.iter().position(bad) {
            Some(k) => {
                let (i, j) = (k % self.grid.nx, k / self.grid.nx);
                let [x, y] = self.grid.point(i, j, self.settings.setup);
                format!(", first at cell ({i}, {j}), x = {x:.4}, y = {y:.4}")
            }
            None => String::new(),
        }
    }
}

impl Method for Lw {
    fn declared(&self) -> Declared {
        Declared {
            name: "lw",
            loops: &LOOPS,
            dats: &DATS,
            globals: &GLOBALS,
            device_source: DEVICE_SOURCE,
            work_set: &CELLS,
            columns: &COLUMNS,
        }
    }

    fn start(&mut self, ex: &mut Exec) -> Result<(), StepError> {
        let g = self.settings.gamma;
        ex.set_const(&GAS, &[g, g - 1.0]);
        ex.set_const(&BC, &crate::problem::bc(&self.settings, &self.shock));
        // The time step of the initial state (start runs before a resume
        // puts the saved state back, so a resumed run gets the same dt).
        ex.reset(&SPEED);
        ex.run(&WAVE_SPEED)?;
        let mut speed = [0.0];
        ex.reduce(&[&SPEED], &mut speed)?;
        let [dx, dy] = self.grid.spacing();
        self.dt = self.settings.cfl * dx.min(dy) / speed[0];
        ex.set_const(&SWEEP, &self.sweep_constants(self.dt));
        self.lines = ex.lines();
        Ok(())
    }

    fn step(&mut self, ex: &mut Exec, iteration: u64, row: &mut [f64]) -> Result<(), StepError> {
        let end = self.settings.final_time;
        // The last step ends at the final time (the paper's code runs
        // whole steps while t < final_time).
        let last =
            self.settings.setup == Setup::Exact && self.time + self.dt >= end * (1.0 - 1e-12);
        let dt = if last { end - self.time } else { self.dt };
        if last {
            ex.set_const(&SWEEP, &self.sweep_constants(dt));
        }
        ex.reset(&CHANGE);
        ex.reset(&BAD);
        // X, Y, Y, X.
        if self.lines {
            // The step's start moves to u0 (a swap, no copy); the sweeps go
            // u0 -> w -> u -> w -> u, the last measuring the step.
            ex.swap(&U, &U0);
            for l in self.sweeps() {
                ex.run(l)?;
            }
        } else {
            self.element_sweeps(ex)?;
        }
        let mut sums = [0.0; 2];
        ex.reduce(&[&CHANGE, &BAD], &mut sums)?;
        if last {
            ex.set_const(&SWEEP, &self.sweep_constants(self.dt));
        }
        // A step at the final time (dt = 0) changes nothing.
        let rate = if dt > 0.0 { sums[0] / dt } else { 0.0 };
        if sums[1] > 0.0 || !rate.is_finite() {
            let at = self.first_non_physical(ex);
            ex.swap(&U, &U0);
            return Err(StepError::NonPhysical(format!(
                "step {iteration} (t = {:.6}): a non-physical state (density or pressure \
                 not above 0, or not finite){at}; stopped with the state after step {} kept \
                 (a smaller [lw] cfl may help)",
                self.time + dt,
                iteration - 1
            )));
        }
        self.time = if last { end } else { self.time + dt };
        row[0] = self.time;
        row[1] = rate;
        Ok(())
    }

    fn time(&self) -> Option<f64> {
        Some(self.time)
    }

    fn books(&self) -> Vec<(&'static str, f64)> {
        vec![("time", self.time)]
    }

    fn restore_books(&mut self, books: &[(String, f64)]) -> Result<(), String> {
        self.time = qflow_par::driver::checkpoint::book_time(books)?;
        Ok(())
    }

    fn progress_label(&self, row: &[f64]) -> String {
        format!("t {:.4}  drho/dt {:.3e}", row[0], row[1])
    }
}
