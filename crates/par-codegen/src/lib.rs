//! qflow's kernel translator: device kernels are written once, in Rust,
//! as functions of one mesh element; CPU backends run the Rust, and the
//! OpenCL backend runs the same arithmetic as OpenCL C generated from the
//! Rust source at build time.
//!
//! The generated C keeps the Rust's order of operations exactly: every
//! binary operation is fully parenthesized, nothing is reassociated, and
//! the prelude sets `#pragma OPENCL FP_CONTRACT OFF` (no fused
//! multiply-adds; `mul_add` is rejected). Basic arithmetic, conversions,
//! `sqrt`, `abs`, `floor` and friends, `to_bits`/`from_bits` and integer
//! operations therefore give the device the same bits as the CPU. Library
//! functions such as `exp`, `ln` or `sin` map to OpenCL's built-ins, which
//! agree with the CPU's `libm` to a few units in the last place only: write
//! them in Rust (as device functions) where bits matter.
//!
//! # Parts
//!
//! - Always (no dependencies): the naming convention of device types,
//!   [`DeviceType`], [`c_type`], [`ident_part`], [`type_definition`] and
//!   [`accessor_source`], which the execution layer shares at run time to
//!   generate kernel entry points.
//! - With the feature `translate` (`syn`): [`translate`], [`check_item`]
//!   (the per-item check of the `#[device]` attribute of
//!   `qflow-par-macros`) and [`build_script`] (for a method crate's
//!   `build.rs`; [`build_script_in`] is the same with its directories
//!   given).
//!
//! # Using it
//!
//! Mark the device items with `#[device]` (`qflow_par_macros::device`: it
//! rejects what the subset cannot take at compile time, with the span),
//! and translate them in `build.rs`:
//!
//! ```ignore
//! // build.rs (build-dependency: qflow-par-codegen with feature "translate")
//! fn main() {
//!     qflow_par_codegen::build_script(&["src/lib.rs", "src/gas.rs", "src/math.rs"], "kernels");
//! }
//! // src/lib.rs
//! include!(concat!(env!("OUT_DIR"), "/kernels.rs")); // DEVICE_SOURCE, DEVICE_FUNCTIONS
//! ```
//!
//! Translation errors do not fail the build script: they become
//! `compile_error!`s of the crate (`file:line:col: message`).
//!
//! # The subset
//!
//! **Items.** `fn` items marked `#[device]` (any attribute path ending in
//! `device`); `impl` blocks marked `#[device]` (all their methods) or
//! methods marked one by one; structs with named fields marked `#[device]`
//! (`#[derive(..)]` ignored, but `Default` noted), and structs without
//! fields, which are types only (an equation's type as a generic
//! argument, never a value); `const` items, emitted
//! whenever device code uses them, marked or not (scalars and arrays of
//! them, with constant expressions over other constants, casts,
//! `f64::from_bits` and `to_bits`, all evaluated as Rust does at compile
//! time); `type` aliases of all given files, marked or not; inline modules;
//! constants inside function bodies and impl blocks. `use` declarations are
//! read for name resolution and otherwise ignored. Items under
//! `#[cfg(test)]` are left out (other `cfg`s are not evaluated).
//!
//! **Names.** Constants, functions and types are found by their last path
//! segment and the module path before it (`gas::q_of_primitive`,
//! `crate::math::exp`, `super::x`, `self::y`, `erf_consts::PP` or a
//! `use erf_consts::*;` in the function), methods and associated functions
//! by their type (`Self::new`, `Frame::new`, `fr.kinetic(j)`). Free
//! functions' names must be unique program-wide.
//!
//! **Types.** `f64`, `f32`, `i32`, `u32`, `i64`, `u64`, `usize`, `bool`,
//! arrays `[T; N]` (`N` a constant expression), tuples, device structs,
//! aliases, `Self`; as parameters also `&T` and `&mut T` (no lifetimes) and
//! the accessors `Star<'_, T>` and `Offsets<'_, T>` (any path ending in
//! `Star` / `Offsets`), by value.
//!
//! **Statements.** `let` with a name, `_` or a tuple pattern (nested), with
//! or without `mut`, a type annotation or an initializer; shadowing;
//! expression statements; `=` and the compound assignments `+= -= *= /=
//! %= &= |= ^= <<= >>=` to variables, fields, elements and `*r`, and
//! destructuring assignment `(a[j], b[j]) = f();`; `if` / `else if` /
//! `else`; `match` on integers and `bool` (patterns: literals, constants,
//! ranges `a..=b` / `a..b`, `|`, `_`, a name; guards), lowered to an `if`
//! chain; `for i in a..b` and `a..=b` over integers, also
//! `(a..b).step_by(k)` and `(a..b).rev()`; `while`; `loop` (without a
//! value); `break`; `continue`; `return`; blocks. `debug_assert!`,
//! `debug_assert_eq!` and `debug_assert_ne!` are accepted and dropped.
//!
//! **Expressions.** Literals (floats re-emitted as Rust's shortest
//! round-trip form, so C reads the same double; integers with their C
//! suffix, `U`, `L`, `UL`); unary `-`, `!` (`~` on integers); binary operators (fully
//! parenthesized; `%` on floats is `fmod`); `as` between numbers and from
//! `bool`; `if` as a value (a conditional expression, or a temporary when
//! a branch has statements); block values; fields, tuple fields `.0`,
//! indexing (`a.v[i]`, `a->v[i]` through a reference, `bt.qt.v[c].v[m]`);
//! struct literals (with `..base`), tuples, arrays `[a, b]` and `[x; N]`;
//! `T::default()` / `Default::default()` for types that are all zeros by
//! default (structs must derive `Default`); `&x` / `&mut x` as arguments;
//! `*r`; calls of device functions and methods, with Rust's auto-reference
//! and auto-deref of receivers; arrays, tuples and structs returned by
//! value.
//!
//! **Types of expressions.** The translator infers every expression's type
//! from the whole program's signatures, fields, constants and aliases. An
//! unsuffixed integer literal takes its type from the context, also from
//! later statements (`let mut k = 0; ... a[k]` makes `k` a `usize`), as
//! Rust does, else `i32`; the element type of an array or tuple literal is
//! settled where the literal is (annotate `[0u32; 4]` if `i32` is not
//! meant). A `let` without a value takes the type of its assignments.
//!
//! **Built-ins.** Float methods `sqrt abs ln log10 log2 exp exp2 exp_m1
//! ln_1p cbrt powf powi hypot min max floor ceil round round_ties_even
//! trunc fract sin cos sin_cos tan asin acos atan atan2 sinh cosh tanh
//! asinh acosh atanh copysign signum recip to_degrees to_radians clamp
//! is_nan is_finite is_infinite is_normal is_sign_negative
//! is_sign_positive to_bits` (also as `f64::max(a, b)`), mapped to the
//! OpenCL built-ins (`abs` to `fabs`, `ln` to `log`, `powf` to `pow`,
//! `min` to `fmin`, `to_bits` to `QF_AS_ULONG`, ...), and `f64::from_bits`
//! (`QF_AS_DOUBLE`). `powi` calls a generated helper, `qf_powi_f64`, that
//! multiplies as Rust's `powi` does (square and multiply, `1/r` for a
//! negative exponent), so that the device gets the CPU's bits (OpenCL's
//! `pown` is only required to be within a few ulps). Integer methods `min
//! max abs signum pow clamp` and, on unsigned types only, `wrapping_add
//! wrapping_sub wrapping_mul wrapping_neg`; arrays' `len()`; `clone()` of
//! anything; the constants `f64::INFINITY` (`QF_INF`), `NEG_INFINITY`
//! (`(-QF_INF)`), `NAN` (`QF_NAN`), `MIN_POSITIVE`, `MAX`, `MIN`,
//! `EPSILON`, `u32::MAX`, `usize::MAX`, `i64::MIN`, ... and every path
//! ending in `consts::NAME` of `std::f64::consts` (`use`d or not), all as
//! exact literals.
//!
//! **Accessors.** `Star<T>`: `len()`, `is_empty()`, `own()`, `nbr(m)`;
//! `Offsets<T>`: `at(dx, dy, dz)`.
//!
//! **Rejected**, with a diagnostic naming the construct: closures, macros
//! (but the `debug_assert`s), `match` on other types or with other
//! patterns, `if let` / `while let`, `loop` with
//! a value, labels, slices and ranges outside `for`, `Vec`, `String` and
//! other heap types, `Option` / `Result`, strings and characters, generic
//! structs, methods and impl blocks, calls of generic functions without
//! their arguments, trait objects, iterators (`for x in a.iter()`), references
//! stored in locals or returned, lifetimes on references, `unsafe`, `?`,
//! `async`, `impl Trait`, raw pointers, `static`s, enums, nested
//! functions, recursion (direct or not: OpenCL forbids it), `mul_add`,
//! wrapping arithmetic on signed integers.
//!
//! # The C
//!
//! | Rust | C |
//! |---|---|
//! | `f64`, `f32`, `i32`, `u32`, `i64`, `u64`, `usize`, `bool` | `double`, `float`, `int`, `uint`, `long`, `ulong`, `ulong`, `bool` |
//! | `[T; N]` | `typedef struct { T v[N]; } qf_arr_<t>_<N>;` |
//! | `(A, B)` | `typedef struct { A f0; B f1; } qf_tup_<a>_<b>;` |
//! | `struct S { .. }` | `typedef struct { .. } S;` |
//! | `Star<T>`, `Offsets<T>` | `qf_star_<t>`, `qf_offsets_<t>` ([`accessor_source`]) |
//! | `fn f(x: T, r: &T, m: &mut T) -> R` | `FUNC R f(T x, const T* r, T* m)` |
//! | method `S::m(&self, ..)` | `FUNC R S_m(const S* self, ..)` |
//! | `f::<S, 4>(..)` of `fn f<T: Tr, const N: usize>` | `f__S__4(..)`, a copy of `f` |
//! | `const X: f64 = ..;` | `#define X (value) /* the Rust expression */` |
//! | `const A: [f64; N] = [..];` | `CONSTANT double A[N] = {..};` |
//!
//! A free function keeps its Rust name, with `_` appended where that name
//! is a C keyword or an OpenCL built-in (`exp` becomes `exp_`). Constants
//! of inline modules, function bodies and impl blocks are prefixed with the
//! module path below the file's module, the function or the type
//! (`erf_consts_PP`, `ln_LG1`, `Frame_N`), and with their whole module path
//! where a name would still collide.
//!
//! [`Translation::source`] holds, in this order: the array, tuple and
//! struct types in dependency order; the accessors; helper functions
//! (`qf_powi_f64`: `powi` computed as Rust computes it, by squaring and
//! multiplying; `qf_pow_<t>`: integer `pow`); the constants; the
//! prototypes of every function; the functions, each after a comment
//! naming its Rust item and place (`/* math::exp (src/math.rs:48) */`).
//! The prelude (prepended by the execution layer) provides `FUNC`,
//! `GLOBAL`, `CONSTANT`, `QF_AS_DOUBLE`, `QF_AS_ULONG`, `QF_INF`, `QF_NAN`,
//! the fp64 and `FP_CONTRACT OFF` pragmas and the OpenCL built-ins. The
//! output is deterministic.
//!
//! Constants are evaluated as Rust evaluates them at compile time and
//! emitted as exact literals. Evaluation order is Rust's: C expressions are
//! generated free of side effects (calls that take `&mut` and statements
//! go before, into temporaries), and where a later operand has effects the
//! earlier ones are saved first. Every Rust binding gets its own C
//! variable (shadowing gives `x`, `x_1`, ...), never a name C reserves.
//!
//! # How it is tested
//!
//! Besides tests per construct and per rejected construct, a corpus of
//! device kernels (`tests/corpus`: branch-free `exp`/`ln` on the bits,
//! `erf` with constant tables, gas-dynamics conversions, a least-squares
//! fit with `&mut self` methods, a batch of structs and `[[f64; 16]; 4]`,
//! accessors, `match`, loops, shadowing, evaluation order) runs natively
//! and, translated, compiled by `gcc -std=c99 -O2 -ffp-contract=off
//! -fno-fast-math` with a plain-C prelude, on thousands of inputs per
//! function (zeros, subnormals, infinities, NaN included): every result
//! has the same bits. The translation also passes clang's OpenCL C 1.2
//! front end, and, where an OpenCL device is installed (PoCL), runs there
//! with the same bits wherever no math-library function (`sin`, `pow`,
//! ...) is involved.
//!
//! # Limits
//!
//! What Rust checks at run time, C does not: array indices are not
//! bounds-checked, signed integer overflow and shifts by the width or more
//! are undefined in C (use the `wrapping_` methods on unsigned types),
//! float to integer `as` casts saturate in Rust but are undefined in C out
//! of range (and for NaN), and `a..=b` with `b` the type's maximum never
//! ends. `T::default()` is taken as all zeros (derived `Default` of numbers,
//! arrays, tuples and such structs). `#[cfg(..)]` other than `test` is not
//! evaluated: both versions of an item would be seen. `f32` has no
//! `from_bits` / `to_bits`. Float `min`/`max` of `0.0` and `-0.0` may pick
//! either zero, in Rust as in OpenCL. Struct names must be unique in the
//! program and not reserved by C.

#![deny(missing_docs)]
// Without the translator, the documentation's links to it lead nowhere.
#![cfg_attr(not(feature = "translate"), allow(rustdoc::broken_intra_doc_links))]

pub mod names;

pub use names::{accessor_source, c_type, ident_part, type_definition, DeviceType};

#[cfg(feature = "translate")]
mod check;
#[cfg(feature = "translate")]
mod diag;
#[cfg(feature = "translate")]
mod emit;
#[cfg(feature = "translate")]
mod func;
#[cfg(feature = "translate")]
mod lit;
#[cfg(feature = "translate")]
mod program;
#[cfg(feature = "translate")]
mod reserved;
#[cfg(feature = "translate")]
mod script;

#[cfg(feature = "translate")]
pub use check::check_item;
#[cfg(feature = "translate")]
pub use diag::{Diagnostic, FunctionSig, ParamSig, SourceFile, Translation};
#[cfg(feature = "translate")]
pub use emit::translate;
#[cfg(feature = "translate")]
pub use script::{build_script, build_script_in};
