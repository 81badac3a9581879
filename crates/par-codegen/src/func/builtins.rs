//! The built-in methods of numbers: `f64::sqrt` and friends, integer
//! `min`/`max`/`pow`, the wrapping operations of unsigned types.

use proc_macro2::Span;
use syn::Expr;

use super::call::arg_list;
use super::{Ex, FnCx, Helper, Kind, Ty};
use crate::lit::{fmt_f32, fmt_f64};
use crate::names::{c_type, ident_part, DeviceType};
use crate::program::Res;

/// The C function of a one-argument float method.
fn unary_math(name: &str) -> Option<&'static str> {
    Some(match name {
        "sqrt" => "sqrt",
        "abs" => "fabs",
        "ln" => "log",
        "log10" => "log10",
        "log2" => "log2",
        "exp" => "exp",
        "exp2" => "exp2",
        "exp_m1" => "expm1",
        "ln_1p" => "log1p",
        "cbrt" => "cbrt",
        "floor" => "floor",
        "ceil" => "ceil",
        "round" => "round",
        "round_ties_even" => "rint",
        "trunc" => "trunc",
        "sin" => "sin",
        "cos" => "cos",
        "tan" => "tan",
        "asin" => "asin",
        "acos" => "acos",
        "atan" => "atan",
        "sinh" => "sinh",
        "cosh" => "cosh",
        "tanh" => "tanh",
        "asinh" => "asinh",
        "acosh" => "acosh",
        "atanh" => "atanh",
        _ => return None,
    })
}

/// The C function of a two-argument float method.
fn binary_math(name: &str) -> Option<&'static str> {
    Some(match name {
        "powf" => "pow",
        "hypot" => "hypot",
        "atan2" => "atan2",
        "copysign" => "copysign",
        "min" => "fmin",
        "max" => "fmax",
        _ => return None,
    })
}

