//! Generic device functions, monomorphised: a call `f::<E, 4>(..)` of a
//! generic `fn f<E: Equation, const N: usize>` makes one copy of `f` with
//! `E` and `N` replaced by the call's arguments (the type by its name, the
//! constant by its value, evaluated where the call is), named
//! `f__E__4` in C, and the call is pointed at it. Copies are made for the
//! calls of every device function, those of copies included, so generic
//! functions may call generic functions; the arguments must be spelled at
//! each call (Rust's inference is not repeated here), and Rust itself has
//! checked the bounds, since the same source compiles for the CPU.
//!
//! `E::flux(..)` and `E::NVAR` in a copy name the associated function and
//! constant of the argument's type (its inherent or trait impl).

use std::collections::HashMap;

use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, GenericArgument, GenericParam, PathArguments, Type};

use super::{path_segs, Fail, Program, Res, Scope};
use crate::lit::CVal;
use crate::names::{ident_part, DeviceType};

/// A generic device function, copied per instantiation.
pub(crate) struct Template {
    /// Its name.
    pub name: String,
    /// Where it is.
    pub scope: Scope,
    /// The function.
    pub item: syn::ItemFn,
}

/// What a generic parameter is replaced by in a copy.
#[derive(Clone)]
enum Subst {
    /// A type: its Rust spelling (a scalar, an array, a struct's name).
    Type(Type),
    /// A constant: its value as a suffixed literal.
    Const(Expr),
}

/// The most copies one program may make (a bound on generic recursion).
const MAX_INSTANCES: usize = 4096;

impl Program {
    /// Makes the copies of generic functions that device functions call,
    /// and points the calls at them.
    pub(super) fn instantiate(&mut self) {
        let mut made: HashMap<(usize, Vec<String>), String> = HashMap::new();
        let mut k = 0;
        while k < self.fns.len() {
            let mut block = self.fns[k].block.clone();
            let scope = self.fns[k].scope.clone();
            let mut calls = Calls {
                prog: self,
                scope: &scope,
                made: &mut made,
                new: Vec::new(),
                errors: Vec::new(),
            };
            calls.visit_block_mut(&mut block);
            let (new, errors) = (calls.new, calls.errors);
            for e in errors {
                self.push_diag(scope.file, e.span, e.msg);
            }
            self.fns[k].block = block;
            for (t, sig, body) in new {
                if self.fns.len() >= MAX_INSTANCES {
                    let (file, span) = (self.templates[t].scope.file, sig.ident.span());
                    self.push_diag(
                        file,
                        span,
                        format!(
                            "more than {MAX_INSTANCES} instances of generic device functions \
                             (a generic function calling itself with growing arguments?)"
                        ),
                    );
                    return;
                }
                let tscope = self.templates[t].scope.clone();
                self.add_fn(&tscope, None, &sig, &body);
            }
            k += 1;
        }
    }

    /// The template a call's path names, if any.
    fn find_template(&self, segs: &[String], scope: &Scope) -> Result<Option<usize>, String> {
        let Some(name) = segs.last() else {
            return Ok(None);
        };
        let cands: Vec<(usize, &[String])> = self
            .templates
            .iter()
            .enumerate()
            .filter(|(_, t)| t.name == *name)
            .map(|(k, t)| (k, &t.scope.module[..]))
            .collect();
        if cands.is_empty() {
            return Ok(None);
        }
        self.pick(segs, scope, &cands, 0)
    }

