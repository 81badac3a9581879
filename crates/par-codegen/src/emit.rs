//! The whole translation: every device function translated, recursion
//! rejected, and the C text assembled in dependency order.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;

use quote::ToTokens;

use crate::diag::{Diagnostic, FunctionSig, ParamSig, SourceFile, Translation};
use crate::func::{translate_fn, FnOut, Helper};
use crate::lit::CVal;
use crate::names::{accessor_source, c_type, ident_part, type_definition, DeviceType};
use crate::program::{Program, Receiver};
use crate::reserved::is_reserved;

/// Translates the `#[device]` items of `files` (and the types and
/// constants they use) to C; see the crate documentation for the subset
/// and the layout of the result. On failure, every problem found, sorted
/// by place.
pub fn translate(files: &[SourceFile]) -> Result<Translation, Vec<Diagnostic>> {
    let prog = Program::build(files);
    let mut diags = prog.diags.clone();
    let mut outs: Vec<(usize, FnOut)> = Vec::new();
    for f in 0..prog.fns.len() {
        if prog.sigs[f].is_none() || !prog.fns[f].checked {
            continue;
        }
        match translate_fn(&prog, f) {
            Ok(o) => outs.push((f, o)),
            Err(e) => diags.push(prog.diag(prog.fns[f].scope.file, e.span, e.msg)),
        }
    }
    diags.extend(recursion(&prog, &outs));
    let mut types = TypeSet::default();
    for s in prog.structs.iter().filter(|s| s.marked) {
        if prog.struct_fields(&s.name).is_some() {
            types.add(&prog, &DeviceType::Struct(s.name.clone()));
        }
    }
    for (f, o) in &outs {
        let sig = prog.sigs[*f].as_ref().unwrap();
        for (_, p) in &sig.params {
            types.add(&prog, &p.ty);
        }
        types.add(&prog, &sig.ret);
        for t in &o.types {
            types.add(&prog, t);
        }
    }
    for (s, msg) in types.errors.drain(..) {
        let d = prog.find_struct(&s).unwrap();
        diags.push(prog.diag(d.scope.file, d.span, msg));
    }
    let mut used: BTreeSet<usize> = outs
        .iter()
        .flat_map(|(_, o)| o.consts.iter().copied())
        .collect();
    used.extend((0..prog.consts.len()).filter(|&k| prog.consts[k].marked));
    let mut consts = String::new();
    for &k in &used {
        let c = &prog.consts[k];
        match prog.const_value(k) {
            Ok(v) => const_def(&mut consts, &c.c_name, &v, &c.expr),
            Err(e) => diags.push(prog.diag(c.scope.file, e.span, e.msg)),
        }
    }
    check_fields(&prog, &used, &mut diags);
    if !diags.is_empty() {
        diags.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
        diags.dedup();
        return Err(diags);
    }
    let helpers: BTreeSet<Helper> = outs
        .iter()
        .flat_map(|(_, o)| o.helpers.iter().cloned())
        .collect();
    let mut s = String::from("/* Translated from Rust by qflow-par-codegen: do not edit. */\n");
    if !types.order.is_empty() {
        s.push_str("\n/* ---- types ---- */\n");
        for t in &types.order {
            s.push_str(&type_def(&prog, t));
            s.push('\n');
        }
    }
    if !types.accessors.is_empty() {
        s.push_str("\n/* ---- accessors ---- */\n");
        for e in &types.accessors {
            s.push_str(&accessor_source(e));
        }
    }
    if !helpers.is_empty() {
        s.push_str("\n/* ---- helpers ---- */\n");
        for h in &helpers {
            s.push_str(&helper_source(h));
        }
    }
    if !consts.is_empty() {
        s.push_str("\n/* ---- constants ---- */\n");
        s.push_str(&consts);
    }
    s.push_str("\n/* ---- prototypes ---- */\n");
    for (_, o) in &outs {
        s.push_str(&o.proto);
        s.push('\n');
    }
    s.push_str("\n/* ---- functions ---- */\n");
    for (_, o) in &outs {
        s.push('\n');
        s.push_str(&o.text);
    }
    let functions = outs.iter().map(|(f, _)| signature(&prog, *f)).collect();
    Ok(Translation {
        source: s,
        functions,
    })
}

