//! Translation of one device function's body to C.
//!
//! Expressions become side-effect-free C expressions; whatever has an
//! effect (a call that takes `&mut`, an assignment in a block expression)
//! or needs statements (array, tuple and struct values, `if` and block
//! expressions with statements) is emitted as statements before the
//! expression that uses it, into fresh temporaries, and earlier operands
//! are saved first when a later one has effects, so that Rust's
//! left-to-right order holds. Every Rust binding gets its own C name.

mod aggregate;
mod builtins;
mod call;
mod control;
mod expr;
mod matching;
mod stmt;

use std::collections::{BTreeSet, HashSet};

use proc_macro2::Span;

use crate::lit::int_suffix;
use crate::names::{c_type, DeviceType};
use crate::program::{Fail, Program, Receiver, Res, Scope};
use crate::reserved::is_reserved;

/// A type during translation: a device type, a reference parameter, an
/// integer (or any) type not known yet, or the type of `return`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ty {
    /// A known type.
    D(DeviceType),
    /// `&T` (`true`: `&mut T`): the C expression is a pointer.
    Ref(DeviceType, bool),
    /// An inference variable.
    Var(usize),
    /// Diverges (`return`, `break`, `continue`).
    Never,
}

impl Ty {
    pub(crate) fn unit() -> Ty {
        Ty::D(DeviceType::Unit)
    }
}

/// What an inference variable knows.
#[derive(Clone, Debug)]
enum VarState {
    /// Some integer type (defaults to `i32`).
    Int,
    /// Any type (a `let` without initializer or annotation).
    Any,
    Bound(Ty),
    Link(usize),
}

/// What a C expression is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A constant: never changes, needs no saving.
    Lit,
    /// An lvalue in private memory (a variable, a field, an element).
    Place,
    /// An rvalue.
    Value,
    /// An element (or the whole) of a `CONSTANT` C array.
    ConstArr,
}

/// A translated expression.
#[derive(Clone, Debug)]
pub(crate) struct Ex {
    pub code: String,
    pub ty: Ty,
    pub kind: Kind,
}

impl Ex {
    pub(crate) fn new(code: impl Into<String>, ty: Ty, kind: Kind) -> Ex {
        Ex {
            code: code.into(),
            ty,
            kind,
        }
    }

    pub(crate) fn unit() -> Ex {
        Ex::new("", Ty::unit(), Kind::Lit)
    }

    pub(crate) fn never() -> Ex {
        Ex::new("", Ty::Never, Kind::Lit)
    }
}

/// A helper function the generated code calls.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Helper {
    /// `powi` as Rust computes it (square and multiply).
    Powi(DeviceType),
    /// Integer `pow` (wrapping).
    IntPow(DeviceType),
}

/// A local binding.
#[derive(Clone, Debug)]
struct Local {
    c: String,
    ty: Ty,
}

/// A translated function.
pub(crate) struct FnOut {
    /// The definition.
    pub text: String,
    /// The prototype (`FUNC ... ;`).
    pub proto: String,
    /// Calls to device functions: callee and call site.
    pub calls: Vec<(usize, Span)>,
    /// Types the body uses.
    pub types: Vec<DeviceType>,
    /// Constants it uses.
    pub consts: BTreeSet<usize>,
    /// Helpers it uses.
    pub helpers: BTreeSet<Helper>,
}

/// The state of one function's translation.
pub(crate) struct FnCx<'p> {
    pub prog: &'p Program,
    pub fidx: usize,
    pub scope: Scope,
    scopes: Vec<Vec<(String, Local)>>,
    used: HashSet<String>,
    out: Vec<String>,
    indent: usize,
    tmp: usize,
    vars: Vec<VarState>,
    effects: usize,
    ret: DeviceType,
    calls: Vec<(usize, Span)>,
    types: Vec<DeviceType>,
    consts: BTreeSet<usize>,
    helpers: BTreeSet<Helper>,
}

