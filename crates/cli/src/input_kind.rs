//! What a cloud or mesh file given at the command line is, and how that
//! was told: by its magic bytes (qflow's native formats, Gmsh), else by its
//! extension where the extension is one format's alone, else by its text
//! (OP2's mesh lines hold two coordinates, a legacy cloud's eight fields
//! or more). `.dat` and `.txt` name OP2's `new_grid.dat` and legacy clouds
//! alike, so their text decides: the lines after the first, then, for a
//! `.dat`, OP2's format; else the first line (OP2's header holds four
//! counts, a cloud's one).

use std::path::Path;

use qflow_mesh::poly::FileFormat;

/// What a file is read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// A q-LSKUM point cloud in qflow's native binary format (`.qfc`).
    NativeCloud,
    /// A q-LSKUM point cloud in the legacy text format (either variant).
    LegacyCloud,
    /// A finite-volume mesh in this format.
    Mesh(FileFormat),
}

impl InputKind {
    /// Whether it is a finite-volume mesh.
    pub fn is_mesh(self) -> bool {
        matches!(self, InputKind::Mesh(_))
    }

    /// The format in words, for the first line of `qflow check`.
    pub fn describe(self) -> &'static str {
        match self {
            InputKind::NativeCloud => "a q-LSKUM cloud (qflow's native .qfc)",
            InputKind::LegacyCloud => "a q-LSKUM cloud (legacy text)",
            InputKind::Mesh(FileFormat::Op2) => "an OP2 mesh (new_grid.dat text)",
            InputKind::Mesh(FileFormat::Native) => "a finite-volume mesh (qflow's native .qfm)",
            InputKind::Mesh(FileFormat::Gmsh) => "a Gmsh mesh (.msh)",
            InputKind::Mesh(FileFormat::Su2) => "an SU2 mesh",
        }
    }
}

/// What the file at `path`, starting with `bytes` (its first 64 KiB are
/// enough), is, and how that was told (`"its extension .qfm"`).
pub fn input_kind(path: &Path, bytes: &[u8]) -> (InputKind, String) {
    let magic = qflow_mesh::native::MAGIC;
    if qflow_mesh::native::is_native(bytes) || (!bytes.is_empty() && magic.starts_with(bytes)) {
        // (A part of the magic: a native file cut short, as the reader says.)
        return (InputKind::NativeCloud, "its magic bytes".into());
    }
    let format = FileFormat::of(path, bytes);
    if format != FileFormat::Op2 && format != FileFormat::Su2 {
        // qflow's native mesh and Gmsh start with their magic.
        return (InputKind::Mesh(format), "its magic bytes".into());
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let by_extension = match ext.as_str() {
        "qfc" => Some(InputKind::NativeCloud),
        "cloud" | "partgrid" => Some(InputKind::LegacyCloud),
        "qfm" => Some(InputKind::Mesh(FileFormat::Native)),
        "msh" => Some(InputKind::Mesh(FileFormat::Gmsh)),
        "su2" => Some(InputKind::Mesh(FileFormat::Su2)),
        _ => None,
    };
    if let Some(kind) = by_extension {
        return (kind, format!("its extension .{ext}"));
    }
    let as_kind = |mesh: bool| {
        if mesh {
            InputKind::Mesh(FileFormat::Op2)
        } else {
            InputKind::LegacyCloud
        }
    };
    if let Some((mesh, why)) = lines_say(bytes) {
        return (as_kind(mesh), format!("its text: {why}"));
    }
    // Only the first line, or nothing, to go by: a `.dat` is OP2's (a
    // header cut short looks like a cloud's point count).
    if ext == "dat" {
        return (
            InputKind::Mesh(FileFormat::Op2),
            "its extension .dat (OP2's new_grid.dat; its lines do not tell)".into(),
        );
    }
    match first_line_says(bytes) {
        Some((mesh, why)) => (as_kind(mesh), format!("its text: {why}")),
        None => (
            InputKind::LegacyCloud,
            "default (neither its name nor its text tells)".into(),
        ),
    }
}

/// The fields of a line.
fn fields(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|b| b.is_ascii_whitespace())
        .filter(|f| !f.is_empty())
}

/// The lines that are not blank.
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| l.iter().any(|b| !b.is_ascii_whitespace()))
}

