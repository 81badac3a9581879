//! Structured blocks: a Cartesian box of equal cells in one, two or three
//! dimensions. Geometry only (no index arrays: cells are numbered by their
//! position, `i` fastest); the execution layer's block sets reach
//! neighbours by offsets.

/// A Cartesian box `lower..upper` cut into `cells[d]` equal cells along each
/// used direction `d < dimensions`; a direction may wrap around.
#[derive(Clone, Debug, PartialEq)]
pub struct CartesianBlock {
    /// Directions used: 1, 2 or 3.
    pub dimensions: usize,
    /// Cells per direction (1 in unused directions).
    pub cells: [usize; 3],
    /// The box's lower corner (0 in unused directions).
    pub lower: [f64; 3],
    /// The box's upper corner (1 in unused directions).
    pub upper: [f64; 3],
    /// Whether each direction wraps around.
    pub periodic: [bool; 3],
}

impl CartesianBlock {
    /// The block `lower..upper` with `cells` cells per used direction (as
    /// many directions as `cells` has entries), checked: 1-3 directions, at
    /// least one cell in each, finite corners with `lower < upper`.
    pub fn new(
        cells: &[usize],
        lower: &[f64],
        upper: &[f64],
        periodic: &[bool],
    ) -> Result<Self, String> {
        let d = cells.len();
        if !(1..=3).contains(&d) {
            return Err(format!("{d} directions: a block has 1, 2 or 3"));
        }
        if lower.len() != d || upper.len() != d || periodic.len() != d {
            return Err(format!(
                "{d} cell counts but {} lower, {} upper and {} periodic entries",
                lower.len(),
                upper.len(),
                periodic.len()
            ));
        }
        let mut b = CartesianBlock {
            dimensions: d,
            cells: [1; 3],
            lower: [0.0; 3],
            upper: [1.0; 3],
            periodic: [false; 3],
        };
        for k in 0..d {
            if cells[k] == 0 {
                return Err(format!("direction {}: 0 cells", axis(k)));
            }
            if !(lower[k].is_finite() && upper[k].is_finite() && lower[k] < upper[k]) {
                return Err(format!(
                    "direction {}: the box {}..{} is empty or not finite",
                    axis(k),
                    lower[k],
                    upper[k]
                ));
            }
            b.cells[k] = cells[k];
            b.lower[k] = lower[k];
            b.upper[k] = upper[k];
            b.periodic[k] = periodic[k];
        }
        Ok(b)
    }

    /// Cells in all.
    pub fn len(&self) -> usize {
        self.cells.iter().product()
    }

    /// Whether the block has no cell (never, for a checked block).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Cell size per direction.
    pub fn spacing(&self) -> [f64; 3] {
        std::array::from_fn(|k| (self.upper[k] - self.lower[k]) / self.cells[k] as f64)
    }

    /// The centre of cell `(i, j, k)`.
    pub fn centre(&self, ijk: [usize; 3]) -> [f64; 3] {
        let h = self.spacing();
        std::array::from_fn(|d| self.lower[d] + (ijk[d] as f64 + 0.5) * h[d])
    }

    /// The number of cell `(i, j, k)` (`i` fastest).
    pub fn index(&self, ijk: [usize; 3]) -> usize {
        ijk[0] + self.cells[0] * (ijk[1] + self.cells[1] * ijk[2])
    }
}

fn axis(k: usize) -> char {
    ['x', 'y', 'z'][k]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_of_a_2d_block() {
        let b = CartesianBlock::new(&[4, 2], &[0.0, 0.0], &[4.0, 1.0], &[false, true]).unwrap();
        assert_eq!(b.len(), 8);
        assert_eq!(b.spacing(), [1.0, 0.5, 1.0]);
        assert_eq!(b.centre([3, 1, 0]), [3.5, 0.75, 0.5]);
        assert_eq!(b.index([3, 1, 0]), 7);
        assert_eq!(b.periodic, [false, true, false]);
    }

    #[test]
    fn bad_blocks_are_refused_with_the_reason() {
        let e = |c: &[usize], l: &[f64], u: &[f64]| {
            CartesianBlock::new(c, l, u, &vec![false; c.len()]).unwrap_err()
        };
        assert_eq!(e(&[], &[], &[]), "0 directions: a block has 1, 2 or 3");
        assert_eq!(e(&[4, 0], &[0.0; 2], &[1.0; 2]), "direction y: 0 cells");
        assert_eq!(
            e(&[4], &[1.0], &[1.0]),
            "direction x: the box 1..1 is empty or not finite"
        );
        assert_eq!(
            CartesianBlock::new(&[4], &[0.0], &[1.0], &[]).unwrap_err(),
            "1 cell counts but 1 lower, 1 upper and 0 periodic entries"
        );
    }
}
