//! What device code may not contain: each rejected construct gives a
//! diagnostic that names it, from the per-item check (`check_item`, the
//! `#[device]` macro's) where one item shows it, and from the translation.

#![cfg(feature = "translate")]

use qflow_par_codegen::{check_item, translate, Diagnostic, SourceFile};

fn file(module: &str, text: &str) -> SourceFile {
    SourceFile {
        path: format!("{module}.rs").into(),
        module: module.into(),
        text: text.into(),
    }
}

/// The diagnostics of translating `src` (which must fail).
fn diags(files: &[SourceFile]) -> Vec<Diagnostic> {
    match translate(files) {
        Ok(t) => panic!("translated, but should not have:\n{}", t.source),
        Err(d) => d,
    }
}

/// Asserts that translating `src` fails with a message containing
/// `needle`, and gives the messages.
#[track_caller]
fn rejected(src: &str, needle: &str) -> Vec<String> {
    let d: Vec<String> = diags(&[file("m", src)])
        .iter()
        .map(|d| d.to_string())
        .collect();
    assert!(
        d.iter().any(|m| m.contains(needle)),
        "no message with `{needle}` among:\n{}",
        d.join("\n")
    );
    d
}

/// Asserts that `check_item` rejects the item with a message containing
/// `needle`, and so does the translation.
#[track_caller]
fn rejected_by_check(src: &str, needle: &str) {
    let item: syn::Item = syn::parse_str(src).expect("parses");
    let err = check_item(&item).expect_err("check_item accepts it");
    let msgs: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
    assert!(
        msgs.iter().any(|m| m.contains(needle)),
        "check_item: no message with `{needle}` among:\n{}",
        msgs.join("\n")
    );
    rejected(src, needle);
}

#[test]
fn closures() {
    rejected_by_check(
        "#[device] fn f(x: f64) -> f64 { let g = |y: f64| y * 2.0; g(x) }",
        "closures are not supported in device code (translated to OpenCL C)",
    );
}

#[test]
fn macros_but_debug_asserts() {
    rejected_by_check(
        "#[device] fn f(x: f64) -> f64 { assert!(x > 0.0); x }",
        "macros (`assert!`)",
    );
    rejected_by_check(
        "#[device] fn f(x: f64) -> f64 { println!(\"{x}\"); x }",
        "macros (`println!`)",
    );
    rejected_by_check(
        "#[device] fn f(x: f64) -> [f64; 2] { vec![x, x]; [x, x] }",
        "macros (`vec!`)",
    );
    let ok: syn::Item =
        syn::parse_str("#[device] fn f(x: f64) -> f64 { debug_assert!(x > 0.0); x }").unwrap();
    assert!(check_item(&ok).is_ok());
}

#[test]
fn match_patterns_if_let_while_let() {
    rejected_by_check(
        "#[device] fn f(k: (i32, i32)) -> f64 { match k { (0, _) => 1.0, _ => 2.0 } }",
        "this pattern is not supported in device code (translated to OpenCL C): `match` takes integers",
    );
    rejected(
        "#[device] fn f(x: f64) -> f64 { match x { _ => 2.0 } }",
        "`match` takes integers and `bool` only",
    );
    rejected_by_check(
        "#[device] fn f(k: i32) -> f64 { if let 0 = k { 1.0 } else { 2.0 } }",
        "`if let` and `while let`",
    );
    rejected_by_check(
        "#[device] fn f(mut k: i32) { while let 1 = k { k = 0; } }",
        "`if let` and `while let`",
    );
}

#[test]
fn loop_values_and_labels() {
    rejected_by_check(
        "#[device] fn f() -> f64 { loop { break 1.0; } }",
        "`break` with a value",
    );
    rejected_by_check(
        "#[device] fn f() { 'a: for i in 0..3 { if i > 1 { break 'a; } } }",
        "loop labels",
    );
}

