//! The `#[device]` attribute of qflow's kernels.
//!
//! `#[device]` marks the Rust items that qflow also runs on devices as
//! OpenCL C: `fn` items, `impl` blocks (all their methods) or single
//! methods, structs, `const` and `type` items. At compile time it checks
//! each item against the device subset
//! ([`qflow_par_codegen::check_item`]: no closures, macros, slices, heap
//! types, generics, traits, iterators, `unsafe`, `?`,
//! `mul_add`, ...) and turns a violation into a compile error at the
//! offending span; otherwise it returns the item unchanged, so CPU backends
//! run it as ordinary Rust.
//!
//! The translation itself happens in the method crate's `build.rs`, with
//! [`qflow_par_codegen::build_script`] (feature `translate`), which also
//! knows the whole program (types, constants, other functions) and reports
//! what a single item cannot show, such as recursion or a call of a
//! function that is not marked.
//!
//! ```
//! use qflow_par_macros::device;
//!
//! #[device]
//! pub const HALF: f64 = 0.5;
//!
//! #[device]
//! pub fn kinetic(u: f64, v: f64) -> f64 {
//!     HALF * (u * u + v * v)
//! }
//!
//! #[device]
//! #[derive(Clone, Copy, Default)]
//! pub struct Sums {
//!     pub s: [f64; 2],
//! }
//!
//! #[device]
//! impl Sums {
//!     pub fn add(&mut self, x: f64) {
//!         self.s[0] += x;
//!         self.s[1] += x * x;
//!     }
//! }
//!
//! impl Sums {
//!     /// Host code beside device code: only the marked method is checked.
//!     #[device]
//!     pub fn mean(&self, n: f64) -> f64 {
//!         self.s[0] / n
//!     }
//!
//!     pub fn describe(&self) -> String {
//!         format!("{:?}", self.s)
//!     }
//! }
//!
//! let mut s = Sums::default();
//! s.add(kinetic(3.0, 4.0));
//! assert_eq!(s.mean(1.0), 12.5);
//! assert_eq!(s.describe(), "[12.5, 156.25]");
//! ```
//!
//! A closure is rejected when the crate compiles:
//!
//! ```compile_fail
//! use qflow_par_macros::device;
//!
//! #[device]
//! pub fn twice(x: f64) -> f64 {
//!     let f = |y: f64| 2.0 * y;
//!     f(x)
//! }
//! ```
//!
//! So is `mul_add` (device code never fuses a multiply and an add):
//!
//! ```compile_fail
//! use qflow_par_macros::device;
//!
//! #[device]
//! pub fn axpy(a: f64, x: f64, y: f64) -> f64 {
//!     a.mul_add(x, y)
//! }
//! ```

#![deny(missing_docs)]

use proc_macro::TokenStream;
use quote::ToTokens;

/// Marks an item as device code (translated to OpenCL C by the method
/// crate's build script) and checks it against the device subset; the item
/// itself is returned unchanged. Takes no arguments.
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut out = proc_macro2::TokenStream::new();
    if !attr.is_empty() {
        let attr = proc_macro2::TokenStream::from(attr);
        out.extend(
            syn::Error::new_spanned(attr, "#[device] takes no arguments").to_compile_error(),
        );
    }
    let tokens = proc_macro2::TokenStream::from(item.clone());
    match syn::parse2::<syn::Item>(tokens.clone()) {
        Ok(parsed) => {
            if let Err(e) = qflow_par_codegen::check_item(&parsed) {
                out.extend(e.to_compile_error());
            }
            out.extend(parsed.into_token_stream());
        }
        Err(e) => {
            out.extend(e.to_compile_error());
            out.extend(tokens);
        }
    }
    out.into()
}
