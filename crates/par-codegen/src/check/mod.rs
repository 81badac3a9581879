//! The per-item subset check: the constructs device items may contain,
//! judged from one item's syntax alone (the `#[device]` macro's check; the
//! translator repeats it and adds what needs whole-program knowledge).

mod walk;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{
    Expr, FnArg, GenericArgument, GenericParam, ImplItem, Item, Pat, PathArguments, ReturnType,
    Signature, Stmt, Type,
};

/// Checks that `item` stays within the device subset, as far as its own
/// syntax tells: on failure, an error per offending construct (combined),
/// each with its span and a message naming the construct, such as
/// "closures are not supported in device code (translated to OpenCL C)".
///
/// Accepted items: `fn` (free, or a method when given alone), inherent
/// `impl` blocks, structs with named fields, `const` and `type` items.
/// `debug_assert!`, `debug_assert_eq!` and `debug_assert_ne!` are accepted
/// and dropped by the translator (they check nothing in release builds
/// either).
pub fn check_item(item: &Item) -> Result<(), syn::Error> {
    let mut c = Checker::default();
    c.item(item);
    let mut errors = c.errors.into_iter();
    match errors.next() {
        None => Ok(()),
        Some(mut first) => {
            for e in errors {
                first.combine(e);
            }
            Err(first)
        }
    }
}

/// The message for an unsupported construct: `what` ends in "is" or "are",
/// optionally followed by a hint in parentheses (`"`match` is (use `if`)"`
/// gives "`match` is not supported in device code (translated to OpenCL
/// C): use `if`").
pub(crate) fn unsupported(what: &str) -> String {
    for verb in [" are (", " is ("] {
        if let (Some(k), true) = (what.rfind(verb), what.ends_with(')')) {
            let subject = &what[..k + verb.len() - 2];
            let hint = &what[k + verb.len()..what.len() - 1];
            return format!(
                "{subject} not supported in device code (translated to OpenCL C): {hint}"
            );
        }
    }
    format!("{what} not supported in device code (translated to OpenCL C)")
}

/// The `debug_assert` macros, which device code drops.
pub(crate) fn is_dropped_macro(mac: &syn::Macro) -> bool {
    mac.path.segments.last().is_some_and(|s| {
        matches!(
            s.ident.to_string().as_str(),
            "debug_assert" | "debug_assert_eq" | "debug_assert_ne"
        )
    })
}

/// Methods whose names alone say they are outside the subset.
fn rejected_method(name: &str) -> Option<&'static str> {
    Some(match name {
        "mul_add" => {
            "`mul_add` is not supported in device code: kernels never fuse a multiply and an \
             add (the device must round as the CPU does)"
        }
        "iter" | "iter_mut" | "into_iter" | "map" | "zip" | "enumerate" | "sum" | "product"
        | "fold" | "collect" | "filter" | "for_each" | "chain" | "skip" | "take" => {
            "iterators are not supported in device code (translated to OpenCL C); use `for` \
             over an integer range"
        }
        "unwrap" | "expect" | "unwrap_or" | "ok" | "is_some" | "is_none" | "checked_add"
        | "checked_sub" | "checked_mul" | "checked_div" => {
            "`Option` and `Result` are not supported in device code (translated to OpenCL C)"
        }
        "to_vec" | "to_string" | "to_owned" | "as_slice" | "as_mut_slice" | "push" => {
            "heap values and slices are not supported in device code (translated to OpenCL C)"
        }
        _ => return None,
    })
}

#[derive(Default)]
struct Checker {
    errors: Vec<syn::Error>,
}

impl Checker {
    fn err(&mut self, span: Span, msg: impl Into<String>) {
        self.errors.push(syn::Error::new(span, msg.into()));
    }