#[test]
fn slices_ranges_and_heap_types() {
    rejected_by_check(
        "#[device] fn f(a: &[f64; 4]) -> f64 { let s = &a[1..3]; s[0] }",
        "slices",
    );
    rejected_by_check("#[device] fn f(a: &[f64]) -> f64 { a[0] }", "slices are");
    rejected_by_check("#[device] fn f(v: Vec<f64>) -> f64 { v[0] }", "heap types");
    rejected_by_check("#[device] fn f(x: f64) -> Box<f64> { x }", "heap types");
    rejected_by_check(
        "#[device] fn f(x: Option<f64>) -> f64 { 0.0 }",
        "`Option` and `Result`",
    );
    rejected_by_check(
        "#[device] fn f(x: f64) -> f64 { let r = 0..3; x }",
        "ranges outside `for`",
    );
}

#[test]
fn generics_traits_and_impl_trait() {
    rejected_by_check(
        "#[device] impl S { fn f<T>(x: T) -> T { x } }",
        "generic methods are not supported",
    );
    rejected_by_check(
        "#[device] trait T { fn f(x: f64) -> f64 { x } }",
        "default bodies of trait functions are not supported",
    );
    rejected_by_check(
        "#[device] trait T { const N: usize = 2; }",
        "default values of trait constants are not supported",
    );
    rejected_by_check(
        "#[device] trait T<U> { fn f(x: f64) -> f64; }",
        "traits with type parameters are not supported",
    );
    rejected_by_check(
        "#[device] trait T { type A; }",
        "trait items other than `fn` and `const` are not supported",
    );
    rejected_by_check(
        "#[device] fn f<T: Default = f64>(x: T) -> T { x }",
        "defaults of generic parameters are not supported",
    );
    rejected(
        "#[device] fn g<const N: usize>(x: &[f64; N]) -> f64 { x[0] }\n\
         #[device] fn f(a: [f64; 2]) -> f64 { g(&a) }",
        "`g` is generic: spell its arguments at the call, `g::<N>(..)`",
    );
    rejected(
        "#[device] fn g<const N: usize>(x: &[f64; N]) -> f64 { x[0] }\n\
         #[device] fn f(a: [f64; 2]) -> f64 { g::<2, 3>(&a) }",
        "`g` is generic",
    );
    rejected(
        "#[device] struct E;\n#[device] fn f(e: E) -> f64 { 0.0 }",
        "`E` has no fields: a device struct without fields is a type argument",
    );
    rejected(
        "#[device] fn g<const N: usize>(x: f64) -> f64 { x }\n\
         #[device] fn f(a: f64) -> f64 { g::<1.5>(a) }",
        "const parameters of device functions are integers or `bool`",
    );
    rejected_by_check(
        "#[device] fn f(g: impl Fn(f64) -> f64) -> f64 { g(1.0) }",
        "`impl Trait` is not supported",
    );
    rejected_by_check("#[device] struct W<T> { a: T }", "generic structs");
    rejected_by_check(
        "#[device] fn f(x: f64) -> f64 { x.max::<f64>(1.0) }",
        "generic method calls",
    );
    rejected(
        "#[device] fn f(x: f64) -> f64 { let y: f64 = x.into(); y }",
        "method `into` of `f64` is not supported",
    );
}

#[test]
fn iterators() {
    rejected_by_check(
        "#[device] fn f(a: &[f64; 4]) -> f64 { let mut s = 0.0; for x in a.iter() { s += *x; } s }",
        "iterators are",
    );
    rejected_by_check(
        "#[device] fn f(a: [f64; 4]) -> f64 { let mut s = 0.0; for x in a { s += x; } s }",
        "iterators are",
    );
    rejected_by_check(
        "#[device] fn f(a: [f64; 4]) -> f64 { a.iter().sum() }",
        "iterators are",
    );
}