/// Translates device function `f`.
pub(crate) fn translate_fn(prog: &Program, f: usize) -> Res<FnOut> {
    let fd = &prog.fns[f];
    let sig = prog.sigs[f].clone().expect("signature resolved");
    let mut cx = FnCx {
        prog,
        fidx: f,
        scope: fd.scope.clone(),
        scopes: vec![Vec::new()],
        used: HashSet::new(),
        out: Vec::new(),
        indent: 1,
        tmp: 0,
        vars: Vec::new(),
        effects: 0,
        ret: sig.ret.clone(),
        calls: Vec::new(),
        types: Vec::new(),
        consts: BTreeSet::new(),
        helpers: BTreeSet::new(),
    };
    let mut params = Vec::new();
    if let Some(r) = sig.receiver {
        let s = DeviceType::Struct(fd.scope.self_ty.clone().unwrap());
        cx.used.insert("self".into());
        let (ty, c) = match r {
            Receiver::Value => (Ty::D(s.clone()), format!("{} self", c_type(&s))),
            Receiver::Ref => (
                Ty::Ref(s.clone(), false),
                format!("const {}* self", c_type(&s)),
            ),
            Receiver::RefMut => (Ty::Ref(s.clone(), true), format!("{}* self", c_type(&s))),
        };
        cx.bind("self", "self".into(), ty);
        params.push(c);
    }
    for (name, pt) in &sig.params {
        let c = cx.fresh(name);
        cx.use_type(&pt.ty);
        let t = c_type(&pt.ty);
        let (ty, decl) = match (pt.by_ref, pt.mutable) {
            (false, _) => (Ty::D(pt.ty.clone()), format!("{t} {c}")),
            (true, false) => (Ty::Ref(pt.ty.clone(), false), format!("const {t}* {c}")),
            (true, true) => (Ty::Ref(pt.ty.clone(), true), format!("{t}* {c}")),
        };
        cx.bind(name, c, ty);
        params.push(decl);
    }
    cx.use_type(&sig.ret);
    cx.body(&fd.block)?;
    let params = if params.is_empty() {
        "void".to_string()
    } else {
        params.join(", ")
    };
    let head = format!("FUNC {} {}({params})", c_type(&sig.ret), fd.c_name);
    let mut text = String::new();
    let file = prog.files[fd.scope.file]
        .path
        .display()
        .to_string()
        .replace("*/", "* /");
    let line = fd.span.start().line;
    text.push_str(&format!(
        "/* {} ({file}:{line}) */\n{head}\n{{\n",
        fd.rust_path
    ));
    for l in &cx.out {
        text.push_str(l);
        text.push('\n');
    }
    text.push_str("}\n");
    let text = cx.finish_types(&text)?;
    Ok(FnOut {
        text,
        proto: format!("{head};"),
        calls: cx.calls,
        types: cx.types,
        consts: cx.consts,
        helpers: cx.helpers,
    })
}

impl<'p> FnCx<'p> {
    /// An error at `span`.
    pub(crate) fn fail<T>(&self, span: Span, msg: impl Into<String>) -> Res<T> {
        Err(Fail::new(span, msg))
    }

    // ---- output ----

    /// Emits a statement line.
    pub(crate) fn line(&mut self, s: impl AsRef<str>) {
        let pad = "    ".repeat(self.indent);
        self.out.push(format!("{pad}{}", s.as_ref()));
    }

    /// Emits `head {` and indents.
    pub(crate) fn open(&mut self, head: impl AsRef<str>) {
        let head = head.as_ref();
        if head.is_empty() {
            self.line("{");
        } else {
            self.line(format!("{head} {{"));
        }
        self.indent += 1;
    }

    /// Unindents and emits `}`.
    pub(crate) fn close(&mut self) {
        self.indent -= 1;
        self.line("}");
    }

    /// Runs `f` with its output captured (indented one level deeper, for
    /// a block).
    pub(crate) fn capture<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> (Vec<String>, R) {
        let saved = std::mem::take(&mut self.out);
        self.indent += 1;
        let r = f(self);
        self.indent -= 1;
        let lines = std::mem::replace(&mut self.out, saved);
        (lines, r)
    }