    fn no(&mut self, span: Span, what: &str) {
        self.err(span, unsupported(what));
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::Fn(f) => {
                self.signature(&f.sig, true);
                self.visit_block(&f.block);
            }
            Item::Impl(i) => self.impl_block(i),
            Item::Trait(t) => self.trait_item(t),
            Item::Struct(s) => {
                if !s.generics.params.is_empty() {
                    self.no(s.generics.span(), "generic structs are");
                }
                match &s.fields {
                    syn::Fields::Named(n) if !n.named.is_empty() => {
                        for f in &n.named {
                            self.value_type(&f.ty, "in struct fields");
                        }
                    }
                    // A type without values: a generic argument only
                    // (an equation's type), never a value in device code.
                    syn::Fields::Named(_) | syn::Fields::Unit => {}
                    syn::Fields::Unnamed(_) => {
                        self.no(s.ident.span(), "tuple structs are (use named fields)")
                    }
                }
            }
            Item::Const(c) => {
                self.value_type(&c.ty, "in constants");
                self.const_expr(&c.expr);
            }
            Item::Type(t) => {
                if !t.generics.params.is_empty() {
                    self.no(t.generics.span(), "generic type aliases are");
                }
                self.value_type(&t.ty, "in type aliases");
            }
            Item::Enum(e) => self.no(e.ident.span(), "enums are"),
            Item::Static(s) => self.no(s.ident.span(), "statics are (use `const`)"),
            Item::Union(u) => self.no(u.ident.span(), "unions are"),
            other => self.err(
                other.span(),
                "#[device] applies to `fn`, `impl`, `trait`, `struct`, `const` and `type` items",
            ),
        }
    }

    /// A trait: the signatures of associated functions and constants, no
    /// default bodies or values (each impl gives its own), no associated
    /// types.
    fn trait_item(&mut self, t: &syn::ItemTrait) {
        if let Some(u) = &t.unsafety {
            self.no(u.span(), "`unsafe` traits are");
        }
        for g in &t.generics.params {
            if let GenericParam::Type(p) = g {
                self.no(p.span(), "traits with type parameters are (use a const parameter or an associated constant)");
            }
        }
        for it in &t.items {
            match it {
                syn::TraitItem::Fn(f) => {
                    self.signature(&f.sig, false);
                    if let Some(b) = &f.default {
                        self.no(
                            b.span(),
                            "default bodies of trait functions are (implement it in each impl)",
                        );
                    }
                }
                syn::TraitItem::Const(c) => {
                    self.value_type(&c.ty, "in constants");
                    if let Some((_, e)) = &c.default {
                        self.no(
                            e.span(),
                            "default values of trait constants are (give it in each impl)",
                        );
                    }
                }
                other => self.no(other.span(), "trait items other than `fn` and `const` are"),
            }
        }
    }

    fn impl_block(&mut self, i: &syn::ItemImpl) {
        if let Some((bang, path, _)) = &i.trait_ {
            if bang.is_some() {
                self.no(path.span(), "negative impls are");
            }
        }
        if !i.generics.params.is_empty() {
            self.no(i.generics.span(), "generic impl blocks are");
        }
        if i.unsafety.is_some() {
            self.no(i.unsafety.span(), "`unsafe` is");
        }
        match &*i.self_ty {
            Type::Path(p) if p.qself.is_none() => {
                if p.path.segments.iter().any(|s| !s.arguments.is_empty()) {
                    self.no(p.span(), "generic types are");
                }
            }
            other => self.no(other.span(), "impl blocks for types other than structs are"),
        }
        for it in &i.items {
            match it {
                ImplItem::Fn(f) => {
                    self.signature(&f.sig, false);
                    self.visit_block(&f.block);
                }
                ImplItem::Const(c) => {
                    self.value_type(&c.ty, "in constants");
                    self.const_expr(&c.expr);
                }
                other => self.no(other.span(), "impl items other than `fn` and `const` are"),
            }
        }
    }

    /// A function's signature; `generic`: type and const parameters are
    /// allowed (a free function, instantiated per call).
    fn signature(&mut self, sig: &Signature, generic: bool) {
        for g in &sig.generics.params {
            match g {
                GenericParam::Lifetime(_) => {}
                GenericParam::Type(t) if generic => {
                    if let Some(d) = &t.default {
                        self.no(d.span(), "defaults of generic parameters are");
                    }
                }
                GenericParam::Const(c) if generic => {
                    if let Some(d) = &c.default {
                        self.no(d.span(), "defaults of generic parameters are");
                    }
                    self.value_type(&c.ty, "in const parameters");
                }
                _ => self.no(
                    g.span(),
                    "generic methods are (write a generic free function)",
                ),
            }
        }
        if let (Some(w), false) = (&sig.generics.where_clause, generic) {
            self.no(w.span(), "`where` clauses on methods are");
        }
        if let Some(u) = &sig.unsafety {
            self.no(u.span(), "`unsafe` functions are");
        }
        if let Some(a) = &sig.asyncness {
            self.no(a.span(), "`async` functions are");
        }
        if let Some(a) = &sig.abi {
            self.no(a.span(), "`extern` functions are");
        }
        if let Some(v) = &sig.variadic {
            self.no(v.span(), "variadic functions are");
        }
        for arg in &sig.inputs {
            match arg {
                FnArg::Receiver(r) => {
                    if r.colon_token.is_some() {
                        self.no(r.span(), "typed receivers (`self: T`) are");
                    } else if let Some((_, Some(l))) = &r.reference {
                        self.no(l.span(), "lifetimes on references are");
                    }
                }
                FnArg::Typed(t) => {
                    match &*t.pat {
                        Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {}
                        Pat::Wild(_) => {}
                        p => self.no(p.span(), "patterns in parameters are"),
                    }
                    self.param_type(&t.ty);
                }
            }
        }
        if let ReturnType::Type(_, t) = &sig.output {
            if let Type::Reference(r) = &**t {
                self.no(r.span(), "returning references is");
            } else {
                self.value_type(t, "in return types");
            }
        }
    }

    fn param_type(&mut self, ty: &Type) {
        match ty {
            Type::Reference(r) => {
                if let Some(l) = &r.lifetime {
                    self.no(l.span(), "lifetimes on references are");
                }
                if is_accessor(&r.elem) {
                    self.err(
                        r.span(),
                        "accessors (`Star`, `Offsets`) are passed by value, not by reference",
                    );
                } else {
                    self.value_type(&r.elem, "behind references");
                }
            }
            t => self.value_type(t, "in parameters"),
        }
    }

    /// A type in a value position: no references (`place` says where, for
    /// the message).
    fn value_type(&mut self, ty: &Type, place: &str) {
        match ty {
            Type::Path(p) => {
                if p.qself.is_some() {
                    self.no(p.span(), "qualified paths (`<T as Trait>::X`) are");
                    return;
                }
                let Some(last) = p.path.segments.last() else {
                    return;
                };
                let name = last.ident.to_string();
                match name.as_str() {
                    "String" | "str" => self.no(p.span(), "strings are"),
                    "Vec" | "Box" | "Rc" | "Arc" | "HashMap" | "BTreeMap" => {
                        self.no(p.span(), "heap types (`Vec`, `Box`, ...) are")
                    }
                    "Option" | "Result" => self.no(p.span(), "`Option` and `Result` are"),
                    "char" | "u8" | "i8" | "u16" | "i16" | "u128" | "i128" | "isize" => {
                        self.no(p.span(), &format!("the type `{name}` is"))
                    }
                    _ => {}
                }
                let accessor = name == "Star" || name == "Offsets";
                for seg in &p.path.segments {
                    match &seg.arguments {
                        PathArguments::None => {}
                        PathArguments::AngleBracketed(a) if accessor => {
                            let mut types = 0;
                            for arg in &a.args {
                                match arg {
                                    GenericArgument::Lifetime(_) => {}
                                    GenericArgument::Type(t) => {
                                        types += 1;
                                        self.value_type(t, "in accessors");
                                    }
                                    other => self.no(other.span(), "this generic argument is"),
                                }
                            }
                            if types != 1 {
                                self.err(a.span(), "accessors take one element type");
                            }
                        }
                        args => self.no(args.span(), "generic types are"),
                    }
                }
            }
            Type::Array(a) => {
                self.value_type(&a.elem, place);
                self.const_expr(&a.len);
            }
            Type::Tuple(t) => {
                for e in &t.elems {
                    self.value_type(e, place);
                }
            }
            Type::Paren(p) => self.value_type(&p.elem, place),
            Type::Group(g) => self.value_type(&g.elem, place),
            Type::Reference(r) => self.no(
                r.span(),
                &format!("references {place} are (only parameters may be references)"),
            ),
            Type::Slice(s) => self.no(s.span(), "slices are"),
            Type::Ptr(p) => self.no(p.span(), "raw pointers are"),
            Type::ImplTrait(i) => self.no(i.span(), "`impl Trait` is"),
            Type::TraitObject(t) => self.no(t.span(), "trait objects are"),
            Type::BareFn(f) => self.no(f.span(), "function pointers are"),
            Type::Never(n) => self.no(n.span(), "the never type `!` is"),
            Type::Infer(i) => self.no(i.span(), "type placeholders `_` are"),
            Type::Macro(m) => self.no(m.span(), "macros are"),
            other => self.no(other.span(), "this type is"),
        }
    }

    /// A constant's value (or an array length): literals, paths, operators,
    /// casts, arrays, `f64::from_bits` and `to_bits`.
    fn const_expr(&mut self, e: &Expr) {
        match e {
            Expr::Lit(l) => self.visit_expr_lit(l),
            Expr::Path(p) => self.visit_expr_path(p),
            Expr::Unary(u) if !matches!(u.op, syn::UnOp::Deref(_)) => self.const_expr(&u.expr),
            Expr::Binary(b) => {
                self.const_expr(&b.left);
                self.const_expr(&b.right);
            }
            Expr::Cast(c) => {
                self.value_type(&c.ty, "in casts");
                self.const_expr(&c.expr);
            }
            Expr::Paren(p) => self.const_expr(&p.expr),
            Expr::Group(g) => self.const_expr(&g.expr),
            Expr::Array(a) => a.elems.iter().for_each(|x| self.const_expr(x)),
            Expr::Repeat(r) => {
                self.const_expr(&r.expr);
                self.const_expr(&r.len);
            }
            Expr::Index(i) => {
                self.const_expr(&i.expr);
                self.const_expr(&i.index);
            }
            Expr::Call(c) => {
                c.args.iter().for_each(|x| self.const_expr(x));
                match &*c.func {
                    Expr::Path(p) if p.path.segments.last().unwrap().ident == "from_bits" => {}
                    f => self.no(f.span(), "calls other than `from_bits` in constants are"),
                }
            }
            Expr::MethodCall(m)
                if (m.method == "to_bits" || m.method == "len") && m.args.is_empty() =>
            {
                self.const_expr(&m.receiver)
            }
            Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                Stmt::Expr(x, None) => self.const_expr(x),
                s => self.no(s.span(), "statements in constants are"),
            },
            other => self.no(other.span(), "this expression in a constant is"),
        }
    }
}

