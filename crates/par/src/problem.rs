//! A problem as a method hands it to the layer: the sizes of its sets, the
//! values of its maps and the initial values of its dats, in the problem's
//! numbering. The layer cuts it into parts (one per rank) and keeps each
//! part on its backend.

use crate::decl::{Arity, DatDecl, ElemType, MapDecl, SetDecl};

/// The values of a dat.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// `f64` values.
    F64(Vec<f64>),
    /// `i32` values.
    I32(Vec<i32>),
}

impl Values {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::F64(v) => v.len(),
            Values::I32(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The type of the values.
    pub fn ty(&self) -> ElemType {
        match self {
            Values::F64(_) => ElemType::F64,
            Values::I32(_) => ElemType::I32,
        }
    }

    /// The values of the elements `elements` (in that order), `dim` per
    /// element.
    pub fn gather(&self, dim: usize, elements: impl Iterator<Item = usize>) -> Values {
        fn pick<T: Copy>(v: &[T], dim: usize, elements: impl Iterator<Item = usize>) -> Vec<T> {
            let mut out = Vec::with_capacity(elements.size_hint().0 * dim);
            for e in elements {
                out.extend_from_slice(&v[e * dim..(e + 1) * dim]);
            }
            out
        }
        match self {
            Values::F64(v) => Values::F64(pick(v, dim, elements)),
            Values::I32(v) => Values::I32(pick(v, dim, elements)),
        }
    }
}

/// The shape of a set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Unstructured elements (points, cells, edges, faces), numbered
    /// `0..n`.
    Elements(usize),
    /// A structured block of `dims` cells (unused dimensions 1), periodic
    /// or not in each direction; element `(i, j, k)` is numbered
    /// `i + dims[0] * (j + dims[1] * k)`.
    Block {
        /// Cells per direction.
        dims: [usize; 3],
        /// Whether each direction wraps around.
        periodic: [bool; 3],
    },
}