    /// What generic argument `arg` (written in `scope`) gives parameter
    /// `param`, and its spelling in the copy's name.
    fn substitution(
        &self,
        param: &GenericParam,
        arg: &GenericArgument,
        scope: &Scope,
    ) -> Res<(Subst, String)> {
        match param {
            GenericParam::Type(_) => {
                let GenericArgument::Type(t) = arg else {
                    return Err(Fail::new(arg.span(), "expected a type argument"));
                };
                let t = self.type_argument(t, scope)?;
                let spelled = t.to_string();
                let ty: Type = syn::parse_str(&spelled)
                    .map_err(|e| Fail::new(arg.span(), format!("cannot spell `{t}`: {e}")))?;
                Ok((Subst::Type(ty), ident_part(&t)))
            }
            GenericParam::Const(c) => {
                let e: Expr = match arg {
                    GenericArgument::Const(e) => e.clone(),
                    // `f::<E, N>`: a single name parses as a type.
                    GenericArgument::Type(Type::Path(p)) if p.qself.is_none() => {
                        Expr::Path(syn::ExprPath {
                            attrs: Vec::new(),
                            qself: None,
                            path: p.path.clone(),
                        })
                    }
                    other => return Err(Fail::new(other.span(), "expected a constant argument")),
                };
                let ty = self.resolve_type(&c.ty, scope)?;
                let v = self.eval(&e, Some(&ty), scope)?;
                let (lit, spelled) = match &v {
                    CVal::Int(v, t) => (format!("{v}{}", ident_part(t)), v.to_string()),
                    CVal::Bool(b) => (b.to_string(), b.to_string()),
                    _ => {
                        return Err(Fail::new(
                            e.span(),
                            "const parameters of device functions are integers or `bool`",
                        ))
                    }
                };
                let spelled = spelled.replace('-', "m");
                let lit: Expr =
                    syn::parse_str(&lit).map_err(|x| Fail::new(e.span(), x.to_string()))?;
                Ok((Subst::Const(lit), spelled))
            }
            GenericParam::Lifetime(_) => Err(Fail::new(
                arg.span(),
                "lifetime arguments are not supported",
            )),
        }
    }

    /// The type a type argument names: a scalar, an array or tuple of them,
    /// or a device struct (one without fields too: an equation's type).
    fn type_argument(&self, t: &Type, scope: &Scope) -> Res<DeviceType> {
        if let Type::Path(p) = t {
            if p.qself.is_none() && p.path.segments.iter().all(|s| s.arguments.is_empty()) {
                let segs = path_segs(&p.path);
                match self.lookup_alias(&segs, scope) {
                    Ok(Some(a)) => {
                        let a = &self.aliases[a];
                        return self.type_argument(&a.ty, &a.scope);
                    }
                    Ok(None) => {}
                    Err(m) => return Err(Fail::new(t.span(), m)),
                }
                let name = segs.last().cloned().unwrap_or_default();
                if self.find_struct(&name).is_some() {
                    return Ok(DeviceType::Struct(name));
                }
            }
        }
        self.resolve_type(t, scope)
    }
}

/// Finds the calls of generic functions in a body, makes their copies'
/// signatures and bodies, and renames the calls.
struct Calls<'a> {
    prog: &'a Program,
    scope: &'a Scope,
    made: &'a mut HashMap<(usize, Vec<String>), String>,
    /// Copies to add: (template, signature, body).
    new: Vec<(usize, syn::Signature, syn::Block)>,
    errors: Vec<Fail>,
}

impl Calls<'_> {
    /// The C-side name of the copy `call` of template `t` needs (made if
    /// new).
    fn instance(&mut self, t: usize, path: &syn::Path) -> Res<String> {
        let tpl = &self.prog.templates[t];
        let params: Vec<&GenericParam> = tpl
            .item
            .sig
            .generics
            .params
            .iter()
            .filter(|g| !matches!(g, GenericParam::Lifetime(_)))
            .collect();
        let last = path.segments.last().unwrap();
        let args: Vec<&GenericArgument> = match &last.arguments {
            PathArguments::AngleBracketed(a) => a
                .args
                .iter()
                .filter(|g| !matches!(g, GenericArgument::Lifetime(_)))
                .collect(),
            _ => Vec::new(),
        };
        if args.len() != params.len() {
            let list: Vec<String> = params
                .iter()
                .map(|g| match g {
                    GenericParam::Type(t) => t.ident.to_string(),
                    GenericParam::Const(c) => c.ident.to_string(),
                    GenericParam::Lifetime(_) => String::new(),
                })
                .collect();
            return Err(Fail::new(
                path.span(),
                format!(
                    "`{}` is generic: spell its arguments at the call, `{}::<{}>(..)` (the \
                     translator does not infer them)",
                    tpl.name,
                    tpl.name,
                    list.join(", ")
                ),
            ));
        }
        let mut subst: HashMap<String, Subst> = HashMap::new();
        let mut key = Vec::new();
        for (p, a) in params.iter().zip(&args) {
            let (s, spelled) = self.prog.substitution(p, a, self.scope)?;
            let name = match p {
                GenericParam::Type(t) => t.ident.to_string(),
                GenericParam::Const(c) => c.ident.to_string(),
                GenericParam::Lifetime(_) => unreachable!(),
            };
            subst.insert(name, s);
            key.push(spelled);
        }
        if let Some(n) = self.made.get(&(t, key.clone())) {
            return Ok(n.clone());
        }
        let name = format!("{}__{}", tpl.name, key.join("__"));
        let mut item = tpl.item.clone();
        item.sig.generics = syn::Generics::default();
        item.sig.ident = syn::Ident::new(&name, tpl.item.sig.ident.span());
        let mut r = Replace { subst: &subst };
        r.visit_signature_mut(&mut item.sig);
        r.visit_block_mut(&mut item.block);
        self.made.insert((t, key), name.clone());
        self.new.push((t, item.sig, *item.block));
        Ok(name)
    }
}

