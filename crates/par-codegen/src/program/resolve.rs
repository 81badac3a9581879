//! Name resolution: which struct, function, constant or alias a path in
//! device code names.

use super::{normalize, ConstOwner, Import, Program, Scope, StructDef};
use crate::lit::{builtin_const, CVal};

impl Program {
    /// The marked struct named `name`.
    pub(crate) fn find_struct(&self, name: &str) -> Option<&StructDef> {
        self.structs.iter().find(|s| s.marked && s.name == name)
    }

    /// The free device function named `name`.
    pub(crate) fn find_fn(&self, name: &str) -> Option<usize> {
        self.fns
            .iter()
            .position(|f| f.scope.self_ty.is_none() && f.name == name)
    }

    /// The device method or associated function `name` of struct `ty`.
    pub(crate) fn find_method(&self, ty: &str, name: &str) -> Option<usize> {
        self.fns
            .iter()
            .position(|f| f.scope.self_ty.as_deref() == Some(ty) && f.name == name)
    }

    /// The imports in effect in `scope`.
    pub(crate) fn imports_of<'a>(&'a self, scope: &Scope) -> Vec<&'a Import> {
        let mut v: Vec<&Import> = self
            .imports
            .iter()
            .filter(|(m, _)| *m == scope.module)
            .map(|(_, i)| i)
            .collect();
        if let Some(f) = scope.func {
            v.extend(self.fns[f].imports.iter());
        }
        v
    }

    /// Picks among module-level items named like the path's last segment
    /// (`cands`: index and module path of each): the one in the current
    /// module, imported, at the path relative to the current module or the
    /// crate, or the only one whose module path ends with the path's
    /// prefix.
    pub(crate) fn pick(
        &self,
        segs: &[String],
        scope: &Scope,
        cands: &[(usize, &[String])],
        depth: usize,
    ) -> Result<Option<usize>, String> {
        let segs = normalize(segs);
        let Some((name, prefix)) = segs.split_last() else {
            return Ok(None);
        };
        let ends = |m: &[String]| m.len() >= prefix.len() && m[m.len() - prefix.len()..] == *prefix;
        let matching: Vec<(usize, &[String])> =
            cands.iter().filter(|(_, m)| ends(m)).cloned().collect();
        let mut rel = scope.module.clone();
        rel.extend(prefix.iter().cloned());
        if let Some((k, _)) = matching.iter().find(|(_, m)| **m == rel[..]) {
            return Ok(Some(*k));
        }
        if !prefix.is_empty() {
            if let Some((k, _)) = matching.iter().find(|(_, m)| *m == prefix) {
                return Ok(Some(*k));
            }
        }
        if prefix.is_empty() && depth < 4 {
            for imp in self.imports_of(scope) {
                match imp {
                    Import::Name(n, path) if n == name => {
                        let p = normalize(path);
                        if p.len() > 1 || p.last() != Some(name) {
                            if let Some(k) = self.pick(&p, scope, cands, depth + 1)? {
                                return Ok(Some(k));
                            }
                        }
                    }
                    Import::Glob(m) => {
                        let mut p = normalize(m);
                        p.push(name.clone());
                        if p.len() > 1 {
                            if let Some(k) = self.pick(&p, scope, cands, depth + 1)? {
                                return Ok(Some(k));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        match matching.len() {
            0 => Ok(None),
            1 => Ok(Some(matching[0].0)),
            _ => {
                let list: Vec<String> = matching
                    .iter()
                    .map(|(_, m)| {
                        let mut p = m.to_vec();
                        p.push(name.clone());
                        p.join("::")
                    })
                    .collect();
                Err(format!(
                    "`{}` is ambiguous: {}",
                    segs.join("::"),
                    list.join(", ")
                ))
            }
        }
    }

    /// The constant a path names in `scope`: a constant of the function's
    /// body, `Self::X` / `Type::X`, or a module-level constant.
    pub(crate) fn lookup_const(
        &self,
        segs: &[String],
        scope: &Scope,
    ) -> Result<Option<usize>, String> {
        let segs = normalize(segs);
        if segs.len() == 1 {
            if let Some(f) = scope.func {
                if let Some(k) = self
                    .consts
                    .iter()
                    .position(|c| c.owner == ConstOwner::Fn(f) && c.name == segs[0])
                {
                    return Ok(Some(k));
                }
            }
        }
        if segs.len() >= 2 {
            let owner = &segs[segs.len() - 2];
            let ty = if owner == "Self" {
                scope.self_ty.clone()
            } else {
                Some(owner.clone())
            };
            if let Some(ty) = ty {
                let name = &segs[segs.len() - 1];
                if let Some(k) = self
                    .consts
                    .iter()
                    .position(|c| c.owner == ConstOwner::Impl(ty.clone()) && c.name == *name)
                {
                    return Ok(Some(k));
                }
            }
        }
        let Some(name) = segs.last() else {
            return Ok(None);
        };
        let cands: Vec<(usize, &[String])> = self
            .consts
            .iter()
            .enumerate()
            .filter(|(_, c)| c.owner == ConstOwner::Module && c.name == *name)
            .map(|(k, c)| (k, &c.scope.module[..]))
            .collect();
        self.pick(&segs, scope, &cands, 0)
    }

    /// The alias a path names in `scope`.
    pub(crate) fn lookup_alias(
        &self,
        segs: &[String],
        scope: &Scope,
    ) -> Result<Option<usize>, String> {
        let Some(name) = segs.last() else {
            return Ok(None);
        };
        let cands: Vec<(usize, &[String])> = self
            .aliases
            .iter()
            .enumerate()
            .filter(|(_, a)| a.name == *name)
            .map(|(k, a)| (k, &a.scope.module[..]))
            .collect();
        self.pick(segs, scope, &cands, 0)
    }

    /// A standard constant brought in by a `use` (`use std::f64::consts::PI;`
    /// or `use std::f64::consts::*;`) under the single name `name`.
    pub(crate) fn imported_builtin(&self, name: &str, scope: &Scope) -> Option<CVal> {
        let imports = self.imports_of(scope);
        let named = imports.iter().find_map(|i| match i {
            Import::Name(n, path) if n == name => builtin_const(path),
            _ => None,
        });
        named.or_else(|| {
            imports.iter().find_map(|i| match i {
                Import::Glob(m) => {
                    let mut p = m.clone();
                    p.push(name.to_string());
                    builtin_const(&p)
                }
                _ => None,
            })
        })
    }
}
