//! Calls: device functions and methods (with Rust's auto-referencing),
//! accessors, and the built-in methods of numbers.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::Expr;

use super::stmt::strip;
use super::{Ex, FnCx, Kind, Ty};
use crate::lit::scalar_type;
use crate::names::{c_type, DeviceType};
use crate::program::{path_segs, Receiver, Res};

/// A list of C arguments.
pub(crate) fn arg_list(args: &[Ex]) -> String {
    let v: Vec<&str> = args
        .iter()
        .map(|a| {
            let c = a.code.as_str();
            if c.starts_with('(') && c.ends_with(')') && balanced_inner(c) {
                &c[1..c.len() - 1]
            } else {
                c
            }
        })
        .collect();
    v.join(", ")
}

/// Whether the outer parentheses of `c` enclose all of it.
fn balanced_inner(c: &str) -> bool {
    let mut depth = 0;
    for (k, ch) in c.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && k != c.len() - 1 {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}

/// The C function of a one-argument `f64` function of the `libm` crate
/// (the same functions of the C library; OpenCL has them all).
fn libm_unary(name: &str) -> Option<&'static str> {
    Some(match name {
        "erf" => "erf",
        "erfc" => "erfc",
        "exp" => "exp",
        "expm1" => "expm1",
        "log" => "log",
        "log1p" => "log1p",
        "sqrt" => "sqrt",
        "cbrt" => "cbrt",
        "sin" => "sin",
        "cos" => "cos",
        "tan" => "tan",
        "fabs" => "fabs",
        "floor" => "floor",
        "ceil" => "ceil",
        "tgamma" => "tgamma",
        "lgamma" => "lgamma",
        _ => return None,
    })
}

