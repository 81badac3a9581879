//! A cloud as the execution layer's problem: the points with their
//! coordinates, normals, kinds, limiter length and stencils; the surface
//! points with what the force integrals need; the initial state.

use qflow_mesh::geometry::{boundary_normal, boundary_normals};
use qflow_mesh::{Cloud, NO_POINT};
use qflow_par::{DatData, MapData, PartitionHints, Problem, SetData, Shape, Values};

use crate::decl::*;
use crate::settings::{ForceNormals, Settings};

/// A point with a shape id and what the force sum needs of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfacePoint {
    /// The point.
    pub index: u32,
    /// Its shape (body) id, `> 0`.
    pub shape: u32,
    /// Coordinates.
    pub x: f64,
    /// Coordinates.
    pub y: f64,
    /// The normal used in the force sum.
    pub nx: f64,
    /// The normal used in the force sum.
    pub ny: f64,
    /// Half the length of the two boundary chords at the point.
    pub ds: f64,
}

/// The surface points of `cloud`: shape points with both boundary
/// neighbours, with the normal `force_normals` asks for (`nx`, `ny` are the
/// solver's normals of every point).
pub fn surface_points(
    cloud: &Cloud,
    nx: &[f64],
    ny: &[f64],
    force_normals: ForceNormals,
) -> Vec<SurfacePoint> {
    (0..cloud.len())
        .filter_map(|i| {
            let (l, r) = (cloud.left[i], cloud.right[i]);
            if cloud.shape[i] == 0 || l == NO_POINT || r == NO_POINT {
                return None;
            }
            let (mx, my) = (cloud.x[i], cloud.y[i]);
            let (lx, ly) = (cloud.x[l as usize], cloud.y[l as usize]);
            let (rx, ry) = (cloud.x[r as usize], cloud.y[r as usize]);
            let ds1 = (mx - lx).hypot(my - ly);
            let ds2 = (rx - mx).hypot(ry - my);
            let (fnx, fny) = match force_normals {
                ForceNormals::Solver => (nx[i], ny[i]),
                ForceNormals::Boundary => boundary_normal(cloud, i).unwrap_or((nx[i], ny[i])),
            };
            Some(SurfacePoint {
                index: i as u32,
                shape: cloud.shape[i],
                x: mx,
                y: my,
                nx: fnx,
                ny: fny,
                ds: 0.5 * (ds1 + ds2),
            })
        })
        .collect()
}

fn f64_dat(decl: &'static qflow_par::DatDecl, values: Vec<f64>) -> DatData {
    DatData {
        decl,
        values: Values::F64(values),
    }
}

/// The problem of `cloud` (which must have passed `qflow_mesh::check`)
/// with `settings`: every point starts at the free stream.
pub fn build(cloud: &Cloud, settings: &Settings) -> Problem {
    let n = cloud.len();
    let (nx, ny) = boundary_normals(cloud);
    let surface = surface_points(cloud, &nx, &ny, settings.force_normals);
    let fs = settings.free_stream().primitive();
    let zeros4 = || vec![0.0; 4 * n];
    let mut dats = vec![
        f64_dat(&X, cloud.x.clone()),
        f64_dat(&Y, cloud.y.clone()),
        f64_dat(&NX, nx),
        f64_dat(&NY, ny),
        DatData {
            decl: &KIND,
            values: Values::I32(cloud.kind.iter().map(|&k| k as i32).collect()),
        },
        f64_dat(&MIN_DIST, cloud.min_dist.clone()),
        f64_dat(
            &SURFACE_GEOMETRY,
            surface
                .iter()
                .flat_map(|s| [s.x, s.y, s.nx, s.ny, s.ds])
                .collect(),
        ),
        f64_dat(&PRIM, (0..n).flat_map(|_| fs).collect()),
    ];
    for d in [&PRIM_OLD, &Q, &QX, &QY, &QX_NEXT, &QY_NEXT, &Q_MAX, &Q_MIN] {
        dats.push(f64_dat(d, zeros4()));
    }
    dats.push(f64_dat(&DELTA, vec![0.0; n]));
    dats.push(f64_dat(&PHI, vec![1.0; 4 * n]));
    Problem {
        sets: vec![
            SetData {
                decl: &POINTS,
                shape: Shape::Elements(n),
                blocks: Vec::new(),
            },
            SetData {
                decl: &SURFACE,
                shape: Shape::Elements(surface.len()),
                blocks: Vec::new(),
            },
        ],
        maps: vec![
            MapData {
                decl: &STENCIL,
                values: cloud.nbr.clone(),
                start: cloud.nbr_start.clone(),
            },
            MapData {
                decl: &SURFACE_POINT,
                values: surface.iter().map(|s| s.index).collect(),
                start: Vec::new(),
            },
        ],
        dats,
        hints: PartitionHints {
            primary: &POINTS,
            graph: Some(&STENCIL),
            coordinates: Some([&X, &Y]),
            owners: vec![(&SURFACE, &SURFACE_POINT)],
        },
    }
}

/// The stencils of `problem` (built by [`build`], perhaps renumbered) as
/// rows of neighbours in its numbering: what
/// [`crate::Lskum::set_stencils`] takes.
pub fn stencil_rows(problem: &Problem) -> Vec<Vec<usize>> {
    problem
        .maps
        .iter()
        .find(|m| m.decl.name == STENCIL.name)
        .map(|m| {
            m.start
                .windows(2)
                .map(|w| {
                    m.values[w[0] as usize..w[1] as usize]
                        .iter()
                        .map(|&k| k as usize)
                        .collect()
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use qflow_mesh::generate::NacaOGrid;

    #[test]
    fn the_problem_of_a_cloud_is_valid_and_complete() {
        let cloud = NacaOGrid {
            wall_points: 32,
            rings: 8,
            ..NacaOGrid::default()
        }
        .generate()
        .unwrap();
        let p = build(&cloud, &Settings::default());
        p.validate().unwrap();
        assert_eq!(p.dats.len(), DATS.len());
        for d in DATS {
            assert!(p.dat(d).is_some(), "{}", d.name);
        }
        let surface = p.set_len(&SURFACE);
        assert!(surface >= 32, "{surface} surface points");
    }
}
