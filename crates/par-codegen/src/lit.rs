//! Constant values and their C spellings: literals that C parses to the
//! very same value, and the standard library's constants.

use crate::names::DeviceType;

/// A value known at translation time (a constant, a literal).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum CVal {
    /// A floating-point value of type `F64` or `F32` (an `F32` value is
    /// held exactly as a double).
    Float(f64, DeviceType),
    /// An integer of the given type, in its range.
    Int(i128, DeviceType),
    /// A `bool`.
    Bool(bool),
    /// An array, with its element type.
    Array(Vec<CVal>, DeviceType),
}

impl CVal {
    /// The value's type.
    pub(crate) fn ty(&self) -> DeviceType {
        match self {
            CVal::Float(_, t) | CVal::Int(_, t) => t.clone(),
            CVal::Bool(_) => DeviceType::Bool,
            CVal::Array(v, t) => DeviceType::Array(Box::new(t.clone()), v.len()),
        }
    }

    /// The C spelling: a literal for a scalar, an initializer list
    /// `{a, b}` for an array.
    pub(crate) fn to_c(&self) -> String {
        match self {
            CVal::Float(x, DeviceType::F32) => fmt_f32(*x as f32),
            CVal::Float(x, _) => fmt_f64(*x),
            CVal::Int(v, t) => fmt_int(*v, t, false),
            CVal::Bool(b) => b.to_string(),
            CVal::Array(v, _) => {
                let items: Vec<String> = v.iter().map(CVal::to_c).collect();
                format!("{{{}}}", items.join(", "))
            }
        }
    }
}

/// The range of an integer type.
pub(crate) fn int_range(t: &DeviceType) -> (i128, i128) {
    match t {
        DeviceType::I32 => (i32::MIN as i128, i32::MAX as i128),
        DeviceType::U32 => (0, u32::MAX as i128),
        DeviceType::I64 => (i64::MIN as i128, i64::MAX as i128),
        _ => (0, u64::MAX as i128),
    }
}

/// Bits of an integer type.
pub(crate) fn int_bits(t: &DeviceType) -> u32 {
    match t {
        DeviceType::I32 | DeviceType::U32 => 32,
        _ => 64,
    }
}

/// `v` wrapped into the range of `t` (two's complement), as `as` does.
pub(crate) fn wrap(v: i128, t: &DeviceType) -> i128 {
    let bits = int_bits(t);
    let m = v & ((1i128 << bits) - 1);
    if !t.is_unsigned() && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

/// A double as C reads it back exactly: Rust's shortest round-trip form
/// with a `.` or an exponent (`1.0`, `0.1`, `1e-7`), negative values in
/// parentheses, and the prelude's `QF_INF` / `QF_NAN` for the others.
pub(crate) fn fmt_f64(x: f64) -> String {
    if x.is_nan() {
        return "QF_NAN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "QF_INF" } else { "(-QF_INF)" }.into();
    }
    let mut s = format!("{x:?}");
    if !s.contains(['.', 'e', 'E']) {
        s.push_str(".0");
    }
    if s.starts_with('-') {
        format!("({s})")
    } else {
        s
    }
}

/// A float literal (`1.5f`), as [`fmt_f64`] does for doubles.
pub(crate) fn fmt_f32(x: f32) -> String {
    if !x.is_finite() {
        return format!("((float){})", fmt_f64(x as f64));
    }
    let mut s = format!("{x:?}");
    if !s.contains(['.', 'e', 'E']) {
        s.push_str(".0");
    }
    s.push('f');
    if s.starts_with('-') {
        format!("({s})")
    } else {
        s
    }
}

/// The C suffix of an integer literal of type `t`.
pub(crate) fn int_suffix(t: &DeviceType) -> &'static str {
    match t {
        DeviceType::U32 => "U",
        DeviceType::I64 => "L",
        DeviceType::U64 | DeviceType::Usize => "UL",
        _ => "",
    }
}

/// An integer literal of type `t` (`hex`: written in hexadecimal), with
/// negative values in parentheses and the minimum of a signed type written
/// so that C does not read it as a wider type.
pub(crate) fn fmt_int(v: i128, t: &DeviceType, hex: bool) -> String {
    let sfx = int_suffix(t);
    let (lo, _) = int_range(t);
    if v < 0 && v == lo {
        return format!("(-{}{sfx} - 1{sfx})", -(v + 1));
    }
    if v < 0 {
        return format!("(-{}{sfx})", -v);
    }
    if hex {
        format!("0x{v:x}{sfx}")
    } else {
        format!("{v}{sfx}")
    }
}

/// The scalar type a name denotes (`f64`, `usize`, ...).
pub(crate) fn scalar_type(name: &str) -> Option<DeviceType> {
    Some(match name {
        "f64" => DeviceType::F64,
        "f32" => DeviceType::F32,
        "i32" => DeviceType::I32,
        "u32" => DeviceType::U32,
        "i64" => DeviceType::I64,
        "u64" => DeviceType::U64,
        "usize" => DeviceType::Usize,
        "bool" => DeviceType::Bool,
        _ => return None,
    })
}

