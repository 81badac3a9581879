//! What the translator takes and gives: source files, the translation, its
//! function signatures, and diagnostics.

use std::fmt;
use std::path::PathBuf;

use crate::names::DeviceType;

/// One Rust source file of a method crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// Its path, for messages.
    pub path: PathBuf,
    /// Its module path inside the crate (`"gas"`, `"math"`, `"flux::batch"`;
    /// empty for the crate root).
    pub module: String,
    /// Its text.
    pub text: String,
}

/// An error in the device code: where, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file (as given in [`SourceFile::path`]).
    pub file: PathBuf,
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

/// `file:line:col: message`.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file.display(),
            self.line,
            self.column,
            self.message
        )
    }
}

/// The C text of a program's device items and the signatures of its
/// functions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Translation {
    /// The C text, without the prelude (which the execution layer
    /// prepends).
    pub source: String,
    /// Every translated free function and method, in source order.
    pub functions: Vec<FunctionSig>,
}

/// A translated function as C sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionSig {
    /// The Rust path: `module::name` or `module::Struct::name`.
    pub rust_path: String,
    /// The C name: a free function's Rust name (with `_` appended where
    /// that name is a C keyword or an OpenCL built-in, e.g. `exp_`), a
    /// method's or associated function's `<Struct>_<name>`.
    pub c_name: String,
    /// The parameters in order (a method's receiver first, named `self`).
    pub params: Vec<ParamSig>,
    /// The return type ([`DeviceType::Unit`] for none).
    pub ret: DeviceType,
}

/// One parameter of a translated function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamSig {
    /// The Rust name.
    pub name: String,
    /// The type (without the reference).
    pub ty: DeviceType,
    /// Passed by reference (`&T` or `&mut T`: a C pointer).
    pub by_ref: bool,
    /// A mutable reference (`&mut T`: `T*`; `&T` is `const T*`).
    pub mutable: bool,
}
