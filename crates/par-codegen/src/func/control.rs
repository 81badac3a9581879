//! Control flow: `if` (as a statement and as a value), `while`, `for`.

use syn::spanned::Spanned;
use syn::{Expr, Pat, RangeLimits};

use super::stmt::{strip, unparen};
use super::{Ex, FnCx, Kind, Ty};
use crate::names::DeviceType;
use crate::program::Res;

impl FnCx<'_> {
    /// A condition (`bool`), without enclosing parentheses.
    pub(crate) fn cond(&mut self, e: &Expr) -> Res<String> {
        let b = Ty::D(DeviceType::Bool);
        let c = self.expr(e, Some(&b))?;
        let c = self.deref_scalar(c);
        self.unify(&c.ty, &b);
        Ok(unparen(&c.code).to_string())
    }

    /// `if` as a statement.
    pub(crate) fn if_stmt(&mut self, i: &syn::ExprIf) -> Res<()> {
        let c = self.cond(&i.cond)?;
        self.if_chain(i, &c, "if")
    }

    pub(crate) fn if_chain(&mut self, i: &syn::ExprIf, c: &str, head: &str) -> Res<()> {
        self.open(format!("{head} ({c})"));
        self.block_body(&i.then_branch)?;
        self.indent -= 1;
        match &i.else_branch {
            None => self.line("}"),
            Some((_, e)) => match strip(e) {
                Expr::If(elif) => {
                    let (lines, c2) = self.capture(|s| s.cond(&elif.cond));
                    let c2 = c2?;
                    if lines.is_empty() {
                        return self.if_chain(elif, &c2, "} else if");
                    }
                    self.open("} else");
                    self.emit(lines);
                    self.if_chain(elif, &c2, "if")?;
                    self.close();
                }
                Expr::Block(b) => {
                    self.open("} else");
                    self.block_body(&b.block)?;
                    self.close();
                }
                other => return self.fail(other.span(), "unexpected `else`"),
            },
        }
        Ok(())
    }

    /// `if` as a value: a conditional expression when both branches are
    /// plain expressions, else a temporary assigned in each branch.
    pub(crate) fn if_value(
        &mut self,
        i: &syn::ExprIf,
        exp: Option<&Ty>,
        dest: Option<&str>,
    ) -> Res<Ex> {
        let Some((_, els)) = &i.else_branch else {
            self.if_stmt(i)?;
            return Ok(Ex::unit());
        };
        let c = self.cond(&i.cond)?;
        let (tl, tv) = self.capture(|s| {
            let v = s.block_value(&i.then_branch, exp, None)?;
            Ok(s.value_of(v))
        });
        let tv: Ex = tv?;
        let exp2 = exp
            .cloned()
            .or_else(|| (tv.ty != Ty::Never).then(|| tv.ty.clone()));
        let (el, ev) = self.capture(|s| {
            let v = match strip(els) {
                Expr::If(x) => s.if_value(x, exp2.as_ref(), None)?,
                Expr::Block(b) => s.block_value(&b.block, exp2.as_ref(), None)?,
                x => s.expr(x, exp2.as_ref())?,
            };
            Ok(s.value_of(v))
        });
        let ev: Ex = ev?;
        if matches!(tv.ty, Ty::Ref(..)) || matches!(ev.ty, Ty::Ref(..)) {
            return self.fail(
                i.span(),
                crate::check::unsupported("references as values are"),
            );
        }
        let ty = match (&tv.ty, &ev.ty) {
            (Ty::Never, t) | (t, Ty::Never) => t.clone(),
            (a, b) => {
                self.unify(a, b);
                a.clone()
            }
        };
        if ty == Ty::Never || ty == Ty::unit() {
            self.open(format!("if ({c})"));
            self.emit(tl);
            self.indent -= 1;
            self.open("} else");
            self.emit(el);
            self.close();
            return Ok(if ty == Ty::Never {
                Ex::never()
            } else {
                Ex::unit()
            });
        }
        if tl.is_empty() && el.is_empty() {
            // A conditional expression as the condition needs parentheses.
            let c = if c.contains('?') { format!("({c})") } else { c };
            return Ok(Ex::new(
                format!("({c} ? {} : {})", tv.code, ev.code),
                ty,
                Kind::Value,
            ));
        }
        let t = match dest {
            Some(d) => d.to_string(),
            None => self.new_tmp(),
        };
        let ct = self.c_ty(&ty);
        self.line(format!("{ct} {t};"));
        self.open(format!("if ({c})"));
        self.emit(tl);
        if tv.ty != Ty::Never {
            self.line(format!("{t} = {};", unparen(&tv.code)));
        }
        self.indent -= 1;
        self.open("} else");
        self.emit(el);
        if ev.ty != Ty::Never {
            self.line(format!("{t} = {};", unparen(&ev.code)));
        }
        self.close();
        Ok(Ex::new(t, ty, Kind::Place))
    }

    pub(crate) fn while_loop(&mut self, w: &syn::ExprWhile) -> Res<()> {
        let (lines, c) = self.capture(|s| s.cond(&w.cond));
        let c = c?;
        if lines.is_empty() {
            self.open(format!("while ({c})"));
        } else {
            self.open("for (;;)");
            self.emit(lines);
            self.line(format!("if (!({c})) break;"));
        }
        self.block_body(&w.body)?;
        self.close();
        Ok(())
    }

    /// Saves a loop bound in a temporary unless it is a constant.
    pub(crate) fn bound(&mut self, v: Ex) -> Ex {
        if v.kind == Kind::Lit {
            return v;
        }
        let t = self.new_tmp();
        let ct = self.c_ty(&v.ty);
        self.line(format!("{ct} {t} = {};", unparen(&v.code)));
        Ex::new(t, v.ty, Kind::Place)
    }

    pub(crate) fn for_loop(&mut self, f: &syn::ExprForLoop) -> Res<()> {
        let mut it = strip(&f.expr);
        let mut step = None;
        let mut rev = false;
        let range = loop {
            match it {
                Expr::MethodCall(m)
                    if m.method == "step_by" && m.args.len() == 1 && step.is_none() =>
                {
                    if rev {
                        return self.fail(
                            m.span(),
                            "`.step_by(k).rev()` is not supported (`.rev().step_by(k)` is)",
                        );
                    }
                    step = Some(&m.args[0]);
                    it = strip(&m.receiver);
                }
                Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() && !rev => {
                    rev = true;
                    it = strip(&m.receiver);
                }
                Expr::Range(r) if r.start.is_some() && r.end.is_some() => break r,
                other => {
                    return self.fail(
                        other.span(),
                        crate::check::unsupported(
                            "iterators are (`for` runs over integer ranges `a..b` only)",
                        ),
                    )
                }
            }
        };
        let incl = matches!(range.limits, RangeLimits::Closed(_));
        let (start, end) = (range.start.as_ref().unwrap(), range.end.as_ref().unwrap());
        let s = self.expr(start, None)?;
        let mut s = self.deref_scalar(s);
        let m = self.mark();
        let st = s.ty.clone();
        let e = self.expr(end, Some(&st))?;
        let e = self.deref_scalar(e);
        self.protect(&mut [&mut s], m);
        self.unify(&s.ty, &e.ty);
        self.need_int(&s.ty, start.span())?;
        let ty = self.resolved(&s.ty);
        let e = self.bound(e);
        let s = if rev { self.bound(s) } else { s };
        let k = match step {
            Some(x) => {
                let v = self.expr(x, Some(&Ty::D(DeviceType::Usize)))?;
                let v = self.deref_scalar(v);
                Some(self.bound(v).code)
            }
            None => None,
        };
        let ct = self.c_ty(&ty);
        self.push_scope();
        let (name, mutable) = match &*f.pat {
            Pat::Ident(id) => (Some(id.ident.to_string()), id.mutability.is_some()),
            _ => (None, false),
        };
        if rev {
            // From the end down: `it` is one above the next value.
            let iv = self.new_tmp();
            let top = if incl {
                format!("{} + 1{}", e.code, self.int_sfx(&ty))
            } else {
                e.code.clone()
            };
            self.open(format!("for ({ct} {iv} = {top}; {iv} > {}; )", s.code));
            let cur = match &k {
                None => {
                    self.line(format!("{iv}--;"));
                    iv.clone()
                }
                Some(k) => {
                    let c = self.new_tmp();
                    self.line(format!("{ct} {c} = {iv} - 1;"));
                    self.line(format!(
                        "{iv} = {iv} - {} > {k} ? {iv} - {k} : {};",
                        s.code, s.code
                    ));
                    c
                }
            };
            if let Some(n) = name {
                let c = self.fresh(&n);
                self.line(format!("{ct} {c} = {cur};"));
                self.bind(&n, c, ty);
            }
        } else {
            let iv = match &name {
                Some(n) if !mutable => self.fresh(n),
                _ => self.new_tmp(),
            };
            let cmp = if incl { "<=" } else { "<" };
            let inc = match k {
                Some(k) => format!("{iv} += {k}"),
                None => format!("{iv}++"),
            };
            self.open(format!(
                "for ({ct} {iv} = {}; {iv} {cmp} {}; {inc})",
                unparen(&s.code),
                e.code
            ));
            if let Some(n) = name {
                if mutable {
                    let c = self.fresh(&n);
                    self.line(format!("{ct} {c} = {iv};"));
                    self.bind(&n, c, ty);
                } else {
                    self.bind(&n, iv, ty);
                }
            }
        }
        let r = self.block_body(&f.body);
        self.close();
        self.pop_scope();
        r
    }
}
