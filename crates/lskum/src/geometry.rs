//! The solver's view of a cloud: coordinates, normals, kinds, stencils and
//! the force-integration data, built once before the iterations.

use qflow_mesh::geometry::{boundary_normal, boundary_normals, Csr};
use qflow_mesh::{Cloud, PointKind, NO_POINT};

use crate::settings::ForceNormals;

/// Everything the kernels read that does not change between iterations.
/// Struct of arrays, indexed by point.
#[derive(Clone, Debug)]
pub struct Geometry {
    /// x coordinates.
    pub x: Vec<f64>,
    /// y coordinates.
    pub y: Vec<f64>,
    /// Normal, x component (`(0, 1)` at interior points).
    pub nx: Vec<f64>,
    /// Normal, y component.
    pub ny: Vec<f64>,
    /// Point kinds.
    pub kind: Vec<PointKind>,
    /// The limiter's length scale per point.
    pub min_dist: Vec<f64>,
    /// The stencils (neighbour lists, in stencil order). The split stencils
    /// are not stored: the flux kernel sorts each neighbour into them by the
    /// signs of its offset as it goes.
    pub stencil: Csr,
    /// The points that take part in the force sums.
    pub surface: Vec<SurfacePoint>,
}

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

impl Geometry {
    /// Builds the geometry of `cloud`. The cloud must have passed
    /// [`qflow_mesh::check::check`] (boundary points with valid neighbours).
    pub fn new(cloud: &Cloud, force_normals: ForceNormals) -> Self {
        let (nx, ny) = boundary_normals(cloud);
        let mut surface = Vec::new();
        for i in 0..cloud.len() {
            if let Some(sp) = surface_point(cloud, i, i as u32, (nx[i], ny[i]), force_normals) {
                surface.push(sp);
            }
        }
        Geometry {
            x: cloud.x.clone(),
            y: cloud.y.clone(),
            nx,
            ny,
            kind: cloud.kind.clone(),
            min_dist: cloud.min_dist.clone(),
            stencil: Csr {
                start: cloud.nbr_start.clone(),
                idx: cloud.nbr.clone(),
            },
            surface,
        }
    }

