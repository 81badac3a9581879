//! Data layouts: how a backend stores the values of a dat with several
//! values per element, chosen per run.
//!
//! - [`Layout::Aos`] (array of structures, the default): element `i`'s `dim`
//!   values together, value `c` at `i * dim + c`;
//! - [`Layout::Soa`] (structure of arrays): one array per component, value
//!   `c` of element `i` at `c * n + i` for a set of `n` local elements, so
//!   that consecutive elements' values of one component are neighbours in
//!   memory (what a GPU's coalesced loads and a CPU's vector loads want);
//! - [`Layout::Mixed`]: structures of arrays for the dats that a loop
//!   increments through a map, arrays of structures for the rest (a
//!   GPU's atomic adds then spread over separate arrays while the gathered
//!   reads take whole elements).
//!
//! The layout is the backend's business: kernels see whole elements either
//! way, and everything that leaves a backend (halo messages, gathered
//! fields, checkpoints) is in the array-of-structures order. A dat that a
//! loop reads through a compressed-row map (`Star`) or a structured
//! stencil (`Offsets`) stays an array of structures, and so do the other
//! dats of its set and dimension (so that dats that swap share a layout).

use serde::{Deserialize, Serialize};

use crate::decl::{Access, ArgKind, DatDecl, LoopDecl, Via};
use crate::problem::Values;

/// How a backend stores dats with several values per element.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// Array of structures.
    #[default]
    Aos,
    /// Structure of arrays.
    Soa,
    /// Structure of arrays for the dats incremented through a map, array
    /// of structures for the others. Dats that a method swaps must then
    /// be both incremented or neither (a backend checks at the swap).
    Mixed,
}

impl Layout {
    /// The name, as in case files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Aos => "aos",
            Layout::Soa => "soa",
            Layout::Mixed => "mixed",
        }
    }
}

impl std::str::FromStr for Layout {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "aos" => Ok(Layout::Aos),
            "soa" => Ok(Layout::Soa),
            "mixed" => Ok(Layout::Mixed),
            o => Err(format!("unknown layout '{o}' (aos, soa, mixed)")),
        }
    }
}

/// Which of `dats` a backend stores as structures of arrays under
/// `layout`, given every loop it may run: those with more than one value
/// per element, unless a loop reaches a dat of the same set and dimension
/// through a `Star` or `Offsets`, or a line loop uses it.
pub fn soa_dats(dats: &[&DatDecl], loops: &[&LoopDecl], layout: Layout) -> Vec<bool> {
    if layout == Layout::Aos {
        return vec![false; dats.len()];
    }
    let excluded = |d: &DatDecl| {
        // Line loops read and write arrays of structures only.
        loops.iter().any(|l| {
            l.args.iter().any(|a| match a.kind {
                ArgKind::Dat { dat, via, .. } => {
                    (dat.set.name == d.set.name
                        && dat.dim == d.dim
                        && matches!(via, Via::Star(_) | Via::Offsets(_)))
                        || (l.line.is_some() && std::ptr::eq(dat, d))
                }
                _ => false,
            })
        })
    };
    // Mixed: only the dats some loop increments through a map.
    let incremented = |d: &DatDecl| {
        loops.iter().any(|l| {
            l.args.iter().any(|a| {
                matches!(a.kind, ArgKind::Dat { dat, via: Via::Map(..), access: Access::Inc }
                    if std::ptr::eq(dat, d))
            })
        })
    };
    dats.iter()
        .map(|d| d.dim > 1 && !excluded(d) && (layout == Layout::Soa || incremented(d)))
        .collect()
}

/// Where value `c` of element `e` is, for `dim` values per element:
/// `stride` 0 for an array of structures, else the number of elements.
#[inline]
pub fn at(e: usize, c: usize, dim: usize, stride: usize) -> usize {
    if stride == 0 {
        e * dim + c
    } else {
        c * stride + e
    }
}

/// `values` (array of structures, `dim` per element) as a structure of
/// arrays.
pub fn to_soa(values: &Values, dim: usize) -> Values {
    fn t<T: Copy>(v: &[T], dim: usize) -> Vec<T> {
        let n = v.len() / dim.max(1);
        (0..dim)
            .flat_map(|c| (0..n).map(move |e| v[e * dim + c]))
            .collect()
    }
    match values {
        Values::F64(v) => Values::F64(t(v, dim)),
        Values::I32(v) => Values::I32(t(v, dim)),
    }
}

/// `values` (structure of arrays, `dim` components) as an array of
/// structures.
pub fn to_aos(values: &Values, dim: usize) -> Values {
    fn t<T: Copy>(v: &[T], dim: usize) -> Vec<T> {
        let n = v.len() / dim.max(1);
        (0..n)
            .flat_map(|e| (0..dim).map(move |c| v[c * n + e]))
            .collect()
    }
    match values {
        Values::F64(v) => Values::F64(t(v, dim)),
        Values::I32(v) => Values::I32(t(v, dim)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transposes_are_inverse_and_index_agrees() {
        let aos = Values::F64((0..12).map(f64::from).collect());
        let soa = to_soa(&aos, 3);
        let Values::F64(s) = &soa else { unreachable!() };
        // Element 1's value 2 (aos index 5) sits at 2 * 4 + 1 = 9.
        assert_eq!(s[at(1, 2, 3, 4)], 5.0);
        assert_eq!(s[..4], [0.0, 3.0, 6.0, 9.0]);
        let Values::F64(back) = to_aos(&soa, 3) else {
            unreachable!()
        };
        assert_eq!(back, (0..12).map(f64::from).collect::<Vec<_>>());
        assert_eq!(at(1, 2, 3, 0), 5);
        assert_eq!("soa".parse::<Layout>(), Ok(Layout::Soa));
        assert!("xyz".parse::<Layout>().unwrap_err().contains("aos, soa"));
    }
}
