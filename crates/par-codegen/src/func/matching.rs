//! `match` on integers and `bool`, lowered to an `if` / `else if` chain
//! (or nested conditional expressions when every arm is a plain value).
//!
//! Patterns: literals, constants, ranges `a..=b` and `a..b`, `|`, `_` and
//! a name (bound to the scrutinee); guards `if c`. The scrutinee is
//! evaluated once; the arms are tried in order and, Rust's `match` being
//! exhaustive, the last one reached is taken without a test.

use syn::spanned::Spanned;
use syn::{Expr, Pat, RangeLimits};

use super::{Ex, FnCx, Kind, Ty};
use crate::names::DeviceType;
use crate::program::Res;

/// A translated arm: its test (`None`: always), statements and value.
struct Arm {
    test: Option<String>,
    lines: Vec<String>,
    value: Ex,
}

impl FnCx<'_> {
    /// A `match` (as a value or a statement).
    pub(crate) fn match_expr(
        &mut self,
        m: &syn::ExprMatch,
        exp: Option<&Ty>,
        dest: Option<&str>,
    ) -> Res<Ex> {
        let s = self.expr(&m.expr, None)?;
        let s = self.deref_scalar(s);
        let ok = match self.known(&s.ty) {
            Some(d) => d.is_int() || d == DeviceType::Bool,
            None => self.is_int_var(&s.ty),
        };
        if !ok {
            return self.fail(
                m.expr.span(),
                "`match` takes integers and `bool` only in device code",
            );
        }
        let s = self.spill(s);
        let mut ty: Option<Ty> = exp.cloned();
        let mut arms = Vec::new();
        for arm in &m.arms {
            let (mut test, binding) = self.pattern_test(&arm.pat, &s)?;
            if let Some((_, g)) = &arm.guard {
                let (glines, g) = self.capture(|x| {
                    let b = Ty::D(DeviceType::Bool);
                    let g = x.expr(g, Some(&b))?;
                    Ok(x.deref_scalar(g))
                });
                let g: Ex = g?;
                if !glines.is_empty() {
                    return self.fail(
                        arm.guard.as_ref().unwrap().1.span(),
                        "guards with statements are not supported in device code",
                    );
                }
                test = Some(match test {
                    Some(t) => format!("({t}) && {}", g.code),
                    None => g.code,
                });
            }
            let (lines, value) = self.capture(|x| {
                x.push_scope();
                if let Some(name) = &binding {
                    x.bind(name, s.code.clone(), s.ty.clone());
                }
                let v = x.expr(&arm.body, ty.as_ref());
                x.pop_scope();
                let v = v?;
                Ok(x.value_of(v))
            });
            let value: Ex = value?;
            if matches!(value.ty, Ty::Ref(..)) {
                return self.fail(
                    arm.body.span(),
                    crate::check::unsupported("references as values are"),
                );
            }
            if value.ty != Ty::Never {
                match &ty {
                    Some(t) => {
                        let t = t.clone();
                        self.unify(&t, &value.ty);
                    }
                    None => ty = Some(value.ty.clone()),
                }
            }
            let always = test.is_none();
            arms.push(Arm { test, lines, value });
            if always {
                break;
            }
        }
        let ty = ty.unwrap_or(Ty::Never);
        let valued = ty != Ty::Never && ty != Ty::unit();
        if valued
            && arms
                .iter()
                .all(|a| a.lines.is_empty() && a.value.ty != Ty::Never)
        {
            let mut code = arms.last().unwrap().value.code.clone();
            for a in arms.iter().rev().skip(1) {
                code = format!(
                    "({} ? {} : {code})",
                    a.test.as_deref().unwrap_or("true"),
                    a.value.code
                );
            }
            return Ok(Ex::new(code, ty, Kind::Value));
        }
        let target = if valued {
            let t = match dest {
                Some(d) => d.to_string(),
                None => self.new_tmp(),
            };
            let ct = self.c_ty(&ty);
            self.line(format!("{ct} {t};"));
            Some(t)
        } else {
            None
        };
        let n = arms.len();
        for (k, a) in arms.into_iter().enumerate() {
            let head = match (k, k + 1 == n, &a.test) {
                (0, true, _) => "".to_string(),
                (0, false, Some(t)) => format!("if ({t})"),
                (_, true, _) => "} else".to_string(),
                (_, false, Some(t)) => format!("}} else if ({t})"),
                (_, false, None) => unreachable!("a catch-all arm ends the chain"),
            };
            if k > 0 {
                self.indent -= 1;
            }
            self.open(head);
            self.emit(a.lines);
            if let (Some(t), true) = (&target, a.value.ty != Ty::Never) {
                self.line(format!("{t} = {};", super::stmt::unparen(&a.value.code)));
            }
        }
        self.close();
        Ok(match target {
            Some(t) => Ex::new(t, ty, Kind::Place),
            None if ty == Ty::Never => Ex::never(),
            None => Ex::unit(),
        })
    }

    /// The test of a pattern on the scrutinee `s` (`None`: matches
    /// anything) and the name it binds, if any.
    fn pattern_test(&mut self, p: &Pat, s: &Ex) -> Res<(Option<String>, Option<String>)> {
        match p {
            Pat::Wild(_) => Ok((None, None)),
            Pat::Paren(x) => self.pattern_test(&x.pat, s),
            Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                let name = i.ident.to_string();
                let segs = vec![name.clone()];
                let is_const = self.prog.imported_builtin(&name, &self.scope).is_some()
                    || matches!(self.prog.lookup_const(&segs, &self.scope), Ok(Some(_)));
                if is_const {
                    let e = Expr::Path(syn::ExprPath {
                        attrs: Vec::new(),
                        qself: None,
                        path: syn::Path::from(i.ident.clone()),
                    });
                    Ok((Some(self.compare(&e, s, "==")?), None))
                } else {
                    Ok((None, Some(name)))
                }
            }
            Pat::Lit(l) => {
                let e = Expr::Lit(l.clone());
                Ok((Some(self.compare(&e, s, "==")?), None))
            }
            Pat::Path(x) => {
                let e = Expr::Path(x.clone());
                Ok((Some(self.compare(&e, s, "==")?), None))
            }
            Pat::Range(r) => {
                let mut parts = Vec::new();
                if let Some(a) = &r.start {
                    parts.push(self.compare(a, s, ">=")?);
                }
                if let Some(b) = &r.end {
                    let op = match r.limits {
                        RangeLimits::Closed(_) => "<=",
                        RangeLimits::HalfOpen(_) => "<",
                    };
                    parts.push(self.compare(b, s, op)?);
                }
                Ok((Some(parts.join(" && ")), None))
            }
            Pat::Or(o) => {
                let mut tests = Vec::new();
                for c in &o.cases {
                    match self.pattern_test(c, s)? {
                        (Some(t), None) => tests.push(format!("({t})")),
                        (None, _) => return Ok((None, None)),
                        (Some(_), Some(_)) => unreachable!(),
                    }
                }
                Ok((Some(tests.join(" || ")), None))
            }
            other => self.fail(
                other.span(),
                crate::check::unsupported(
                    "this pattern is (`match` takes integers and `bool` by value: literals, \
                     constants, ranges, `|`, `_`, a name)",
                ),
            ),
        }
    }

    /// `s op v` for a constant `v` of the pattern.
    fn compare(&mut self, v: &Expr, s: &Ex, op: &str) -> Res<String> {
        let x = self.expr(v, Some(&s.ty))?;
        if x.kind != Kind::Lit {
            return self.fail(v.span(), "patterns take constants only");
        }
        self.unify(&s.ty, &x.ty);
        Ok(format!("{} {op} {}", s.code, super::stmt::unparen(&x.code)))
    }
}