#[test]
fn references_stored_or_returned() {
    rejected_by_check(
        "#[device] fn f(x: f64) -> f64 { let r = &x; *r }",
        "references stored in local variables",
    );
    rejected_by_check(
        "#[device] fn f(x: f64) -> f64 { let r: &f64 = &x; *r }",
        "references stored in local variables",
    );
    rejected(
        "#[device] fn f(w: &[f64; 4]) -> f64 { let r = w; r[0] }",
        "references stored in local variables",
    );
    rejected_by_check(
        "#[device] fn f(w: &[f64; 4]) -> &f64 { &w[0] }",
        "returning references is not supported",
    );
    rejected_by_check(
        "#[device] fn f<'a>(x: &'a f64) -> f64 { *x }",
        "lifetimes on references are not supported",
    );
    rejected_by_check(
        "#[device] struct S { a: &'static f64 }",
        "references in struct fields",
    );
    rejected_by_check(
        "#[device] fn f(p: *const f64) -> f64 { 0.0 }",
        "raw pointers are",
    );
    rejected_by_check(
        "#[device] fn f(s: &Star<'_, f64>) -> f64 { s.own() }",
        "accessors (`Star`, `Offsets`) are passed by value",
    );
}

#[test]
fn unsafe_try_strings_and_characters() {
    rejected_by_check(
        "#[device] fn f(x: f64) -> f64 { unsafe { x } }",
        "`unsafe` blocks are",
    );
    rejected_by_check(
        "#[device] unsafe fn f(x: f64) -> f64 { x }",
        "`unsafe` functions are",
    );
    rejected_by_check(
        "#[device] fn f(x: f64) -> f64 { let y = g(x)?; y }",
        "the `?` operator is",
    );
    rejected_by_check(
        "#[device] fn f(x: f64) -> f64 { let s = \"x\"; x }",
        "strings are",
    );
    rejected_by_check(
        "#[device] fn f(x: f64) -> f64 { let c = 'x'; x }",
        "characters and bytes are",
    );
    rejected_by_check(
        "#[device] async fn f(x: f64) -> f64 { x }",
        "`async` functions are",
    );
}

#[test]
fn items_outside_the_subset() {
    rejected_by_check("#[device] enum E { A, B }", "enums are not supported");
    rejected_by_check("#[device] static X: f64 = 1.0;", "statics are");
    rejected_by_check("#[device] struct T(f64, f64);", "tuple structs are");
    rejected_by_check(
        "#[device] fn f(x: f64) -> f64 { fn g(y: f64) -> f64 { y } g(x) }",
        "nested functions are",
    );
    rejected_by_check("#[device] fn f(x: u8) -> f64 { 0.0 }", "the type `u8` is");
}

#[test]
fn mul_add_is_never_fused() {
    rejected_by_check(
        "#[device] fn f(a: f64, x: f64, y: f64) -> f64 { a.mul_add(x, y) }",
        "`mul_add` is not supported in device code: kernels never fuse a multiply and an add",
    );
}

#[test]
fn wrapping_arithmetic_on_signed_integers() {
    rejected(
        "#[device] fn f(x: i32) -> i32 { x.wrapping_add(1) }",
        "`wrapping_add` on signed integers",
    );
    rejected(
        "#[device] fn f(x: i64) -> i64 { x.wrapping_mul(3) }",
        "`wrapping_mul` on signed integers",
    );
}

#[test]
fn recursion_direct_and_indirect() {
    let d = rejected(
        "#[device] fn f(x: f64) -> f64 { if x > 1.0 { f(x - 1.0) } else { x } }",
        "recursion is not supported in device code (OpenCL C forbids it): m::f -> m::f",
    );
    assert_eq!(d.len(), 1, "{d:?}");
    let d = rejected(
        "#[device] fn a(x: f64) -> f64 { b(x) + 1.0 }
         #[device] fn b(x: f64) -> f64 { c(x) }
         #[device] fn c(x: f64) -> f64 { if x > 0.0 { a(x - 1.0) } else { x } }
         #[device] fn ok(x: f64) -> f64 { a(x) }",
        "m::a -> m::b -> m::c -> m::a",
    );
    assert_eq!(d.len(), 1, "one diagnostic per cycle: {d:?}");
    assert!(
        d[0].starts_with("m.rs:1:33:"),
        "at the call that starts the cycle: {}",
        d[0]
    );
}

