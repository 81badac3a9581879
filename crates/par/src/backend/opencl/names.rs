//! The C spelling of the types device code uses: the naming convention the
//! kernel translator and the generated entry points share.

/// A type as device code sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceType {
    /// `double`.
    F64,
    /// `int`.
    I32,
    /// `uint`.
    U32,
    /// `[T; N]`: a struct with one member `v`.
    Array(Box<DeviceType>, usize),
    /// A compressed-row neighbourhood of elements of this type.
    Star(Box<DeviceType>),
    /// A structured neighbourhood of elements of this type.
    Offsets(Box<DeviceType>),
}

/// The spelling of a type inside generated identifiers.
pub fn ident_part(t: &DeviceType) -> String {
    match t {
        DeviceType::F64 => "f64".into(),
        DeviceType::I32 => "i32".into(),
        DeviceType::U32 => "u32".into(),
        DeviceType::Array(e, n) => format!("arr_{}_{n}", ident_part(e)),
        DeviceType::Star(e) => format!("star_{}", ident_part(e)),
        DeviceType::Offsets(e) => format!("offsets_{}", ident_part(e)),
    }
}

/// The C spelling of a type.
pub fn c_type(t: &DeviceType) -> String {
    match t {
        DeviceType::F64 => "double".into(),
        DeviceType::I32 => "int".into(),
        DeviceType::U32 => "uint".into(),
        _ => format!("qf_{}", ident_part(t)),
    }
}