impl FnCx<'_> {
    /// One more operand after `recv`, of type `want`.
    pub(crate) fn next_operand(&mut self, recv: &mut Ex, e: &Expr, want: &Ty) -> Res<Ex> {
        let m = self.mark();
        let a = self.expr(e, Some(want))?;
        let a = self.deref_scalar(a);
        self.protect(&mut [recv], m);
        self.unify(&a.ty, want);
        Ok(a)
    }

    /// A method of `f64`, `f32`, an integer type or `bool`.
    pub(crate) fn builtin_method(
        &mut self,
        t: &DeviceType,
        name: &str,
        recv: Ex,
        args: &[&Expr],
        span: Span,
    ) -> Res<Ex> {
        let recv = self.deref_any(recv);
        self.unify(&recv.ty, &Ty::D(t.clone()));
        if t.is_float() {
            self.float_method(t, name, recv, args, span)
        } else if t.is_int() {
            self.int_method(t, name, recv, args, span)
        } else if name == "clone" && args.is_empty() {
            Ok(recv)
        } else {
            self.fail(
                span,
                format!("method `{name}` of `{t}` is not supported in device code"),
            )
        }
    }

    pub(crate) fn float_method(
        &mut self,
        t: &DeviceType,
        name: &str,
        mut r: Ex,
        args: &[&Expr],
        span: Span,
    ) -> Res<Ex> {
        let tt = Ty::D(t.clone());
        let bool_t = Ty::D(DeviceType::Bool);
        let f32_ = *t == DeviceType::F32;
        let one = if f32_ { "1.0f" } else { "1.0" };
        let v = |code: String, ty: &Ty| Ok(Ex::new(code, ty.clone(), Kind::Value));
        match (name, args.len()) {
            (n, 0) if unary_math(n).is_some() => v(
                format!("{}({})", unary_math(n).unwrap(), arg_list(&[r])),
                &tt,
            ),
            ("recip", 0) => v(format!("({one} / {})", r.code), &tt),
            ("to_degrees", 0) => {
                // The factor Rust multiplies by (the degrees of one radian).
                let k = if f32_ {
                    fmt_f32(1.0f32.to_degrees())
                } else {
                    fmt_f64(1.0f64.to_degrees())
                };
                v(format!("({} * {k})", r.code), &tt)
            }
            ("to_radians", 0) => {
                let k = if f32_ {
                    fmt_f32(1.0f32.to_radians())
                } else {
                    fmt_f64(1.0f64.to_radians())
                };
                v(format!("({} * {k})", r.code), &tt)
            }
            ("fract", 0) => {
                let r = self.spill(r);
                v(format!("({} - trunc({}))", r.code, r.code), &tt)
            }
            ("signum", 0) => {
                let r = self.spill(r);
                let nan = if f32_ { "((float)QF_NAN)" } else { "QF_NAN" };
                v(
                    format!("(isnan({}) ? {nan} : copysign({one}, {}))", r.code, r.code),
                    &tt,
                )
            }
            ("is_nan", 0) => v(format!("isnan({})", arg_list(&[r])), &bool_t),
            ("is_finite", 0) => v(format!("isfinite({})", arg_list(&[r])), &bool_t),
            ("is_infinite", 0) => v(format!("isinf({})", arg_list(&[r])), &bool_t),
            ("is_normal", 0) => v(format!("isnormal({})", arg_list(&[r])), &bool_t),
            ("is_sign_negative", 0) => v(format!("signbit({})", arg_list(&[r])), &bool_t),
            ("is_sign_positive", 0) => v(format!("(!signbit({}))", arg_list(&[r])), &bool_t),
            ("to_bits", 0) if !f32_ => v(
                format!("QF_AS_ULONG({})", arg_list(&[r])),
                &Ty::D(DeviceType::U64),
            ),
            ("clone", 0) => Ok(r),
            ("sin_cos", 0) => {
                let r = self.spill(r);
                let ty = DeviceType::Tuple(vec![t.clone(), t.clone()]);
                let tmp = self.new_tmp();
                let ct = self.c_ty(&Ty::D(ty.clone()));
                self.line(format!("{ct} {tmp};"));
                self.line(format!("{tmp}.f0 = sin({});", r.code));
                self.line(format!("{tmp}.f1 = cos({});", r.code));
                Ok(Ex::new(tmp, Ty::D(ty), Kind::Place))
            }
            (n, 1) if binary_math(n).is_some() => {
                let a = self.next_operand(&mut r, args[0], &tt)?;
                v(
                    format!("{}({})", binary_math(n).unwrap(), arg_list(&[r, a])),
                    &tt,
                )
            }
            ("powi", 1) => {
                let a = self.next_operand(&mut r, args[0], &Ty::D(DeviceType::I32))?;
                self.helpers.insert(Helper::Powi(t.clone()));
                v(
                    format!("qf_powi_{}({})", ident_part(t), arg_list(&[r, a])),
                    &tt,
                )
            }
            ("clamp", 2) => self.clamp(r, args, &tt),
            _ => self.fail(
                span,
                format!("method `{name}` of `{t}` is not supported in device code"),
            ),
        }
    }

    /// `x.clamp(lo, hi)`: `x < lo ? lo : (x > hi ? hi : x)`.
    pub(crate) fn clamp(&mut self, mut r: Ex, args: &[&Expr], tt: &Ty) -> Res<Ex> {
        let lo = self.next_operand(&mut r, args[0], tt)?;
        let m = self.mark();
        let hi = self.expr(args[1], Some(tt))?;
        let mut hi = self.deref_scalar(hi);
        let (mut r, mut lo) = (r, lo);
        self.protect(&mut [&mut r, &mut lo], m);
        self.unify(&hi.ty, tt);
        r = self.spill(r);
        lo = self.spill(lo);
        hi = self.spill(hi);
        let (x, l, h) = (&r.code, &lo.code, &hi.code);
        Ok(Ex::new(
            format!("({x} < {l} ? {l} : ({x} > {h} ? {h} : {x}))"),
            tt.clone(),
            Kind::Value,
        ))
    }

    pub(crate) fn int_method(
        &mut self,
        t: &DeviceType,
        name: &str,
        mut r: Ex,
        args: &[&Expr],
        span: Span,
    ) -> Res<Ex> {
        let tt = Ty::D(t.clone());
        let v = |code: String, ty: &Ty| Ok(Ex::new(code, ty.clone(), Kind::Value));
        let signed = !t.is_unsigned();
        match (name, args.len()) {
            ("min" | "max", 1) => {
                let a = self.next_operand(&mut r, args[0], &tt)?;
                let (r, a) = (self.spill(r), self.spill(a));
                let op = if name == "min" { "<" } else { ">" };
                v(
                    format!("({} {op} {} ? {} : {})", r.code, a.code, r.code, a.code),
                    &tt,
                )
            }
            ("abs", 0) if signed => {
                let r = self.spill(r);
                v(format!("({} < 0 ? -{} : {})", r.code, r.code, r.code), &tt)
            }
            ("signum", 0) if signed => {
                let r = self.spill(r);
                let ct = c_type(t);
                v(
                    format!("(({ct})(({} > 0) - ({} < 0)))", r.code, r.code),
                    &tt,
                )
            }
            ("wrapping_add" | "wrapping_sub" | "wrapping_mul" | "wrapping_neg", _) if signed => {
                self.fail(
                    span,
                    format!(
                    "`{name}` on signed integers is not supported in device code (C leaves signed \
                     overflow undefined); use an unsigned type"
                ),
                )
            }
            ("wrapping_add" | "wrapping_sub" | "wrapping_mul", 1) => {
                let a = self.next_operand(&mut r, args[0], &tt)?;
                let op = match name {
                    "wrapping_add" => "+",
                    "wrapping_sub" => "-",
                    _ => "*",
                };
                v(format!("({} {op} {})", r.code, a.code), &tt)
            }
            ("wrapping_neg", 0) => v(format!("(-{})", r.code), &tt),
            ("pow", 1) => {
                let a = self.next_operand(&mut r, args[0], &Ty::D(DeviceType::U32))?;
                self.helpers.insert(Helper::IntPow(t.clone()));
                v(
                    format!("qf_pow_{}({})", ident_part(t), arg_list(&[r, a])),
                    &tt,
                )
            }
            ("clamp", 2) => self.clamp(r, args, &tt),
            ("clone", 0) => Ok(r),
            _ => self.fail(
                span,
                format!("method `{name}` of `{t}` is not supported in device code"),
            ),
        }
    }
}