/// Whether a type is `Star<..>` or `Offsets<..>` (by its last segment).
fn is_accessor(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Star" || s.ident == "Offsets"),
        _ => false,
    }
}

/// Whether `e` is a range that `for` can run over: `a..b`, `a..=b`, and
/// those with `.step_by(k)` or `.rev()` (parenthesized).
fn is_loop_range(e: &Expr) -> bool {
    match e {
        Expr::Range(r) => r.start.is_some() && r.end.is_some(),
        Expr::Paren(p) => is_loop_range(&p.expr),
        Expr::Group(g) => is_loop_range(&g.expr),
        Expr::MethodCall(m) => {
            (m.method == "step_by" && m.args.len() == 1 || m.method == "rev" && m.args.is_empty())
                && is_loop_range(&m.receiver)
        }
        _ => false,
    }
}

impl Checker {
    fn let_pattern(&mut self, p: &Pat) {
        match p {
            Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {}
            Pat::Ident(i) if i.by_ref.is_some() => self.no(i.span(), "`ref` bindings are"),
            Pat::Wild(_) => {}
            Pat::Tuple(t) => t.elems.iter().for_each(|e| self.let_pattern(e)),
            Pat::Paren(x) => self.let_pattern(&x.pat),
            Pat::Type(t) => {
                self.let_pattern(&t.pat);
                if matches!(&*t.ty, Type::Reference(_)) {
                    self.no(t.ty.span(), "references stored in local variables are");
                } else {
                    self.value_type(&t.ty, "in local variables");
                }
            }
            other => self.no(
                other.span(),
                "this pattern is (`let` takes a name, `_` or a tuple of them)",
            ),
        }
    }

