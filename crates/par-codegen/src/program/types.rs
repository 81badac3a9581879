//! Rust types of device code as [`DeviceType`]s, and function signatures.

use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, Pat, PathArguments, ReturnType, Type};

use super::{path_segs, Fail, Program, Res, Scope};
use crate::lit::scalar_type;
use crate::names::DeviceType;

/// How a method takes `self`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Receiver {
    /// `self`.
    Value,
    /// `&self`.
    Ref,
    /// `&mut self`.
    RefMut,
}

/// A parameter's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ParamTy {
    /// The type (behind the reference, if any).
    pub ty: DeviceType,
    /// `&T` or `&mut T`.
    pub by_ref: bool,
    /// `&mut T`.
    pub mutable: bool,
}

/// A device function's resolved signature.
#[derive(Clone, Debug)]
pub(crate) struct SigInfo {
    /// The receiver of a method.
    pub receiver: Option<Receiver>,
    /// The other parameters: Rust name and type.
    pub params: Vec<(String, ParamTy)>,
    /// The return type.
    pub ret: DeviceType,
}

impl Program {
    /// The device type of a Rust type written in `scope` (no references).
    pub(crate) fn resolve_type(&self, ty: &Type, scope: &Scope) -> Res<DeviceType> {
        self.resolve_type_at(ty, scope, 0)
    }

    fn resolve_type_at(&self, ty: &Type, scope: &Scope, depth: usize) -> Res<DeviceType> {
        if depth > 32 {
            return Err(Fail::new(
                ty.span(),
                "type aliases refer to each other in a cycle",
            ));
        }
        match ty {
            Type::Path(p) if p.qself.is_none() => {
                let last = p.path.segments.last().unwrap();
                let name = last.ident.to_string();
                if name == "Star" || name == "Offsets" {
                    let PathArguments::AngleBracketed(a) = &last.arguments else {
                        return Err(Fail::new(p.span(), "accessors take one element type"));
                    };
                    let elems: Vec<&Type> = a
                        .args
                        .iter()
                        .filter_map(|g| match g {
                            GenericArgument::Type(t) => Some(t),
                            _ => None,
                        })
                        .collect();
                    if elems.len() != 1 {
                        return Err(Fail::new(p.span(), "accessors take one element type"));
                    }
                    let e = Box::new(self.resolve_type_at(elems[0], scope, depth + 1)?);
                    if !e.is_scalar()
                        && !matches!(*e, DeviceType::Array(..) | DeviceType::Struct(_))
                    {
                        return Err(Fail::new(
                            p.span(),
                            format!("accessors of `{e}` are not supported"),
                        ));
                    }
                    return Ok(if name == "Star" {
                        DeviceType::Star(e)
                    } else {
                        DeviceType::Offsets(e)
                    });
                }
                if p.path.segments.iter().any(|s| !s.arguments.is_empty()) {
                    return Err(Fail::new(
                        p.span(),
                        crate::check::unsupported("generic types are"),
                    ));
                }
                if p.path.segments.len() == 1 {
                    if let Some(t) = scalar_type(&name) {
                        return Ok(t);
                    }
                }
                if name == "Self" && p.path.segments.len() == 1 {
                    return match &scope.self_ty {
                        Some(s) if self.find_struct(s).is_some() => self.value_struct(s, p.span()),
                        Some(s) => Err(Fail::new(
                            p.span(),
                            format!("struct `{s}` is used in device code but not marked #[device]"),
                        )),
                        None => Err(Fail::new(p.span(), "`Self` outside an impl block")),
                    };
                }
                let segs = path_segs(&p.path);
                match self.lookup_alias(&segs, scope) {
                    Ok(Some(a)) => {
                        let a = &self.aliases[a];
                        return self.resolve_type_at(&a.ty, &a.scope, depth + 1);
                    }
                    Ok(None) => {}
                    Err(m) => return Err(Fail::new(p.span(), m)),
                }
                if self.find_struct(&name).is_some() {
                    return self.value_struct(&name, p.span());
                }
                if self.structs.iter().any(|s| s.name == name) {
                    return Err(Fail::new(
                        p.span(),
                        format!("struct `{name}` is used in device code but not marked #[device]"),
                    ));
                }
                Err(Fail::new(
                    p.span(),
                    format!("unknown type `{}`", segs.join("::")),
                ))
            }
            Type::Array(a) => {
                let e = self.resolve_type_at(&a.elem, scope, depth + 1)?;
                if e.is_accessor() || e == DeviceType::Unit {
                    return Err(Fail::new(
                        a.span(),
                        format!("arrays of `{e}` are not supported"),
                    ));
                }
                let n = self.eval_len(&a.len, scope)?;
                Ok(DeviceType::Array(Box::new(e), n))
            }
            Type::Tuple(t) if t.elems.is_empty() => Ok(DeviceType::Unit),
            Type::Tuple(t) => {
                let mut v = Vec::new();
                for e in &t.elems {
                    let e2 = self.resolve_type_at(e, scope, depth + 1)?;
                    if e2.is_accessor() || e2 == DeviceType::Unit {
                        return Err(Fail::new(
                            e.span(),
                            format!("`{e2}` in a tuple is not supported"),
                        ));
                    }
                    v.push(e2);
                }
                Ok(DeviceType::Tuple(v))
            }
            Type::Paren(p) => self.resolve_type_at(&p.elem, scope, depth),
            Type::Group(g) => self.resolve_type_at(&g.elem, scope, depth),
            Type::Reference(r) => Err(Fail::new(
                r.span(),
                crate::check::unsupported(
                    "references here are (only function parameters may be references)",
                ),
            )),
            other => Err(Fail::new(
                other.span(),
                crate::check::unsupported("this type is"),
            )),
        }
    }

