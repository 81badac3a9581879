//! Evaluation of constants (and array lengths) as Rust evaluates them at
//! compile time: IEEE arithmetic on floats, checked arithmetic on
//! integers, `as` casts, other constants, `from_bits` / `to_bits`.

use syn::spanned::Spanned;
use syn::{BinOp, Expr, Lit, UnOp};

use super::{path_segs, Fail, Program, Res, Scope};
use crate::lit::{builtin_const, int_bits, int_range, scalar_type, wrap, CVal};
use crate::names::DeviceType;

/// An unsuffixed literal (possibly negated or parenthesized): its type
/// comes from the other operand.
pub(crate) fn untyped_literal(e: &Expr) -> bool {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.suffix().is_empty(),
            Lit::Float(f) => f.suffix().is_empty(),
            _ => false,
        },
        Expr::Paren(p) => untyped_literal(&p.expr),
        Expr::Group(g) => untyped_literal(&g.expr),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => untyped_literal(&u.expr),
        _ => false,
    }
}

/// The type of a literal: its suffix, else the expected type where it
/// fits, else `i32` / `f64`.
pub(crate) fn literal_type(lit: &Lit, expected: Option<&DeviceType>) -> Option<DeviceType> {
    match lit {
        Lit::Int(i) => Some(match scalar_type(i.suffix()) {
            Some(t) => t,
            None => match expected {
                Some(t) if t.is_int() || t.is_float() => t.clone(),
                _ => DeviceType::I32,
            },
        }),
        Lit::Float(f) => Some(match scalar_type(f.suffix()) {
            Some(t) => t,
            None => match expected {
                Some(DeviceType::F32) => DeviceType::F32,
                _ => DeviceType::F64,
            },
        }),
        Lit::Bool(_) => Some(DeviceType::Bool),
        _ => None,
    }
}

fn overflow(e: &Expr) -> Fail {
    Fail::new(e.span(), "arithmetic overflow in a constant expression")
}

fn in_range(v: i128, t: &DeviceType, e: &Expr) -> Res<CVal> {
    let (lo, hi) = int_range(t);
    if v < lo || v > hi {
        return Err(Fail::new(
            e.span(),
            format!("the value {v} does not fit in `{t}`"),
        ));
    }
    Ok(CVal::Int(v, t.clone()))
}

/// `v as t`, as Rust casts (floats to integers saturate, NaN gives 0).
pub(crate) fn cast(v: &CVal, t: &DeviceType) -> Option<CVal> {
    Some(match (v, t) {
        (CVal::Int(x, _), t) if t.is_int() => CVal::Int(wrap(*x, t), t.clone()),
        (CVal::Int(x, _), DeviceType::F64) => CVal::Float(*x as f64, DeviceType::F64),
        (CVal::Int(x, _), DeviceType::F32) => CVal::Float(*x as f32 as f64, DeviceType::F32),
        (CVal::Float(x, _), t) if t.is_int() => {
            let (lo, hi) = int_range(t);
            let v = if x.is_nan() {
                0
            } else {
                (*x as i128).clamp(lo, hi)
            };
            CVal::Int(v, t.clone())
        }
        (CVal::Float(x, _), DeviceType::F64) => CVal::Float(*x, DeviceType::F64),
        (CVal::Float(x, _), DeviceType::F32) => CVal::Float(*x as f32 as f64, DeviceType::F32),
        (CVal::Bool(b), t) if t.is_int() => CVal::Int(*b as i128, t.clone()),
        (CVal::Bool(b), DeviceType::Bool) => CVal::Bool(*b),
        _ => return None,
    })
}

impl Program {
    /// The value of constant `k`, checked against its declared type.
    pub(super) fn eval_const_item(&self, k: usize) -> Res<CVal> {
        let c = &self.consts[k];
        let t = self.resolve_type(&c.ty, &c.scope)?;
        let v = self.eval(&c.expr, Some(&t), &c.scope)?;
        if v.ty() != t {
            return Err(Fail::new(
                c.expr.span(),
                format!(
                    "constant `{}` of type `{t}` has a value of type `{}`",
                    c.name,
                    v.ty()
                ),
            ));
        }
        Ok(v)
    }