    /// Emits captured lines.
    pub(crate) fn emit(&mut self, lines: Vec<String>) {
        self.out.extend(lines);
    }

    /// The position in the output and the effect count, before an operand.
    pub(crate) fn mark(&self) -> (usize, usize) {
        (self.out.len(), self.effects)
    }

    /// Counts an effect (a call through `&mut`, an assignment).
    pub(crate) fn effect(&mut self) {
        self.effects += 1;
    }

    /// After an operand translated from `mark`: if it had effects, saves
    /// the earlier operands `prev` into temporaries declared before it, so
    /// that they keep the values Rust reads first.
    pub(crate) fn protect(&mut self, prev: &mut [&mut Ex], mark: (usize, usize)) {
        if self.effects == mark.1 {
            return;
        }
        let mut pos = mark.0;
        for e in prev.iter_mut() {
            if e.kind == Kind::Lit || matches!(e.ty, Ty::Ref(..) | Ty::Never) || e.code.is_empty() {
                continue;
            }
            let t = self.new_tmp();
            let decl = format!("{} {t} = {};", self.c_ty(&e.ty), stmt::unparen(&e.code));
            let pad = "    ".repeat(self.indent);
            self.out.insert(pos, format!("{pad}{decl}"));
            pos += 1;
            e.code = t;
            e.kind = Kind::Place;
        }
    }

    // ---- names ----

    /// A fresh temporary's name.
    pub(crate) fn new_tmp(&mut self) -> String {
        let t = format!("qf_t{}", self.tmp);
        self.tmp += 1;
        t
    }

    /// A fresh C name for a Rust binding `name`: the name itself where it
    /// is free, else `name_1`, `name_2`, ...; never a reserved name or a
    /// name of the program's C items.
    pub(crate) fn fresh(&mut self, name: &str) -> String {
        let base = if is_reserved(name) {
            format!("{name}_")
        } else {
            name.to_string()
        };
        let mut c = base.clone();
        let mut k = 1;
        while self.used.contains(&c) || is_reserved(&c) || self.global_name(&c) {
            c = format!("{base}_{k}");
            k += 1;
        }
        self.used.insert(c.clone());
        c
    }

    fn global_name(&self, c: &str) -> bool {
        self.prog.fns.iter().any(|f| f.c_name == c)
            || self.prog.consts.iter().any(|k| k.c_name == c)
            || self.prog.structs.iter().any(|s| s.name == c)
    }

    /// Binds Rust name `name` to C name `c` in the innermost scope.
    pub(crate) fn bind(&mut self, name: &str, c: String, ty: Ty) {
        self.scopes
            .last_mut()
            .unwrap()
            .push((name.to_string(), Local { c, ty }));
    }

    /// The C name and type of local `name`.
    pub(crate) fn local(&self, name: &str) -> Option<(String, Ty)> {
        for s in self.scopes.iter().rev() {
            if let Some((_, l)) = s.iter().rev().find(|(n, _)| n == name) {
                return Some((l.c.clone(), l.ty.clone()));
            }
        }
        None
    }

