//! Whole-program knowledge: every struct, alias, constant and device
//! function of the given files, and how names in device code resolve to
//! them.

mod consteval;
mod generic;
mod resolve;
mod types;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Attribute, ImplItem, Item, UseTree};

pub(crate) use consteval::untyped_literal;
pub(crate) use types::{Receiver, SigInfo};

use crate::check::check_item;
use crate::diag::{Diagnostic, SourceFile};
use crate::lit::CVal;
use crate::names::DeviceType;
use crate::reserved::is_reserved;

/// An error at a place in the source.
#[derive(Clone, Debug)]
pub(crate) struct Fail {
    /// Where.
    pub span: Span,
    /// What.
    pub msg: String,
}

impl Fail {
    /// An error at `span`.
    pub(crate) fn new(span: Span, msg: impl Into<String>) -> Self {
        Fail {
            span,
            msg: msg.into(),
        }
    }
}

/// A result with a [`Fail`].
pub(crate) type Res<T> = Result<T, Fail>;

/// Where an item or expression is: its file, module, `Self` type and
/// enclosing device function.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scope {
    /// Index of the file.
    pub file: usize,
    /// The module path (file module and nested inline modules).
    pub module: Vec<String>,
    /// `Self` inside an impl block.
    pub self_ty: Option<String>,
    /// The device function whose body this is.
    pub func: Option<usize>,
}

/// A `use` declaration, flattened.
#[derive(Clone, Debug)]
pub(crate) enum Import {
    /// `use a::b::*;`: the module path.
    Glob(Vec<String>),
    /// `use a::b::c;` or `use a::b::c as d;`: the name and the full path.
    Name(String, Vec<String>),
}

/// A struct of the files.
pub(crate) struct StructDef {
    pub name: String,
    pub scope: Scope,
    pub fields: Vec<(String, syn::Type)>,
    /// `#[derive(Default)]`.
    pub default: bool,
    /// `#[device]`.
    pub marked: bool,
    pub span: Span,
}

/// A type alias of the files.
pub(crate) struct AliasDef {
    pub name: String,
    pub scope: Scope,
    pub ty: syn::Type,
}

/// What a constant belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ConstOwner {
    /// A module (file or inline).
    Module,
    /// A device function's body.
    Fn(usize),
    /// An impl block of the named struct.
    Impl(String),
}

/// A constant of the files.
pub(crate) struct ConstDef {
    pub name: String,
    pub scope: Scope,
    pub owner: ConstOwner,
    pub ty: syn::Type,
    pub expr: syn::Expr,
    pub span: Span,
    pub marked: bool,
    /// The C name (unique).
    pub c_name: String,
}

/// A device function or method.
pub(crate) struct FnDef {
    pub name: String,
    /// Its scope (`func` is itself; `self_ty` for methods).
    pub scope: Scope,
    pub sig: syn::Signature,
    pub block: syn::Block,
    pub span: Span,
    pub c_name: String,
    /// `module::Type::name`.
    pub rust_path: String,
    /// `use` declarations in its body.
    pub imports: Vec<Import>,
    /// Whether it passes [`check_item`] (else it is not translated: its
    /// errors are reported once, by the check).
    pub checked: bool,
}

/// Everything the translator knows about the program.
pub(crate) struct Program {
    pub files: Vec<SourceFile>,
    pub structs: Vec<StructDef>,
    pub aliases: Vec<AliasDef>,
    pub consts: Vec<ConstDef>,
    pub fns: Vec<FnDef>,
    /// Generic device functions (copied per instantiation into `fns`).
    pub templates: Vec<generic::Template>,
    /// Functions of the files not marked `#[device]`: (`Self` type, name).
    pub unmarked: HashSet<(Option<String>, String)>,
    /// Module-level `use` declarations: (module, import).
    pub imports: Vec<(Vec<String>, Import)>,
    pub diags: Vec<Diagnostic>,
    /// Resolved signatures (`None` where resolution failed).
    pub sigs: Vec<Option<SigInfo>>,
    /// Resolved fields of the marked structs.
    pub fields: HashMap<String, Vec<(String, DeviceType)>>,
    const_cache: RefCell<HashMap<usize, Res<CVal>>>,
    const_busy: RefCell<HashSet<usize>>,
}

