//! A closed polygon (a section's wall ring) with the queries the quadtree
//! generator makes of it - distance, inside, does a segment cross it -
//! each in about `log n` time through a hierarchy of bounding boxes over
//! runs of consecutive edges.

/// Edges per leaf of the hierarchy.
const LEAF: usize = 8;

/// A bounding box: x min, x max, y min, y max.
type Bbox = [f64; 4];

/// One node of the hierarchy: the edges `lo..hi` and their box; the
/// children of node `k` are `2k + 1` and `2k + 2` while `hi - lo > LEAF`.
#[derive(Clone, Copy, Debug)]
struct Node {
    lo: usize,
    hi: usize,
    bbox: Bbox,
}

/// The polygon of points `0, 1, ..., n - 1` (edge `e` from point `e` to
/// point `e + 1`, the last one closing the ring).
pub(super) struct Body {
    pub(super) x: Vec<f64>,
    pub(super) y: Vec<f64>,
    nodes: Vec<Node>,
}

impl Body {
    pub(super) fn new(x: Vec<f64>, y: Vec<f64>) -> Self {
        let mut body = Self {
            x,
            y,
            nodes: Vec::new(),
        };
        let n = body.len();
        // A complete binary tree over the edge ranges, in breadth-first
        // order: node k covers a contiguous range split in halves.
        let mut ranges = vec![(0usize, n)];
        let mut k = 0;
        while k < ranges.len() {
            let (lo, hi) = ranges[k];
            if hi - lo > LEAF {
                let mid = lo + (hi - lo) / 2;
                ranges.resize(ranges.len().max(2 * k + 3), (0, 0));
                ranges[2 * k + 1] = (lo, mid);
                ranges[2 * k + 2] = (mid, hi);
            }
            k += 1;
        }
        body.nodes = ranges
            .iter()
            .map(|&(lo, hi)| Node {
                lo,
                hi,
                bbox: body.edges_bbox(lo, hi),
            })
            .collect();
        body
    }

    pub(super) fn len(&self) -> usize {
        self.x.len()
    }

    fn edge(&self, e: usize) -> (f64, f64, f64, f64) {
        let f = (e + 1) % self.len();
        (self.x[e], self.y[e], self.x[f], self.y[f])
    }

