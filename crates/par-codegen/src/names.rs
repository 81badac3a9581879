//! The naming convention of device code: how each [`DeviceType`] is spelled
//! in C, and the accessor types of kernel parameters.
//!
//! This part never needs the translator (no `syn`): the execution layer
//! uses it at run time to generate kernel entry points that call the
//! translated functions with values of these types.

use std::fmt;

/// A type as device code sees it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeviceType {
    /// `f64`: C `double`.
    F64,
    /// `f32`: C `float`.
    F32,
    /// `i32`: C `int`.
    I32,
    /// `u32`: C `uint`.
    U32,
    /// `i64`: C `long`.
    I64,
    /// `u64`: C `ulong`.
    U64,
    /// `usize`: C `ulong` (device code is 64-bit).
    Usize,
    /// `bool`: C `bool`.
    Bool,
    /// `[T; N]`: a struct `qf_arr_<t>_<N>` with one member `v` (`T v[N]`),
    /// so that arrays are values in C as they are in Rust.
    Array(Box<DeviceType>, usize),
    /// A device struct, under its Rust name.
    Struct(String),
    /// A tuple: a struct `qf_tup_<a>_<b>...` with members `f0`, `f1`, ...
    Tuple(Vec<DeviceType>),
    /// `Star<T>`: an element's value and its neighbours' through a
    /// compressed-row map (`qf_star_<t>`).
    Star(Box<DeviceType>),
    /// `Offsets<T>`: a structured block element's neighbourhood
    /// (`qf_offsets_<t>`).
    Offsets(Box<DeviceType>),
    /// `()`: C `void` (only as a return type).
    Unit,
}

impl DeviceType {
    /// `f64` or `f32`.
    pub fn is_float(&self) -> bool {
        matches!(self, DeviceType::F64 | DeviceType::F32)
    }

    /// One of the integer types.
    pub fn is_int(&self) -> bool {
        matches!(
            self,
            DeviceType::I32
                | DeviceType::U32
                | DeviceType::I64
                | DeviceType::U64
                | DeviceType::Usize
        )
    }

    /// An unsigned integer type.
    pub fn is_unsigned(&self) -> bool {
        matches!(self, DeviceType::U32 | DeviceType::U64 | DeviceType::Usize)
    }

    /// A number or `bool`.
    pub fn is_scalar(&self) -> bool {
        self.is_float() || self.is_int() || *self == DeviceType::Bool
    }

    /// `Star<T>` or `Offsets<T>`.
    pub fn is_accessor(&self) -> bool {
        matches!(self, DeviceType::Star(_) | DeviceType::Offsets(_))
    }
}

/// The Rust spelling (for messages).
impl fmt::Display for DeviceType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceType::Array(e, n) => write!(f, "[{e}; {n}]"),
            DeviceType::Struct(s) => f.write_str(s),
            DeviceType::Tuple(v) => {
                f.write_str("(")?;
                for (k, t) in v.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{t}")?;
                }
                if v.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(")")
            }
            DeviceType::Star(e) => write!(f, "Star<{e}>"),
            DeviceType::Offsets(e) => write!(f, "Offsets<{e}>"),
            DeviceType::Unit => f.write_str("()"),
            scalar => f.write_str(&ident_part(scalar)),
        }
    }
}

/// The spelling of a type inside generated identifiers: the Rust name of a
/// scalar (`f64`, `usize`, ...), `arr_<t>_<N>`, `tup_<a>_<b>...`,
/// `star_<t>`, `offsets_<t>`, a struct's name, `unit`.
pub fn ident_part(t: &DeviceType) -> String {
    match t {
        DeviceType::F64 => "f64".into(),
        DeviceType::F32 => "f32".into(),
        DeviceType::I32 => "i32".into(),
        DeviceType::U32 => "u32".into(),
        DeviceType::I64 => "i64".into(),
        DeviceType::U64 => "u64".into(),
        DeviceType::Usize => "usize".into(),
        DeviceType::Bool => "bool".into(),
        DeviceType::Array(e, n) => format!("arr_{}_{n}", ident_part(e)),
        DeviceType::Struct(s) => s.clone(),
        DeviceType::Tuple(v) => {
            let mut s = String::from("tup");
            for e in v {
                s.push('_');
                s.push_str(&ident_part(e));
            }
            s
        }
        DeviceType::Star(e) => format!("star_{}", ident_part(e)),
        DeviceType::Offsets(e) => format!("offsets_{}", ident_part(e)),
        DeviceType::Unit => "unit".into(),
    }
}

