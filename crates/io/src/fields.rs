//! The solution field as a plain text table, `solution.dat`.

use std::io::Write;
use std::path::Path;

use qflow_lskum::forces::pressure_coefficient;
use qflow_lskum::gas::{FreeStream, GAMMA};
use qflow_lskum::Vec4;
use qflow_mesh::Cloud;

use crate::error::check_states;
use crate::OutputError;

/// The header line of `solution.dat`.
pub const HEADER: &str = "# point x y kind rho u v p mach cp";

/// Writes the state of every point of `cloud` (in its numbering; `prim[i]` is
/// point `i`) as one line `point x y kind rho u v p mach cp`, point numbers
/// 1-based, reals to 17 significant digits, atomically. An error, and
/// nothing written, unless there is one state per point.
pub fn write_solution(
    path: &Path,
    cloud: &Cloud,
    prim: &[Vec4],
    fs: &FreeStream,
) -> Result<(), OutputError> {
    check_states(prim.len(), cloud.len()).map_err(|e| e.at(path))?;
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
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::test_case;

    #[test]
    fn every_point_reads_back_exactly() {
        let (cloud, prim, fs) = test_case::naca0012();
        let dir = test_case::temp_dir("solution");
        let path = dir.join("solution.dat");
        write_solution(&path, &cloud, &prim, &fs).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(HEADER));
        let mut count = 0;
        for (i, line) in lines.enumerate() {
            let f: Vec<&str> = line.split(' ').collect();
            assert_eq!(f.len(), 10);
            assert_eq!(f[0].parse::<usize>().unwrap(), i + 1);
            assert_eq!(f[3].parse::<u8>().unwrap(), cloud.kind[i].code());
            let real = |k: usize| f[k].parse::<f64>().unwrap().to_bits();
            assert_eq!(real(1), cloud.x[i].to_bits());
            assert_eq!(real(2), cloud.y[i].to_bits());
            for (c, v) in prim[i].iter().enumerate() {
                assert_eq!(real(4 + c), v.to_bits());
            }
            assert_eq!(real(9), pressure_coefficient(prim[i][3], &fs).to_bits());
            count += 1;
        }
        assert_eq!(count, cloud.len());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn wrong_lengths_and_missing_folders_are_errors_naming_the_file() {
        let (cloud, prim, fs) = test_case::naca0012();
        let dir = test_case::temp_dir("solution-bad");
        let path = dir.join("solution.dat");
        let e = write_solution(&path, &cloud, &prim[1..], &fs).unwrap_err();
        assert!(matches!(e, OutputError::Data { .. }), "{e}");
        assert!(
            e.to_string().contains("solution.dat") && e.to_string().contains("states for"),
            "{e}"
        );
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "nothing written"
        );
        let missing = dir.join("no/such/folder/solution.dat");
        let e = write_solution(&missing, &cloud, &prim, &fs).unwrap_err();
        assert!(matches!(e, OutputError::File(_)), "{e}");
        assert!(e.to_string().contains("solution.dat"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
