//! Aggregate values: arrays, tuples, struct literals, default (zero)
//! values, and operands translated in Rust's order.

use syn::spanned::Spanned;
use syn::{Expr, Member};

use super::stmt::unparen;
use super::{Ex, FnCx, Kind, Ty};
use crate::lit::CVal;
use crate::names::DeviceType;
use crate::program::Res;

impl FnCx<'_> {
    /// The declared temporary for an aggregate: `dest` or a new one.
    pub(crate) fn aggregate_tmp(
        &mut self,
        dest: Option<&str>,
        ty: &DeviceType,
        init: Option<&str>,
    ) -> String {
        let t = match dest {
            Some(d) => d.to_string(),
            None => self.new_tmp(),
        };
        let ct = self.c_ty(&Ty::D(ty.clone()));
        match init {
            Some(i) => self.line(format!("{ct} {t} = {i};")),
            None => self.line(format!("{ct} {t};")),
        }
        t
    }

    /// Translates `items` in order, each after the previous ones, saving
    /// earlier ones where a later one has effects.
    pub(crate) fn operands(&mut self, items: &[(&Expr, Option<Ty>)]) -> Res<Vec<Ex>> {
        let mut done: Vec<Ex> = Vec::new();
        for (e, want) in items {
            let m = self.mark();
            let x = self.expr(e, want.as_ref())?;
            let x = self.value_of(x);
            let mut refs: Vec<&mut Ex> = done.iter_mut().collect();
            self.protect(&mut refs, m);
            done.push(x);
        }
        Ok(done)
    }

    /// A concrete element type for an aggregate (an integer not known yet
    /// becomes `i32`).
    pub(crate) fn settle(&mut self, t: &Ty, span: proc_macro2::Span) -> Res<DeviceType> {
        if let Some(d) = self.known(t) {
            return Ok(d);
        }
        if self.is_int_var(t) {
            self.unify(t, &Ty::D(DeviceType::I32));
            return Ok(DeviceType::I32);
        }
        self.fail(
            span,
            "cannot infer the type of this value; add a type annotation",
        )
    }

    pub(crate) fn array(
        &mut self,
        a: &syn::ExprArray,
        exp: Option<&Ty>,
        dest: Option<&str>,
    ) -> Res<Ex> {
        let elem = match exp.map(|t| self.resolved(t)) {
            Some(Ty::D(DeviceType::Array(e, _))) => Some(Ty::D(*e)),
            _ => None,
        };
        if a.elems.is_empty() {
            return self.fail(a.span(), "empty arrays are not supported");
        }
        let mut items: Vec<Ex> = Vec::new();
        for x in &a.elems {
            let want = elem.clone().or_else(|| items.first().map(|i| i.ty.clone()));
            let m = self.mark();
            let v = self.expr(x, want.as_ref())?;
            let v = self.value_of(v);
            let mut refs: Vec<&mut Ex> = items.iter_mut().collect();
            self.protect(&mut refs, m);
            if let Some(f) = items.first() {
                let ft = f.ty.clone();
                self.unify(&ft, &v.ty);
            }
            items.push(v);
        }
        let et = self.settle(&items[0].ty.clone(), a.span())?;
        let ty = DeviceType::Array(Box::new(et), items.len());
        let t = self.aggregate_tmp(dest, &ty, None);
        for (k, v) in items.iter().enumerate() {
            self.line(format!("{t}.v[{k}] = {};", unparen(&v.code)));
        }
        Ok(Ex::new(t, Ty::D(ty), Kind::Place))
    }

    pub(crate) fn repeat(
        &mut self,
        r: &syn::ExprRepeat,
        exp: Option<&Ty>,
        dest: Option<&str>,
    ) -> Res<Ex> {
        let elem = match exp.map(|t| self.resolved(t)) {
            Some(Ty::D(DeviceType::Array(e, _))) => Some(Ty::D(*e)),
            _ => None,
        };
        let n = self.prog.eval_len(&r.len, &self.scope)?;
        let v = self.expr(&r.expr, elem.as_ref())?;
        let v = self.spill(v);
        let et = self.settle(&v.ty, r.span())?;
        let ty = DeviceType::Array(Box::new(et), n);
        let t = self.aggregate_tmp(dest, &ty, None);
        let k = self.new_tmp();
        self.line(format!(
            "for (ulong {k} = 0; {k} < {n}UL; {k}++) {t}.v[{k}] = {};",
            v.code
        ));
        Ok(Ex::new(t, Ty::D(ty), Kind::Place))
    }

    pub(crate) fn tuple(
        &mut self,
        tu: &syn::ExprTuple,
        exp: Option<&Ty>,
        dest: Option<&str>,
    ) -> Res<Ex> {
        let elems = match exp.map(|t| self.resolved(t)) {
            Some(Ty::D(DeviceType::Tuple(v))) if v.len() == tu.elems.len() => {
                v.into_iter().map(|t| Some(Ty::D(t))).collect()
            }
            _ => vec![None; tu.elems.len()],
        };
        let items: Vec<(&Expr, Option<Ty>)> = tu.elems.iter().zip(elems).collect();
        let vals = self.operands(&items)?;
        let mut ts = Vec::new();
        for v in &vals {
            let t = self.settle(&v.ty, tu.span())?;
            if t.is_accessor() || t == DeviceType::Unit {
                return self.fail(tu.span(), format!("`{t}` in a tuple is not supported"));
            }
            ts.push(t);
        }
        let ty = DeviceType::Tuple(ts);
        let t = self.aggregate_tmp(dest, &ty, None);
        for (k, v) in vals.iter().enumerate() {
            self.line(format!("{t}.f{k} = {};", unparen(&v.code)));
        }
        Ok(Ex::new(t, Ty::D(ty), Kind::Place))
    }

    pub(crate) fn struct_lit(&mut self, s: &syn::ExprStruct, dest: Option<&str>) -> Res<Ex> {
        let path_ty = syn::Type::Path(syn::TypePath {
            qself: None,
            path: s.path.clone(),
        });
        let ty = match self.prog.resolve_type(&path_ty, &self.scope)? {
            t @ DeviceType::Struct(_) => t,
            t => return self.fail(s.path.span(), format!("`{t}` is not a struct")),
        };
        let DeviceType::Struct(sname) = &ty else {
            unreachable!()
        };
        let fields = self.prog.struct_fields(sname).unwrap_or(&[]).to_vec();
        let mut items: Vec<(&Expr, Option<Ty>)> = Vec::new();
        let mut names = Vec::new();
        for f in &s.fields {
            let Member::Named(n) = &f.member else {
                return self.fail(
                    f.member.span(),
                    crate::check::unsupported("tuple structs are"),
                );
            };
            let n = n.to_string();
            let Some((_, ft)) = fields.iter().find(|(k, _)| *k == n) else {
                return self.fail(
                    f.member.span(),
                    format!("struct `{sname}` has no field `{n}`"),
                );
            };
            items.push((&f.expr, Some(Ty::D(ft.clone()))));
            names.push(n);
        }
        if let Some(r) = &s.rest {
            items.push((r, Some(Ty::D(ty.clone()))));
        } else if names.len() != fields.len() {
            return self.fail(s.span(), format!("missing fields of `{sname}`"));
        }
        let vals = self.operands(&items)?;
        let init = s.rest.as_ref().map(|_| vals.last().unwrap().code.clone());
        let t = self.aggregate_tmp(dest, &ty, init.as_deref());
        for (n, v) in names.iter().zip(&vals) {
            self.line(format!("{t}.{n} = {};", unparen(&v.code)));
        }
        Ok(Ex::new(t, Ty::D(ty), Kind::Place))
    }

    /// The all-zero value of `t` (`T::default()` of a derived `Default`).
    pub(crate) fn zero(
        &mut self,
        t: &DeviceType,
        dest: Option<&str>,
        span: proc_macro2::Span,
    ) -> Res<Ex> {
        if let Err(m) = self.prog.zero_default(t) {
            return self.fail(span, m);
        }
        if t.is_scalar() {
            return Ok(self.cval(&zero_scalar(t)));
        }
        let v = self.aggregate_tmp(dest, t, None);
        self.zero_fill(&v, t);
        Ok(Ex::new(v, Ty::D(t.clone()), Kind::Place))
    }

    pub(crate) fn zero_fill(&mut self, dst: &str, t: &DeviceType) {
        match t {
            DeviceType::Array(e, n) => {
                let k = self.new_tmp();
                self.open(format!("for (ulong {k} = 0; {k} < {n}UL; {k}++)"));
                self.zero_fill(&format!("{dst}.v[{k}]"), e);
                self.close();
            }
            DeviceType::Tuple(v) => {
                for (k, e) in v.iter().enumerate() {
                    self.zero_fill(&format!("{dst}.f{k}"), e);
                }
            }
            DeviceType::Struct(s) => {
                let fields = self.prog.struct_fields(s).unwrap_or(&[]).to_vec();
                for (n, e) in &fields {
                    self.zero_fill(&format!("{dst}.{n}"), e);
                }
            }
            t => {
                let z = zero_scalar(t).to_c();
                self.line(format!("{dst} = {z};"));
            }
        }
    }
}

/// The zero of a scalar type.
fn zero_scalar(t: &DeviceType) -> CVal {
    match t {
        DeviceType::Bool => CVal::Bool(false),
        t if t.is_float() => CVal::Float(0.0, t.clone()),
        t => CVal::Int(0, t.clone()),
    }
}