    /// An array length (`usize`).
    pub(crate) fn eval_len(&self, e: &Expr, scope: &Scope) -> Res<usize> {
        match self.eval(e, Some(&DeviceType::Usize), scope)? {
            CVal::Int(v, _) if v >= 0 => Ok(v as usize),
            _ => Err(Fail::new(
                e.span(),
                "an array length must be a `usize` constant",
            )),
        }
    }

    /// Evaluates a constant expression written in `scope`.
    pub(crate) fn eval(&self, e: &Expr, expected: Option<&DeviceType>, scope: &Scope) -> Res<CVal> {
        match e {
            Expr::Lit(l) => self.eval_lit(&l.lit, expected, false, e),
            Expr::Paren(p) => self.eval(&p.expr, expected, scope),
            Expr::Group(g) => self.eval(&g.expr, expected, scope),
            Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(x, None) => self.eval(x, expected, scope),
                _ => Err(Fail::new(e.span(), "not a constant expression")),
            },
            Expr::Unary(u) => {
                let mut inner = &*u.expr;
                while let Expr::Paren(p) = inner {
                    inner = &p.expr;
                }
                match (u.op, inner) {
                    (UnOp::Neg(_), Expr::Lit(l)) => self.eval_lit(&l.lit, expected, true, e),
                    (UnOp::Neg(_), _) => match self.eval(inner, expected, scope)? {
                        CVal::Int(v, t) if !t.is_unsigned() => in_range(-v, &t, e),
                        CVal::Float(x, t) => Ok(CVal::Float(-x, t)),
                        _ => Err(Fail::new(e.span(), "cannot negate this constant")),
                    },
                    (UnOp::Not(_), _) => match self.eval(inner, expected, scope)? {
                        CVal::Bool(b) => Ok(CVal::Bool(!b)),
                        CVal::Int(v, t) => Ok(CVal::Int(wrap(!v, &t), t)),
                        _ => Err(Fail::new(e.span(), "cannot apply `!` to this constant")),
                    },
                    _ => Err(Fail::new(e.span(), "not a constant expression")),
                }
            }
            Expr::Binary(b) => self.eval_binary(b, expected, scope),
            Expr::Cast(c) => {
                let t = self.resolve_type(&c.ty, scope)?;
                let v = self.eval(&c.expr, None, scope)?;
                cast(&v, &t).ok_or_else(|| Fail::new(e.span(), format!("cannot cast to `{t}`")))
            }
            Expr::Path(p) => {
                let segs = path_segs(&p.path);
                if let Some(v) = builtin_const(&segs) {
                    return Ok(v);
                }
                if segs.len() == 1 {
                    if let Some(v) = self.imported_builtin(&segs[0], scope) {
                        return Ok(v);
                    }
                }
                match self.lookup_const(&segs, scope) {
                    Ok(Some(k)) => self.const_value(k),
                    Ok(None) => Err(Fail::new(
                        e.span(),
                        format!("unknown constant `{}`", segs.join("::")),
                    )),
                    Err(m) => Err(Fail::new(e.span(), m)),
                }
            }
            Expr::Array(a) => {
                let elem = match expected {
                    Some(DeviceType::Array(t, _)) => Some(&**t),
                    _ => None,
                };
                let mut vals = Vec::new();
                for x in &a.elems {
                    let want = elem.cloned().or_else(|| vals.first().map(CVal::ty));
                    vals.push(self.eval(x, want.as_ref(), scope)?);
                }
                let t = match (elem, vals.first()) {
                    (Some(t), _) => t.clone(),
                    (None, Some(v)) => v.ty(),
                    (None, None) => {
                        return Err(Fail::new(e.span(), "empty arrays are not supported"))
                    }
                };
                Ok(CVal::Array(vals, t))
            }
            Expr::Repeat(r) => {
                let elem = match expected {
                    Some(DeviceType::Array(t, _)) => Some(&**t),
                    _ => None,
                };
                let n = self.eval_len(&r.len, scope)?;
                let v = self.eval(&r.expr, elem, scope)?;
                let t = v.ty();
                Ok(CVal::Array(vec![v; n], t))
            }
            Expr::Index(i) => {
                let a = self.eval(&i.expr, None, scope)?;
                let k = self.eval(&i.index, Some(&DeviceType::Usize), scope)?;
                match (a, k) {
                    (CVal::Array(v, _), CVal::Int(k, _)) if (k as usize) < v.len() => {
                        Ok(v[k as usize].clone())
                    }
                    _ => Err(Fail::new(e.span(), "index out of bounds in a constant")),
                }
            }
            Expr::Call(c) if c.args.len() == 1 => {
                let f = match &*c.func {
                    Expr::Path(p) => path_segs(&p.path),
                    _ => Vec::new(),
                };
                let n = f.len();
                if n >= 2 && f[n - 1] == "from_bits" && (f[n - 2] == "f64" || f[n - 2] == "f32") {
                    let f64_ = f[n - 2] == "f64";
                    let ut = if f64_ {
                        DeviceType::U64
                    } else {
                        DeviceType::U32
                    };
                    if let CVal::Int(v, _) = self.eval(&c.args[0], Some(&ut), scope)? {
                        return Ok(if f64_ {
                            CVal::Float(f64::from_bits(v as u64), DeviceType::F64)
                        } else {
                            CVal::Float(f32::from_bits(v as u32) as f64, DeviceType::F32)
                        });
                    }
                }
                Err(Fail::new(
                    e.span(),
                    "calls in constants are not supported (but `f64::from_bits`)",
                ))
            }
            Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => {
                match self.eval(&m.receiver, None, scope)? {
                    CVal::Array(v, _) => Ok(CVal::Int(v.len() as i128, DeviceType::Usize)),
                    _ => Err(Fail::new(e.span(), "`len` of a value that is not an array")),
                }
            }
            Expr::MethodCall(m) if m.method == "to_bits" && m.args.is_empty() => {
                match self.eval(&m.receiver, None, scope)? {
                    CVal::Float(x, DeviceType::F32) => {
                        Ok(CVal::Int((x as f32).to_bits() as i128, DeviceType::U32))
                    }
                    CVal::Float(x, _) => Ok(CVal::Int(x.to_bits() as i128, DeviceType::U64)),
                    _ => Err(Fail::new(
                        e.span(),
                        "`to_bits` of a value that is not a float",
                    )),
                }
            }
            _ => Err(Fail::new(e.span(), "not a constant expression")),
        }
    }

    fn eval_lit(&self, lit: &Lit, expected: Option<&DeviceType>, neg: bool, e: &Expr) -> Res<CVal> {
        let t = literal_type(lit, expected)
            .ok_or_else(|| Fail::new(e.span(), "this literal is not supported in device code"))?;
        match lit {
            Lit::Int(i) if t.is_int() => {
                // A literal pattern may carry its sign (`-1 =>`).
                let digits = i.base10_digits();
                let neg = neg != digits.starts_with('-');
                let v: u128 = digits
                    .trim_start_matches('-')
                    .parse()
                    .map_err(|x: std::num::ParseIntError| Fail::new(e.span(), x.to_string()))?;
                let v = v as i128;
                in_range(if neg { -v } else { v }, &t, e)
            }
            Lit::Int(i) => {
                let v: f64 = i
                    .base10_parse()
                    .map_err(|x| Fail::new(e.span(), x.to_string()))?;
                Ok(CVal::Float(if neg { -v } else { v }, t))
            }
            Lit::Float(f) => {
                let v = if t == DeviceType::F32 {
                    let x: f32 = f
                        .base10_parse()
                        .map_err(|x| Fail::new(e.span(), x.to_string()))?;
                    x as f64
                } else {
                    f.base10_parse()
                        .map_err(|x| Fail::new(e.span(), x.to_string()))?
                };
                Ok(CVal::Float(if neg { -v } else { v }, t))
            }
            Lit::Bool(b) if !neg => Ok(CVal::Bool(b.value)),
            _ => Err(Fail::new(
                e.span(),
                "this literal is not supported in device code",
            )),
        }
    }

    fn eval_binary(
        &self,
        b: &syn::ExprBinary,
        expected: Option<&DeviceType>,
        scope: &Scope,
    ) -> Res<CVal> {
        let e = Expr::Binary(b.clone());
        let shift = matches!(b.op, BinOp::Shl(_) | BinOp::Shr(_));
        let cmp = matches!(
            b.op,
            BinOp::Eq(_) | BinOp::Ne(_) | BinOp::Lt(_) | BinOp::Le(_) | BinOp::Gt(_) | BinOp::Ge(_)
        );
        let want = if cmp { None } else { expected };
        let (l, r) = if shift {
            (
                self.eval(&b.left, want, scope)?,
                self.eval(&b.right, None, scope)?,
            )
        } else if untyped_literal(&b.left) && !untyped_literal(&b.right) {
            let r = self.eval(&b.right, want, scope)?;
            (self.eval(&b.left, Some(&r.ty()), scope)?, r)
        } else {
            let l = self.eval(&b.left, want, scope)?;
            let r = self.eval(&b.right, Some(&l.ty()), scope)?;
            (l, r)
        };
        let bad = || Fail::new(b.op.span(), "this operation is not supported in constants");
        Ok(match (&l, &r) {
            (CVal::Bool(x), CVal::Bool(y)) => CVal::Bool(match b.op {
                BinOp::And(_) | BinOp::BitAnd(_) => *x && *y,
                BinOp::Or(_) | BinOp::BitOr(_) => *x || *y,
                BinOp::BitXor(_) | BinOp::Ne(_) => x != y,
                BinOp::Eq(_) => x == y,
                _ => return Err(bad()),
            }),
            (CVal::Int(x, t), CVal::Int(y, _)) if shift => {
                if *y < 0 || *y >= int_bits(t) as i128 {
                    return Err(overflow(&e));
                }
                let v = match b.op {
                    BinOp::Shl(_) => wrap(x << y, t),
                    _ => x >> y,
                };
                CVal::Int(v, t.clone())
            }
            (CVal::Int(x, t), CVal::Int(y, _)) => {
                let (x, y) = (*x, *y);
                let v = match b.op {
                    BinOp::Add(_) => x + y,
                    BinOp::Sub(_) => x - y,
                    BinOp::Mul(_) => x.checked_mul(y).ok_or_else(|| overflow(&e))?,
                    BinOp::Div(_) | BinOp::Rem(_) if y == 0 => {
                        return Err(Fail::new(b.op.span(), "division by zero in a constant"))
                    }
                    BinOp::Div(_) => x / y,
                    BinOp::Rem(_) => x % y,
                    BinOp::BitAnd(_) => x & y,
                    BinOp::BitOr(_) => x | y,
                    BinOp::BitXor(_) => x ^ y,
                    BinOp::Eq(_) => return Ok(CVal::Bool(x == y)),
                    BinOp::Ne(_) => return Ok(CVal::Bool(x != y)),
                    BinOp::Lt(_) => return Ok(CVal::Bool(x < y)),
                    BinOp::Le(_) => return Ok(CVal::Bool(x <= y)),
                    BinOp::Gt(_) => return Ok(CVal::Bool(x > y)),
                    BinOp::Ge(_) => return Ok(CVal::Bool(x >= y)),
                    _ => return Err(bad()),
                };
                in_range(v, t, &e).map_err(|_| overflow(&e))?
            }
            (CVal::Float(x, t), CVal::Float(y, _)) => {
                let f32_ = *t == DeviceType::F32;
                let (x, y) = (*x, *y);
                let v = if f32_ {
                    let (a, c) = (x as f32, y as f32);
                    (match b.op {
                        BinOp::Add(_) => a + c,
                        BinOp::Sub(_) => a - c,
                        BinOp::Mul(_) => a * c,
                        BinOp::Div(_) => a / c,
                        BinOp::Rem(_) => a % c,
                        _ => f32::NAN,
                    }) as f64
                } else {
                    match b.op {
                        BinOp::Add(_) => x + y,
                        BinOp::Sub(_) => x - y,
                        BinOp::Mul(_) => x * y,
                        BinOp::Div(_) => x / y,
                        BinOp::Rem(_) => x % y,
                        _ => f64::NAN,
                    }
                };
                match b.op {
                    BinOp::Add(_)
                    | BinOp::Sub(_)
                    | BinOp::Mul(_)
                    | BinOp::Div(_)
                    | BinOp::Rem(_) => CVal::Float(v, t.clone()),
                    BinOp::Eq(_) => CVal::Bool(x == y),
                    BinOp::Ne(_) => CVal::Bool(x != y),
                    BinOp::Lt(_) => CVal::Bool(x < y),
                    BinOp::Le(_) => CVal::Bool(x <= y),
                    BinOp::Gt(_) => CVal::Bool(x > y),
                    BinOp::Ge(_) => CVal::Bool(x >= y),
                    _ => return Err(bad()),
                }
            }
            _ => {
                return Err(Fail::new(
                    b.op.span(),
                    format!(
                        "mismatched types `{}` and `{}` in a constant",
                        l.ty(),
                        r.ty()
                    ),
                ))
            }
        })
    }
}
