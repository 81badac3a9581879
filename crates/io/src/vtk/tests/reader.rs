//! A reader of the files written here, from the VTK file format's
//! description: quick-xml for the XML, the appended block decoded by hand.

use std::collections::HashMap;
use std::path::Path;

use quick_xml::events::{BytesStart, Event};

/// A data array as read back: its section (`PointData`, `Points`,
/// `Cells`), name, type, components and bytes.
#[derive(Debug)]
pub(super) struct ReadArray {
    pub(super) section: String,
    pub(super) name: String,
    pub(super) vtk_type: String,
    pub(super) components: usize,
    pub(super) bytes: Vec<u8>,
}

/// A `.vtu` file as read back.
#[derive(Debug, Default)]
pub(super) struct Vtu {
    pub(super) points: usize,
    pub(super) cells: usize,
    /// The attributes of `<PointData>`.
    pub(super) point_data_attributes: HashMap<String, String>,
    /// The attributes of `<CellData>`.
    pub(super) cell_data_attributes: HashMap<String, String>,
    /// In the order declared.
    pub(super) arrays: Vec<ReadArray>,
}

impl Vtu {
    pub(super) fn array(&self, section: &str, name: &str) -> &ReadArray {
        self.arrays
            .iter()
            .find(|a| a.section == section && a.name == name)
            .unwrap_or_else(|| panic!("no {section} array {name}"))
    }

    pub(super) fn f64s(&self, section: &str, name: &str) -> Vec<f64> {
        let a = self.array(section, name);
        assert_eq!(a.vtk_type, "Float64", "{name}");
        a.bytes
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    pub(super) fn i64s(&self, section: &str, name: &str) -> Vec<i64> {
        let a = self.array(section, name);
        assert_eq!(a.vtk_type, "Int64", "{name}");
        a.bytes
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
}

fn attributes(e: &BytesStart) -> HashMap<String, String> {
    e.attributes()
        .map(|a| {
            let a = a.unwrap();
            let key = String::from_utf8(a.key.as_ref().to_vec()).unwrap();
            (key, a.unescape_value().unwrap().into_owned())
        })
        .collect()
}

/// Reads a `.vtu` file with raw appended data and 64-bit headers: the XML
/// up to `<AppendedData>`, then the block that starts after the `_`, each
/// array at its declared offset as a `u64` byte count and the bytes. The
/// arrays must tile the block exactly, and the file must end with the
/// closing tags right after it.
pub(super) fn read_vtu(path: &Path) -> Vtu {
    let bytes = std::fs::read(path).unwrap();
    let mut reader = quick_xml::Reader::from_reader(bytes.as_slice());
    let mut buf = Vec::new();
    let mut open: Vec<String> = Vec::new();
    let mut vtu = Vtu::default();
    let mut offsets = Vec::new();
    loop {
        let (e, empty) = match reader.read_event_into(&mut buf).unwrap() {
            Event::Start(e) => (e.into_owned(), false),
            Event::Empty(e) => (e.into_owned(), true),
            Event::End(_) => {
                open.pop();
                continue;
            }
            Event::Eof => panic!("no AppendedData in {}", path.display()),
            _ => continue,
        };
        let name = String::from_utf8(e.name().as_ref().to_vec()).unwrap();
        let a = attributes(&e);
        match name.as_str() {
            "VTKFile" => {
                assert_eq!(a["type"], "UnstructuredGrid");
                assert_eq!(a["byte_order"], "LittleEndian");
                assert_eq!(a["header_type"], "UInt64");
                assert!(!a.contains_key("compressor"));
            }
            "Piece" => {
                vtu.points = a["NumberOfPoints"].parse().unwrap();
                vtu.cells = a["NumberOfCells"].parse().unwrap();
            }
            "PointData" => vtu.point_data_attributes = a.clone(),
            "CellData" => vtu.cell_data_attributes = a.clone(),
            "DataArray" => {
                assert_eq!(a["format"], "appended");
                offsets.push(a["offset"].parse::<usize>().unwrap());
                vtu.arrays.push(ReadArray {
                    section: open.last().unwrap().clone(),
                    name: a["Name"].clone(),
                    vtk_type: a["type"].clone(),
                    components: a
                        .get("NumberOfComponents")
                        .map_or(1, |c| c.parse().unwrap()),
                    bytes: Vec::new(),
                });
            }
            "AppendedData" => {
                assert_eq!(a["encoding"], "raw");
                break;
            }
            _ => {}
        }
        if !empty {
            open.push(name);
        }
        buf.clear();
    }
    let after_tag = usize::try_from(reader.buffer_position()).unwrap();
    let underscore = after_tag
        + bytes[after_tag..]
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap();
    assert_eq!(bytes[underscore], b'_');
    let base = underscore + 1;
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&k| offsets[k]);
    let mut end = 0;
    for k in order {
        assert_eq!(offsets[k], end, "arrays must tile the appended block");
        let at = base + offsets[k];
        let len = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
        vtu.arrays[k].bytes = bytes[at + 8..at + 8 + len].to_vec();
        end = offsets[k] + 8 + len;
    }
    let tail = std::str::from_utf8(&bytes[base + end..]).unwrap();
    assert_eq!(
        tail.split_whitespace().collect::<Vec<_>>(),
        ["</AppendedData>", "</VTKFile>"]
    );
    vtu
}

/// The `(name, type, components)` of the arrays that the `PPointData` of
/// a `.pvtu` file declares.
pub(super) fn read_pvtu_point_data(path: &Path) -> Vec<(String, String, usize)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut reader = quick_xml::Reader::from_str(&text);
    let mut in_point_data = false;
    let mut declared = Vec::new();
    loop {
        match reader.read_event().unwrap() {
            Event::Start(e) if e.name().as_ref() == b"PPointData" => {
                let a = attributes(&e);
                assert_eq!(
                    (a["Scalars"].as_str(), a["Vectors"].as_str()),
                    ("Mach", "velocity")
                );
                in_point_data = true;
            }
            Event::End(e) if e.name().as_ref() == b"PPointData" => in_point_data = false,
            Event::Empty(e) if in_point_data => {
                assert_eq!(e.name().as_ref(), b"PDataArray");
                let a = attributes(&e);
                let components = a
                    .get("NumberOfComponents")
                    .map_or(1, |c| c.parse().unwrap());
                declared.push((a["Name"].clone(), a["type"].clone(), components));
            }
            Event::Eof => break,
            _ => {}
        }
    }
    declared
}
