//! Statements: blocks, `let`, assignments, `if`, loops, `return`.

use syn::spanned::Spanned;
use syn::{Block, Expr, Pat, Stmt};

use super::expr::{c_op, is_compound};
use super::{Ex, FnCx, Kind, Ty};
use crate::check::is_dropped_macro;
use crate::names::DeviceType;
use crate::program::Res;

/// `e` without parentheses.
pub(crate) fn strip(mut e: &Expr) -> &Expr {
    loop {
        match e {
            Expr::Paren(p) => e = &p.expr,
            Expr::Group(g) => e = &g.expr,
            _ => return e,
        }
    }
}

/// C code without one pair of enclosing parentheses.
pub(crate) fn unparen(code: &str) -> &str {
    if !(code.starts_with('(') && code.ends_with(')')) {
        return code;
    }
    let mut depth = 0;
    for (k, c) in code.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && k != code.len() - 1 {
                    return code;
                }
            }
            _ => {}
        }
    }
    &code[1..code.len() - 1]
}

/// Whether an expression is a statement in value position (its value is
/// `()` or it diverges).
fn stmt_like(e: &Expr) -> bool {
    match e {
        Expr::Assign(_)
        | Expr::While(_)
        | Expr::ForLoop(_)
        | Expr::Loop(_)
        | Expr::Macro(_)
        | Expr::Return(_)
        | Expr::Break(_)
        | Expr::Continue(_) => true,
        Expr::Binary(b) => is_compound(&b.op),
        Expr::If(i) => i.else_branch.is_none(),
        _ => false,
    }
}

fn diverges(s: &Stmt) -> bool {
    match s {
        Stmt::Expr(e, _) => matches!(
            strip(e),
            Expr::Return(_) | Expr::Break(_) | Expr::Continue(_)
        ),
        _ => false,
    }
}