    /// A pattern of a `match` arm: literals (integers, `bool`), constants,
    /// ranges of them, `|`, `_` and a name.
    fn match_pattern(&mut self, p: &Pat) {
        match p {
            Pat::Lit(l) => self.visit_expr_lit(l),
            Pat::Range(r) => {
                r.start.iter().for_each(|x| self.const_expr(x));
                r.end.iter().for_each(|x| self.const_expr(x));
            }
            Pat::Path(x) => self.visit_expr_path(x),
            Pat::Or(o) => o.cases.iter().for_each(|c| self.match_pattern(c)),
            Pat::Paren(x) => self.match_pattern(&x.pat),
            Pat::Wild(_) => {}
            Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {}
            other => self.no(
                other.span(),
                "this pattern is (`match` takes integers and `bool` by value: literals, \
                 constants, ranges, `|`, `_`, a name)",
            ),
        }
    }

    /// The left side of `=`: a place, or a tuple of places and `_`.
    fn assignee(&mut self, e: &Expr) {
        match e {
            Expr::Tuple(t) => t.elems.iter().for_each(|x| self.assignee(x)),
            Expr::Paren(p) => self.assignee(&p.expr),
            Expr::Infer(_) => {}
            Expr::Path(_) | Expr::Field(_) | Expr::Index(_) | Expr::Unary(_) => self.visit_expr(e),
            other => self.no(other.span(), "this assignment target is"),
        }
    }
}
