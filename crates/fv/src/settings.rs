//! The `[fv]` section of a case: the gas and scheme constants of OP2's
//! Airfoil application, with its values as defaults.
//!
//! OP2 assigns its constants from single-precision literals (`1.4f`,
//! `0.9f`, `0.05f`, `0.4f`) to doubles, so the values it computes with are
//! the nearest floats, widened: `gam = 1.3999999761581421`, not 1.4. The
//! defaults here are those widened floats (`OP2_GAM` ...), so a run with
//! them reproduces OP2's numbers; a case that sets a key gets the decimal
//! value it writes.

use qflow_par::layout::Layout;
use qflow_par::plan::Increments;
use qflow_par::reorder::Reorder;
use serde::{Deserialize, Serialize};

/// OP2's `gam = 1.4f`.
pub const OP2_GAM: f64 = 1.4f32 as f64;
/// OP2's `cfl = 0.9f`.
pub const OP2_CFL: f64 = 0.9f32 as f64;
/// OP2's `eps = 0.05f`.
pub const OP2_EPS: f64 = 0.05f32 as f64;
/// OP2's `mach = 0.4f`.
pub const OP2_MACH: f64 = 0.4f32 as f64;

/// The method's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Settings {
    /// Ratio of specific heats.
    pub gam: f64,
    /// CFL number of the local time step.
    pub cfl: f64,
    /// Scalar artificial dissipation coefficient.
    pub eps: f64,
    /// Free-stream Mach number.
    pub mach: f64,
    /// Angle of attack in degrees: the free stream's angle from +x,
    /// counter-clockwise (0, OP2's direction, is the default).
    pub aoa: f64,
    /// How the edge loops' increments run: `"owner-compute"` (the
    /// default: the cells cut into one range per part, two parts per
    /// thread, each part running the edges of its cells in edge order and
    /// adding only to its own cells: OP2's sequential answer, bit for bit,
    /// on any number of threads; on a GPU the global colouring, on a CPU
    /// device one work item, as `"sequential"`), `"sequential"` (one thread,
    /// edge order: OP2's sequential answer), `"global-colouring"` (colour
    /// by colour in parallel), `"two-level"` (blocks of `block_size`
    /// edges coloured, the blocks of a colour in parallel; on a device,
    /// blocks of the work-group size with their edges coloured again) or
    /// `"atomics"` (every edge at once, increments atomic), or on a device
    /// `"staged-atomics"` (the two-level blocks all at once, a block's
    /// increments summed in local memory, then added atomically). The colourings
    /// are bit-identical for any thread count; they and the atomics are
    /// round-off from the sequential answer.
    pub strategy: Increments,
    /// Edges per block of the `two-level` strategy on CPUs (2048: the
    /// fastest of 128-8192 on 2 threads on the 720k mesh, docs/fv.md), and
    /// per part of the `partition` reordering.
    pub block_size: usize,
    /// How the mesh is renumbered before the run: `"none"`, `"rcm"`
    /// (cells by reverse Cuthill-McKee, edges sorted by their cells) or
    /// `"partition"` (edges in METIS parts of at most `block_size`, which
    /// become the two-level plan's blocks; cells grouped by the parts that
    /// use them). Outputs are always in the mesh's own numbering.
    pub reorder: Reorder,
    /// How the backend stores the cells' states and residuals: `"aos"`
    /// (array of structures: a cell's four values together) or `"soa"`
    /// (structure of arrays: one array per component) or `"mixed"` (`res`,
    /// the incremented dat, as structure of arrays, the rest as arrays of
    /// structures). The same bits either way; only the speed differs.
    pub layout: Layout,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            gam: OP2_GAM,
            cfl: OP2_CFL,
            eps: OP2_EPS,
            mach: OP2_MACH,
            aoa: 0.0,
            strategy: Increments::OwnerCompute,
            block_size: 2048,
            reorder: Reorder::None,
            layout: Layout::Aos,
        }
    }
}

impl Settings {
    /// The backend `spec` with the plan of the edge loops these settings
    /// choose (strategy, block size, layout).
    pub fn backend(
        &self,
        spec: &qflow_par::backend::BackendSpec,
    ) -> qflow_par::backend::BackendSpec {
        qflow_par::backend::BackendSpec {
            increments: self.strategy,
            block_size: self.block_size,
            layout: self.layout,
            ..spec.clone()
        }
    }