/// Whether the lines after the first (up to 8 of them) say OP2's mesh
/// (`true`: two fields, a node's coordinates) or a legacy cloud (`false`:
/// eight fields or more, a point), by majority, and why; `None` when they
/// do not tell.
fn lines_say(bytes: &[u8]) -> Option<(bool, String)> {
    let (mut two, mut many) = (0, 0);
    for l in lines(bytes).skip(1).take(8) {
        match fields(l).count() {
            2 => two += 1,
            n if n >= 8 => many += 1,
            _ => {}
        }
    }
    match two.cmp(&many) {
        std::cmp::Ordering::Greater => Some((true, "lines of two coordinates".into())),
        std::cmp::Ordering::Less => Some((false, "point lines of eight fields or more".into())),
        std::cmp::Ordering::Equal => None,
    }
}

/// Whether the first line says OP2's mesh (`true`: two or more counts, its
/// header; four in a sound file) or a legacy cloud (`false`: one count,
/// the points), and why; `None` when it is no line of counts.
fn first_line_says(bytes: &[u8]) -> Option<(bool, String)> {
    let counts: Vec<&[u8]> = fields(lines(bytes).next()?).collect();
    if !counts.iter().all(|f| f.iter().all(u8::is_ascii_digit)) {
        return None;
    }
    match counts.len() {
        0 => None,
        1 => Some((false, "a first line of one count".into())),
        n => Some((true, format!("a first line of {n} counts"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OP2: &[u8] = b"4 1 4 4\n0.0 0.0\n1.0 0.0\n1.0 1.0\n0.0 1.0\n0 1 2 3\n";
    const CLOUD: &[u8] =
        b"3\n0 0 2 3 0 1 0.1 2 2 3\n1 0 3 1 0 1 0.1 2 1 3\n0 1 1 2 0 1 0.1 2 1 2\n";

    fn kind(name: &str, bytes: &[u8]) -> InputKind {
        input_kind(Path::new(name), bytes).0
    }

    #[test]
    fn the_extension_tells_where_it_is_one_formats_alone() {
        let op2 = InputKind::Mesh(FileFormat::Op2);
        assert_eq!(kind("a.cloud", OP2), InputKind::LegacyCloud);
        assert_eq!(kind("a.partgrid", OP2), InputKind::LegacyCloud);
        assert_eq!(kind("a.qfc", CLOUD), InputKind::NativeCloud);
        assert_eq!(kind("a.QFM", OP2), InputKind::Mesh(FileFormat::Native));
        assert_eq!(kind("a.su2", b""), InputKind::Mesh(FileFormat::Su2));
        assert_eq!(kind("a.msh", b"$Mesh"), InputKind::Mesh(FileFormat::Gmsh));
        // .dat, .txt and no extension: the text.
        for name in ["new_grid.dat", "m.txt", "partGrid9600"] {
            assert_eq!(kind(name, OP2), op2, "{name}");
            assert_eq!(kind(name, CLOUD), InputKind::LegacyCloud, "{name}");
        }
        // Magic bytes beat the name.
        assert_eq!(kind("a.dat", b"QFLOWCLD"), InputKind::NativeCloud);
    }

    /// A damaged OP2 header (one count, a letter in it) is still OP2's by
    /// its node lines; a `.dat` whose text says nothing is OP2's.
    #[test]
    fn damaged_op2_text_is_still_op2() {
        let op2 = InputKind::Mesh(FileFormat::Op2);
        for text in [
            &b"4\n0.0 0.0\n1.0 0.0\n1.0 1.0\n0.0 1.0\n"[..],
            b"4 1 x4 4\n0.0 0.0\n1.0 0.0\n",
            b"4 1 4",
            b"4 1",
            b"",
            b"\xff\xfe",
        ] {
            assert_eq!(kind("new_grid.dat", text), op2, "{text:?}");
        }
        assert_eq!(kind("c.txt", b"4"), InputKind::LegacyCloud);
        assert_eq!(kind("c.txt", b"4 1 4 4"), InputKind::Mesh(FileFormat::Op2));
        assert_eq!(
            kind("new_grid.dat", b"72"),
            InputKind::Mesh(FileFormat::Op2)
        );
        assert_eq!(
            kind("c.dat", b"3\n0 0 2 3 0 1 0.1 2"),
            InputKind::LegacyCloud
        );
        let (_, why) = input_kind(Path::new("new_grid.dat"), b"4 1 4 4\n0.0 0.0\n");
        assert_eq!(why, "its text: lines of two coordinates");
    }
}
