//! Quadtree point clouds around NACA 4-digit sections, of the kind the
//! q-LSKUM group's codes run (their supersonic example cloud has 17,339
//! points; its file stores each point's quadtree depth, as the quadtree
//! variant of the legacy format does).
//!
//! [`NacaQuadtree::generate`] refines a square about mid-chord `(0.5, 0)`:
//! a cell of size `h` is split while its centre lies closer than
//! `grading * h` to the section (and down to the level whose cells are at
//! most `wall_spacing`), so cell sizes grow about linearly with the distance
//! from the body and neighbouring cells differ by at most one level
//! (`grading >= 3` guarantees it: the distance changes by less than the
//! cells' spacing between neighbours). The points are
//!
//! - **wall**: the section's surface at equal arc-length steps of the finest
//!   cell size, numbered as in the O-grids (trailing edge first, along the
//!   lower surface to the leading edge and back along the upper, so the
//!   boundary normal points into the fluid); the sharp trailing edge is an
//!   interior point with shape 1, as there;
//! - **interior**: the centres of the leaf cells outside the section and at
//!   least [`KEEP`] of a cell from it;
//! - **outer**: the centres of the leaf cells along the square's sides,
//!   numbered clockwise (normals outwards).
//!
//! Each point's stencil is every point within [`RADIUS`] of its own cell
//! size (the finest size for wall points) that it can see (the segment
//! between them does not cross the section), nearest first; a wall point's
//! only wall neighbours are its two ring neighbours. Where that leaves one
//! of the solver's least-squares fits nearly singular, visible points up to
//! [`RADIUS_WIDE`] cells away are added, nearest first and only on the
//! deficient side. The solver checks the result as it checks any cloud.

use std::f64::consts::PI;

use super::body::Body;
use super::naca::Naca4;
use super::topology::Fits;
use crate::{geometry, Cloud, CloudError, PointKind, QuadtreeFields, NO_POINT};

/// A leaf centre closer to the section than this fraction of its cell size
/// is dropped: the wall points stand in for it.
pub const KEEP: f64 = 0.4;

/// Stencil radius in units of the point's own cell size: the 8 surrounding
/// cells of a uniform region (distances 1 and `sqrt 2`), and across a level
/// change the nearer coarse centre (at `0.79` coarse cells).
pub const RADIUS: f64 = 1.75;

/// How far (in cells) extra neighbours are looked for where a fit is
/// nearly singular.
pub const RADIUS_WIDE: f64 = 4.0;

/// The range of `grading` [`NacaQuadtree`] accepts: from 3 (neighbouring
/// cells at most one level apart) to 32.
pub const GRADING_RANGE: (f64, f64) = (3.0, 32.0);

/// The deepest level [`NacaQuadtree`] refines to.
pub const MAX_LEVEL: u32 = 24;

/// The coarsest cells are at most an eighth of the square's side.
const MIN_LEVEL: u32 = 3;

/// The most quadtree cells [`NacaQuadtree`] builds (about 320 MB of them).
const MAX_CELLS: usize = 16_000_000;

/// A quadtree point cloud around a NACA 4-digit section (see the
/// module documentation of `qflow_mesh::generate::quadtree`).
#[derive(Clone, Debug, PartialEq)]
pub struct NacaQuadtree {
    /// The section.
    pub section: Naca4,
    /// Half the side of the square about `(0.5, 0)`, in chords: from 1 to
    /// `1e4`.
    pub far_field: f64,
    /// The largest cell size at the wall, in chords (the finest level's
    /// cells are the first that are not larger: `2 far_field / 2^level`);
    /// at most `0.05`, at least the size of level `MAX_LEVEL`.
    pub wall_spacing: f64,
    /// Cells of size `h` are split while closer than `grading * h` to the
    /// section: within `GRADING_RANGE`. Larger gives more points.
    pub grading: f64,
}

/// One quadtree cell: level and integer position on its level's grid.
#[derive(Clone, Copy, Debug)]
struct Node {
    level: u32,
    i: u32,
    j: u32,
    /// First of the four children (0: a leaf; the root is never a child).
    child: u32,
    /// The point at this leaf's centre, or [`NO_POINT`].
    point: u32,
}

