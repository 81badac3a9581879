//! The point cloud type.

use crate::CloudError;

/// Marker for "no point" in [`Cloud::left`] and [`Cloud::right`] (a `0` in
/// the legacy file).
pub const NO_POINT: u32 = u32::MAX;

/// What a point is: on a solid body, inside the flow, or on the far field.
///
/// The discriminants are the legacy file's codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum PointKind {
    /// On a solid wall (legacy code 0).
    Wall = 0,
    /// Inside the flow (legacy code 1).
    Interior = 1,
    /// On the far-field boundary (legacy code 2).
    Outer = 2,
}

impl PointKind {
    /// The kind for a legacy code, if the code is one of 0, 1, 2.
    pub fn from_code(code: i64) -> Option<Self> {
        match code {
            0 => Some(Self::Wall),
            1 => Some(Self::Interior),
            2 => Some(Self::Outer),
            _ => None,
        }
    }

    /// The legacy code of this kind.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Whether the point lies on a boundary curve (wall or outer) and so needs
    /// valid left and right neighbours.
    pub fn is_boundary(self) -> bool {
        !matches!(self, Self::Interior)
    }

    /// A lower-case name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Wall => "wall",
            Self::Interior => "interior",
            Self::Outer => "outer",
        }
    }
}

/// The extra per-point fields of the legacy "quadtree" variant
/// (`nx ny depth` after the shape id). qflow does not use them for the
/// solution (normals are recomputed from the boundary neighbours, as the
/// reference does) but keeps them so that conversions are lossless.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuadtreeFields {
    /// The file's x-component of the normal.
    pub nx: Vec<f64>,
    /// The file's y-component of the normal.
    pub ny: Vec<f64>,
    /// The quadtree depth of the point.
    pub depth: Vec<i64>,
}

/// A point cloud: struct of arrays, one entry per point, neighbour lists in
/// compressed rows.
///
/// Indices are 0-based. Invariants (checked by [`Cloud::validate_structure`],
/// which every reader and generator calls): all per-point arrays have the same
/// length, `nbr_start` has one more entry than there are points and is
/// non-decreasing, every neighbour index and every `left`/`right` that is not
/// [`NO_POINT`] is a valid point index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cloud {
    /// x coordinates.
    pub x: Vec<f64>,
    /// y coordinates.
    pub y: Vec<f64>,
    /// Point kinds.
    pub kind: Vec<PointKind>,
    /// Left boundary neighbour (0-based) or [`NO_POINT`].
    pub left: Vec<u32>,
    /// Right boundary neighbour (0-based) or [`NO_POINT`].
    pub right: Vec<u32>,
    /// Shape id: 0 = none, `> 0` = the body the point belongs to.
    pub shape: Vec<u32>,
    /// Smallest distance from the point to any neighbour, as stored with the
    /// cloud (the limiter's length scale).
    pub min_dist: Vec<f64>,
    /// Offsets into [`Cloud::nbr`]: the neighbours of point `i` are
    /// `nbr[nbr_start[i]..nbr_start[i + 1]]`.
    pub nbr_start: Vec<u32>,
    /// Neighbour indices (0-based), in stencil order.
    pub nbr: Vec<u32>,
    /// Quadtree-variant fields, present when the cloud came from (or is meant
    /// for) that variant.
    pub quadtree: Option<QuadtreeFields>,
}

impl Cloud {
    /// Number of points.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Whether the cloud has no points.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// The stencil (neighbour list) of point `i`, in stencil order.
    #[inline]
    pub fn neighbours(&self, i: usize) -> &[u32] {
        &self.nbr[self.nbr_start[i] as usize..self.nbr_start[i + 1] as usize]
    }

    /// Number of points of each kind: (wall, interior, outer).
    pub fn kind_counts(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for k in &self.kind {
            match k {
                PointKind::Wall => c.0 += 1,
                PointKind::Interior => c.1 += 1,
                PointKind::Outer => c.2 += 1,
            }
        }
        c
    }

