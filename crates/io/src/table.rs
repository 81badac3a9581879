//! A cloud's points with named fields as a plain text table, such as
//! q-LSKUM's `solution.dat`.

use std::io::Write;
use std::path::Path;

use qflow_mesh::Cloud;

use crate::error::check_fields;
use crate::OutputError;

/// The start of the header line, before the columns' names.
pub const HEADER_START: &str = "# point x y kind";

/// The header line of a table of the columns `names`: [`HEADER_START`]
/// and the names, separated by spaces.
pub fn header(names: &[&str]) -> String {
    let mut h = String::from(HEADER_START);
    for name in names {
        h.push(' ');
        h.push_str(name);
    }
    h
}

/// Writes every point of `cloud` (in its numbering) as one line `point x y
/// kind` followed by its value of each of `columns` (`(name, values)`,
/// value `i` for point `i`), separated by spaces, the [`header`] first;
/// point numbers 1-based, kinds as their codes, reals to 17 significant
/// digits; atomically. An error, and nothing written, unless each column
/// has one value per point and a name of letters, digits and `_`.
pub fn write_table(
    path: &Path,
    cloud: &Cloud,
    columns: &[(&str, &[f64])],
) -> Result<(), OutputError> {
    let lengths = columns.iter().map(|(name, v)| (*name, v.len()));
    check_fields(lengths, cloud.len(), "points").map_err(|e| e.at(path))?;
    let names: Vec<&str> = columns.iter().map(|c| c.0).collect();
    qflow_mesh::fsutil::write_atomically(path, |w| {
        writeln!(w, "{}", header(&names))?;
        for i in 0..cloud.len() {
            write!(
                w,
                "{} {:.17e} {:.17e} {}",
                i + 1,
                cloud.x[i],
                cloud.y[i],
                cloud.kind[i].code()
            )?;
            for (_, values) in columns {
                write!(w, " {:.17e}", values[i])?;
            }
            writeln!(w)?;
        }
        Ok(())
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_case;

    #[test]
    fn every_point_reads_back_exactly() {
        let (cloud, flow) = test_case::naca0012();
        let dir = test_case::temp_dir("table");
        let path = dir.join("solution.dat");
        let columns = [("mach", &flow.mach[..]), ("cp", &flow.cp[..])];
        write_table(&path, &cloud, &columns).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("# point x y kind mach cp"));
        let mut count = 0;
        for (i, line) in lines.enumerate() {
            let f: Vec<&str> = line.split(' ').collect();
            assert_eq!(f.len(), 6);
            assert_eq!(f[0].parse::<usize>().unwrap(), i + 1);
            assert_eq!(f[3].parse::<u8>().unwrap(), cloud.kind[i].code());
            let real = |k: usize| f[k].parse::<f64>().unwrap().to_bits();
            assert_eq!(real(1), cloud.x[i].to_bits());
            assert_eq!(real(2), cloud.y[i].to_bits());
            assert_eq!(real(4), flow.mach[i].to_bits());
            assert_eq!(real(5), flow.cp[i].to_bits());
            count += 1;
        }
        assert_eq!(count, cloud.len());
        // Without columns: the places and kinds alone.
        write_table(&path, &cloud, &[]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().next(), Some(HEADER_START));
        assert_eq!(text.lines().nth(1).unwrap().split(' ').count(), 4);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn reals_are_written_to_17_digits_and_as_they_are() {
        let (cloud, _) = test_case::naca0012();
        let dir = test_case::temp_dir("table-reals");
        let path = dir.join("t.dat");
        let mut v = vec![1.0 / 3.0; cloud.len()];
        v[1] = f64::NAN;
        v[2] = -0.0;
        write_table(&path, &cloud, &[("v", &v)]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let last = |k: usize| {
            text.lines()
                .nth(k + 1)
                .unwrap()
                .rsplit(' ')
                .next()
                .unwrap()
                .to_string()
        };
        assert_eq!(last(0), "3.33333333333333315e-1");
        assert_eq!(last(1), "NaN");
        assert_eq!(last(2), "-0.00000000000000000e0");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn wrong_lengths_and_missing_folders_are_errors_naming_the_file() {
        let (cloud, flow) = test_case::naca0012();
        let dir = test_case::temp_dir("table-bad");
        let path = dir.join("solution.dat");
        for (columns, what) in [
            (
                &[("cp", &flow.cp[1..])][..],
                "field `cp` has 1535 values for 1536 points",
            ),
            (&[("c p", &flow.cp[..])], "letters, digits and _ only"),
        ] {
            let e = write_table(&path, &cloud, columns).unwrap_err();
            assert!(matches!(e, OutputError::Data { .. }), "{e}");
            assert!(
                e.to_string().contains("solution.dat") && e.to_string().contains(what),
                "{e}"
            );
        }
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "nothing written"
        );
        let missing = dir.join("no/such/folder/solution.dat");
        let e = write_table(&missing, &cloud, &[("cp", &flow.cp)]).unwrap_err();
        assert!(matches!(e, OutputError::File(_)), "{e}");
        assert!(e.to_string().contains("solution.dat"), "{e}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