impl NacaQuadtree {
    /// Generates the cloud. Errors name the argument at fault and its value.
    ///
    /// The cloud is checked before it is returned: every least-squares fit
    /// the solver makes is well posed, so [`crate::check::check`] accepts it;
    /// otherwise this is an error.
    pub fn generate(&self) -> Result<Cloud, CloudError> {
        let section = Naca4::new(self.section.m, self.section.p, self.section.t)?;
        let levels = self.levels()?;
        let side = 2.0 * self.far_field;
        let size = |l: u32| side / f64::from(1u32 << l);
        let (ox, oy) = (0.5 - self.far_field, -self.far_field);
        let finest = size(levels);

        // Cells near the body: on every level a band of width grading x h
        // on either side of its perimeter, about 2 g P / h_l cells split
        // into four, summed over the levels; measured, 6 to 10.6
        // g P / h_finest (sections and gradings of the tests), so 12 bounds
        // it; and about pi g^2 on each level away from the body.
        let estimate = 12.0 * self.grading * perimeter(&section) / finest
            + f64::from(levels) * PI * self.grading * self.grading;
        if estimate > MAX_CELLS as f64 {
            return Err(CloudError::Generate(format!(
                "wall_spacing = {:?}, grading = {:?}: about {estimate:.2e} quadtree cells, more \
                 than the {MAX_CELLS} this generator builds; use a larger wall_spacing",
                self.wall_spacing, self.grading
            )));
        }
        let (wx, wy) = wall_ring(&section, finest);
        let body = Body::new(wx, wy);
        let m = body.len();

        // Refine.
        let g = self.grading;
        let mut nodes = vec![Node {
            level: 0,
            i: 0,
            j: 0,
            child: 0,
            point: NO_POINT,
        }];
        let mut stack = vec![0u32];
        let mut leaves = Vec::new();
        while let Some(n) = stack.pop() {
            let Node { level, i, j, .. } = nodes[n as usize];
            let h = size(level);
            let (cx, cy) = (ox + (f64::from(i) + 0.5) * h, oy + (f64::from(j) + 0.5) * h);
            let split =
                level < MIN_LEVEL || (level < levels && body.distance(cx, cy, g * h) < g * h);
            if !split {
                leaves.push(n);
                continue;
            }
            if nodes.len() + 4 > MAX_CELLS {
                return Err(CloudError::Generate(format!(
                    "more than {MAX_CELLS} quadtree cells: wall_spacing = {} is too fine for \
                     far_field = {} and grading = {g}",
                    self.wall_spacing, self.far_field
                )));
            }
            let first = nodes.len() as u32;
            nodes[n as usize].child = first;
            for (di, dj) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                nodes.push(Node {
                    level: level + 1,
                    i: 2 * i + di,
                    j: 2 * j + dj,
                    child: 0,
                    point: NO_POINT,
                });
            }
            // Children visited in Z order: push them reversed.
            stack.extend((first..first + 4).rev());
        }

        // Points: the wall ring, the interior leaves, the outer ring.
        let mut pts = Points::default();
        for k in 0..m {
            let kind = if k == 0 {
                PointKind::Interior
            } else {
                PointKind::Wall
            };
            pts.push(body.x[k], body.y[k], kind, 1, finest, levels);
        }
        let mut outer = Vec::new();
        for &n in &leaves {
            let Node { level, i, j, .. } = nodes[n as usize];
            let h = size(level);
            let (cx, cy) = (ox + (f64::from(i) + 0.5) * h, oy + (f64::from(j) + 0.5) * h);
            let last = (1u32 << level) - 1;
            if i == 0 || j == 0 || i == last || j == last {
                outer.push((n, cx, cy));
                continue;
            }
            if body.contains(cx, cy) || body.distance(cx, cy, KEEP * h) < KEEP * h {
                continue;
            }
            nodes[n as usize].point = pts.len() as u32;
            pts.push(cx, cy, PointKind::Interior, 0, h, level);
        }
        // Clockwise about the centre: decreasing angle from the +x axis.
        outer.sort_by(|a, b| {
            let ang = |p: &(u32, f64, f64)| (p.2).atan2(p.1 - 0.5);
            ang(b).total_cmp(&ang(a))
        });
        let first_outer = pts.len();
        for &(n, cx, cy) in &outer {
            let Node { level, .. } = nodes[n as usize];
            nodes[n as usize].point = pts.len() as u32;
            pts.push(cx, cy, PointKind::Outer, 0, size(level), level);
        }
        let total = pts.len();
        if u32::try_from(total * 16).is_err() {
            return Err(CloudError::Generate(format!(
                "{total} points: too many for the cloud's 32-bit neighbour offsets"
            )));
        }