impl Shape {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match *self {
            Shape::Elements(n) => n,
            Shape::Block { dims, .. } => dims[0] * dims[1] * dims[2],
        }
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A set's size (or block shape).
#[derive(Clone, Debug)]
pub struct SetData {
    /// The set.
    pub decl: &'static SetDecl,
    /// Its shape.
    pub shape: Shape,
    /// Where the blocks of a two-level plan start, ascending from 0, when
    /// a reordering formed them (a partition's parts); empty: blocks of the
    /// backend's fixed size.
    pub blocks: Vec<u32>,
}

/// A map's values, in the problem's numbering.
#[derive(Clone, Debug)]
pub struct MapData {
    /// The map.
    pub decl: &'static MapDecl,
    /// Targets: `arity` per source element (fixed arity), or the rows one
    /// after the other (variable arity).
    pub values: Vec<u32>,
    /// Row starts, `sources + 1` values (variable arity; empty otherwise).
    pub start: Vec<u32>,
}

/// A dat's initial values, in the problem's numbering.
#[derive(Clone, Debug)]
pub struct DatData {
    /// The dat.
    pub decl: &'static DatDecl,
    /// `dim` values per element.
    pub values: Values,
}

/// How to cut a problem into parts.
#[derive(Clone, Debug)]
pub struct PartitionHints {
    /// The set that is partitioned (points, cells); other unstructured sets
    /// follow it through `owners`.
    pub primary: &'static SetDecl,
    /// The map whose rows make the graph a graph partitioner cuts (a
    /// stencil, cell neighbours); `None`: only coordinate bisection.
    pub graph: Option<&'static MapDecl>,
    /// Dats holding the primary set's coordinates (x, y), for coordinate
    /// bisection.
    pub coordinates: Option<[&'static DatDecl; 2]>,
    /// Sets whose elements go with the owner of their target through a
    /// map's first slot (a surface point with its point).
    pub owners: Vec<(&'static SetDecl, &'static MapDecl)>,
}

/// A problem: sets, maps and dats with their values.
#[derive(Clone, Debug)]
pub struct Problem {
    /// The sets.
    pub sets: Vec<SetData>,
    /// The maps.
    pub maps: Vec<MapData>,
    /// The dats.
    pub dats: Vec<DatData>,
    /// How to partition it.
    pub hints: PartitionHints,
}

/// A problem whose data contradict their declarations.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{what}: {reason}")]
pub struct ProblemError {
    /// The set, map or dat.
    pub what: String,
    /// What is wrong.
    pub reason: String,
}

impl Problem {
    /// Renumbers the elements of `set` (`new_of_old[e]`: element `e`'s new
    /// number): the rows of maps from it, the targets of maps to it and
    /// the values of dats on it follow.
    pub fn permute_set(&mut self, set: &SetDecl, new_of_old: &[u32]) {
        let n = new_of_old.len();
        let mut old_of_new = vec![0usize; n];
        for (old, &new) in new_of_old.iter().enumerate() {
            old_of_new[new as usize] = old;
        }
        for m in &mut self.maps {
            if m.decl.to.name == set.name {
                for v in &mut m.values {
                    *v = new_of_old[*v as usize];
                }
            }
            if m.decl.from.name == set.name {
                match m.decl.arity {
                    Arity::Fixed(a) => {
                        let old = std::mem::take(&mut m.values);
                        m.values = old_of_new
                            .iter()
                            .flat_map(|&o| old[o * a..(o + 1) * a].iter().copied())
                            .collect();
                    }
                    Arity::Variable => {
                        let (old, start) =
                            (std::mem::take(&mut m.values), std::mem::take(&mut m.start));
                        m.start.push(0);
                        for &o in &old_of_new {
                            m.values
                                .extend_from_slice(&old[start[o] as usize..start[o + 1] as usize]);
                            m.start.push(m.values.len() as u32);
                        }
                    }
                }
            }
        }
        for d in &mut self.dats {
            if d.decl.set.name == set.name {
                d.values = d.values.gather(d.decl.dim, old_of_new.iter().copied());
            }
        } // Blocks formed for the old numbering mean nothing in the new.
        for s in &mut self.sets {
            if s.decl.name == set.name {
                s.blocks.clear();
            }
        }
    }

    /// The set named `name`.
    pub fn set(&self, decl: &SetDecl) -> Option<&SetData> {
        self.sets.iter().find(|s| s.decl.name == decl.name)
    }

    /// The size of a set.
    pub fn set_len(&self, decl: &SetDecl) -> usize {
        self.set(decl).map_or(0, |s| s.shape.len())
    }

    /// The map named as `decl`.
    pub fn map(&self, decl: &MapDecl) -> Option<&MapData> {
        self.maps.iter().find(|m| m.decl.name == decl.name)
    }

    /// The dat named as `decl`.
    pub fn dat(&self, decl: &DatDecl) -> Option<&DatData> {
        self.dats.iter().find(|d| d.decl.name == decl.name)
    }

