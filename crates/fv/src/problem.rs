//! A mesh of polygons as the execution layer's problem: nodes with
//! coordinates, cells with the state (free stream everywhere), edges and
//! boundary edges with their maps, OP2's names throughout.

use qflow_mesh::poly::PolyMesh;
use qflow_par::plan::{order_by_colour, Increments};
use qflow_par::reorder::reorder;
use qflow_par::{DatData, MapData, PartitionHints, Problem, SetData, Shape, Values};

use crate::decl::*;
use crate::settings::Settings;

fn set(decl: &'static qflow_par::SetDecl, n: usize) -> SetData {
    SetData {
        decl,
        shape: Shape::Elements(n),
        blocks: Vec::new(),
    }
}

fn map(decl: &'static qflow_par::MapDecl, values: Vec<u32>) -> MapData {
    MapData {
        decl,
        values,
        start: Vec::new(),
    }
}

fn f64_dat(decl: &'static qflow_par::DatDecl, values: Vec<f64>) -> DatData {
    DatData {
        decl,
        values: Values::F64(values),
    }
}

/// A mesh's problem and where its cells went.
pub struct Built {
    /// The problem.
    pub problem: Problem,
    /// Where the mesh's cells are in the problem.
    pub cells: CellOrder,
}

/// Each mesh cell's number in the problem (empty: the same).
#[derive(Clone, Debug, Default)]
pub struct CellOrder {
    /// `new_of_old`.
    pub cell_new_of_old: Vec<u32>,
}

impl CellOrder {
    /// Values of a dat on cells (`dim` per cell), from the problem's
    /// numbering back to the mesh's.
    pub fn in_mesh_order(&self, values: &[f64], dim: usize) -> Vec<f64> {
        if self.cell_new_of_old.is_empty() {
            return values.to_vec();
        }
        self.cell_new_of_old
            .iter()
            .flat_map(|&new| &values[new as usize * dim..(new as usize + 1) * dim])
            .copied()
            .collect()
    }
}

/// The problem of `mesh` (which must have passed
/// `qflow_mesh::poly::check`) with every cell at the free stream of
/// `settings`.
///
/// The mesh is first renumbered as `settings.reorder` says
/// ([`qflow_par::reorder`]). With the `global-colouring` strategy the
/// edges and boundary edges are then renumbered colour by colour
/// ([`qflow_par::plan::order_by_colour`]), so that each colour runs as one
/// span.
pub fn build(mesh: &PolyMesh, settings: &Settings) -> Result<Built, String> {
    let mut p = build_in_mesh_order(mesh, settings);
    let done = reorder(&mut p, &PECELL, settings.reorder, settings.block_size)
        .map_err(|e| format!("reordering the mesh ({}): {e}", settings.reorder.name()))?;
    if settings.strategy == Increments::Colouring {
        order_by_colour(&mut p, &LOOPS).map_err(|e| format!("colouring the edges: {e}"))?;
    }
    let cell_new_of_old = done
        .into_iter()
        .find(|d| d.0 == CELLS.name)
        .map(|d| d.1)
        .unwrap_or_default();
    Ok(Built {
        problem: p,
        cells: CellOrder { cell_new_of_old },
    })
}

/// The mesh's arrays copied whole (each allocated once at its size: on a
/// large mesh, fresh memory is most of the set-up's cost).
fn build_in_mesh_order(mesh: &PolyMesh, settings: &Settings) -> Problem {
    let nc = mesh.cells();
    let qinf = settings.qinf();
    Problem {
        sets: vec![
            set(&NODES, mesh.nodes()),
            set(&CELLS, nc),
            set(&EDGES, mesh.edges()),
            set(&BEDGES, mesh.bedges()),
        ],
        maps: vec![
            map(&PEDGE, mesh.edge_nodes.as_flattened().to_vec()),
            map(&PECELL, mesh.edge_cells.as_flattened().to_vec()),
            map(&PBEDGE, mesh.bedge_nodes.as_flattened().to_vec()),
            map(&PBECELL, mesh.bedge_cell.clone()),
            MapData {
                decl: &PCELL,
                values: mesh.cell_nodes.clone(),
                start: mesh.cell_start.clone(),
            },
        ],
        dats: vec![
            f64_dat(&X, mesh.x.as_flattened().to_vec()),
            DatData {
                decl: &BOUND,
                values: Values::I32(mesh.bound.clone()),
            },
            f64_dat(&Q, qinf.repeat(nc)),
            f64_dat(&QOLD, vec![0.0; 4 * nc]),
            f64_dat(&ADT, vec![0.0; nc]),
            f64_dat(&RES, vec![0.0; 4 * nc]),
        ],
        hints: PartitionHints {
            primary: &CELLS,
            graph: None,
            coordinates: None,
            owners: vec![(&EDGES, &PECELL), (&BEDGES, &PBECELL)],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qflow_mesh::poly::naca0012::Op2Naca0012;

    #[test]
    fn the_problem_of_a_mesh_is_valid_and_complete() {
        let mesh = Op2Naca0012 { i: 8, j: 6 }.generate().unwrap();
        let p = build(&mesh, &Settings::default()).unwrap().problem;
        p.validate().unwrap();
        for d in DATS {
            assert!(p.dat(d).is_some(), "{}", d.name);
        }
        assert_eq!(p.set_len(&CELLS), 3 * 8 * 6);
        assert_eq!(p.set_len(&BEDGES), 4 * 8 + 2 * 6);
    }
}