        let mut cloud = Cloud {
            x: pts.x,
            y: pts.y,
            kind: pts.kind,
            shape: pts.shape,
            left: vec![NO_POINT; total],
            right: vec![NO_POINT; total],
            ..Cloud::default()
        };
        for k in 0..m {
            cloud.left[k] = ((k + m - 1) % m) as u32;
            cloud.right[k] = ((k + 1) % m) as u32;
        }
        let nout = total - first_outer;
        for k in 0..nout {
            cloud.left[first_outer + k] = (first_outer + (k + nout - 1) % nout) as u32;
            cloud.right[first_outer + k] = (first_outer + (k + 1) % nout) as u32;
        }

        let tree = Tree {
            nodes: &nodes,
            size: &size,
            origin: (ox, oy),
        };
        let wall_of = |k: usize| (k < m).then_some(k);
        let (xs, ys) = (cloud.x.clone(), cloud.y.clone());
        cloud.nbr_start.push(0);
        let mut found = Vec::new();
        for p in 0..total {
            let (px, py) = (xs[p], ys[p]);
            // Exact below the wide radius, a lower bound at least that large
            // beyond it (nothing farther is a candidate).
            let wide = RADIUS_WIDE * pts.h[p];
            let d_body = if p < m {
                0.0
            } else {
                body.distance(px, py, wide)
            };
            let visible = |k: usize, dist: f64| {
                dist < d_body || !body.blocks((px, py), (xs[k], ys[k]), wall_of(p), wall_of(k))
            };
            // Candidates within the wide radius, nearest first.
            found.clear();
            tree.within(px, py, wide, &mut |k: u32| found.push(k));
            if d_body < wide {
                body.vertices_within(px, py, wide, |k| found.push(k as u32));
            }
            let mut cands: Vec<(f64, u32)> = found
                .iter()
                .filter(|&&k| k as usize != p)
                .map(|&k| {
                    let (dx, dy) = (xs[k as usize] - px, ys[k as usize] - py);
                    (dx.hypot(dy), k)
                })
                .filter(|&(_, k)| p >= m || (k as usize) >= m)
                .collect();
            cands.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let start = cloud.nbr.len();
            if p < m {
                cloud.nbr.push(cloud.left[p]);
                cloud.nbr.push(cloud.right[p]);
            }
            let near = RADIUS * pts.h[p];
            for &(dist, k) in cands.iter().take_while(|c| c.0 <= near) {
                if visible(k as usize, dist) {
                    cloud.nbr.push(k);
                }
            }
            let mut failing = Fits::of(&cloud, p, &cloud.nbr[start..]).failing();
            for &(dist, k) in cands.iter().filter(|c| c.0 > near) {
                if failing == 0 {
                    break;
                }
                if Fits::of(&cloud, p, &[k]).present() & failing != 0 && visible(k as usize, dist) {
                    cloud.nbr.push(k);
                    failing = Fits::of(&cloud, p, &cloud.nbr[start..]).failing();
                }
            }
            if failing != 0 {
                return Err(CloudError::Generate(format!(
                    "point {} ({}, at ({px:.5}, {py:.5})) would have a nearly singular {} \
                     least-squares fit even with its neighbours up to {RADIUS_WIDE} cells away; \
                     try a larger grading or a finer wall_spacing",
                    p + 1,
                    cloud.kind[p].name(),
                    Fits::NAMES[failing.trailing_zeros() as usize]
                )));
            }
            let end = u32::try_from(cloud.nbr.len()).map_err(|_| {
                CloudError::Generate("too many neighbours for 32-bit offsets".to_string())
            })?;
            cloud.nbr_start.push(end);
        }
        cloud.min_dist = geometry::min_neighbour_distance(&cloud);
        let (nx, ny) = geometry::boundary_normals(&cloud);
        let interior = |i: usize| cloud.kind[i] == PointKind::Interior;
        cloud.quadtree = Some(QuadtreeFields {
            nx: (0..total)
                .map(|i| if interior(i) { 0.0 } else { nx[i] })
                .collect(),
            ny: (0..total)
                .map(|i| if interior(i) { 0.0 } else { ny[i] })
                .collect(),
            depth: pts.level.iter().map(|&l| i64::from(l)).collect(),
        });
        cloud.validate_structure()?;
        Ok(cloud)
    }

    /// About the points [`generate`](Self::generate) makes, from the
    /// parameters alone (no cell is built): for a memory estimate before
    /// generating. Errors as `generate`'s for bad parameters.
    ///
    /// The cells split on level `l` are those within `grading x h_l` of the
    /// section: a band of about `2 grading P / h_l` cells along its
    /// perimeter `P` and `pi grading^2` about it, at most the level's
    /// `4^l`. Each split adds three leaves, about two of them outside the
    /// section; the wall ring adds `P / h_finest` points. Measured against
    /// the points generated (sections 0006 to 0040, gradings 3 to 32, far
    /// fields 1 to 100), 0.8 to 1.5 times this.
    pub fn estimated_points(&self) -> Result<usize, CloudError> {
        let section = Naca4::new(self.section.m, self.section.p, self.section.t)?;
        let levels = self.levels()?;
        let (side, g, p) = (2.0 * self.far_field, self.grading, perimeter(&section));
        let size = |l: u32| side / f64::from(1u32 << l);
        let split: f64 = (0..levels)
            .map(|l| {
                let all = 4f64.powi(l as i32);
                if l < MIN_LEVEL {
                    all
                } else {
                    all.min(2.0 * g * p / size(l) + PI * g * g)
                }
            })
            .sum();
        Ok((2.0 * split + p / size(levels)).ceil() as usize)
    }

    /// The finest level, after checking the settings.
    fn levels(&self) -> Result<u32, CloudError> {
        let (r, w, g) = (self.far_field, self.wall_spacing, self.grading);
        if !(1.0..=1e4).contains(&r) {
            return Err(CloudError::Generate(format!(
                "far_field = {r:?}: the square's half-side must be from 1 to 1e4 chords"
            )));
        }
        let (lo, hi) = GRADING_RANGE;
        if !(lo..=hi).contains(&g) {
            return Err(CloudError::Generate(format!(
                "grading = {g:?}: must be from {lo} to {hi} (below {lo} neighbouring cells can \
                 differ by more than one level)"
            )));
        }
        let smallest = 2.0 * r / f64::from(1u32 << MAX_LEVEL);
        if !(w > 0.0 && w <= 0.05 && w >= smallest) {
            return Err(CloudError::Generate(format!(
                "wall_spacing = {w:?}: must be from {smallest:?} ({MAX_LEVEL} levels below the \
                 square's side {}) to 0.05 chords",
                2.0 * r
            )));
        }
        let mut level = MIN_LEVEL;
        while 2.0 * r / f64::from(1u32 << level) > w {
            level += 1;
        }
        Ok(level)
    }
}

