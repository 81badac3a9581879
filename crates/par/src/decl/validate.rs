//! A loop's declaration checked against itself ([`LoopDecl::validate`]).

use super::*;

/// A declaration that contradicts itself: a programming error in a method,
/// reported with the loop and argument.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("loop `{loop_name}`, argument `{arg}`: {reason}")]
pub struct DeclError {
    /// The loop.
    pub loop_name: &'static str,
    /// The argument.
    pub arg: &'static str,
    /// What is wrong.
    pub reason: String,
}

impl LoopDecl {
    /// Checks the declaration: every dat is on the set its access reaches,
    /// maps start at the loop's set, a written dat appears once and is not
    /// read through a map in the same loop (its neighbours' values would
    /// race with their writes), increments go through maps or direct,
    /// globals are used as they are declared.
    pub fn validate(&self) -> Result<(), DeclError> {
        let err = |arg: &ArgDecl, reason: String| DeclError {
            loop_name: self.name,
            arg: arg.name,
            reason,
        };
        if let Some(sw) = self.sweep {
            let bad = |reason: String| DeclError {
                loop_name: self.name,
                arg: sw.colour.name,
                reason,
            };
            if !std::ptr::eq(sw.colour.set, self.set) || sw.colour.dim != 1 {
                return Err(bad(format!(
                    "a sweep's colours are one value per element of `{}`",
                    self.set.name
                )));
            }
            if sw.colour.ty != ElemType::I32 || sw.colour.role != Role::Input {
                return Err(bad("a sweep's colours are an i32 input dat".into()));
            }
            if self.has_indirect_increment() {
                return Err(bad("a sweep increments through no map".into()));
            }
        }
        if self.line.is_some() {
            self.validate_line()?;
        }
        for (k, a) in self.args.iter().enumerate() {
            if self.args[..k].iter().any(|b| b.name == a.name) {
                return Err(err(a, "two arguments have this name".into()));
            }
            let (dat, via, access) = match a.kind {
                ArgKind::Dat { dat, via, access } => (dat, via, access),
                ArgKind::Global { global, usage } => {
                    let ok = match (global.kind, usage) {
                        (GlobalKind::Const(_), GlobalUse::Read) => true,
                        (GlobalKind::Reduce(a), GlobalUse::Reduce(b)) => a == b,
                        _ => false,
                    };
                    if !ok {
                        return Err(err(
                            a,
                            format!(
                                "global `{}` is {:?}, used as {usage:?}",
                                global.name, global.kind
                            ),
                        ));
                    }
                    continue;
                }
                ArgKind::Scratch { .. } => continue,
            };
            let reached = match via {
                Via::Direct => self.set,
                Via::Map(m, slot) => {
                    if !std::ptr::eq(m.from, self.set) {
                        return Err(err(
                            a,
                            format!("map `{}` does not start at `{}`", m.name, self.set.name),
                        ));
                    }
                    match m.arity {
                        Arity::Fixed(n) if slot < n => {}
                        Arity::Fixed(n) => {
                            return Err(err(
                                a,
                                format!("slot {slot} of map `{}` of arity {n}", m.name),
                            ))
                        }
                        Arity::Variable => {
                            return Err(err(
                                a,
                                format!(
                                    "map `{}` has variable arity: use `via {}` (a Star)",
                                    m.name, m.name
                                ),
                            ))
                        }
                    }
                    m.to
                }
                Via::Star(m) => {
                    if !std::ptr::eq(m.from, self.set) {
                        return Err(err(
                            a,
                            format!(
                                "a Star needs a map from `{}`; `{}` is from `{}`",
                                self.set.name, m.name, m.from.name
                            ),
                        ));
                    }
                    if m.arity != Arity::Variable {
                        return Err(err(
                            a,
                            format!(
                                "map `{}` has fixed arity: use `via {}[slot]`",
                                m.name, m.name
                            ),
                        ));
                    }
                    if access != Access::Read {
                        return Err(err(a, "a Star is read only".into()));
                    }
                    m.to
                }
                Via::Offsets(s) => {
                    if !std::ptr::eq(s.set, self.set) {
                        return Err(err(
                            a,
                            format!("stencil `{}` is not on `{}`", s.name, self.set.name),
                        ));
                    }
                    if access != Access::Read {
                        return Err(err(a, "stencil offsets are read only".into()));
                    }
                    s.set
                }
            };
            if !std::ptr::eq(dat.set, reached) {
                return Err(err(
                    a,
                    format!(
                        "dat `{}` is on `{}`, the access reaches `{}`",
                        dat.name, dat.set.name, reached.name
                    ),
                ));
            }
            if access == Access::Inc && matches!(via, Via::Star(_) | Via::Offsets(_)) {
                return Err(err(
                    a,
                    "increments go directly or through a fixed-arity map".into(),
                ));
            }
            if access.writes() {
                for b in self.args {
                    if std::ptr::eq(b as *const ArgDecl, a as *const ArgDecl) {
                        continue;
                    }
                    if let ArgKind::Dat {
                        dat: d2,
                        via: v2,
                        access: a2,
                    } = b.kind
                    {
                        // Increments through maps add to local values
                        // (two may even reach the same element).
                        let both_inc = access == Access::Inc && a2 == Access::Inc;
                        // A sweep's elements read only other colours'
                        // values of the dat they write.
                        let swept = self.sweep.is_some()
                            && matches!(v2, Via::Star(_))
                            && matches!(via, Via::Direct);
                        if std::ptr::eq(d2, dat) && !both_inc && !swept {
                            let why = if a2.writes() {
                                "the dat is written by two arguments"
                            } else if v2.reaches_others() {
                                "the dat is written and read through a map in the same loop (a race)"
                            } else {
                                "the dat is written and also read: declare one `rw` argument"
                            };
                            return Err(err(a, why.into()));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// A line loop's own rules: a block's stencil read (its strides give
    /// the lines), no sweep, no maps, no increments, no sums.
    fn validate_line(&self) -> Result<(), DeclError> {
        let err = |arg: &'static str, reason: &str| DeclError {
            loop_name: self.name,
            arg,
            reason: reason.into(),
        };
        if self.sweep.is_some() {
            return Err(err("", "a line loop is not a sweep"));
        }
        let mut stencil = false;
        for a in self.args {
            match a.kind {
                ArgKind::Dat { via, access, .. } => match (via, access) {
                    (Via::Offsets(_), _) => stencil = true,
                    (Via::Direct, Access::Inc) => {
                        return Err(err(a.name, "a line loop writes, it does not increment"))
                    }
                    (Via::Direct, _) => {}
                    _ => return Err(err(a.name, "a line loop reaches no map")),
                },
                ArgKind::Scratch { .. } => {}
                ArgKind::Global {
                    usage: GlobalUse::Reduce(Reduction::Sum),
                    ..
                } => return Err(err(
                    a.name,
                    "a line loop's sums would depend on where its lines are cut: min or max only",
                )),
                ArgKind::Global { .. } => {}
            }
        }
        if !stencil {
            return Err(err("", "a line loop reads a dat through a stencil"));
        }
        Ok(())
    }

    /// The dats this loop reads through a map or a stencil (whose halos a
    /// distributed run must refresh first).
    pub fn halo_reads(&self) -> impl Iterator<Item = &'static DatDecl> + '_ {
        self.args.iter().filter_map(|a| match a.kind {
            ArgKind::Dat { dat, via, access } if via.reaches_others() && !access.writes() => {
                Some(dat)
            }
            _ => None,
        })
    }

    /// The dats this loop changes.
    pub fn writes(&self) -> impl Iterator<Item = &'static DatDecl> + '_ {
        self.args.iter().filter_map(|a| match a.kind {
            ArgKind::Dat { dat, access, .. } if access.writes() => Some(dat),
            _ => None,
        })
    }

    /// The dats this loop writes that it reaches at its own element only
    /// (every argument of them `Direct`): no element reads or writes
    /// another's values of them.
    pub fn writes_in_place(&self) -> impl Iterator<Item = &'static DatDecl> + '_ {
        self.writes().filter(move |d| {
            self.args.iter().all(|a| match a.kind {
                ArgKind::Dat { dat, via, .. } if std::ptr::eq(dat, *d) => !via.reaches_others(),
                _ => true,
            })
        })
    }

    /// Whether the loop increments a dat through a map (several elements
    /// may add to one target: the order of the additions is the layer's).
    pub fn has_indirect_increment(&self) -> bool {
        self.args.iter().any(|a| {
            matches!(
                a.kind,
                ArgKind::Dat {
                    access: Access::Inc,
                    via: Via::Map(..),
                    ..
                }
            )
        })
    }

    /// Whether the loop reduces a global (sum, min or max).
    pub fn has_reduction(&self) -> bool {
        self.args.iter().any(|a| {
            matches!(
                a.kind,
                ArgKind::Global {
                    usage: GlobalUse::Reduce(_),
                    ..
                }
            )
        })
    }

    /// The reductions this loop contributes to.
    pub fn reductions(&self) -> impl Iterator<Item = &'static GlobalDecl> + '_ {
        self.args.iter().filter_map(|a| match a.kind {
            ArgKind::Global { global, .. } if matches!(global.kind, GlobalKind::Reduce(_)) => {
                Some(global)
            }
            _ => None,
        })
    }
}