    /// The geometry of one part of a distributed run: local point `j` is
    /// point `points[j]` of `cloud`. The first `n_owned` points are owned:
    /// they get their stencils (each neighbour `k` as the local index
    /// `local_of(k)`, in stencil order) and their force-sum entries. The
    /// others are ghosts: coordinates, normals, kind and `min_dist` only
    /// (what a kernel reads of a neighbour), with empty stencil rows. Every
    /// value is computed as [`Geometry::new`] computes it, so an owned point
    /// computes the same bits in a part as in the whole cloud.
    pub fn part(
        cloud: &Cloud,
        force_normals: ForceNormals,
        points: &[u32],
        n_owned: usize,
        local_of: impl Fn(u32) -> u32,
    ) -> Self {
        assert!(n_owned <= points.len());
        let n = points.len();
        let (mut nx, mut ny) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for &i in points {
            let (a, b) = point_normal(cloud, i as usize);
            nx.push(a);
            ny.push(b);
        }
        let mut surface = Vec::new();
        for (j, &i) in points[..n_owned].iter().enumerate() {
            if let Some(sp) =
                surface_point(cloud, i as usize, j as u32, (nx[j], ny[j]), force_normals)
            {
                surface.push(sp);
            }
        }
        let mut start = Vec::with_capacity(n + 1);
        let mut idx = Vec::new();
        start.push(0u32);
        for &i in &points[..n_owned] {
            idx.extend(cloud.neighbours(i as usize).iter().map(|&k| local_of(k)));
            start.push(idx.len() as u32);
        }
        start.resize(n + 1, idx.len() as u32);
        let gather = |a: &[f64]| points.iter().map(|&i| a[i as usize]).collect::<Vec<_>>();
        Geometry {
            x: gather(&cloud.x),
            y: gather(&cloud.y),
            nx,
            ny,
            kind: points.iter().map(|&i| cloud.kind[i as usize]).collect(),
            min_dist: gather(&cloud.min_dist),
            stencil: Csr { start, idx },
            surface,
        }
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Bytes held by this geometry (for memory reports).
    pub fn bytes(&self) -> usize {
        let csr = |c: &Csr| 4 * (c.start.len() + c.idx.len());
        8 * 5 * self.len()
            + self.kind.len()
            + csr(&self.stencil)
            + self.surface.len() * std::mem::size_of::<SurfacePoint>()
    }
}

/// The normal of point `i` as [`boundary_normals`] gives it: from the
/// boundary neighbours at wall and outer points, `(0, 1)` at interior points,
/// NaN for a boundary point without valid neighbours.
fn point_normal(cloud: &Cloud, i: usize) -> (f64, f64) {
    if cloud.kind[i] == PointKind::Interior {
        (0.0, 1.0)
    } else {
        boundary_normal(cloud, i).unwrap_or((f64::NAN, f64::NAN))
    }
}

/// The force-sum entry of cloud point `i` (stored under `index`), if it has a
/// shape id and both boundary neighbours; `(nx, ny)` is its solver normal.
fn surface_point(
    cloud: &Cloud,
    i: usize,
    index: u32,
    (nx, ny): (f64, f64),
    force_normals: ForceNormals,
) -> Option<SurfacePoint> {
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
        ForceNormals::Solver => (nx, ny),
        ForceNormals::Boundary => boundary_normal(cloud, i).unwrap_or((nx, ny)),
    };
    Some(SurfacePoint {
        index,
        shape: cloud.shape[i],
        x: mx,
        y: my,
        nx: fnx,
        ny: fny,
        ds: 0.5 * (ds1 + ds2),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use qflow_mesh::generate::NacaOGrid;

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// A part holding every point, in a shuffled order, is the whole
    /// geometry permuted, bit for bit.
    #[test]
    fn a_part_of_every_point_is_the_whole_geometry() {
        let cloud = NacaOGrid {
            section: "naca2412".parse().unwrap(),
            wall_points: 32,
            rings: 8,
            far_field: 8.0,
            stretching: None,
        }
        .generate()
        .unwrap();
        for fnorm in [ForceNormals::Boundary, ForceNormals::Solver] {
            let whole = Geometry::new(&cloud, fnorm);
            let n = cloud.len();
            let points: Vec<u32> = (0..n as u32).map(|j| (j * 7 + 3) % n as u32).collect();
            let mut local = vec![0u32; n];
            for (j, &i) in points.iter().enumerate() {
                local[i as usize] = j as u32;
            }
            let owned = n - 5;
            let part = Geometry::part(&cloud, fnorm, &points, owned, |k| local[k as usize]);
            let pick = |a: &[f64]| points.iter().map(|&i| a[i as usize]).collect::<Vec<_>>();
            assert_eq!(bits(&part.x), bits(&pick(&whole.x)));
            assert_eq!(bits(&part.nx), bits(&pick(&whole.nx)));
            assert_eq!(bits(&part.ny), bits(&pick(&whole.ny)));
            assert_eq!(bits(&part.min_dist), bits(&pick(&whole.min_dist)));
            for (j, &i) in points[..owned].iter().enumerate() {
                let row: Vec<u32> = whole
                    .stencil
                    .row(i as usize)
                    .iter()
                    .map(|&k| local[k as usize])
                    .collect();
                assert_eq!(part.stencil.row(j), &row[..]);
            }
            for j in owned..n {
                assert!(part.stencil.row(j).is_empty());
            }
            let mut expect: Vec<SurfacePoint> = whole
                .surface
                .iter()
                .filter(|s| (local[s.index as usize] as usize) < owned)
                .map(|s| SurfacePoint {
                    index: local[s.index as usize],
                    ..*s
                })
                .collect();
            expect.sort_by_key(|s| s.index);
            let mut got = part.surface.clone();
            got.sort_by_key(|s| s.index);
            assert_eq!(got.len(), expect.len());
            for (a, b) in got.iter().zip(&expect) {
                assert_eq!(a.index, b.index);
                assert_eq!(
                    bits(&[a.x, a.y, a.nx, a.ny, a.ds]),
                    bits(&[b.x, b.y, b.nx, b.ny, b.ds])
                );
            }
        }
    }
}