/// Whether an attribute is `#[device]` (any path ending in `device`).
pub(crate) fn is_device_attr(a: &Attribute) -> bool {
    a.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "device")
}

fn marked(attrs: &[Attribute]) -> bool {
    attrs.iter().any(is_device_attr)
}

/// `#[cfg(test)]` (and any `cfg` naming `test`): left out.
fn test_only(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.meta.require_list().is_ok_and(|l| {
                l.tokens
                    .to_string()
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|w| w == "test")
            })
    })
}

/// Whether a function has type or const parameters.
fn generic(sig: &syn::Signature) -> bool {
    sig.generics
        .params
        .iter()
        .any(|g| !matches!(g, syn::GenericParam::Lifetime(_)))
}

fn derives_default(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("derive")
            && a.meta.require_list().is_ok_and(|l| {
                l.tokens
                    .to_string()
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|w| w == "Default")
            })
    })
}

/// A path's segments without the leading `crate`, `self` and `super`.
pub(crate) fn normalize(segs: &[String]) -> Vec<String> {
    let skip = segs
        .iter()
        .take_while(|s| matches!(s.as_str(), "crate" | "self" | "super" | "$crate"))
        .count();
    segs[skip..].to_vec()
}

/// The segments of a path, as strings.
pub(crate) fn path_segs(p: &syn::Path) -> Vec<String> {
    p.segments.iter().map(|s| s.ident.to_string()).collect()
}

fn flatten_use(tree: &UseTree, prefix: &mut Vec<String>, out: &mut Vec<Import>) {
    match tree {
        UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten_use(&p.tree, prefix, out);
            prefix.pop();
        }
        UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                if let Some(last) = prefix.last() {
                    out.push(Import::Name(last.clone(), prefix.clone()));
                }
            } else {
                let mut p = prefix.clone();
                p.push(name.clone());
                out.push(Import::Name(name, p));
            }
        }
        UseTree::Rename(r) => {
            let mut p = prefix.clone();
            p.push(r.ident.to_string());
            out.push(Import::Name(r.rename.to_string(), p));
        }
        UseTree::Glob(_) => out.push(Import::Glob(prefix.clone())),
        UseTree::Group(g) => g.items.iter().for_each(|t| flatten_use(t, prefix, out)),
    }
}

/// Constants and `use` declarations inside a function body.
#[derive(Default)]
struct BodyItems {
    consts: Vec<syn::ItemConst>,
    uses: Vec<Import>,
}

impl<'a> Visit<'a> for BodyItems {
    fn visit_item_const(&mut self, c: &'a syn::ItemConst) {
        self.consts.push(c.clone());
    }

    fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
        flatten_use(&u.tree, &mut Vec::new(), &mut self.uses);
    }

    fn visit_item_fn(&mut self, _: &'a syn::ItemFn) {}
}

impl Program {
    /// Parses and collects the files, checks the device items, resolves
    /// signatures and struct fields and names the constants; problems go to
    /// `diags`.
    pub(crate) fn build(files: &[SourceFile]) -> Program {
        let mut p = Program {
            files: files.to_vec(),
            structs: Vec::new(),
            aliases: Vec::new(),
            consts: Vec::new(),
            fns: Vec::new(),
            templates: Vec::new(),
            unmarked: HashSet::new(),
            imports: Vec::new(),
            diags: Vec::new(),
            sigs: Vec::new(),
            fields: HashMap::new(),
            const_cache: RefCell::new(HashMap::new()),
            const_busy: RefCell::new(HashSet::new()),
        };
        for (k, f) in files.iter().enumerate() {
            match syn::parse_file(&f.text) {
                Ok(ast) => {
                    let module: Vec<String> = f
                        .module
                        .split("::")
                        .filter(|s| !s.is_empty())
                        .map(String::from)
                        .collect();
                    let scope = Scope {
                        file: k,
                        module,
                        ..Scope::default()
                    };
                    p.collect(&ast.items, &scope);
                }
                Err(e) => p.push_diag(k, e.span(), format!("cannot parse: {e}")),
            }
        }
        p.instantiate();
        p.name_functions();
        p.resolve();
        p.name_consts();
        p
    }

    /// A diagnostic at `span` of file `file`.
    pub(crate) fn diag(&self, file: usize, span: Span, msg: impl Into<String>) -> Diagnostic {
        let lc = span.start();
        Diagnostic {
            file: self.files[file].path.clone(),
            line: lc.line.max(1),
            column: lc.column + 1,
            message: msg.into(),
        }
    }

