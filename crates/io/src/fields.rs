//! The solution field as a plain text table, `solution.dat`.

use std::io::Write;
use std::path::Path;

use qflow_mesh::{Cloud, CloudError};
use qflow_lskum::forces::pressure_coefficient;
use qflow_lskum::gas::{FreeStream, GAMMA};
use qflow_lskum::Vec4;

/// The header line of `solution.dat`.
pub const HEADER: &str = "# point x y kind rho u v p mach cp";

/// Writes the state of every point of `cloud` (in its numbering; `prim[i]` is
/// point `i`) as one line `point x y kind rho u v p mach cp`, point numbers
/// 1-based, reals to 17 significant digits, atomically.
pub fn write_solution(
    path: &Path,
    cloud: &Cloud,
    prim: &[Vec4],
    fs: &FreeStream,
) -> Result<(), CloudError> {
    qflow_mesh::fsutil::write_atomically(path, |w| {
        writeln!(w, "{HEADER}")?;
        for (i, s) in prim.iter().enumerate() {
            let mach = s[1].hypot(s[2]) / (GAMMA * s[3] / s[0]).sqrt();
            writeln!(
                w,
                "{} {:.17e} {:.17e} {} {:.17e} {:.17e} {:.17e} {:.17e} {:.17e} {:.17e}",
                i + 1,
                cloud.x[i],
                cloud.y[i],
                cloud.kind[i].code(),
                s[0],
                s[1],
                s[2],
                s[3],
                mach,
                pressure_coefficient(s[3], fs)
            )?;
        }
        Ok(())
    })
}