impl FnCx<'_> {
    /// `libm::name(x)` for an `f64` `x`: the C library's function.
    fn libm_call(&mut self, cf: &str, name: &str, args: &[&Expr], span: Span) -> Res<Ex> {
        let f64_ = Ty::D(DeviceType::F64);
        let [a] = args else {
            return self.fail(span, format!("`libm::{name}` takes one argument"));
        };
        let x = self.expr(a, Some(&f64_))?;
        let x = self.deref_scalar(x);
        self.unify(&x.ty, &f64_);
        Ok(Ex::new(
            format!("{cf}({})", arg_list(&[x])),
            f64_,
            Kind::Value,
        ))
    }

    /// `ex` read through a reference (a method's receiver, auto-deref).
    pub(crate) fn deref_any(&mut self, ex: Ex) -> Ex {
        match &ex.ty {
            Ty::Ref(t, _) => Ex::new(format!("(*{})", ex.code), Ty::D(t.clone()), Kind::Place),
            _ => self.value_of(ex),
        }
    }

    /// A call `path(args)`.
    pub(crate) fn call(
        &mut self,
        c: &syn::ExprCall,
        exp: Option<&Ty>,
        dest: Option<&str>,
    ) -> Res<Ex> {
        let Expr::Path(p) = strip(&c.func) else {
            return self.fail(
                c.func.span(),
                crate::check::unsupported("calls through values are"),
            );
        };
        let segs = path_segs(&p.path);
        let n = segs.len();
        let name = segs[n - 1].clone();
        let args: Vec<&Expr> = c.args.iter().collect();
        let span = c.span();
        if n >= 2 {
            let owner = segs[n - 2].as_str();
            if let Some(t) = scalar_type(owner) {
                return self.scalar_path_call(&t, &name, &args, span, dest);
            }
            if n == 2 && owner == "libm" {
                if let Some(cf) = libm_unary(&name) {
                    return self.libm_call(cf, &name, &args, span);
                }
            }
            if owner == "Default" && name == "default" && args.is_empty() {
                let Some(t) = exp.and_then(|t| self.known(t)) else {
                    return self.fail(
                        span,
                        "`Default::default()` needs a known type here; write `T::default()`",
                    );
                };
                return self.zero(&t, dest, span);
            }
            if let Some(t) = self.owner_type(&segs[..n - 1]) {
                if let DeviceType::Struct(s) = &t {
                    if let Some(f) = self.prog.find_method(s, &name) {
                        return self.device_call(f, None, &args, span, dest);
                    }
                }
                if name == "default" && args.is_empty() {
                    return self.zero(&t, dest, span);
                }
                if let DeviceType::Struct(s) = &t {
                    if self
                        .prog
                        .unmarked
                        .contains(&(Some(s.clone()), name.clone()))
                    {
                        return self.fail(
                            span,
                            format!(
                                "`{s}::{name}` is called from device code but not marked #[device]"
                            ),
                        );
                    }
                }
                return self.fail(span, format!("`{t}` has no device function `{name}`"));
            }
        }
        if let Some(f) = self.prog.find_fn(&name) {
            return self.device_call(f, None, &args, span, dest);
        }
        if self.prog.unmarked.contains(&(None, name.clone())) {
            return self.fail(
                span,
                format!("function `{name}` is called from device code but not marked #[device]"),
            );
        }
        self.fail(
            span,
            format!(
                "unknown function `{}` in device code (device code calls #[device] functions and \
                 the built-ins listed in qflow-par-codegen's documentation)",
                segs.join("::")
            ),
        )
    }

    /// The type a path prefix names (`Self`, a struct, an alias).
    pub(crate) fn owner_type(&self, segs: &[String]) -> Option<DeviceType> {
        if segs.len() == 1 && segs[0] == "Self" {
            return self.scope.self_ty.clone().map(DeviceType::Struct);
        }
        let last = segs.last()?;
        if self.prog.find_struct(last).is_some() {
            return Some(DeviceType::Struct(last.clone()));
        }
        let a = self.prog.lookup_alias(segs, &self.scope).ok()??;
        let a = &self.prog.aliases[a];
        self.prog.resolve_type(&a.ty, &a.scope).ok()
    }

    /// `f64::max(a, b)`, `f64::from_bits(u)`, `u64::wrapping_add(a, b)`.
    pub(crate) fn scalar_path_call(
        &mut self,
        t: &DeviceType,
        name: &str,
        args: &[&Expr],
        span: Span,
        dest: Option<&str>,
    ) -> Res<Ex> {
        if name == "from_bits" && args.len() == 1 {
            if *t != DeviceType::F64 {
                return self.fail(span, "`from_bits` is supported for `f64` only");
            }
            let u = Ty::D(DeviceType::U64);
            let a = self.expr(args[0], Some(&u))?;
            let a = self.deref_scalar(a);
            self.unify(&a.ty, &u);
            return Ok(Ex::new(
                format!("QF_AS_DOUBLE({})", arg_list(&[a])),
                Ty::D(DeviceType::F64),
                Kind::Value,
            ));
        }
        if name == "default" && args.is_empty() {
            return self.zero(t, dest, span);
        }
        let Some((first, rest)) = args.split_first() else {
            return self.fail(
                span,
                format!("`{t}::{name}` is not supported in device code"),
            );
        };
        let recv = self.expr(first, Some(&Ty::D(t.clone())))?;
        self.builtin_method(t, name, recv, rest, span)
    }

    /// A call of device function `f` (`recv`: a method's receiver, already
    /// adapted to the way it takes `self`).
    pub(crate) fn device_call(
        &mut self,
        f: usize,
        recv: Option<Ex>,
        args: &[&Expr],
        span: Span,
        dest: Option<&str>,
    ) -> Res<Ex> {
        let Some(sig) = self.prog.sigs[f].clone() else {
            return self.fail(
                span,
                format!(
                    "the signature of `{}` has errors",
                    self.prog.fns[f].rust_path
                ),
            );
        };
        let mut done: Vec<Ex> = Vec::new();
        let mut args = args;
        match (recv, sig.receiver) {
            (Some(r), _) => done.push(r),
            (None, Some(kind)) => {
                let Some((first, rest)) = args.split_first() else {
                    return self.fail(span, "missing `self` argument");
                };
                let r = self.expr(first, None)?;
                let r = self.receiver_arg(r, kind);
                done.push(r);
                args = rest;
            }
            (None, None) => {}
        }
        if args.len() != sig.params.len() {
            return self.fail(
                span,
                format!(
                    "`{}` takes {} arguments",
                    self.prog.fns[f].rust_path,
                    sig.params.len()
                ),
            );
        }
        for (e, (_, pt)) in args.iter().zip(&sig.params) {
            let want = if pt.by_ref {
                Ty::Ref(pt.ty.clone(), pt.mutable)
            } else {
                Ty::D(pt.ty.clone())
            };
            let m = self.mark();
            let x = self.expr(e, Some(&want))?;
            let x = if pt.by_ref {
                if !matches!(x.ty, Ty::Ref(..)) {
                    return self.fail(e.span(), "a reference (`&x`) is expected here");
                }
                x
            } else {
                let x = self.deref_any(x);
                self.unify(&x.ty, &Ty::D(pt.ty.clone()));
                x
            };
            let mut refs: Vec<&mut Ex> = done.iter_mut().collect();
            self.protect(&mut refs, m);
            done.push(x);
        }
        self.calls.push((f, span));
        let effectful =
            sig.receiver == Some(Receiver::RefMut) || sig.params.iter().any(|(_, p)| p.mutable);
        let code = format!("{}({})", self.prog.fns[f].c_name, arg_list(&done));
        if sig.ret == DeviceType::Unit {
            self.line(format!("{code};"));
            if effectful {
                self.effect();
            }
            return Ok(Ex::unit());
        }
        let ty = Ty::D(sig.ret.clone());
        if effectful {
            let t = match dest {
                Some(d) => d.to_string(),
                None => self.new_tmp(),
            };
            let ct = self.c_ty(&ty);
            self.line(format!("{ct} {t} = {code};"));
            self.effect();
            return Ok(Ex::new(t, ty, Kind::Place));
        }
        Ok(Ex::new(code, ty, Kind::Value))
    }

    /// A receiver as a method takes it: by pointer (`&self`, `&mut self`:
    /// `&x`, or the pointer itself) or by value.
    pub(crate) fn receiver_arg(&mut self, recv: Ex, kind: Receiver) -> Ex {
        match kind {
            Receiver::Ref | Receiver::RefMut => match &recv.ty {
                Ty::Ref(..) => recv,
                _ => {
                    let r = self.value_of(recv);
                    let r = if r.kind == Kind::Place {
                        r
                    } else {
                        let t = self.new_tmp();
                        let ct = self.c_ty(&r.ty);
                        self.line(format!("{ct} {t} = {};", super::stmt::unparen(&r.code)));
                        Ex::new(t, r.ty, Kind::Place)
                    };
                    let d = self.known(&r.ty).unwrap_or(DeviceType::Unit);
                    Ex::new(
                        format!("(&{})", r.code),
                        Ty::Ref(d, kind == Receiver::RefMut),
                        Kind::Value,
                    )
                }
            },
            Receiver::Value => self.deref_any(recv),
        }
    }

    /// `receiver.method(args)`.
    pub(crate) fn method_call(
        &mut self,
        m: &syn::ExprMethodCall,
        _exp: Option<&Ty>,
        dest: Option<&str>,
    ) -> Res<Ex> {
        let name = m.method.to_string();
        let span = m.method.span();
        if name == "mul_add" {
            return self.fail(
                span,
                "`mul_add` is not supported in device code: kernels never fuse a multiply and an \
                 add (the device must round as the CPU does)",
            );
        }
        let recv = self.expr(&m.receiver, None)?;
        let args: Vec<&Expr> = m.args.iter().collect();
        let d = match self.resolved(&recv.ty) {
            Ty::D(d) | Ty::Ref(d, _) => d,
            Ty::Var(_) if self.is_int_var(&recv.ty) => {
                return self.fail(
                    m.receiver.span(),
                    format!("cannot infer the integer type for `.{name}()`; add a suffix (`2u32`) or a type annotation"),
                )
            }
            _ => return self.fail(m.receiver.span(), "cannot infer the type of this value; add a type annotation"),
        };
        match &d {
            DeviceType::Struct(s) => {
                if let Some(f) = self.prog.find_method(s, &name) {
                    let Some(kind) = self.prog.sigs[f].as_ref().and_then(|g| g.receiver) else {
                        return self.fail(
                            span,
                            format!("`{s}::{name}` takes no `self`; call it as `{s}::{name}(..)`"),
                        );
                    };
                    let r = self.receiver_arg(recv, kind);
                    return self.device_call(f, Some(r), &args, span, dest);
                }
                if name == "clone" && args.is_empty() {
                    return Ok(self.deref_any(recv));
                }
                if self
                    .prog
                    .unmarked
                    .contains(&(Some(s.clone()), name.clone()))
                {
                    return self.fail(
                        span,
                        format!(
                            "`{s}::{name}` is called from device code but not marked #[device]"
                        ),
                    );
                }
                self.fail(span, format!("`{s}` has no device method `{name}`"))
            }
            DeviceType::Star(_) | DeviceType::Offsets(_) => {
                self.accessor_call(&d, &name, recv, &args, span)
            }
            DeviceType::Array(_, n) => match (name.as_str(), args.len()) {
                ("len", 0) => Ok(Ex::new(
                    format!("{n}UL"),
                    Ty::D(DeviceType::Usize),
                    Kind::Lit,
                )),
                ("clone", 0) => Ok(self.deref_any(recv)),
                _ => self.fail(
                    span,
                    format!("method `{name}` of arrays is not supported in device code"),
                ),
            },
            DeviceType::Tuple(_) if name == "clone" && args.is_empty() => Ok(self.deref_any(recv)),
            t if t.is_scalar() => {
                let t = t.clone();
                self.builtin_method(&t, &name, recv, &args, span)
            }
            t => self.fail(
                span,
                format!("method `{name}` of `{t}` is not supported in device code"),
            ),
        }
    }

    pub(crate) fn accessor_call(
        &mut self,
        acc: &DeviceType,
        name: &str,
        recv: Ex,
        args: &[&Expr],
        span: Span,
    ) -> Res<Ex> {
        let r = self.deref_any(recv);
        self.use_type(acc);
        let ct = c_type(acc);
        let usize_t = Ty::D(DeviceType::Usize);
        match (acc, name, args.len()) {
            (DeviceType::Star(_), "len", 0) => Ok(Ex::new(
                format!("{ct}_len({})", r.code),
                usize_t,
                Kind::Value,
            )),
            (DeviceType::Star(_), "is_empty", 0) => Ok(Ex::new(
                format!("({ct}_len({}) == 0UL)", r.code),
                Ty::D(DeviceType::Bool),
                Kind::Value,
            )),
            (DeviceType::Star(e), "own", 0) => Ok(Ex::new(
                format!("{ct}_own({})", r.code),
                Ty::D((**e).clone()),
                Kind::Value,
            )),
            (DeviceType::Star(e), "nbr", 1) => {
                let v = self.operands(&[(args[0], Some(usize_t.clone()))])?;
                let k = self.deref_scalar(v[0].clone());
                self.unify(&k.ty, &usize_t);
                Ok(Ex::new(
                    format!("{ct}_nbr({}, {})", r.code, arg_list(&[k])),
                    Ty::D((**e).clone()),
                    Kind::Value,
                ))
            }
            (DeviceType::Offsets(e), "at", 3) => {
                let i = Some(Ty::D(DeviceType::I32));
                let v =
                    self.operands(&[(args[0], i.clone()), (args[1], i.clone()), (args[2], i)])?;
                for x in &v {
                    self.unify(&x.ty, &Ty::D(DeviceType::I32));
                }
                Ok(Ex::new(
                    format!("{ct}_at({}, {})", r.code, arg_list(&v)),
                    Ty::D((**e).clone()),
                    Kind::Value,
                ))
            }
            (DeviceType::Offsets(e), "value", 4) => {
                let DeviceType::Array(scalar, _) = &**e else {
                    return self.fail(span, "`Offsets::value` reads elements that are arrays");
                };
                let i = Some(Ty::D(DeviceType::I32));
                let v = self.operands(&[
                    (args[0], i.clone()),
                    (args[1], i.clone()),
                    (args[2], i),
                    (args[3], Some(usize_t.clone())),
                ])?;
                for x in &v[..3] {
                    self.unify(&x.ty, &Ty::D(DeviceType::I32));
                }
                let k = self.deref_scalar(v[3].clone());
                self.unify(&k.ty, &usize_t);
                let mut all = v[..3].to_vec();
                all.push(k);
                Ok(Ex::new(
                    format!("{ct}_value({}, {})", r.code, arg_list(&all)),
                    Ty::D((**scalar).clone()),
                    Kind::Value,
                ))
            }
            _ => self.fail(
                span,
                format!(
                    "accessor method `{name}` is not supported (`Star`: len, is_empty, own, nbr; \
                     `Offsets`: at, value)"
                ),
            ),
        }
    }
}