#[test]
fn whole_program_names() {
    rejected(
        "#[device] fn f(x: f64) -> f64 { foo(x) }",
        "unknown function `foo`",
    );
    rejected(
        "fn g(x: f64) -> f64 { x }\n#[device] fn f(x: f64) -> f64 { g(x) }",
        "function `g` is called from device code but not marked #[device]",
    );
    rejected(
        "pub struct S { pub a: f64 }\n#[device] fn f(s: &S) -> f64 { s.a }",
        "struct `S` is used in device code but not marked #[device]",
    );
    rejected(
        "#[device] fn f(x: f64) -> f64 { x * UNKNOWN }",
        "unknown name `UNKNOWN`",
    );
    let d = diags(&[
        file("a", "#[device] pub fn g(x: f64) -> f64 { x }"),
        file("b", "#[device] pub fn g(x: f64) -> f64 { x }"),
    ]);
    assert!(
        d.iter()
            .any(|d| d.message.contains("must be unique program-wide")
                && d.file.to_str() == Some("b.rs")),
        "{d:?}"
    );
    let d = diags(&[
        file("a", "pub const K: f64 = 1.0;"),
        file("b", "pub const K: f64 = 2.0;"),
        file("c", "#[device] fn f(x: f64) -> f64 { x * K }"),
    ]);
    assert!(
        d[0].message.contains("`K` is ambiguous: a::K, b::K"),
        "{d:?}"
    );
}

#[test]
fn constants_that_do_not_evaluate() {
    rejected(
        "const X: u32 = 4_000_000_000 * 2;\n#[device] fn f() -> u32 { X }",
        "overflow",
    );
    rejected(
        "const X: f64 = Y + 1.0;\nconst Y: f64 = X;\n#[device] fn f() -> f64 { X }",
        "depends on itself",
    );
}

#[test]
fn types_that_cannot_be_inferred() {
    rejected(
        "#[device] fn f() -> f64 { let x; 1.0 }",
        "cannot infer the type of a local variable",
    );
}

#[test]
fn diagnostics_say_where_and_come_sorted() {
    let src = "#[device]\nfn f(x: f64) -> f64 {\n    let g = |y: f64| y;\n    unsafe { g(x) }\n}\n";
    let d = diags(&[file("m", src)]);
    let shown: Vec<String> = d.iter().map(|d| d.to_string()).collect();
    assert_eq!(d.len(), 2, "{shown:?}");
    assert_eq!((d[0].line, d[0].column), (3, 13), "{shown:?}");
    assert!(
        shown[0].starts_with("m.rs:3:13: closures are not supported"),
        "{shown:?}"
    );
    assert_eq!((d[1].line, d[1].column), (4, 5), "{shown:?}");
    assert!(
        shown[1].starts_with("m.rs:4:5: `unsafe` blocks are not supported"),
        "{shown:?}"
    );
}

#[test]
fn check_item_accepts_the_subset() {
    for src in [
        "#[device] #[derive(Clone, Copy, Default)] pub struct S { pub a: [f64; 4], pub n: u32 }",
        "#[device] impl S { pub fn new() -> Self { Self::default() } pub fn add(&mut self, x: f64) { self.a[0] += x; } }",
        "#[device] pub const K: [f64; 2] = [1.0, -2.0];",
        "#[device] pub type V = [f64; 4];",
        "#[device] pub fn f(s: Star<'_, [f64; 4]>, o: &mut [f64; 4]) -> usize { for m in (0..s.len()).rev() { *o = s.nbr(m); } s.len() }",
        "#[device] fn g(x: f64) -> (f64, f64) { let (a, b) = (x, -x); if a < b { (a, b) } else { (b, a) } }",
    ] {
        let item: syn::Item = syn::parse_str(src).unwrap();
        if let Err(e) = check_item(&item) {
            panic!("check_item rejects `{src}`: {e}");
        }
    }
}