/// The public signature of function `f`.
fn signature(prog: &Program, f: usize) -> FunctionSig {
    let fd = &prog.fns[f];
    let sig = prog.sigs[f].as_ref().unwrap();
    let mut params = Vec::new();
    if let Some(r) = sig.receiver {
        params.push(ParamSig {
            name: "self".into(),
            ty: DeviceType::Struct(fd.scope.self_ty.clone().unwrap()),
            by_ref: r != Receiver::Value,
            mutable: r == Receiver::RefMut,
        });
    }
    for (n, p) in &sig.params {
        params.push(ParamSig {
            name: n.clone(),
            ty: p.ty.clone(),
            by_ref: p.by_ref,
            mutable: p.mutable,
        });
    }
    FunctionSig {
        rust_path: fd.rust_path.clone(),
        c_name: fd.c_name.clone(),
        params,
        ret: sig.ret.clone(),
    }
}

/// Types to define, dependencies first, and the element types of
/// accessors.
#[derive(Default)]
struct TypeSet {
    order: Vec<DeviceType>,
    accessors: Vec<DeviceType>,
    names: HashMap<String, DeviceType>,
    visiting: HashSet<String>,
    errors: Vec<(String, String)>,
}

impl TypeSet {
    fn add(&mut self, prog: &Program, t: &DeviceType) {
        if self.order.contains(t) {
            return;
        }
        match t {
            DeviceType::Array(e, _) => self.add(prog, e),
            DeviceType::Tuple(v) => v.iter().for_each(|e| self.add(prog, e)),
            DeviceType::Struct(s) => {
                if !self.visiting.insert(s.clone()) {
                    self.errors
                        .push((s.clone(), format!("struct `{s}` contains itself")));
                    return;
                }
                for (_, f) in prog.struct_fields(s).unwrap_or(&[]) {
                    self.add(prog, f);
                }
                self.visiting.remove(s);
            }
            DeviceType::Star(e) | DeviceType::Offsets(e) => {
                self.add(prog, e);
                if !self.accessors.contains(e) {
                    self.accessors.push((**e).clone());
                }
                return;
            }
            _ => return,
        }
        let name = c_type(t);
        if let Some(other) = self.names.get(&name) {
            if other != t {
                if let DeviceType::Struct(s) = t {
                    self.errors.push((
                        s.clone(),
                        format!("the C name `{name}` is that of `{other}`"),
                    ));
                }
            }
        }
        self.names.insert(name, t.clone());
        self.order.push(t.clone());
    }
}

/// The C definition of an array, tuple or struct type.
fn type_def(prog: &Program, t: &DeviceType) -> String {
    match t {
        DeviceType::Struct(s) => {
            let mut d = String::from("typedef struct {\n");
            for (n, f) in prog.struct_fields(s).unwrap_or(&[]) {
                let _ = writeln!(d, "    {} {n};", c_type(f));
            }
            let _ = write!(d, "}} {s};");
            d
        }
        t => type_definition(t).unwrap_or_default(),
    }
}

/// `#define NAME (value)` for a scalar (with the Rust expression when it
/// is not a literal), `CONSTANT T NAME[N]... = {...};` for an array.
fn const_def(out: &mut String, name: &str, v: &CVal, expr: &syn::Expr) {
    match v {
        CVal::Array(..) => {
            let mut dims = String::new();
            let mut t = v.ty();
            while let DeviceType::Array(e, n) = t {
                let _ = write!(dims, "[{n}]");
                t = *e;
            }
            let _ = writeln!(out, "CONSTANT {} {name}{dims} = {};", c_type(&t), v.to_c());
        }
        _ => {
            let c = v.to_c();
            let c = if c.starts_with('(') {
                c
            } else {
                format!("({c})")
            };
            if matches!(expr, syn::Expr::Lit(_)) {
                let _ = writeln!(out, "#define {name} {c}");
            } else {
                let rust = expr
                    .to_token_stream()
                    .to_string()
                    .replace(" :: ", "::")
                    .replace("*/", "* /");
                let _ = writeln!(out, "#define {name} {c} /* {rust} */");
            }
        }
    }
}