/// The C spelling of a type: `double`, `float`, `int`, `uint`, `long`,
/// `ulong` (for `u64` and `usize`), `bool`, `void` for `()`, a struct's
/// Rust name, and `qf_<ident_part>` for arrays, tuples and accessors.
pub fn c_type(t: &DeviceType) -> String {
    match t {
        DeviceType::F64 => "double".into(),
        DeviceType::F32 => "float".into(),
        DeviceType::I32 => "int".into(),
        DeviceType::U32 => "uint".into(),
        DeviceType::I64 => "long".into(),
        DeviceType::U64 | DeviceType::Usize => "ulong".into(),
        DeviceType::Bool => "bool".into(),
        DeviceType::Unit => "void".into(),
        DeviceType::Struct(s) => s.clone(),
        _ => format!("qf_{}", ident_part(t)),
    }
}

/// The C definition of an array or tuple type, e.g.
/// `typedef struct { double v[4]; } qf_arr_f64_4;` or
/// `typedef struct { double f0; int f1; } qf_tup_f64_i32;` (`None` for
/// other types). The member types must be defined before it.
pub fn type_definition(t: &DeviceType) -> Option<String> {
    match t {
        DeviceType::Array(e, n) => Some(format!(
            "typedef struct {{ {} v[{n}]; }} {};",
            c_type(e),
            c_type(t)
        )),
        DeviceType::Tuple(v) => {
            let mut s = String::from("typedef struct { ");
            for (k, e) in v.iter().enumerate() {
                s.push_str(&format!("{} f{k}; ", c_type(e)));
            }
            s.push_str(&format!("}} {};", c_type(t)));
            Some(s)
        }
        _ => None,
    }
}

