//! The walk over an item's expressions, statements and types.

use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Expr, Item, Lit, Pat, Type};

use super::{is_dropped_macro, is_loop_range, rejected_method, Checker};

impl<'ast> Visit<'ast> for Checker {
    fn visit_expr_closure(&mut self, e: &'ast syn::ExprClosure) {
        self.no(e.or1_token.span(), "closures are");
    }

    fn visit_expr_macro(&mut self, e: &'ast syn::ExprMacro) {
        self.visit_macro(&e.mac);
    }

    fn visit_stmt_macro(&mut self, s: &'ast syn::StmtMacro) {
        self.visit_macro(&s.mac);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if !is_dropped_macro(m) {
            let name = m
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            self.err(
                m.path.span(),
                format!(
                    "macros (`{name}!`) are not supported in device code (translated to OpenCL \
                     C); only `debug_assert!`, `debug_assert_eq!` and `debug_assert_ne!` are \
                     accepted, and dropped"
                ),
            );
        }
    }

    fn visit_expr_match(&mut self, e: &'ast syn::ExprMatch) {
        self.visit_expr(&e.expr);
        for arm in &e.arms {
            self.match_pattern(&arm.pat);
            if let Some((_, g)) = &arm.guard {
                self.visit_expr(g);
            }
            self.visit_expr(&arm.body);
        }
    }

    fn visit_expr_break(&mut self, e: &'ast syn::ExprBreak) {
        if let Some(l) = &e.label {
            self.no(l.span(), "loop labels are");
        }
        if let Some(v) = &e.expr {
            self.no(v.span(), "`break` with a value (`loop` as a value) is");
        }
    }

    fn visit_expr_continue(&mut self, e: &'ast syn::ExprContinue) {
        if let Some(l) = &e.label {
            self.no(l.span(), "loop labels are");
        }
    }

    fn visit_label(&mut self, l: &'ast syn::Label) {
        self.no(l.span(), "loop labels are");
    }

    fn visit_expr_unsafe(&mut self, e: &'ast syn::ExprUnsafe) {
        self.no(e.unsafe_token.span(), "`unsafe` blocks are");
    }

    fn visit_expr_try(&mut self, e: &'ast syn::ExprTry) {
        self.no(e.question_token.span(), "the `?` operator is");
    }

    fn visit_expr_async(&mut self, e: &'ast syn::ExprAsync) {
        self.no(e.async_token.span(), "`async` is");
    }

    fn visit_expr_await(&mut self, e: &'ast syn::ExprAwait) {
        self.no(e.await_token.span(), "`.await` is");
    }

    fn visit_expr_try_block(&mut self, e: &'ast syn::ExprTryBlock) {
        self.no(e.try_token.span(), "`try` blocks are");
    }

    fn visit_expr_yield(&mut self, e: &'ast syn::ExprYield) {
        self.no(e.yield_token.span(), "`yield` is");
    }

    fn visit_expr_const(&mut self, e: &'ast syn::ExprConst) {
        self.no(e.const_token.span(), "`const` blocks are");
    }

    fn visit_expr_let(&mut self, e: &'ast syn::ExprLet) {
        self.no(
            e.let_token.span(),
            "`if let` and `while let` (pattern matching) are",
        );
    }

    fn visit_expr_raw_addr(&mut self, e: &'ast syn::ExprRawAddr) {
        self.no(e.span(), "raw pointers are");
    }

    fn visit_expr_infer(&mut self, e: &'ast syn::ExprInfer) {
        self.no(e.span(), "`_` as an expression is");
    }

    fn visit_expr_range(&mut self, e: &'ast syn::ExprRange) {
        self.no(
            e.span(),
            "ranges outside `for` loop bounds (and slices) are",
        );
    }

    fn visit_expr_index(&mut self, e: &'ast syn::ExprIndex) {
        if matches!(&*e.index, Expr::Range(_)) {
            self.no(e.index.span(), "slices are");
            self.visit_expr(&e.expr);
            return;
        }
        visit::visit_expr_index(self, e);
    }

    fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
        if let Some(l) = &e.label {
            self.no(l.span(), "loop labels are");
        }
        match &*e.pat {
            Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {}
            Pat::Wild(_) => {}
            p => self.no(p.span(), "patterns in `for` loops are"),
        }
        if is_loop_range(&e.expr) {
            let mut x = &*e.expr;
            loop {
                match x {
                    Expr::Range(r) => {
                        r.start.iter().for_each(|s| self.visit_expr(s));
                        r.end.iter().for_each(|s| self.visit_expr(s));
                        break;
                    }
                    Expr::Paren(p) => x = &p.expr,
                    Expr::Group(g) => x = &g.expr,
                    Expr::MethodCall(m) => {
                        m.args.iter().for_each(|a| self.visit_expr(a));
                        x = &m.receiver;
                    }
                    _ => break,
                }
            }
        } else {
            self.no(
                e.expr.span(),
                "iterators are (`for` runs over integer ranges `a..b` only)",
            );
        }
        self.visit_block(&e.body);
    }

    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        if let Some(msg) = rejected_method(&e.method.to_string()) {
            self.err(e.method.span(), msg);
        }
        if let Some(t) = &e.turbofish {
            self.no(t.span(), "generic method calls are");
        }
        self.visit_expr(&e.receiver);
        e.args.iter().for_each(|a| self.visit_expr(a));
    }

    fn visit_expr_call(&mut self, e: &'ast syn::ExprCall) {
        if !matches!(&*e.func, Expr::Path(_)) {
            self.no(
                e.func.span(),
                "calls through values (closures, function pointers) are",
            );
        }
        visit::visit_expr_call(self, e);
    }

    fn visit_expr_path(&mut self, e: &'ast syn::ExprPath) {
        if e.qself.is_some() {
            self.no(e.span(), "qualified paths (`<T as Trait>::X`) are");
        }
        // Generic arguments on the last segment: a generic function's
        // (`f::<E, 4>(..)`), instantiated by the translator.
        let n = e.path.segments.len();
        for s in e.path.segments.iter().take(n.saturating_sub(1)) {
            if !s.arguments.is_empty() {
                self.no(s.arguments.span(), "generic arguments are");
            }
        }
    }

    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        self.assignee(&e.left);
        self.visit_expr(&e.right);
    }

    fn visit_expr_struct(&mut self, e: &'ast syn::ExprStruct) {
        if e.qself.is_some() {
            self.no(e.span(), "qualified paths (`<T as Trait>::X`) are");
        }
        for f in &e.fields {
            if let syn::Member::Unnamed(i) = &f.member {
                self.no(i.span(), "tuple structs are");
            }
            self.visit_expr(&f.expr);
        }
        if let Some(r) = &e.rest {
            self.visit_expr(r);
        }
    }

    fn visit_lit(&mut self, l: &'ast Lit) {
        match l {
            Lit::Int(_) | Lit::Float(_) | Lit::Bool(_) => {}
            Lit::Str(_) | Lit::ByteStr(_) | Lit::CStr(_) => self.no(l.span(), "strings are"),
            Lit::Byte(_) | Lit::Char(_) => self.no(l.span(), "characters and bytes are"),
            other => self.no(other.span(), "this literal is"),
        }
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let Some(e) = &l.init {
            if let Some((_, d)) = &e.diverge {
                self.no(d.span(), "`let ... else` is");
            }
            if matches!(&*e.expr, Expr::Reference(_)) {
                self.no(e.expr.span(), "references stored in local variables are");
            }
            self.visit_expr(&e.expr);
        }
        self.let_pattern(&l.pat);
    }

    fn visit_item(&mut self, i: &'ast Item) {
        match i {
            Item::Const(c) => {
                self.value_type(&c.ty, "in constants");
                self.const_expr(&c.expr);
            }
            Item::Use(_) => {}
            Item::Fn(f) => self.no(f.sig.ident.span(), "nested functions are"),
            other => self.no(
                other.span(),
                "items other than `const` and `use` inside functions are",
            ),
        }
    }

    fn visit_type(&mut self, t: &'ast Type) {
        self.value_type(t, "in local variables and casts");
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        if let Expr::Verbatim(v) = e {
            self.no(v.span(), "this syntax is");
            return;
        }
        visit::visit_expr(self, e);
    }
}
