//! The solver's view of a cloud: coordinates, normals, kinds, stencils and
//! the force-integration data, built once before the iterations.

use qflow_cloud::geometry::{boundary_normal, boundary_normals, Csr};
use qflow_cloud::{Cloud, PointKind, NO_POINT};

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
    /// [`qflow_cloud::check::check`] (boundary points with valid neighbours).
    pub fn new(cloud: &Cloud, force_normals: ForceNormals) -> Self {
        let (nx, ny) = boundary_normals(cloud);
        let mut surface = Vec::new();
        for i in 0..cloud.len() {
            let (l, r) = (cloud.left[i], cloud.right[i]);
            if cloud.shape[i] == 0 || l == NO_POINT || r == NO_POINT {
                continue;
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
            surface.push(SurfacePoint {
                index: i as u32,
                shape: cloud.shape[i],
                x: mx,
                y: my,
                nx: fnx,
                ny: fny,
                ds: 0.5 * (ds1 + ds2),
            });
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