/// The accessor types of kernel parameters for elements of type `elem`,
/// with their functions (`GLOBAL` and `FUNC` are the prelude's):
///
/// - `qf_star_<t>` (Rust `Star<T>`): `base` (the dat), `idx` (the
///   element's row of the compressed-row map), `n` (its length) and `own`
///   (the element's index); functions `qf_star_<t>_len`, `_own`, `_nbr`;
/// - `qf_offsets_<t>` (Rust `Offsets<T>`): `base`, `at` (the element's
///   index), `sy` and `sz` (the strides of y and z); function
///   `qf_offsets_<t>_at(s, dx, dy, dz)`, and for array elements
///   `qf_offsets_<t>_value(s, dx, dy, dz, k)` (one value).
///
/// Accessors are passed by value.
pub fn accessor_source(elem: &DeviceType) -> String {
    let t = c_type(elem);
    let st = c_type(&DeviceType::Star(Box::new(elem.clone())));
    let ot = c_type(&DeviceType::Offsets(Box::new(elem.clone())));
    let value = match elem {
        DeviceType::Array(scalar, _) => format!(
            "FUNC {} {ot}_value({ot} s, int dx, int dy, int dz, ulong k) \
             {{ return s.base[s.at + (long)dx + (long)dy * s.sy + (long)dz * s.sz].v[k]; }}\n",
            c_type(scalar)
        ),
        _ => String::new(),
    };
    let mut s = format!(
        "typedef struct {{ GLOBAL const {t}* base; GLOBAL const uint* idx; uint n; uint own; }} \
         {st};\n\
         FUNC ulong {st}_len({st} s) {{ return (ulong)s.n; }}\n\
         FUNC {t} {st}_own({st} s) {{ return s.base[s.own]; }}\n\
         FUNC {t} {st}_nbr({st} s, ulong m) {{ return s.base[s.idx[m]]; }}\n\
         typedef struct {{ GLOBAL const {t}* base; long at; long sy; long sz; }} {ot};\n\
         FUNC {t} {ot}_at({ot} s, int dx, int dy, int dz) \
         {{ return s.base[s.at + (long)dx + (long)dy * s.sy + (long)dz * s.sz]; }}\n"
    );
    s.push_str(&value);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(t: DeviceType, n: usize) -> DeviceType {
        DeviceType::Array(Box::new(t), n)
    }

    #[test]
    fn scalars() {
        let cases = [
            (DeviceType::F64, "double", "f64"),
            (DeviceType::F32, "float", "f32"),
            (DeviceType::I32, "int", "i32"),
            (DeviceType::U32, "uint", "u32"),
            (DeviceType::I64, "long", "i64"),
            (DeviceType::U64, "ulong", "u64"),
            (DeviceType::Usize, "ulong", "usize"),
            (DeviceType::Bool, "bool", "bool"),
            (DeviceType::Unit, "void", "unit"),
        ];
        for (t, c, i) in cases {
            assert_eq!(c_type(&t), c);
            assert_eq!(ident_part(&t), i);
        }
    }

    #[test]
    fn aggregates() {
        assert_eq!(c_type(&arr(DeviceType::F64, 4)), "qf_arr_f64_4");
        assert_eq!(
            c_type(&arr(arr(DeviceType::F64, 16), 4)),
            "qf_arr_arr_f64_16_4"
        );
        let tup = DeviceType::Tuple(vec![arr(DeviceType::F64, 4), DeviceType::I32]);
        assert_eq!(c_type(&tup), "qf_tup_arr_f64_4_i32");
        assert_eq!(c_type(&DeviceType::Struct("Frame".into())), "Frame");
        assert_eq!(
            c_type(&DeviceType::Star(Box::new(arr(DeviceType::F64, 4)))),
            "qf_star_arr_f64_4"
        );
        assert_eq!(
            c_type(&DeviceType::Offsets(Box::new(DeviceType::F64))),
            "qf_offsets_f64"
        );
        assert_eq!(
            type_definition(&arr(DeviceType::F64, 4)).unwrap(),
            "typedef struct { double v[4]; } qf_arr_f64_4;"
        );
        assert_eq!(
            type_definition(&tup).unwrap(),
            "typedef struct { qf_arr_f64_4 f0; int f1; } qf_tup_arr_f64_4_i32;"
        );
        assert_eq!(type_definition(&DeviceType::F64), None);
        assert_eq!(tup.to_string(), "([f64; 4], i32)");
    }

    #[test]
    fn accessors() {
        let s = accessor_source(&arr(DeviceType::F64, 4));
        assert!(s.contains(
            "typedef struct { GLOBAL const qf_arr_f64_4* base; GLOBAL const uint* idx; uint n; \
             uint own; } qf_star_arr_f64_4;"
        ));
        assert!(s.contains(
            "FUNC qf_arr_f64_4 qf_star_arr_f64_4_nbr(qf_star_arr_f64_4 s, ulong m) \
             { return s.base[s.idx[m]]; }"
        ));
        assert!(s.contains("FUNC ulong qf_star_arr_f64_4_len(qf_star_arr_f64_4 s)"));
        assert!(s.contains(
            "FUNC qf_arr_f64_4 qf_offsets_arr_f64_4_at(qf_offsets_arr_f64_4 s, int dx, int dy, \
             int dz) { return s.base[s.at + (long)dx + (long)dy * s.sy + (long)dz * s.sz]; }"
        ));
        assert!(s.contains(
            "FUNC double qf_offsets_arr_f64_4_value(qf_offsets_arr_f64_4 s, int dx, int dy, \
             int dz, ulong k) { return s.base[s.at + (long)dx + (long)dy * s.sy + (long)dz * \
             s.sz].v[k]; }"
        ));
        // Scalar elements have no `value`.
        assert!(!accessor_source(&DeviceType::F64).contains("_value("));
    }
}
