//! Expressions: literals, names, operators, casts, fields, indexing,
//! references and aggregate values.

use syn::spanned::Spanned;
use syn::{BinOp, Expr, Lit, Member, UnOp};

use super::{Ex, FnCx, Kind, Ty};
use crate::lit::{builtin_const, fmt_f32, fmt_f64, fmt_int, int_range, CVal};
use crate::names::DeviceType;
use crate::program::{path_segs, Res};

/// Whether `op` is `+=`, `-=`, ... (a statement).
pub(crate) fn is_compound(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}

/// The C operator of a binary operator.
pub(crate) fn c_op(op: &BinOp) -> &'static str {
    match op {
        BinOp::Add(_) | BinOp::AddAssign(_) => "+",
        BinOp::Sub(_) | BinOp::SubAssign(_) => "-",
        BinOp::Mul(_) | BinOp::MulAssign(_) => "*",
        BinOp::Div(_) | BinOp::DivAssign(_) => "/",
        BinOp::Rem(_) | BinOp::RemAssign(_) => "%",
        BinOp::And(_) => "&&",
        BinOp::Or(_) => "||",
        BinOp::BitXor(_) | BinOp::BitXorAssign(_) => "^",
        BinOp::BitAnd(_) | BinOp::BitAndAssign(_) => "&",
        BinOp::BitOr(_) | BinOp::BitOrAssign(_) => "|",
        BinOp::Shl(_) | BinOp::ShlAssign(_) => "<<",
        BinOp::Shr(_) | BinOp::ShrAssign(_) => ">>",
        BinOp::Eq(_) => "==",
        BinOp::Lt(_) => "<",
        BinOp::Le(_) => "<=",
        BinOp::Ne(_) => "!=",
        BinOp::Ge(_) => ">=",
        BinOp::Gt(_) => ">",
        _ => "?",
    }
}

/// Whether an expression is a simple name or literal (cheap to repeat).
fn simple(code: &str) -> bool {
    code.chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
}