    /// Checks every value; the error names the key and the reason.
    pub fn validate(&self) -> Result<(), String> {
        let Settings {
            gam,
            cfl,
            eps,
            mach,
            aoa,
            ..
        } = *self;
        if !(gam.is_finite() && gam > 1.0 && gam <= 5.0 / 3.0) {
            return Err(format!(
                "[fv] gam = {gam}: must be a ratio of specific heats above 1 and at most 5/3"
            ));
        }
        if !(cfl.is_finite() && cfl > 0.0 && cfl <= 100.0) {
            return Err(format!(
                "[fv] cfl = {cfl}: must be a positive number (above 100 is surely a mistake)"
            ));
        }
        if !(eps.is_finite() && (0.0..=10.0).contains(&eps)) {
            return Err(format!(
                "[fv] eps = {eps}: must be a number between 0 and 10 (OP2's is 0.05)"
            ));
        }
        if self.block_size == 0 || self.block_size > 1 << 20 {
            return Err(format!(
                "[fv] block_size = {}: must be between 1 and {}",
                self.block_size,
                1 << 20
            ));
        }
        // At rest the pressure coefficient divides by M^2: below 1e-6 it
        // overflows to NaN.
        if !(mach.is_finite() && (1e-6..=50.0).contains(&mach)) {
            return Err(format!(
                "[fv] mach = {mach}: must be a Mach number between 1e-6 (the free stream must \
                 move) and 50"
            ));
        }
        if !(aoa.is_finite() && (-180.0..=180.0).contains(&aoa)) {
            return Err(format!(
                "[fv] aoa = {aoa}: must be an angle of attack in degrees between -180 and 180"
            ));
        }
        Ok(())
    }

    /// `gm1 = gam - 1`.
    pub fn gm1(&self) -> f64 {
        self.gam - 1.0
    }

    /// The free-stream state `[rho, rho u, rho v, rho E]` with `rho = p = 1`,
    /// computed as OP2 does (speed `u = sqrt(gam p / r) mach`,
    /// `e = p / (r gm1) + 0.5 u u`), the velocity at [`Settings::aoa`]
    /// (at 0 degrees OP2's bits: `cos 0 = 1`, `sin 0 = 0` exactly).
    pub fn qinf(&self) -> [f64; 4] {
        let (p, r) = (1.0, 1.0);
        let u = (self.gam * p / r).sqrt() * self.mach;
        let e = p / (r * self.gm1()) + 0.5 * u * u;
        let (sin, cos) = self.aoa.to_radians().sin_cos();
        [r, r * u * cos, r * u * sin, r * e]
    }

    /// The free stream's direction `(cos aoa, sin aoa)`.
    pub fn direction(&self) -> [f64; 2] {
        let (sin, cos) = self.aoa.to_radians().sin_cos();
        [cos, sin]
    }

    /// The constants the kernels read: `[gam, gm1, cfl, eps]`.
    pub fn gas(&self) -> [f64; 4] {
        [self.gam, self.gm1(), self.cfl, self.eps]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::excessive_precision)] // OP2's values as it printed them
    fn defaults_are_op2s_float_constants_widened() {
        let s = Settings::default();
        // The values OP2's double-precision Airfoil computes with (printed
        // by a C++ program with OP2's declarations, see docs/fv.md).
        assert_eq!(s.gam.to_bits(), 0x3ff6666660000000);
        assert_eq!(s.gm1(), 0.39999997615814209);
        assert_eq!(s.cfl, 0.89999997615814209);
        assert_eq!(s.eps, 0.05000000074505806);
        let q = s.qinf();
        assert_eq!(q[1], 0.47328638567047632);
        assert_eq!(q[3], 2.6120001504421322);
        assert_eq!((q[0], q[2]), (1.0, 0.0));
    }

    #[test]
    fn the_free_stream_turns_with_the_angle_of_attack() {
        let s = Settings {
            aoa: 30.0,
            ..Settings::default()
        };
        let (q, q0) = (s.qinf(), Settings::default().qinf());
        assert!((q[2] / q[1] - 30f64.to_radians().tan()).abs() < 1e-15);
        // The speed and the energy are the direction's own.
        assert!((q[1].hypot(q[2]) - q0[1]).abs() < 1e-15);
        assert_eq!(q[3], q0[3]);
        let down = Settings {
            aoa: -90.0,
            ..Settings::default()
        };
        assert!(down.qinf()[1].abs() < 1e-15 && down.qinf()[2] < 0.0);
    }

    #[test]
    fn bad_values_name_the_key() {
        let bad = |f: fn(&mut Settings)| {
            let mut s = Settings::default();
            f(&mut s);
            s.validate().unwrap_err()
        };
        assert!(bad(|s| s.mach = 0.0).starts_with("[fv] mach = 0:"));
        assert!(bad(|s| s.cfl = f64::NAN).starts_with("[fv] cfl = NaN:"));
        assert!(bad(|s| s.gam = 1.0).starts_with("[fv] gam = 1:"));
        assert!(bad(|s| s.eps = -1.0).starts_with("[fv] eps = -1:"));
        // Values that ran to NaN or diverged at the first iteration.
        assert!(bad(|s| s.mach = 1e-300).starts_with("[fv] mach = 0.000"));
        assert!(bad(|s| s.mach = 1e10).starts_with("[fv] mach = 10000000000:"));
        assert!(bad(|s| s.gam = 1e300).starts_with("[fv] gam = 1000"));
        assert!(bad(|s| s.cfl = 1e300).starts_with("[fv] cfl = 1000"));
        assert!(bad(|s| s.eps = 1e300).starts_with("[fv] eps = 1000"));
        assert!(bad(|s| s.aoa = 200.0).starts_with("[fv] aoa = 200:"));
        assert!(bad(|s| s.aoa = f64::INFINITY).starts_with("[fv] aoa = inf:"));
        Settings::default().validate().unwrap();
    }
}