    pub(crate) fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
    }

    pub(crate) fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    // ---- types ----

    /// Records a type the C code uses (for its definition).
    pub(crate) fn use_type(&mut self, t: &DeviceType) {
        if !self.types.contains(t) {
            self.types.push(t.clone());
        }
    }

    /// A new inference variable (`int`: an integer).
    pub(crate) fn new_var(&mut self, int: bool) -> Ty {
        self.vars
            .push(if int { VarState::Int } else { VarState::Any });
        Ty::Var(self.vars.len() - 1)
    }

    fn root(&self, mut v: usize) -> usize {
        while let VarState::Link(w) = self.vars[v] {
            v = w;
        }
        v
    }

    /// `t` with what the variables are bound to substituted.
    pub(crate) fn resolved(&self, t: &Ty) -> Ty {
        match t {
            Ty::Var(v) => {
                let r = self.root(*v);
                match &self.vars[r] {
                    VarState::Bound(b) => self.resolved(&b.clone()),
                    _ => Ty::Var(r),
                }
            }
            t => t.clone(),
        }
    }

    /// Whether `t` is (or may become) an integer.
    pub(crate) fn is_int_var(&self, t: &Ty) -> bool {
        match self.resolved(t) {
            Ty::Var(v) => matches!(self.vars[v], VarState::Int),
            _ => false,
        }
    }

    /// The device type of `t` if known (references: the referenced type).
    pub(crate) fn known(&self, t: &Ty) -> Option<DeviceType> {
        match self.resolved(t) {
            Ty::D(d) | Ty::Ref(d, _) => Some(d),
            _ => None,
        }
    }

    /// Records that `a` and `b` are the same type.
    pub(crate) fn unify(&mut self, a: &Ty, b: &Ty) {
        let (a, b) = (self.resolved(a), self.resolved(b));
        match (a, b) {
            (Ty::Var(x), Ty::Var(y)) if x != y => {
                let int =
                    matches!(self.vars[x], VarState::Int) || matches!(self.vars[y], VarState::Int);
                self.vars[x] = VarState::Link(y);
                if int {
                    self.vars[y] = VarState::Int;
                }
            }
            (Ty::Var(x), t @ Ty::D(_)) | (t @ Ty::D(_), Ty::Var(x)) => {
                let ok = match (&self.vars[x], &t) {
                    (VarState::Int, Ty::D(d)) => d.is_int(),
                    _ => true,
                };
                if ok {
                    if let Ty::D(d) = &t {
                        self.use_type(d);
                    }
                    self.vars[x] = VarState::Bound(t);
                }
            }
            _ => {}
        }
    }

    /// The C spelling of `t` (a variable's is filled in at the end).
    pub(crate) fn c_ty(&mut self, t: &Ty) -> String {
        match self.resolved(t) {
            Ty::D(d) => {
                self.use_type(&d);
                c_type(&d)
            }
            Ty::Ref(d, false) => format!("const {}*", c_type(&d)),
            Ty::Ref(d, true) => format!("{}*", c_type(&d)),
            Ty::Var(v) => format!("\u{1}T{v}\u{2}"),
            Ty::Never => "void".into(),
        }
    }

    /// The suffix of an integer literal of type `t`.
    pub(crate) fn int_sfx(&self, t: &Ty) -> String {
        match self.resolved(t) {
            Ty::D(d) => int_suffix(&d).to_string(),
            Ty::Var(v) => format!("\u{1}S{v}\u{2}"),
            _ => String::new(),
        }
    }

    /// The final type of variable `v`: its binding, `i32` for an integer.
    fn final_type(&self, v: usize) -> Option<DeviceType> {
        match self.resolved(&Ty::Var(v)) {
            Ty::D(d) => Some(d),
            Ty::Var(r) if matches!(self.vars[r], VarState::Int) => Some(DeviceType::I32),
            _ => None,
        }
    }

    /// Fills in the types of inference variables.
    fn finish_types(&mut self, text: &str) -> Res<String> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(k) = rest.find('\u{1}') {
            out.push_str(&rest[..k]);
            let end = rest[k..].find('\u{2}').unwrap() + k;
            let what = &rest[k + 1..end];
            let v: usize = what[1..].parse().unwrap();
            let Some(t) = self.final_type(v) else {
                let span = self.prog.fns[self.fidx].span;
                return self.fail(
                    span,
                    format!(
                        "cannot infer the type of a local variable of `{}`; add a type annotation",
                        self.prog.fns[self.fidx].rust_path
                    ),
                );
            };
            self.use_type(&t);
            if what.starts_with('T') {
                out.push_str(&c_type(&t));
            } else {
                out.push_str(int_suffix(&t));
            }
            rest = &rest[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}