impl FnCx<'_> {
    /// Translates `e` (`exp`: the type the context expects).
    pub(crate) fn expr(&mut self, e: &Expr, exp: Option<&Ty>) -> Res<Ex> {
        self.expr_into(e, exp, None)
    }

    /// Translates `e`; an aggregate value may be built directly in `dest`
    /// (a fresh variable, not yet declared: the result's code is then
    /// `dest` and it is declared).
    pub(crate) fn expr_into(&mut self, e: &Expr, exp: Option<&Ty>, dest: Option<&str>) -> Res<Ex> {
        match e {
            Expr::Lit(l) => self.lit(&l.lit, exp, false, e),
            Expr::Paren(p) => self.expr_into(&p.expr, exp, dest),
            Expr::Group(g) => self.expr_into(&g.expr, exp, dest),
            Expr::Path(p) => self.path_expr(p),
            Expr::Unary(u) => self.unary(u, exp),
            Expr::Binary(b) if is_compound(&b.op) => {
                self.stmt_expr(e)?;
                Ok(Ex::unit())
            }
            Expr::Binary(b) => self.binary(b, exp),
            Expr::Cast(c) => self.cast(c),
            Expr::Field(f) => self.field(f),
            Expr::Index(i) => self.index(i),
            Expr::Reference(r) => self.reference(r, exp),
            Expr::Array(a) => self.array(a, exp, dest),
            Expr::Repeat(r) => self.repeat(r, exp, dest),
            Expr::Tuple(t) if t.elems.is_empty() => Ok(Ex::unit()),
            Expr::Tuple(t) => self.tuple(t, exp, dest),
            Expr::Struct(s) => self.struct_lit(s, dest),
            Expr::Call(c) => self.call(c, exp, dest),
            Expr::MethodCall(m) => self.method_call(m, exp, dest),
            Expr::If(i) => self.if_value(i, exp, dest),
            Expr::Match(m) => self.match_expr(m, exp, dest),
            Expr::Block(b) => self.block_value(&b.block, exp, dest),
            Expr::Assign(_)
            | Expr::While(_)
            | Expr::ForLoop(_)
            | Expr::Loop(_)
            | Expr::Macro(_)
            | Expr::Return(_)
            | Expr::Break(_)
            | Expr::Continue(_) => {
                let diverges = matches!(e, Expr::Return(_) | Expr::Break(_) | Expr::Continue(_));
                self.stmt_expr(e)?;
                Ok(if diverges { Ex::never() } else { Ex::unit() })
            }
            other => self.fail(
                other.span(),
                crate::check::unsupported("this expression is"),
            ),
        }
    }

    /// A literal (`neg`: negated).
    pub(crate) fn lit(&mut self, l: &Lit, exp: Option<&Ty>, neg: bool, e: &Expr) -> Res<Ex> {
        let expd = exp.map(|t| self.resolved(t));
        match l {
            Lit::Int(i) => {
                // A literal pattern may carry its sign (`-1 =>`).
                let digits = i.base10_digits();
                let neg = neg != digits.starts_with('-');
                let v: u128 = digits.trim_start_matches('-').parse().map_err(
                    |x: std::num::ParseIntError| crate::program::Fail::new(e.span(), x.to_string()),
                )?;
                let hex = i.token().to_string().starts_with("0x");
                let suffix = crate::lit::scalar_type(i.suffix());
                let ty = match (&suffix, &expd) {
                    (Some(t), _) => Ty::D(t.clone()),
                    (None, Some(Ty::D(t))) if t.is_int() => Ty::D(t.clone()),
                    (None, Some(Ty::D(t))) if t.is_float() => {
                        return self.fail(
                            e.span(),
                            format!("an integer literal where `{t}` is expected"),
                        )
                    }
                    (None, Some(Ty::Var(v))) => Ty::Var(*v),
                    _ => self.new_var(true),
                };
                let v = v as i128;
                let v = if neg { -v } else { v };
                match &ty {
                    Ty::D(t) => {
                        let (lo, hi) = int_range(t);
                        if v < lo || v > hi {
                            return self
                                .fail(e.span(), format!("the literal {v} does not fit in `{t}`"));
                        }
                        Ok(Ex::new(fmt_int(v, t, hex && !neg), ty.clone(), Kind::Lit))
                    }
                    _ => {
                        let s = self.int_sfx(&ty);
                        let code = if v < 0 {
                            format!("(-{}{s} - 1{s})", -v - 1)
                        } else if hex {
                            format!("0x{v:x}{s}")
                        } else {
                            format!("{v}{s}")
                        };
                        Ok(Ex::new(code, ty, Kind::Lit))
                    }
                }
            }
            Lit::Float(f) => {
                let f32_ = f.suffix() == "f32"
                    || (f.suffix().is_empty() && expd == Some(Ty::D(DeviceType::F32)));
                let bad = |x: syn::Error| crate::program::Fail::new(e.span(), x.to_string());
                if f32_ {
                    let v: f32 = f.base10_parse().map_err(bad)?;
                    Ok(Ex::new(
                        fmt_f32(if neg { -v } else { v }),
                        Ty::D(DeviceType::F32),
                        Kind::Lit,
                    ))
                } else {
                    let v: f64 = f.base10_parse().map_err(bad)?;
                    Ok(Ex::new(
                        fmt_f64(if neg { -v } else { v }),
                        Ty::D(DeviceType::F64),
                        Kind::Lit,
                    ))
                }
            }
            Lit::Bool(b) if !neg => Ok(Ex::new(
                b.value.to_string(),
                Ty::D(DeviceType::Bool),
                Kind::Lit,
            )),
            _ => self.fail(e.span(), crate::check::unsupported("this literal is")),
        }
    }

    /// A known value as C.
    pub(crate) fn cval(&mut self, v: &CVal) -> Ex {
        Ex::new(v.to_c(), Ty::D(v.ty()), Kind::Lit)
    }

    pub(crate) fn path_expr(&mut self, p: &syn::ExprPath) -> Res<Ex> {
        let segs = path_segs(&p.path);
        if segs.len() == 1 {
            if let Some((c, ty)) = self.local(&segs[0]) {
                return Ok(Ex::new(c, ty, Kind::Place));
            }
        }
        if let Some(v) = builtin_const(&segs) {
            return Ok(self.cval(&v));
        }
        if segs.len() == 1 {
            if let Some(v) = self.prog.imported_builtin(&segs[0], &self.scope) {
                return Ok(self.cval(&v));
            }
        }
        match self.prog.lookup_const(&segs, &self.scope) {
            Ok(Some(k)) => {
                let v = self.prog.const_value(k)?;
                self.consts.insert(k);
                let c = self.prog.consts[k].c_name.clone();
                let kind = if matches!(v, CVal::Array(..)) {
                    Kind::ConstArr
                } else {
                    Kind::Lit
                };
                Ok(Ex::new(c, Ty::D(v.ty()), kind))
            }
            Ok(None) => self.fail(
                p.span(),
                format!("unknown name `{}` in device code", segs.join("::")),
            ),
            Err(m) => self.fail(p.span(), m),
        }
    }

    /// `ex` read through a reference to a scalar (operators auto-deref).
    pub(crate) fn deref_scalar(&mut self, ex: Ex) -> Ex {
        match &ex.ty {
            Ty::Ref(t, _) if t.is_scalar() => {
                Ex::new(format!("(*{})", ex.code), Ty::D(t.clone()), Kind::Place)
            }
            _ => ex,
        }
    }

    /// `ex` as a value: a `CONSTANT` array is copied into a temporary.
    pub(crate) fn value_of(&mut self, ex: Ex) -> Ex {
        self.value_into(ex, None)
    }

    /// As [`Self::value_of`], copying into `dest` if given.
    pub(crate) fn value_into(&mut self, ex: Ex, dest: Option<&str>) -> Ex {
        if ex.kind != Kind::ConstArr {
            return ex;
        }
        let t = match dest {
            Some(d) => d.to_string(),
            None => self.new_tmp(),
        };
        let ct = self.c_ty(&ex.ty);
        self.line(format!("{ct} {t};"));
        let d = self.known(&ex.ty).expect("array type");
        self.copy_const(&t, &ex.code, &d);
        Ex::new(t, ex.ty, Kind::Place)
    }

    pub(crate) fn copy_const(&mut self, dst: &str, src: &str, t: &DeviceType) {
        match t {
            DeviceType::Array(e, n) => {
                let k = self.new_tmp();
                self.open(format!("for (ulong {k} = 0; {k} < {n}UL; {k}++)"));
                self.copy_const(&format!("{dst}.v[{k}]"), &format!("{src}[{k}]"), e);
                self.close();
            }
            _ => self.line(format!("{dst} = {src};")),
        }
    }

    /// Saves `ex` in a temporary unless it is a constant or a simple name.
    pub(crate) fn spill(&mut self, ex: Ex) -> Ex {
        let ex = self.value_of(ex);
        if ex.kind == Kind::Lit || (ex.kind == Kind::Place && simple(&ex.code)) {
            return ex;
        }
        let t = self.new_tmp();
        let ct = self.c_ty(&ex.ty);
        self.line(format!("{ct} {t} = {};", super::stmt::unparen(&ex.code)));
        Ex::new(t, ex.ty, Kind::Place)
    }

    pub(crate) fn unary(&mut self, u: &syn::ExprUnary, exp: Option<&Ty>) -> Res<Ex> {
        let mut inner = &*u.expr;
        while let Expr::Paren(p) = inner {
            inner = &p.expr;
        }
        match u.op {
            UnOp::Neg(_) => {
                if let Expr::Lit(l) = inner {
                    return self.lit(&l.lit, exp, true, inner);
                }
                let x = self.expr(inner, exp)?;
                let x = self.deref_scalar(x);
                match self.resolved(&x.ty) {
                    Ty::D(t) if t.is_float() || (t.is_int() && !t.is_unsigned()) => {}
                    Ty::Var(_) if self.is_int_var(&x.ty) => {}
                    _ => return self.fail(u.span(), "`-` applies to signed numbers only"),
                }
                Ok(Ex::new(format!("(-{})", x.code), x.ty, Kind::Value))
            }
            UnOp::Not(_) => {
                let x = self.expr(inner, exp)?;
                let x = self.deref_scalar(x);
                match self.resolved(&x.ty) {
                    Ty::D(DeviceType::Bool) => {
                        Ok(Ex::new(format!("(!{})", x.code), x.ty, Kind::Value))
                    }
                    Ty::D(t) if t.is_int() => {
                        Ok(Ex::new(format!("(~{})", x.code), x.ty, Kind::Value))
                    }
                    Ty::Var(_) if self.is_int_var(&x.ty) => {
                        Ok(Ex::new(format!("(~{})", x.code), x.ty, Kind::Value))
                    }
                    _ => self.fail(u.span(), "`!` applies to `bool` and integers only"),
                }
            }
            UnOp::Deref(_) => {
                let x = self.expr(inner, None)?;
                match &x.ty {
                    Ty::Ref(t, _) => Ok(Ex::new(
                        format!("(*{})", x.code),
                        Ty::D(t.clone()),
                        Kind::Place,
                    )),
                    _ => self.fail(u.span(), "`*` applies to reference parameters only"),
                }
            }
            _ => self.fail(u.span(), crate::check::unsupported("this operator is")),
        }
    }

    pub(crate) fn binary(&mut self, b: &syn::ExprBinary, exp: Option<&Ty>) -> Res<Ex> {
        let op = c_op(&b.op);
        match b.op {
            BinOp::And(_) | BinOp::Or(_) => {
                let bool_t = Ty::D(DeviceType::Bool);
                let l = self.expr(&b.left, Some(&bool_t))?;
                let mut l = self.deref_scalar(l);
                let m = self.mark();
                let (lines, r) = self.capture(|s| {
                    let r = s.expr(&b.right, Some(&bool_t))?;
                    Ok(s.deref_scalar(r))
                });
                let r = r?;
                if lines.is_empty() {
                    self.protect(&mut [&mut l], m);
                    return Ok(Ex::new(
                        format!("({} {op} {})", l.code, r.code),
                        bool_t,
                        Kind::Value,
                    ));
                }
                let t = self.new_tmp();
                self.line(format!("bool {t} = {};", l.code));
                let test = if op == "&&" {
                    t.clone()
                } else {
                    format!("!{t}")
                };
                self.open(format!("if ({test})"));
                self.emit(lines);
                self.line(format!("{t} = {};", r.code));
                self.close();
                Ok(Ex::new(t, bool_t, Kind::Place))
            }
            BinOp::Shl(_) | BinOp::Shr(_) => {
                let l = self.expr(&b.left, exp)?;
                let mut l = self.deref_scalar(l);
                let m = self.mark();
                let r = self.expr(&b.right, None)?;
                let r = self.deref_scalar(r);
                self.protect(&mut [&mut l], m);
                self.need_int(&l.ty, b.left.span())?;
                self.need_int(&r.ty, b.right.span())?;
                Ok(Ex::new(
                    format!("({} {op} {})", l.code, r.code),
                    l.ty,
                    Kind::Value,
                ))
            }
            _ => {
                let cmp = matches!(
                    b.op,
                    BinOp::Eq(_)
                        | BinOp::Ne(_)
                        | BinOp::Lt(_)
                        | BinOp::Le(_)
                        | BinOp::Gt(_)
                        | BinOp::Ge(_)
                );
                let want = if cmp { None } else { exp };
                let lit_first = crate::program::untyped_literal(&b.left)
                    && !crate::program::untyped_literal(&b.right);
                let (l, r) = if lit_first {
                    let r = self.expr(&b.right, want)?;
                    let r = self.deref_scalar(r);
                    let rt = r.ty.clone();
                    (self.expr(&b.left, Some(&rt))?, r)
                } else {
                    let l = self.expr(&b.left, want)?;
                    let mut l = self.deref_scalar(l);
                    let m = self.mark();
                    let lt = l.ty.clone();
                    let r = self.expr(&b.right, Some(&lt))?;
                    let r = self.deref_scalar(r);
                    self.protect(&mut [&mut l], m);
                    (l, r)
                };
                self.unify(&l.ty, &r.ty);
                let t = self.resolved(&l.ty);
                let scalar = match &t {
                    Ty::D(d) => d.is_scalar(),
                    Ty::Var(_) => self.is_int_var(&t),
                    _ => false,
                };
                if !scalar {
                    let what = self.known(&t).map(|d| d.to_string()).unwrap_or_default();
                    return self.fail(
                        b.op.span(),
                        format!("`{op}` on `{what}` values is not supported in device code"),
                    );
                }
                let ty = if cmp {
                    Ty::D(DeviceType::Bool)
                } else {
                    t.clone()
                };
                let float = matches!(&t, Ty::D(d) if d.is_float());
                if float && matches!(b.op, BinOp::Rem(_)) {
                    return Ok(Ex::new(
                        format!("fmod({}, {})", l.code, r.code),
                        ty,
                        Kind::Value,
                    ));
                }
                if float && matches!(b.op, BinOp::BitAnd(_) | BinOp::BitOr(_) | BinOp::BitXor(_)) {
                    return self.fail(b.op.span(), "bit operations on floats");
                }
                Ok(Ex::new(
                    format!("({} {op} {})", l.code, r.code),
                    ty,
                    Kind::Value,
                ))
            }
        }
    }

    /// Fails unless `t` is an integer type.
    pub(crate) fn need_int(&self, t: &Ty, span: proc_macro2::Span) -> Res<()> {
        match self.resolved(t) {
            Ty::D(d) if d.is_int() => Ok(()),
            t2 if self.is_int_var(&t2) => Ok(()),
            _ => self.fail(span, "an integer is expected here"),
        }
    }

    pub(crate) fn cast(&mut self, c: &syn::ExprCast) -> Res<Ex> {
        let t = self.prog.resolve_type(&c.ty, &self.scope)?;
        if !t.is_scalar() {
            return self.fail(c.ty.span(), format!("casts to `{t}` are not supported"));
        }
        let x = self.expr(&c.expr, None)?;
        let x = self.deref_scalar(x);
        match self.known(&x.ty) {
            Some(d) if d.is_scalar() => {}
            None if self.is_int_var(&x.ty) => {}
            _ => return self.fail(c.span(), "`as` applies to numbers and `bool` only"),
        }
        let ct = self.c_ty(&Ty::D(t.clone()));
        Ok(Ex::new(
            format!("(({ct}){})", x.code),
            Ty::D(t),
            Kind::Value,
        ))
    }

    pub(crate) fn field(&mut self, f: &syn::ExprField) -> Res<Ex> {
        let base = self.expr(&f.base, None)?;
        let (d, through) = match self.resolved(&base.ty) {
            Ty::D(d) => (d, "."),
            Ty::Ref(d, _) => (d, "->"),
            _ => {
                return self.fail(
                    f.base.span(),
                    "cannot infer the type of this value; add a type annotation",
                )
            }
        };
        let kind = if base.kind == Kind::Place || through == "->" {
            Kind::Place
        } else {
            Kind::Value
        };
        match (&f.member, &d) {
            (Member::Named(n), DeviceType::Struct(s)) => {
                let name = n.to_string();
                let fields = self.prog.struct_fields(s).unwrap_or(&[]);
                match fields.iter().find(|(k, _)| *k == name) {
                    Some((_, t)) => {
                        let t = t.clone();
                        Ok(Ex::new(
                            format!("{}{through}{name}", base.code),
                            Ty::D(t),
                            kind,
                        ))
                    }
                    None => self.fail(n.span(), format!("struct `{s}` has no field `{name}`")),
                }
            }
            (Member::Unnamed(i), DeviceType::Tuple(v)) if (i.index as usize) < v.len() => {
                let t = v[i.index as usize].clone();
                Ok(Ex::new(
                    format!("{}{through}f{}", base.code, i.index),
                    Ty::D(t),
                    kind,
                ))
            }
            _ => self.fail(f.member.span(), format!("no such field of `{d}`")),
        }
    }

    pub(crate) fn index(&mut self, i: &syn::ExprIndex) -> Res<Ex> {
        let base = self.expr(&i.expr, None)?;
        let mut base = match self.resolved(&base.ty) {
            Ty::D(DeviceType::Array(..)) if base.kind == Kind::Value => self.spill(base),
            _ => base,
        };
        let m = self.mark();
        let usize_t = Ty::D(DeviceType::Usize);
        let k = self.expr(&i.index, Some(&usize_t))?;
        let k = self.deref_scalar(k);
        self.protect(&mut [&mut base], m);
        self.unify(&k.ty, &usize_t);
        self.need_int(&k.ty, i.index.span())?;
        match self.resolved(&base.ty) {
            Ty::D(DeviceType::Array(e, _)) if base.kind == Kind::ConstArr => {
                let kind = if matches!(*e, DeviceType::Array(..)) {
                    Kind::ConstArr
                } else {
                    Kind::Value
                };
                Ok(Ex::new(
                    format!("{}[{}]", base.code, k.code),
                    Ty::D(*e),
                    kind,
                ))
            }
            Ty::D(DeviceType::Array(e, _)) => Ok(Ex::new(
                format!("{}.v[{}]", base.code, k.code),
                Ty::D(*e),
                Kind::Place,
            )),
            Ty::Ref(DeviceType::Array(e, _), _) => Ok(Ex::new(
                format!("{}->v[{}]", base.code, k.code),
                Ty::D(*e),
                Kind::Place,
            )),
            _ => self.fail(
                i.expr.span(),
                "indexing applies to arrays only in device code",
            ),
        }
    }

    pub(crate) fn reference(&mut self, r: &syn::ExprReference, exp: Option<&Ty>) -> Res<Ex> {
        let mutable = r.mutability.is_some();
        let mut inner = &*r.expr;
        while let Expr::Paren(p) = inner {
            inner = &p.expr;
        }
        if let Expr::Unary(u) = inner {
            if matches!(u.op, UnOp::Deref(_)) {
                let x = self.expr(&u.expr, None)?;
                if matches!(x.ty, Ty::Ref(..)) {
                    return Ok(x);
                }
            }
        }
        let want = match exp.map(|t| self.resolved(t)) {
            Some(Ty::Ref(t, _)) => Some(Ty::D(t)),
            other => other,
        };
        let x = self.expr(inner, want.as_ref())?;
        if matches!(x.ty, Ty::Ref(..)) {
            return Ok(x);
        }
        let x = self.value_of(x);
        let x = if x.kind == Kind::Place {
            x
        } else {
            let t = self.new_tmp();
            let ct = self.c_ty(&x.ty);
            self.line(format!("{ct} {t} = {};", super::stmt::unparen(&x.code)));
            Ex::new(t, x.ty, Kind::Place)
        };
        let Some(d) = self.known(&x.ty) else {
            return self.fail(
                r.span(),
                "cannot infer the type of this value; add a type annotation",
            );
        };
        Ok(Ex::new(
            format!("(&{})", x.code),
            Ty::Ref(d, mutable),
            Kind::Value,
        ))
    }
}