    fn edges_bbox(&self, lo: usize, hi: usize) -> Bbox {
        let mut b = [
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for e in lo..hi {
            let (ax, ay, bx, by) = self.edge(e);
            b = [
                b[0].min(ax).min(bx),
                b[1].max(ax).max(bx),
                b[2].min(ay).min(by),
                b[3].max(ay).max(by),
            ];
        }
        b
    }

    /// Whether node `k` exists (an empty range marks a missing child).
    fn node(&self, k: usize) -> Option<&Node> {
        self.nodes.get(k).filter(|n| n.hi > n.lo)
    }

    /// Calls `visit` with every edge of every leaf whose box `enter`
    /// accepts (and whose ancestors' boxes it accepts).
    fn each_edge(
        &self,
        mut enter: impl FnMut(&Bbox) -> bool,
        mut visit: impl FnMut(usize) -> bool,
    ) {
        let mut stack = vec![0usize];
        while let Some(k) = stack.pop() {
            let Some(node) = self.node(k) else { continue };
            if !enter(&node.bbox) {
                continue;
            }
            if node.hi - node.lo > LEAF {
                stack.push(2 * k + 2);
                stack.push(2 * k + 1);
            } else {
                for e in node.lo..node.hi {
                    if visit(e) {
                        return;
                    }
                }
            }
        }
    }

    /// Distance from `(px, py)` to the polygon, or a lower bound of it that
    /// is at least `cap` when it is that far (then `cap` itself or more).
    pub(super) fn distance(&self, px: f64, py: f64, cap: f64) -> f64 {
        let box_distance = |b: &Bbox| {
            let dx = (b[0] - px).max(px - b[1]).max(0.0);
            let dy = (b[2] - py).max(py - b[3]).max(0.0);
            dx.hypot(dy)
        };
        let root = box_distance(&self.nodes[0].bbox);
        if root >= cap {
            return root;
        }
        // Nothing beyond the cap matters: start the pruning there.
        let best = std::cell::Cell::new(cap);
        self.each_edge(
            |b| box_distance(b) < best.get(),
            |e| {
                let (ax, ay, bx, by) = self.edge(e);
                let (ex, ey) = (bx - ax, by - ay);
                let t = (((px - ax) * ex + (py - ay) * ey) / (ex * ex + ey * ey)).clamp(0.0, 1.0);
                best.set(best.get().min((px - ax - t * ex).hypot(py - ay - t * ey)));
                false
            },
        );
        best.get()
    }

    /// Calls `f` with every vertex within `r` of `(px, py)`.
    pub(super) fn vertices_within(&self, px: f64, py: f64, r: f64, mut f: impl FnMut(usize)) {
        self.each_edge(
            |b| {
                let dx = (b[0] - px).max(px - b[1]).max(0.0);
                let dy = (b[2] - py).max(py - b[3]).max(0.0);
                dx.hypot(dy) <= r
            },
            |e| {
                if (self.x[e] - px).hypot(self.y[e] - py) <= r {
                    f(e);
                }
                false
            },
        );
    }

    /// Whether `(px, py)` lies inside the polygon (crossing number of the
    /// ray towards `+x`).
    pub(super) fn contains(&self, px: f64, py: f64) -> bool {
        let mut inside = false;
        self.each_edge(
            |b| b[2] <= py && py <= b[3] && px <= b[1],
            |e| {
                let (ax, ay, bx, by) = self.edge(e);
                if (ay > py) != (by > py) && px < ax + (py - ay) / (by - ay) * (bx - ax) {
                    inside = !inside;
                }
                false
            },
        );
        inside
    }

    /// Whether the segment from `p` to `q` crosses the polygon: meets an
    /// edge that does not end at `p` or `q` (wall points are the polygon's
    /// vertices, given as `wp`, `wq`), or runs inside it.
    pub(super) fn blocks(
        &self,
        p: (f64, f64),
        q: (f64, f64),
        wp: Option<usize>,
        wq: Option<usize>,
    ) -> bool {
        let orient = |a: (f64, f64), b: (f64, f64), c: (f64, f64)| {
            (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
        };
        let seg: Bbox = [p.0.min(q.0), p.0.max(q.0), p.1.min(q.1), p.1.max(q.1)];
        let n = self.len();
        let mut hit = false;
        self.each_edge(
            |b| b[0] <= seg[1] && seg[0] <= b[1] && b[2] <= seg[3] && seg[2] <= b[3],
            |e| {
                let f = (e + 1) % n;
                if [wp, wq].iter().any(|w| *w == Some(e) || *w == Some(f)) {
                    return false;
                }
                let (a, b) = ((self.x[e], self.y[e]), (self.x[f], self.y[f]));
                let (d1, d2) = (orient(p, q, a), orient(p, q, b));
                let (d3, d4) = (orient(a, b, p), orient(a, b, q));
                hit = d1 * d2 <= 0.0 && d3 * d4 <= 0.0;
                hit
            },
        );
        hit || self.contains(0.5 * (p.0 + q.0), 0.5 * (p.1 + q.1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A regular polygon of `n` vertices on the unit circle, and a
    /// brute-force distance.
    fn circle(n: usize) -> Body {
        let t = |k: usize| 2.0 * std::f64::consts::PI * k as f64 / n as f64;
        Body::new(
            (0..n).map(|k| t(k).cos()).collect(),
            (0..n).map(|k| t(k).sin()).collect(),
        )
    }

    fn brute_distance(b: &Body, px: f64, py: f64) -> f64 {
        (0..b.len())
            .map(|e| {
                let (ax, ay, bx, by) = b.edge(e);
                let (ex, ey) = (bx - ax, by - ay);
                let t = (((px - ax) * ex + (py - ay) * ey) / (ex * ex + ey * ey)).clamp(0.0, 1.0);
                (px - ax - t * ex).hypot(py - ay - t * ey)
            })
            .fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn queries_agree_with_brute_force() {
        for n in [3, 9, 17, 100, 1000] {
            let b = circle(n);
            for k in 0..400 {
                let (px, py) = (
                    ((k * 37) % 101) as f64 / 40.0 - 1.25,
                    ((k * 53) % 97) as f64 / 40.0 - 1.2,
                );
                let d = b.distance(px, py, f64::INFINITY);
                assert_eq!(d, brute_distance(&b, px, py), "n {n} at ({px}, {py})");
                // Inside the polygon exactly when inside its inscribed
                // circle, up to the sagitta.
                let r = px.hypot(py);
                let inscribed = (std::f64::consts::PI / n as f64).cos();
                if r < inscribed - 1e-9 {
                    assert!(b.contains(px, py), "n {n} at ({px}, {py})");
                } else if r > 1.0 + 1e-9 {
                    assert!(!b.contains(px, py), "n {n} at ({px}, {py})");
                }
                let mut near = Vec::new();
                b.vertices_within(px, py, 0.5, |k| near.push(k));
                near.sort_unstable();
                let brute: Vec<usize> = (0..n)
                    .filter(|&k| (b.x[k] - px).hypot(b.y[k] - py) <= 0.5)
                    .collect();
                assert_eq!(near, brute, "n {n} at ({px}, {py})");
                // A chord through the centre crosses; a segment outside
                // does not.
                if r > 1.0 + 1e-9 {
                    assert!(b.blocks((px, py), (-px, -py), None, None));
                    assert!(!b.blocks((px, py), (px * 1.5, py * 1.5), None, None));
                }
            }
        }
    }
}