    fn push_diag(&mut self, file: usize, span: Span, msg: impl Into<String>) {
        let d = self.diag(file, span, msg);
        self.diags.push(d);
    }

    fn check(&mut self, file: usize, item: &Item) {
        if let Err(e) = check_item(item) {
            for e in e {
                self.push_diag(file, e.span(), e.to_string());
            }
        }
    }

    fn collect(&mut self, items: &[Item], scope: &Scope) {
        for item in items {
            match item {
                Item::Fn(f) if !test_only(&f.attrs) => {
                    if marked(&f.attrs) && generic(&f.sig) {
                        self.check(scope.file, item);
                        self.templates.push(generic::Template {
                            name: f.sig.ident.to_string(),
                            scope: scope.clone(),
                            item: f.clone(),
                        });
                    } else if marked(&f.attrs) {
                        self.check(scope.file, item);
                        self.add_fn(scope, None, &f.sig, &f.block);
                    } else {
                        self.unmarked.insert((None, f.sig.ident.to_string()));
                    }
                }
                Item::Impl(i) if !test_only(&i.attrs) => self.collect_impl(i, scope),
                Item::Struct(s) if !test_only(&s.attrs) => {
                    let m = marked(&s.attrs);
                    if m {
                        self.check(scope.file, item);
                    }
                    let fields = match &s.fields {
                        syn::Fields::Named(n) => n
                            .named
                            .iter()
                            .map(|f| (f.ident.as_ref().unwrap().to_string(), f.ty.clone()))
                            .collect(),
                        _ => Vec::new(),
                    };
                    self.structs.push(StructDef {
                        name: s.ident.to_string(),
                        scope: scope.clone(),
                        fields,
                        default: derives_default(&s.attrs),
                        marked: m,
                        span: s.ident.span(),
                    });
                }
                Item::Const(c) if !test_only(&c.attrs) => {
                    let m = marked(&c.attrs);
                    if m {
                        self.check(scope.file, item);
                    }
                    self.add_const(scope, ConstOwner::Module, c, m);
                }
                Item::Type(t) if !test_only(&t.attrs) => {
                    if marked(&t.attrs) {
                        self.check(scope.file, item);
                    }
                    self.aliases.push(AliasDef {
                        name: t.ident.to_string(),
                        scope: scope.clone(),
                        ty: (*t.ty).clone(),
                    });
                }
                Item::Mod(m) if !test_only(&m.attrs) => {
                    if marked(&m.attrs) {
                        self.check(scope.file, item);
                    }
                    if let Some((_, items)) = &m.content {
                        let mut inner = scope.clone();
                        inner.module.push(m.ident.to_string());
                        self.collect(items, &inner);
                    }
                }
                Item::Use(u) if !test_only(&u.attrs) => {
                    let mut out = Vec::new();
                    flatten_use(&u.tree, &mut Vec::new(), &mut out);
                    for i in out {
                        self.imports.push((scope.module.clone(), i));
                    }
                }
                Item::Enum(syn::ItemEnum { attrs, .. })
                | Item::Static(syn::ItemStatic { attrs, .. })
                | Item::Trait(syn::ItemTrait { attrs, .. })
                | Item::Union(syn::ItemUnion { attrs, .. })
                    if marked(attrs) =>
                {
                    self.check(scope.file, item)
                }
                _ => {}
            }
        }
    }