    /// Checks that every map and dat fits its sets: sizes, types, targets
    /// in range, rows ordered.
    pub fn validate(&self) -> Result<(), ProblemError> {
        let bad = |what: String, reason: String| Err(ProblemError { what, reason });
        for (k, s) in self.sets.iter().enumerate() {
            if self.sets[..k].iter().any(|o| o.decl.name == s.decl.name) {
                return bad(format!("set `{}`", s.decl.name), "given twice".into());
            }
        }
        let size = |d: &SetDecl| self.set(d).map(|s| s.shape.len());
        for m in &self.maps {
            let what = format!("map `{}`", m.decl.name);
            let (Some(from), Some(to)) = (size(m.decl.from), size(m.decl.to)) else {
                return bad(what, "its sets are not part of the problem".into());
            };
            match m.decl.arity {
                Arity::Fixed(a) => {
                    if m.values.len() != a * from {
                        return bad(
                            what,
                            format!("{} values for {from} elements of arity {a}", m.values.len()),
                        );
                    }
                }
                Arity::Variable => {
                    if m.start.len() != from + 1 || m.start[0] != 0 {
                        return bad(
                            what,
                            format!("{} row starts for {from} rows", m.start.len()),
                        );
                    }
                    if m.start.windows(2).any(|w| w[1] < w[0]) {
                        return bad(what, "row starts decrease".into());
                    }
                    if *m.start.last().unwrap_or(&0) as usize != m.values.len() {
                        return bad(
                            what,
                            "the last row start is not the number of values".into(),
                        );
                    }
                }
            }
            if let Some(e) = m.values.iter().position(|&v| v as usize >= to) {
                return bad(
                    what,
                    format!(
                        "value {} at {e} is not an element of `{}` ({to})",
                        m.values[e], m.decl.to.name
                    ),
                );
            }
        }
        for d in &self.dats {
            let what = format!("dat `{}`", d.decl.name);
            let Some(n) = size(d.decl.set) else {
                return bad(
                    what,
                    format!("its set `{}` is not part of the problem", d.decl.set.name),
                );
            };
            if d.values.ty() != d.decl.ty {
                return bad(
                    what,
                    format!(
                        "{} values for a {} dat",
                        d.values.ty().name(),
                        d.decl.ty.name()
                    ),
                );
            }
            if d.values.len() != n * d.decl.dim {
                return bad(
                    what,
                    format!(
                        "{} values for {n} elements of {} values",
                        d.values.len(),
                        d.decl.dim
                    ),
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::Role;

    static A: SetDecl = SetDecl { name: "a" };
    static B: SetDecl = SetDecl { name: "b" };
    static AB: MapDecl = MapDecl {
        name: "ab",
        from: &A,
        to: &B,
        arity: Arity::Fixed(2),
    };
    static BA: MapDecl = MapDecl {
        name: "ba",
        from: &B,
        to: &A,
        arity: Arity::Fixed(1),
    };
    static AA: MapDecl = MapDecl {
        name: "aa",
        from: &A,
        to: &A,
        arity: Arity::Variable,
    };
    static VA: DatDecl = DatDecl::f64("va", &A, 2, Role::State);

    #[test]
    fn permuting_a_set_carries_its_maps_and_dats() {
        let mut p = Problem {
            sets: vec![
                SetData {
                    decl: &A,
                    shape: Shape::Elements(3),
                    blocks: Vec::new(),
                },
                SetData {
                    decl: &B,
                    shape: Shape::Elements(2),
                    blocks: Vec::new(),
                },
            ],
            maps: vec![
                MapData {
                    decl: &AB,
                    values: vec![0, 1, 1, 0, 1, 1],
                    start: vec![],
                },
                MapData {
                    decl: &BA,
                    values: vec![2, 0],
                    start: vec![],
                },
                MapData {
                    decl: &AA,
                    values: vec![1, 0, 2, 0],
                    start: vec![0, 1, 3, 4],
                },
            ],
            dats: vec![DatData {
                decl: &VA,
                values: Values::F64(vec![0.0, 0.5, 1.0, 1.5, 2.0, 2.5]),
            }],
            hints: PartitionHints {
                primary: &A,
                graph: None,
                coordinates: None,
                owners: vec![],
            },
        };
        // Old element 0 becomes 2, 1 becomes 0, 2 becomes 1.
        p.permute_set(&A, &[2, 0, 1]);
        assert_eq!(p.maps[0].values, [1, 0, 1, 1, 0, 1]);
        assert_eq!(p.maps[1].values, [1, 2]);
        assert_eq!(p.maps[2].values, [2, 1, 2, 0]);
        assert_eq!(p.maps[2].start, [0, 2, 3, 4]);
        assert_eq!(
            p.dats[0].values,
            Values::F64(vec![1.0, 1.5, 2.0, 2.5, 0.0, 0.5])
        );
        p.validate().unwrap();
    }
}