/// The points as they are made, with each one's cell size and level.
#[derive(Default)]
struct Points {
    x: Vec<f64>,
    y: Vec<f64>,
    kind: Vec<PointKind>,
    shape: Vec<u32>,
    h: Vec<f64>,
    level: Vec<u32>,
}

impl Points {
    fn push(&mut self, x: f64, y: f64, kind: PointKind, shape: u32, h: f64, level: u32) {
        self.x.push(x);
        self.y.push(y);
        self.kind.push(kind);
        self.shape.push(shape);
        self.h.push(h);
        self.level.push(level);
    }

    fn len(&self) -> usize {
        self.x.len()
    }
}

/// Range queries over the quadtree's leaf points.
struct Tree<'a> {
    nodes: &'a [Node],
    size: &'a dyn Fn(u32) -> f64,
    origin: (f64, f64),
}

impl Tree<'_> {
    /// Calls `f` with every leaf point within `r` of `(px, py)`.
    fn within(&self, px: f64, py: f64, r: f64, f: &mut dyn FnMut(u32)) {
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            let node = self.nodes[n as usize];
            let h = (self.size)(node.level);
            let x0 = self.origin.0 + f64::from(node.i) * h;
            let y0 = self.origin.1 + f64::from(node.j) * h;
            let dx = (x0 - px).max(px - x0 - h).max(0.0);
            let dy = (y0 - py).max(py - y0 - h).max(0.0);
            if dx.hypot(dy) > r {
                continue;
            }
            if node.child != 0 {
                stack.extend(node.child..node.child + 4);
            } else if node.point != NO_POINT {
                let (cx, cy) = (x0 + 0.5 * h, y0 + 0.5 * h);
                if (cx - px).hypot(cy - py) <= r {
                    f(node.point);
                }
            }
        }
    }
}