    /// Checks the structural invariants listed on [`Cloud`]. Readers and
    /// generators call this; it is cheap (one pass).
    pub fn validate_structure(&self) -> Result<(), CloudError> {
        let n = self.len();
        let bad = |what: &str| Err(CloudError::Structure(what.to_string()));
        if n > (u32::MAX - 1) as usize {
            return bad("more points than a 32-bit index can address");
        }
        if self.y.len() != n
            || self.kind.len() != n
            || self.left.len() != n
            || self.right.len() != n
            || self.shape.len() != n
            || self.min_dist.len() != n
        {
            return bad("per-point arrays have different lengths");
        }
        if let Some(q) = &self.quadtree {
            if q.nx.len() != n || q.ny.len() != n || q.depth.len() != n {
                return bad("quadtree arrays have a different length from the points");
            }
        }
        if self.nbr_start.len() != n + 1 || self.nbr_start[0] != 0 {
            return bad("neighbour offsets do not have one entry per point plus one");
        }
        if self.nbr_start.windows(2).any(|w| w[1] < w[0]) {
            return bad("neighbour offsets decrease");
        }
        if self.nbr_start[n] as usize != self.nbr.len() {
            return bad("neighbour offsets do not end at the number of neighbours");
        }
        for (i, &k) in self.nbr.iter().enumerate() {
            if k as usize >= n {
                let p = self.nbr_start.partition_point(|&s| s as usize <= i) - 1;
                return Err(CloudError::Structure(format!(
                    "point {}: neighbour index {} is out of range (1..={n})",
                    p + 1,
                    k as u64 + 1
                )));
            }
        }
        for (i, (&l, &r)) in self.left.iter().zip(&self.right).enumerate() {
            for (name, v) in [("left", l), ("right", r)] {
                if v != NO_POINT && v as usize >= n {
                    return Err(CloudError::Structure(format!(
                        "point {}: {name} neighbour {} is out of range (1..={n})",
                        i + 1,
                        v as u64 + 1
                    )));
                }
            }
        }
        Ok(())
    }

    /// The cloud with its points renumbered: point `old` becomes point
    /// `new_of_old[old]`. Stencils keep their order (only the indices change),
    /// so the per-point work of the solver is the same under any renumbering.
    ///
    /// Panics if `new_of_old` is not a permutation of `0..len()` (it comes from
    /// [`crate::renumber`], never from a user).
    pub fn permuted(&self, new_of_old: &[u32]) -> Cloud {
        let n = self.len();
        assert_eq!(new_of_old.len(), n, "permutation has the wrong length");
        let mut old_of_new = vec![u32::MAX; n];
        for (old, &new) in new_of_old.iter().enumerate() {
            assert!(
                old_of_new[new as usize] == u32::MAX,
                "not a permutation: {new} appears twice"
            );
            old_of_new[new as usize] = old as u32;
        }
        let map = |v: u32| {
            if v == NO_POINT {
                NO_POINT
            } else {
                new_of_old[v as usize]
            }
        };
        let gather_f = |a: &[f64]| {
            old_of_new
                .iter()
                .map(|&o| a[o as usize])
                .collect::<Vec<_>>()
        };
        let mut nbr_start = Vec::with_capacity(n + 1);
        let mut nbr = Vec::with_capacity(self.nbr.len());
        nbr_start.push(0u32);
        for &o in &old_of_new {
            nbr.extend(
                self.neighbours(o as usize)
                    .iter()
                    .map(|&k| new_of_old[k as usize]),
            );
            nbr_start.push(nbr.len() as u32);
        }
        Cloud {
            x: gather_f(&self.x),
            y: gather_f(&self.y),
            kind: old_of_new.iter().map(|&o| self.kind[o as usize]).collect(),
            left: old_of_new
                .iter()
                .map(|&o| map(self.left[o as usize]))
                .collect(),
            right: old_of_new
                .iter()
                .map(|&o| map(self.right[o as usize]))
                .collect(),
            shape: old_of_new.iter().map(|&o| self.shape[o as usize]).collect(),
            min_dist: gather_f(&self.min_dist),
            nbr_start,
            nbr,
            quadtree: self.quadtree.as_ref().map(|q| QuadtreeFields {
                nx: gather_f(&q.nx),
                ny: gather_f(&q.ny),
                depth: old_of_new.iter().map(|&o| q.depth[o as usize]).collect(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Cloud {
        Cloud {
            x: vec![0.0, 1.0, 0.0],
            y: vec![0.0, 0.0, 1.0],
            kind: vec![PointKind::Interior; 3],
            left: vec![NO_POINT, 0, NO_POINT],
            right: vec![NO_POINT, 2, NO_POINT],
            shape: vec![0, 1, 0],
            min_dist: vec![1.0, 1.0, 1.0],
            nbr_start: vec![0, 2, 4, 6],
            nbr: vec![1, 2, 0, 2, 0, 1],
            quadtree: None,
        }
    }

    #[test]
    fn permutation_keeps_stencil_order_and_maps_indices() {
        let c = tiny();
        c.validate_structure().unwrap();
        let p = c.permuted(&[2, 0, 1]);
        p.validate_structure().unwrap();
        // old point 1 is new point 0; its stencil (0, 2) maps to (2, 1).
        assert_eq!(p.x[0], 1.0);
        assert_eq!(p.neighbours(0), &[2, 1]);
        assert_eq!(p.left[0], 2);
        assert_eq!(p.right[0], 1);
        assert_eq!(p.shape[0], 1);
    }

    #[test]
    fn structure_errors_name_the_point() {
        let mut c = tiny();
        c.nbr[3] = 7;
        let e = c.validate_structure().unwrap_err().to_string();
        assert!(e.contains("point 2"), "{e}");
        assert!(e.contains("out of range"), "{e}");
    }
}