/// The standard library's constants: `f64::MAX` and its kind (also
/// `std::f64::MAX`), `u32::MAX`, `i64::MIN`, `usize::BITS`, and every path
/// ending in `consts::NAME` (`std::f64::consts::PI`; `f32` if the path
/// names `f32`).
pub(crate) fn builtin_const(segs: &[String]) -> Option<CVal> {
    let n = segs.len();
    if n < 2 {
        return None;
    }
    let (owner, name) = (segs[n - 2].as_str(), segs[n - 1].as_str());
    if owner == "consts" {
        use std::f64::consts as c;
        let v = match name {
            "PI" => c::PI,
            "TAU" => c::TAU,
            "E" => c::E,
            "LN_2" => c::LN_2,
            "LN_10" => c::LN_10,
            "LOG2_E" => c::LOG2_E,
            "LOG10_E" => c::LOG10_E,
            "LOG2_10" => c::LOG2_10,
            "LOG10_2" => c::LOG10_2,
            "SQRT_2" => c::SQRT_2,
            "FRAC_1_SQRT_2" => c::FRAC_1_SQRT_2,
            "FRAC_PI_2" => c::FRAC_PI_2,
            "FRAC_PI_3" => c::FRAC_PI_3,
            "FRAC_PI_4" => c::FRAC_PI_4,
            "FRAC_PI_6" => c::FRAC_PI_6,
            "FRAC_PI_8" => c::FRAC_PI_8,
            "FRAC_1_PI" => c::FRAC_1_PI,
            "FRAC_2_PI" => c::FRAC_2_PI,
            "FRAC_2_SQRT_PI" => c::FRAC_2_SQRT_PI,
            _ => return None,
        };
        return Some(if segs.iter().any(|s| s == "f32") {
            CVal::Float(v as f32 as f64, DeviceType::F32)
        } else {
            CVal::Float(v, DeviceType::F64)
        });
    }
    let t = scalar_type(owner)?;
    match t {
        DeviceType::F64 => {
            let v = match name {
                "INFINITY" => f64::INFINITY,
                "NEG_INFINITY" => f64::NEG_INFINITY,
                "NAN" => f64::NAN,
                "MIN_POSITIVE" => f64::MIN_POSITIVE,
                "MAX" => f64::MAX,
                "MIN" => f64::MIN,
                "EPSILON" => f64::EPSILON,
                "MANTISSA_DIGITS" => return Some(CVal::Int(53, DeviceType::U32)),
                "MAX_EXP" => return Some(CVal::Int(1024, DeviceType::I32)),
                "MIN_EXP" => return Some(CVal::Int(-1021, DeviceType::I32)),
                _ => return None,
            };
            Some(CVal::Float(v, t))
        }
        DeviceType::F32 => {
            let v = match name {
                "INFINITY" => f32::INFINITY,
                "NEG_INFINITY" => f32::NEG_INFINITY,
                "NAN" => f32::NAN,
                "MIN_POSITIVE" => f32::MIN_POSITIVE,
                "MAX" => f32::MAX,
                "MIN" => f32::MIN,
                "EPSILON" => f32::EPSILON,
                _ => return None,
            };
            Some(CVal::Float(v as f64, t))
        }
        DeviceType::Bool => None,
        _ => {
            let (lo, hi) = int_range(&t);
            match name {
                "MAX" => Some(CVal::Int(hi, t)),
                "MIN" => Some(CVal::Int(lo, t)),
                "BITS" => Some(CVal::Int(int_bits(&t) as i128, DeviceType::U32)),
                _ => None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_round_trip() {
        for x in [
            0.1,
            1.0,
            -2.5,
            1e-7,
            6.931_471_803_691_238e-1,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            1e300,
            6_755_399_441_055_744.0,
            -0.0,
        ] {
            let s = fmt_f64(x);
            let t = s.trim_start_matches('(').trim_end_matches(')');
            assert!(t.contains(['.', 'e']), "{s}");
            assert_eq!(t.parse::<f64>().unwrap().to_bits(), x.to_bits(), "{s}");
        }
        assert_eq!(fmt_f64(1.0), "1.0");
        assert_eq!(fmt_f64(-0.0), "(-0.0)");
        assert_eq!(fmt_f64(f64::NEG_INFINITY), "(-QF_INF)");
        assert_eq!(fmt_f32(0.5), "0.5f");
    }

    #[test]
    fn integers() {
        assert_eq!(fmt_int(5, &DeviceType::U64, false), "5UL");
        assert_eq!(fmt_int(255, &DeviceType::U32, true), "0xffU");
        assert_eq!(fmt_int(-3, &DeviceType::I32, false), "(-3)");
        assert_eq!(
            fmt_int(i64::MIN as i128, &DeviceType::I64, false),
            "(-9223372036854775807L - 1L)"
        );
        assert_eq!(wrap(-1, &DeviceType::U32), u32::MAX as i128);
        assert_eq!(wrap(1 << 31, &DeviceType::I32), i32::MIN as i128);
    }

    #[test]
    fn std_constants() {
        let p = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
        assert_eq!(
            builtin_const(&p("std::f64::consts::PI")),
            Some(CVal::Float(std::f64::consts::PI, DeviceType::F64))
        );
        assert_eq!(
            builtin_const(&p("u32::MAX")),
            Some(CVal::Int(u32::MAX as i128, DeviceType::U32))
        );
        assert_eq!(builtin_const(&p("f64::NAN")).unwrap().to_c(), "QF_NAN");
        assert_eq!(builtin_const(&p("Frame::MAX")), None);
    }
}