    /// A device struct as the type of values: one with fields.
    fn value_struct(&self, name: &str, span: proc_macro2::Span) -> Res<DeviceType> {
        match self.find_struct(name) {
            Some(s) if s.fields.is_empty() => Err(Fail::new(
                span,
                format!(
                    "`{name}` has no fields: a device struct without fields is a type argument \
                     of generic functions only (an equation's type), not a value"
                ),
            )),
            _ => Ok(DeviceType::Struct(name.to_string())),
        }
    }

    /// A parameter's type: a value type, an accessor, or `&T` / `&mut T`.
    pub(crate) fn resolve_param(&self, ty: &Type, scope: &Scope) -> Res<ParamTy> {
        match ty {
            Type::Reference(r) => {
                if r.lifetime.is_some() {
                    return Err(Fail::new(
                        r.span(),
                        crate::check::unsupported("lifetimes on references are"),
                    ));
                }
                let t = self.resolve_type(&r.elem, scope)?;
                if t.is_accessor() {
                    return Err(Fail::new(
                        r.span(),
                        "accessors (`Star`, `Offsets`) are passed by value, not by reference",
                    ));
                }
                Ok(ParamTy {
                    ty: t,
                    by_ref: true,
                    mutable: r.mutability.is_some(),
                })
            }
            t => Ok(ParamTy {
                ty: self.resolve_type(t, scope)?,
                by_ref: false,
                mutable: false,
            }),
        }
    }

    /// The signature of device function `f`.
    pub(crate) fn signature(&self, f: usize) -> Res<SigInfo> {
        let fd = &self.fns[f];
        let scope = &fd.scope;
        let mut receiver = None;
        let mut params = Vec::new();
        for (k, arg) in fd.sig.inputs.iter().enumerate() {
            match arg {
                FnArg::Receiver(r) => {
                    if scope.self_ty.is_none() {
                        return Err(Fail::new(r.span(), "`self` outside an impl block"));
                    }
                    if r.colon_token.is_some() {
                        return Err(Fail::new(
                            r.span(),
                            crate::check::unsupported("typed receivers (`self: T`) are"),
                        ));
                    }
                    if let Some(s) = &scope.self_ty {
                        if self.find_struct(s).is_none() {
                            return Err(Fail::new(
                                r.span(),
                                format!(
                                    "struct `{s}` is used in device code but not marked #[device]"
                                ),
                            ));
                        }
                    }
                    receiver = Some(match &r.reference {
                        None => Receiver::Value,
                        Some(_) if r.mutability.is_some() => Receiver::RefMut,
                        Some(_) => Receiver::Ref,
                    });
                }
                FnArg::Typed(t) => {
                    let name = match &*t.pat {
                        Pat::Ident(i) => i.ident.to_string(),
                        Pat::Wild(_) => format!("unused{k}"),
                        p => {
                            return Err(Fail::new(
                                p.span(),
                                crate::check::unsupported("patterns in parameters are"),
                            ))
                        }
                    };
                    let pt = self.resolve_param(&t.ty, scope)?;
                    if pt.ty == DeviceType::Unit {
                        return Err(Fail::new(t.ty.span(), "`()` parameters are not supported"));
                    }
                    params.push((name, pt));
                }
            }
        }
        let ret = match &fd.sig.output {
            ReturnType::Default => DeviceType::Unit,
            ReturnType::Type(_, t) => {
                if let Type::Reference(r) = &**t {
                    return Err(Fail::new(
                        r.span(),
                        crate::check::unsupported("returning references is"),
                    ));
                }
                let t2 = self.resolve_type(t, scope)?;
                if t2.is_accessor() {
                    return Err(Fail::new(t.span(), "returning accessors is not supported"));
                }
                t2
            }
        };
        Ok(SigInfo {
            receiver,
            params,
            ret,
        })
    }

    /// The fields of device struct `name`.
    pub(crate) fn struct_fields(&self, name: &str) -> Option<&[(String, DeviceType)]> {
        self.fields.get(name).map(|v| &v[..])
    }

    /// Whether `T::default()` of `t` is all zeros: scalars, arrays and
    /// tuples of such, and structs that derive `Default` with such fields.
    pub(crate) fn zero_default(&self, t: &DeviceType) -> Result<(), String> {
        match t {
            DeviceType::Array(e, _) => self.zero_default(e),
            DeviceType::Tuple(v) => v.iter().try_for_each(|e| self.zero_default(e)),
            DeviceType::Struct(s) => {
                if !self.find_struct(s).is_some_and(|d| d.default) {
                    return Err(format!(
                        "`{s}::default()` needs `#[derive(Default)]` on `{s}` (device code \
                         takes a derived default as all zeros)"
                    ));
                }
                for (_, f) in self.struct_fields(s).unwrap_or(&[]) {
                    self.zero_default(f)?;
                }
                Ok(())
            }
            t if t.is_scalar() => Ok(()),
            t => Err(format!("`{t}` has no default value in device code")),
        }
    }
}