impl FnCx<'_> {
    /// The function's body: its tail is returned.
    pub(crate) fn body(&mut self, b: &Block) -> Res<()> {
        self.push_scope();
        let tail = self.stmts(b)?;
        if let Some(t) = tail {
            if self.ret == DeviceType::Unit || stmt_like(t) {
                self.stmt_expr(t)?;
            } else {
                self.return_value(t)?;
            }
        }
        self.pop_scope();
        Ok(())
    }

    /// The statements of `b` but its tail expression, which it returns.
    pub(crate) fn stmts<'b>(&mut self, b: &'b Block) -> Res<Option<&'b Expr>> {
        let n = b.stmts.len();
        for (k, s) in b.stmts.iter().enumerate() {
            match s {
                Stmt::Local(l) => self.let_stmt(l)?,
                Stmt::Item(_) => {}
                Stmt::Expr(e, None) if k + 1 == n => return Ok(Some(e)),
                Stmt::Expr(e, _) => self.stmt_expr(e)?,
                Stmt::Macro(m) => {
                    if !is_dropped_macro(&m.mac) {
                        return self
                            .fail(m.mac.path.span(), crate::check::unsupported("macros are"));
                    }
                }
            }
        }
        Ok(None)
    }

    /// A block whose value is used.
    pub(crate) fn block_value(
        &mut self,
        b: &Block,
        exp: Option<&Ty>,
        dest: Option<&str>,
    ) -> Res<Ex> {
        self.push_scope();
        let r = self.block_value_in(b, exp, dest);
        self.pop_scope();
        r
    }

    pub(crate) fn block_value_in(
        &mut self,
        b: &Block,
        exp: Option<&Ty>,
        dest: Option<&str>,
    ) -> Res<Ex> {
        match self.stmts(b)? {
            Some(t) if stmt_like(t) => {
                self.stmt_expr(t)?;
                let never = matches!(
                    strip(t),
                    Expr::Return(_) | Expr::Break(_) | Expr::Continue(_)
                );
                Ok(if never { Ex::never() } else { Ex::unit() })
            }
            Some(t) => self.expr_into(t, exp, dest),
            None if b.stmts.last().is_some_and(diverges) => Ok(Ex::never()),
            None => Ok(Ex::unit()),
        }
    }

    /// A block as a statement (its value, if any, is dropped).
    pub(crate) fn block_body(&mut self, b: &Block) -> Res<()> {
        self.push_scope();
        let r = self.stmts(b).and_then(|t| match t {
            Some(t) => self.stmt_expr(t),
            None => Ok(()),
        });
        self.pop_scope();
        r
    }

    /// An expression statement.
    pub(crate) fn stmt_expr(&mut self, e: &Expr) -> Res<()> {
        match e {
            Expr::Assign(a) => self.assign(&a.left, &a.right),
            Expr::Binary(b) if is_compound(&b.op) => self.compound(b),
            Expr::If(i) => self.if_stmt(i),
            Expr::While(w) => self.while_loop(w),
            Expr::ForLoop(f) => self.for_loop(f),
            Expr::Loop(l) => {
                self.open("for (;;)");
                self.block_body(&l.body)?;
                self.close();
                Ok(())
            }
            Expr::Block(b) => {
                self.open("");
                self.block_body(&b.block)?;
                self.close();
                Ok(())
            }
            Expr::Return(r) => match &r.expr {
                None => {
                    self.line("return;");
                    Ok(())
                }
                Some(v) => self.return_value(v),
            },
            Expr::Break(_) => {
                self.line("break;");
                Ok(())
            }
            Expr::Continue(_) => {
                self.line("continue;");
                Ok(())
            }
            Expr::Macro(m) if is_dropped_macro(&m.mac) => Ok(()),
            Expr::Macro(m) => self.fail(m.mac.path.span(), crate::check::unsupported("macros are")),
            Expr::Paren(p) => self.stmt_expr(&p.expr),
            other => {
                let _ = self.expr(other, None)?;
                Ok(())
            }
        }
    }

    pub(crate) fn return_value(&mut self, e: &Expr) -> Res<()> {
        let rt = Ty::D(self.ret.clone());
        let v = self.expr(e, Some(&rt))?;
        if v.ty == Ty::Never {
            return Ok(());
        }
        if matches!(v.ty, Ty::Ref(..)) {
            return self.fail(
                e.span(),
                crate::check::unsupported("returning references is"),
            );
        }
        let v = self.value_of(v);
        self.unify(&rt, &v.ty);
        if self.ret == DeviceType::Unit {
            self.line("return;");
        } else {
            self.line(format!("return {};", unparen(&v.code)));
        }
        Ok(())
    }

    pub(crate) fn let_stmt(&mut self, l: &syn::Local) -> Res<()> {
        let init = l.init.as_ref().map(|i| &*i.expr);
        match &l.pat {
            Pat::Type(pt) => {
                let t = self.prog.resolve_type(&pt.ty, &self.scope)?;
                self.let_pat(&pt.pat, init, Some(t))
            }
            p => self.let_pat(p, init, None),
        }
    }

    pub(crate) fn let_pat(
        &mut self,
        pat: &Pat,
        init: Option<&Expr>,
        annot: Option<DeviceType>,
    ) -> Res<()> {
        let exp = annot.clone().map(Ty::D);
        match pat {
            Pat::Ident(id) => {
                let name = id.ident.to_string();
                let c = self.fresh(&name);
                let ty = match init {
                    None => {
                        let ty = exp.unwrap_or_else(|| self.new_var(false));
                        let ct = self.c_ty(&ty);
                        self.line(format!("{ct} {c};"));
                        ty
                    }
                    Some(e) => {
                        let v = self.expr_into(e, exp.as_ref(), Some(&c))?;
                        self.declare(&c, v, exp.as_ref(), e.span())?
                    }
                };
                self.bind(&name, c, ty);
                Ok(())
            }
            Pat::Wild(_) => {
                if let Some(e) = init {
                    self.expr(e, exp.as_ref())?;
                }
                Ok(())
            }
            Pat::Paren(p) => self.let_pat(&p.pat, init, annot),
            Pat::Tuple(t) => {
                let Some(e) = init else {
                    return self.fail(t.span(), "a `let` with a tuple pattern needs a value");
                };
                let annots: Vec<Option<DeviceType>> = match &annot {
                    Some(DeviceType::Tuple(v)) if v.len() == t.elems.len() => {
                        v.iter().cloned().map(Some).collect()
                    }
                    _ => vec![None; t.elems.len()],
                };
                if let Expr::Tuple(te) = strip(e) {
                    if te.elems.len() == t.elems.len() {
                        let items: Vec<(&Expr, Option<Ty>)> = te
                            .elems
                            .iter()
                            .zip(&annots)
                            .map(|(x, a)| (x, a.clone().map(Ty::D)))
                            .collect();
                        let vals = self.operands(&items)?;
                        for ((p, v), a) in t.elems.iter().zip(vals).zip(annots) {
                            self.bind_pat(p, v, a)?;
                        }
                        return Ok(());
                    }
                }
                let v = self.expr(e, exp.as_ref())?;
                let v = self.value_of(v);
                self.bind_pat(pat, v, annot)
            }
            p => self.fail(p.span(), crate::check::unsupported("this pattern is")),
        }
    }

    /// Binds a pattern to a translated value.
    pub(crate) fn bind_pat(&mut self, p: &Pat, v: Ex, annot: Option<DeviceType>) -> Res<()> {
        match p {
            Pat::Ident(id) => {
                let name = id.ident.to_string();
                let c = self.fresh(&name);
                let exp = annot.map(Ty::D);
                let ty = self.declare(&c, v, exp.as_ref(), id.span())?;
                self.bind(&name, c, ty);
                Ok(())
            }
            Pat::Wild(_) => Ok(()),
            Pat::Paren(x) => self.bind_pat(&x.pat, v, annot),
            Pat::Type(pt) => {
                let t = self.prog.resolve_type(&pt.ty, &self.scope)?;
                self.bind_pat(&pt.pat, v, Some(t))
            }
            Pat::Tuple(t) => {
                let (ts, through) = match self.resolved(&v.ty) {
                    Ty::D(DeviceType::Tuple(ts)) => (ts, "."),
                    Ty::Ref(DeviceType::Tuple(ts), _) => (ts, "->"),
                    _ => return self.fail(t.span(), "this value is not a tuple"),
                };
                if ts.len() != t.elems.len() {
                    return self.fail(
                        t.span(),
                        "the tuple pattern's length differs from the value's",
                    );
                }
                let v = if v.kind == Kind::Value {
                    self.spill(v)
                } else {
                    v
                };
                let annots: Vec<Option<DeviceType>> = match &annot {
                    Some(DeviceType::Tuple(a)) => a.iter().cloned().map(Some).collect(),
                    _ => vec![None; ts.len()],
                };
                for (k, (p, a)) in t.elems.iter().zip(annots).enumerate() {
                    let sub = Ex::new(
                        format!("{}{through}f{k}", v.code),
                        Ty::D(ts[k].clone()),
                        Kind::Place,
                    );
                    self.bind_pat(p, sub, a)?;
                }
                Ok(())
            }
            p => self.fail(p.span(), crate::check::unsupported("this pattern is")),
        }
    }

    /// Declares C variable `c` holding `v` (unless `v` was built in it);
    /// gives the variable's type.
    pub(crate) fn declare(
        &mut self,
        c: &str,
        v: Ex,
        exp: Option<&Ty>,
        span: proc_macro2::Span,
    ) -> Res<Ty> {
        match &v.ty {
            Ty::Never => return self.fail(span, "`let` of an expression that never returns"),
            Ty::Ref(..) => {
                return self.fail(
                    span,
                    crate::check::unsupported("references stored in local variables are"),
                )
            }
            Ty::D(DeviceType::Unit) => {
                return self.fail(span, "`()` values in variables are not supported")
            }
            _ => {}
        }
        if let Some(t) = exp {
            self.unify(t, &v.ty);
        }
        let ty = exp.cloned().unwrap_or_else(|| v.ty.clone());
        if v.kind == Kind::ConstArr {
            self.value_into(v, Some(c));
            return Ok(ty);
        }
        if v.code != c {
            let ct = self.c_ty(&ty);
            self.line(format!("{ct} {c} = {};", unparen(&v.code)));
        }
        Ok(ty)
    }

    /// The left side of an assignment, translated apart: its statements
    /// (emitted after the right side's, as Rust evaluates the right side
    /// first) and the place.
    pub(crate) fn assignee(&mut self, left: &Expr) -> Res<(Vec<String>, Ex)> {
        let saved = std::mem::take(&mut self.out);
        let l = self.expr(left, None);
        let lines = std::mem::replace(&mut self.out, saved);
        let l = l?;
        if l.kind != Kind::Place || matches!(l.ty, Ty::Ref(..)) {
            return self.fail(
                left.span(),
                "cannot assign to this expression in device code",
            );
        }
        Ok((lines, l))
    }

    pub(crate) fn assign(&mut self, left: &Expr, right: &Expr) -> Res<()> {
        if let Expr::Tuple(_) = strip(left) {
            let v = self.expr(right, None)?;
            let v = self.value_of(v);
            let v = if v.code.starts_with("qf_t") {
                v
            } else {
                let t = self.new_tmp();
                let ct = self.c_ty(&v.ty);
                self.line(format!("{ct} {t} = {};", unparen(&v.code)));
                Ex::new(t, v.ty, Kind::Place)
            };
            self.assign_parts(left, &v)?;
            self.effect();
            return Ok(());
        }
        let (lines, l) = self.assignee(left)?;
        let r = self.expr(right, Some(&l.ty))?;
        if matches!(r.ty, Ty::Ref(..)) {
            return self.fail(
                right.span(),
                crate::check::unsupported("assigning references is"),
            );
        }
        if r.ty == Ty::Never {
            return Ok(());
        }
        self.unify(&l.ty, &r.ty);
        let r = self.value_of(r);
        let r = if lines.is_empty() { r } else { self.spill(r) };
        self.emit(lines);
        self.line(format!("{} = {};", l.code, unparen(&r.code)));
        self.effect();
        Ok(())
    }

    /// `(a, b.x, _) = value`.
    pub(crate) fn assign_parts(&mut self, left: &Expr, v: &Ex) -> Res<()> {
        match strip(left) {
            Expr::Infer(_) => Ok(()),
            Expr::Tuple(t) => {
                let Ty::D(DeviceType::Tuple(ts)) = self.resolved(&v.ty) else {
                    return self.fail(t.span(), "this value is not a tuple");
                };
                if ts.len() != t.elems.len() {
                    return self.fail(t.span(), "the tuple's length differs from the value's");
                }
                for (k, x) in t.elems.iter().enumerate() {
                    let sub = Ex::new(
                        format!("{}.f{k}", v.code),
                        Ty::D(ts[k].clone()),
                        Kind::Place,
                    );
                    self.assign_parts(x, &sub)?;
                }
                Ok(())
            }
            other => {
                let (lines, l) = self.assignee(other)?;
                self.emit(lines);
                self.unify(&l.ty, &v.ty);
                self.line(format!("{} = {};", l.code, v.code));
                Ok(())
            }
        }
    }

    pub(crate) fn compound(&mut self, b: &syn::ExprBinary) -> Res<()> {
        let (lines, l) = self.assignee(&b.left)?;
        let shift = matches!(b.op, syn::BinOp::ShlAssign(_) | syn::BinOp::ShrAssign(_));
        let want = if shift { None } else { Some(l.ty.clone()) };
        let r = self.expr(&b.right, want.as_ref())?;
        let r = self.deref_scalar(r);
        if !shift {
            self.unify(&l.ty, &r.ty);
        }
        let scalar = match self.known(&l.ty) {
            Some(d) => d.is_scalar(),
            None => self.is_int_var(&l.ty),
        };
        if !scalar {
            return self.fail(
                b.op.span(),
                "compound assignment applies to numbers and `bool` only",
            );
        }
        let r = if lines.is_empty() { r } else { self.spill(r) };
        self.emit(lines);
        let op = c_op(&b.op);
        let float = self.known(&l.ty).is_some_and(|d| d.is_float());
        if float && op == "%" {
            self.line(format!("{} = fmod({}, {});", l.code, l.code, r.code));
        } else {
            self.line(format!("{} {op}= {};", l.code, unparen(&r.code)));
        }
        self.effect();
        Ok(())
    }
}