    fn collect_impl(&mut self, i: &syn::ItemImpl, scope: &Scope) {
        let whole = marked(&i.attrs);
        if whole {
            self.check(scope.file, &Item::Impl(i.clone()));
        }
        let self_ty = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let Some(self_ty) = self_ty else { return };
        // Trait impls are read as inherent ones: `E::flux` in a generic
        // function's copy names `Euler::flux` whichever impl gives it.
        if !i.generics.params.is_empty() {
            return;
        }
        let mut inner = scope.clone();
        inner.self_ty = Some(self_ty.clone());
        for it in &i.items {
            match it {
                ImplItem::Fn(f) if !test_only(&f.attrs) => {
                    if whole || marked(&f.attrs) {
                        if !whole {
                            let as_fn = syn::ItemFn {
                                attrs: f.attrs.clone(),
                                vis: f.vis.clone(),
                                sig: f.sig.clone(),
                                block: Box::new(f.block.clone()),
                            };
                            self.check(scope.file, &Item::Fn(as_fn));
                        }
                        self.add_fn(&inner, Some(&self_ty), &f.sig, &f.block);
                    } else {
                        self.unmarked
                            .insert((Some(self_ty.clone()), f.sig.ident.to_string()));
                    }
                }
                ImplItem::Const(c) => {
                    let ic = syn::ItemConst {
                        attrs: c.attrs.clone(),
                        vis: c.vis.clone(),
                        const_token: c.const_token,
                        ident: c.ident.clone(),
                        generics: c.generics.clone(),
                        colon_token: c.colon_token,
                        ty: Box::new(c.ty.clone()),
                        eq_token: c.eq_token,
                        expr: Box::new(c.expr.clone()),
                        semi_token: c.semi_token,
                    };
                    self.add_const(&inner, ConstOwner::Impl(self_ty.clone()), &ic, whole);
                }
                _ => {}
            }
        }
    }

    fn add_const(&mut self, scope: &Scope, owner: ConstOwner, c: &syn::ItemConst, m: bool) {
        self.consts.push(ConstDef {
            name: c.ident.to_string(),
            scope: scope.clone(),
            owner,
            ty: (*c.ty).clone(),
            expr: (*c.expr).clone(),
            span: c.ident.span(),
            marked: m,
            c_name: String::new(),
        });
    }

    fn add_fn(
        &mut self,
        scope: &Scope,
        self_ty: Option<&str>,
        sig: &syn::Signature,
        b: &syn::Block,
    ) {
        let idx = self.fns.len();
        let mut fscope = scope.clone();
        fscope.func = Some(idx);
        let mut body = BodyItems::default();
        body.visit_block(b);
        for c in &body.consts {
            self.add_const(&fscope, ConstOwner::Fn(idx), c, false);
        }
        let name = sig.ident.to_string();
        let mut path = scope.module.clone();
        path.extend(self_ty.map(String::from));
        path.push(name.clone());
        let alone = syn::ItemFn {
            attrs: Vec::new(),
            vis: syn::Visibility::Inherited,
            sig: sig.clone(),
            block: Box::new(b.clone()),
        };
        let checked = check_item(&Item::Fn(alone)).is_ok();
        self.fns.push(FnDef {
            name,
            scope: fscope,
            sig: sig.clone(),
            block: b.clone(),
            span: sig.ident.span(),
            c_name: String::new(),
            rust_path: path.join("::"),
            imports: body.uses,
            checked,
        });
    }

    /// C names of functions: a free function keeps its name (with `_`
    /// appended if C reserves it), a method is `<Struct>_<name>`.
    fn name_functions(&mut self) {
        let mut seen: HashMap<String, usize> = HashMap::new();
        for k in 0..self.fns.len() {
            let f = &self.fns[k];
            let c = match &f.scope.self_ty {
                Some(s) => format!("{s}_{}", f.name),
                None if is_reserved(&f.name) => format!("{}_", f.name),
                None => f.name.clone(),
            };
            if f.scope.self_ty.is_none() && (f.name.starts_with("qf_") || f.name.starts_with("QF_"))
            {
                let (file, span) = (f.scope.file, f.span);
                self.push_diag(
                    file,
                    span,
                    "names starting with `qf_` are reserved for generated C",
                );
            }
            if let Some(&other) = seen.get(&c) {
                let (file, span) = (self.fns[k].scope.file, self.fns[k].span);
                let msg = format!(
                    "device function `{}` has the C name `{c}` of `{}`: free functions' names \
                     must be unique program-wide",
                    self.fns[k].rust_path, self.fns[other].rust_path
                );
                self.push_diag(file, span, msg);
            }
            seen.insert(c.clone(), k);
            self.fns[k].c_name = c;
        }
    }