impl VisitMut for Calls<'_> {
    fn visit_expr_call_mut(&mut self, e: &mut syn::ExprCall) {
        syn::visit_mut::visit_expr_call_mut(self, e);
        let Expr::Path(p) = &mut *e.func else { return };
        if p.qself.is_some() {
            return;
        }
        let segs = path_segs(&p.path);
        let t = match self.prog.find_template(&segs, self.scope) {
            Ok(Some(t)) => t,
            Ok(None) => return,
            Err(m) => {
                self.errors.push(Fail::new(p.span(), m));
                return;
            }
        };
        match self.instance(t, &p.path) {
            Ok(name) => {
                let last = p.path.segments.last_mut().unwrap();
                last.ident = syn::Ident::new(&name, last.ident.span());
                last.arguments = PathArguments::None;
            }
            Err(f) => self.errors.push(f),
        }
    }

    fn visit_item_fn_mut(&mut self, _: &mut syn::ItemFn) {}
}

/// Replaces generic parameters in a copy.
struct Replace<'a> {
    subst: &'a HashMap<String, Subst>,
}

impl Replace<'_> {
    /// The substitution of a path's first segment, if it is a parameter.
    fn first(&self, path: &syn::Path) -> Option<&Subst> {
        if path.leading_colon.is_some() {
            return None;
        }
        let s = path.segments.first()?;
        if !s.arguments.is_empty() {
            return None;
        }
        self.subst.get(&s.ident.to_string())
    }

    /// `P::rest` with `P` a type parameter: `T::rest`, `T` the argument's
    /// type path (a struct's or a scalar's name).
    fn prefix(&self, path: &mut syn::Path) {
        if path.segments.len() < 2 {
            return;
        }
        if let Some(Subst::Type(Type::Path(tp))) = self.first(path) {
            let mut segs: Vec<syn::PathSegment> = tp.path.segments.iter().cloned().collect();
            segs.extend(path.segments.iter().skip(1).cloned());
            path.segments = segs.into_iter().collect();
        }
    }
}

impl VisitMut for Replace<'_> {
    fn visit_type_mut(&mut self, t: &mut Type) {
        if let Type::Path(p) = t {
            if p.qself.is_none() && p.path.segments.len() == 1 {
                if let Some(Subst::Type(to)) = self.first(&p.path) {
                    *t = to.clone();
                    return;
                }
            }
            if p.qself.is_none() {
                self.prefix(&mut p.path);
            }
        }
        syn::visit_mut::visit_type_mut(self, t);
    }

    fn visit_generic_argument_mut(&mut self, g: &mut GenericArgument) {
        if let GenericArgument::Type(Type::Path(p)) = g {
            if p.qself.is_none() && p.path.segments.len() == 1 {
                if let Some(Subst::Const(e)) = self.first(&p.path) {
                    *g = GenericArgument::Const(e.clone());
                    return;
                }
            }
        }
        syn::visit_mut::visit_generic_argument_mut(self, g);
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Path(p) = e {
            if p.qself.is_none() && p.path.segments.len() == 1 {
                if let Some(Subst::Const(c)) = self.first(&p.path) {
                    *e = c.clone();
                    return;
                }
            }
            if p.qself.is_none() {
                self.prefix(&mut p.path);
            }
        }
        if let Expr::Struct(s) = e {
            if s.qself.is_none() {
                self.prefix(&mut s.path);
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_item_fn_mut(&mut self, _: &mut syn::ItemFn) {}
}