/// Struct fields whose names C cannot take (keywords, the constants'
/// macros).
fn check_fields(prog: &Program, consts: &BTreeSet<usize>, diags: &mut Vec<Diagnostic>) {
    let macros: HashSet<&str> = consts
        .iter()
        .map(|&k| prog.consts[k].c_name.as_str())
        .collect();
    for s in prog.structs.iter().filter(|s| s.marked) {
        for (n, _) in prog.struct_fields(&s.name).unwrap_or(&[]) {
            if crate::reserved::is_keyword(n)
                || macros.contains(n.as_str())
                || is_reserved(n) && n.starts_with("qf_")
            {
                diags.push(prog.diag(
                    s.scope.file,
                    s.span,
                    format!(
                        "field `{n}` of `{}` cannot be named so in C; rename it",
                        s.name
                    ),
                ));
            }
        }
    }
}

/// The C source of a helper.
fn helper_source(h: &Helper) -> String {
    match h {
        Helper::Powi(t) => {
            let (ct, one) = if *t == DeviceType::F32 {
                ("float", "1.0f")
            } else {
                ("double", "1.0")
            };
            format!(
                "/* x.powi(n) as Rust computes it (square and multiply, then 1/r for n < 0). */\n\
                 FUNC {ct} qf_powi_{ip}({ct} a, int b)\n{{\n    uint n = b < 0 ? 0u - (uint)b : (uint)b;\n    \
                 {ct} r = {one};\n    for (;;) {{\n        if (n & 1u) r = r * a;\n        n >>= 1;\n        \
                 if (n == 0u) break;\n        a = a * a;\n    }}\n    return b < 0 ? {one} / r : r;\n}}\n",
                ip = ident_part(t)
            )
        }
        Helper::IntPow(t) => {
            let ct = c_type(t);
            let ut = if matches!(t, DeviceType::I32 | DeviceType::U32) {
                "uint"
            } else {
                "ulong"
            };
            format!(
                "/* x.pow(n), wrapping. */\nFUNC {ct} qf_pow_{ip}({ct} b, uint e)\n{{\n    {ut} r = 1;\n    \
                 {ut} x = ({ut})b;\n    while (e != 0u) {{\n        if (e & 1u) r = r * x;\n        x = x * x;\n        \
                 e >>= 1;\n    }}\n    return ({ct})r;\n}}\n",
                ip = ident_part(t)
            )
        }
    }
}

/// Diagnostics for recursion (OpenCL C forbids it): one per cycle, at a
/// call in it.
fn recursion(prog: &Program, outs: &[(usize, FnOut)]) -> Vec<Diagnostic> {
    let mut calls: HashMap<usize, &[(usize, proc_macro2::Span)]> = HashMap::new();
    for (f, o) in outs {
        calls.insert(*f, &o.calls);
    }
    let mut diags = Vec::new();
    for (f, _) in outs {
        // Breadth-first from f's callees back to f.
        let mut prev: HashMap<usize, usize> = HashMap::new();
        let mut queue: Vec<usize> = vec![*f];
        let mut found = false;
        let mut head = 0;
        while head < queue.len() && !found {
            let g = queue[head];
            head += 1;
            for (h, _) in calls.get(&g).copied().unwrap_or(&[]) {
                if *h == *f {
                    prev.insert(usize::MAX, g);
                    found = true;
                    break;
                }
                if !prev.contains_key(h) && *h != *f {
                    prev.insert(*h, g);
                    queue.push(*h);
                }
            }
        }
        if !found {
            continue;
        }
        let mut cycle = vec![*f];
        let mut g = prev[&usize::MAX];
        while g != *f {
            cycle.push(g);
            g = prev[&g];
        }
        cycle[1..].reverse();
        if cycle.iter().any(|g| g < f) {
            continue;
        }
        let next = if cycle.len() > 1 { cycle[1] } else { *f };
        let span = calls[f]
            .iter()
            .find(|(h, _)| *h == next)
            .map(|(_, s)| *s)
            .unwrap();
        let mut names: Vec<&str> = cycle
            .iter()
            .map(|g| prog.fns[*g].rust_path.as_str())
            .collect();
        names.push(&prog.fns[*f].rust_path);
        diags.push(prog.diag(
            prog.fns[*f].scope.file,
            span,
            format!(
                "recursion is not supported in device code (OpenCL C forbids it): {}",
                names.join(" -> ")
            ),
        ));
    }
    diags
}