/// The section's perimeter, from a polygon of 1,025 points per surface
/// (a little short of the true length).
fn perimeter(section: &Naca4) -> f64 {
    let stations: Vec<f64> = (0..=1024)
        .map(|k| 0.5 * (1.0 - (PI * k as f64 / 1024.0).cos()))
        .collect();
    let length = |pt: &dyn Fn(f64) -> (f64, f64)| {
        stations
            .windows(2)
            .map(|w| {
                let (a, b) = (pt(w[0]), pt(w[1]));
                (b.0 - a.0).hypot(b.1 - a.1)
            })
            .sum::<f64>()
    };
    length(&|x| section.upper(x)) + length(&|x| section.lower(x))
}

/// The wall ring at about equal arc-length steps of at most `step`: the
/// trailing edge `(1, 0)`, the lower surface to the leading edge `(0, 0)`,
/// the upper surface back (the O-grids' order).
fn wall_ring(section: &Naca4, step: f64) -> (Vec<f64>, Vec<f64>) {
    // Arc length on a fine cosine-spaced table of chord stations.
    const TABLE: usize = 8192;
    let stations: Vec<f64> = (0..=TABLE)
        .map(|k| 0.5 * (1.0 - (PI * k as f64 / TABLE as f64).cos()))
        .collect();
    let surface = |upper: bool| {
        let pt = |x: f64| {
            if upper {
                section.upper(x)
            } else {
                section.lower(x)
            }
        };
        let mut s = vec![0.0; TABLE + 1];
        for k in 1..=TABLE {
            let (a, b) = (pt(stations[k - 1]), pt(stations[k]));
            s[k] = s[k - 1] + (b.0 - a.0).hypot(b.1 - a.1);
        }
        let length = s[TABLE];
        let count = (length / step).ceil().max(2.0) as usize;
        // Chord station at arc length `t` from the leading edge.
        let at = |t: f64| {
            let k = s.partition_point(|&v| v < t).clamp(1, TABLE);
            let f = (t - s[k - 1]) / (s[k] - s[k - 1]);
            pt(stations[k - 1] + f * (stations[k] - stations[k - 1]))
        };
        (1..count)
            .map(|q| at(length * q as f64 / count as f64))
            .collect::<Vec<_>>()
    };
    let (lower, upper) = (surface(false), surface(true));
    let mut x = vec![1.0];
    let mut y = vec![0.0];
    for &(a, b) in lower.iter().rev() {
        x.push(a);
        y.push(b);
    }
    x.push(0.0);
    y.push(0.0);
    for &(a, b) in &upper {
        x.push(a);
        y.push(b);
    }
    (x, y)
}