    /// C names of constants: the name, prefixed by the inline modules below
    /// the file's module (`erf_consts_PP`), the function (`ln_LG1`) or the
    /// struct (`Frame_N`) it belongs to; by the whole module path where
    /// that is not unique.
    fn name_consts(&mut self) {
        let mut base: Vec<String> = Vec::new();
        for c in &self.consts {
            let file_depth = self.files[c.scope.file]
                .module
                .split("::")
                .filter(|s| !s.is_empty())
                .count();
            let b = match &c.owner {
                ConstOwner::Module => {
                    let inner = &c.scope.module[file_depth.min(c.scope.module.len())..];
                    if inner.is_empty() {
                        c.name.clone()
                    } else {
                        format!("{}_{}", inner.join("_"), c.name)
                    }
                }
                ConstOwner::Fn(f) => format!("{}_{}", self.fns[*f].c_name, c.name),
                ConstOwner::Impl(s) => format!("{s}_{}", c.name),
            };
            base.push(b);
        }
        let mut count: HashMap<&str, usize> = HashMap::new();
        for b in &base {
            *count.entry(b).or_default() += 1;
        }
        let fn_names: HashSet<&str> = self.fns.iter().map(|f| f.c_name.as_str()).collect();
        let mut names: Vec<String> = Vec::new();
        let mut taken: HashSet<String> = HashSet::new();
        for (k, c) in self.consts.iter().enumerate() {
            let mut n = base[k].clone();
            if count[base[k].as_str()] > 1 || is_reserved(&n) || fn_names.contains(n.as_str()) {
                let mut full = c.scope.module.clone();
                full.push(n);
                n = full.join("_");
            }
            let mut m = n.clone();
            let mut i = 1;
            while taken.contains(&m) || is_reserved(&m) || fn_names.contains(m.as_str()) {
                m = format!("{n}_{i}");
                i += 1;
            }
            taken.insert(m.clone());
            names.push(m);
        }
        for (c, n) in self.consts.iter_mut().zip(names) {
            c.c_name = n;
        }
    }

    /// Resolves every device function's signature and every marked
    /// struct's fields.
    fn resolve(&mut self) {
        let mut seen: HashMap<String, usize> = HashMap::new();
        for k in 0..self.structs.len() {
            let s = &self.structs[k];
            if !s.marked {
                continue;
            }
            if seen.contains_key(&s.name) {
                let (f, sp, n) = (s.scope.file, s.span, s.name.clone());
                self.push_diag(f, sp, format!("two device structs are named `{n}`"));
                continue;
            }
            if is_reserved(&s.name) {
                let (f, sp, n) = (s.scope.file, s.span, s.name.clone());
                self.push_diag(f, sp, format!("`{n}` is reserved in C; rename the struct"));
            }
            seen.insert(self.structs[k].name.clone(), k);
            let mut fields = Vec::new();
            let mut ok = true;
            for (name, ty) in &self.structs[k].fields {
                match self.resolve_type(ty, &self.structs[k].scope) {
                    Ok(t) if t.is_accessor() || t == DeviceType::Unit => {
                        let d = self.diag(
                            self.structs[k].scope.file,
                            ty.span(),
                            format!("`{t}` is not supported as a struct field"),
                        );
                        self.diags.push(d);
                        ok = false;
                    }
                    Ok(t) => fields.push((name.clone(), t)),
                    Err(e) => {
                        let d = self.diag(self.structs[k].scope.file, e.span, e.msg);
                        self.diags.push(d);
                        ok = false;
                    }
                }
            }
            // A struct without fields is a type argument only, never a value.
            if ok && !self.structs[k].fields.is_empty() {
                let name = self.structs[k].name.clone();
                self.fields.insert(name, fields);
            }
        }
        for k in 0..self.fns.len() {
            match self.signature(k) {
                Ok(s) => self.sigs.push(Some(s)),
                Err(e) => {
                    // An item the check rejects has its messages already.
                    if self.fns[k].checked {
                        let d = self.diag(self.fns[k].scope.file, e.span, e.msg);
                        self.diags.push(d);
                    }
                    self.sigs.push(None);
                }
            }
        }
    }

    /// The value of constant `k` (evaluated once).
    pub(crate) fn const_value(&self, k: usize) -> Res<CVal> {
        if let Some(v) = self.const_cache.borrow().get(&k) {
            return v.clone();
        }
        let c = &self.consts[k];
        if !self.const_busy.borrow_mut().insert(k) {
            return Err(Fail::new(
                c.span,
                format!("constant `{}` depends on itself", c.name),
            ));
        }
        let r = self.eval_const_item(k);
        self.const_busy.borrow_mut().remove(&k);
        self.const_cache.borrow_mut().insert(k, r.clone());
        r
    }
}
