//! A method's lists of loops, dats and globals, the dats and globals
//! derived from the loops' arguments at compile time
//! ([`crate::method_lists!`]), so that a loop declared with a new dat or
//! global cannot be left out of them.
//!
//! A dat or global is listed once, by name, in the order its first loop
//! names it; the loops come in the order they are listed. Dats no loop
//! names (a Runge-Kutta stage's registers, which a method swaps into a
//! loop's argument) are listed after the loops', in the order given.

use super::{ArgKind, DatDecl, GlobalDecl, LoopDecl};

/// Whether two names are the same (a `const` comparison).
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The dat of argument `j` of `l`, if it is one.
const fn arg_dat(l: &LoopDecl, j: usize) -> Option<&'static DatDecl> {
    match l.args[j].kind {
        ArgKind::Dat { dat, .. } => Some(dat),
        _ => None,
    }
}

/// The global of argument `j` of `l`, if it is one.
const fn arg_global(l: &LoopDecl, j: usize) -> Option<&'static GlobalDecl> {
    match l.args[j].kind {
        ArgKind::Global { global, .. } => Some(global),
        _ => None,
    }
}

/// The name of argument `j` of `l`'s dat (`dats`) or global, if it is one.
const fn arg_name(l: &LoopDecl, j: usize, dats: bool) -> Option<&'static str> {
    match (arg_dat(l, j), arg_global(l, j)) {
        (Some(d), _) if dats => Some(d.name),
        (_, Some(g)) if !dats => Some(g.name),
        _ => None,
    }
}

/// Whether an argument before argument `j` of loop `i` names `name` (as a
/// dat, `dats`, or a global).
const fn named_before(loops: &[&LoopDecl], i: usize, j: usize, name: &str, dats: bool) -> bool {
    let mut a = 0;
    while a <= i {
        let end = if a == i { j } else { loops[a].args.len() };
        let mut b = 0;
        while b < end {
            if let Some(x) = arg_name(loops[a], b, dats) {
                if same(x, name) {
                    return true;
                }
            }
            b += 1;
        }
        a += 1;
    }
    false
}

/// Whether some argument of the loops names `name` (as a dat or global).
const fn named(loops: &[&LoopDecl], name: &str, dats: bool) -> bool {
    let n = loops.len();
    n > 0 && named_before(loops, n - 1, loops[n - 1].args.len(), name, dats)
}

/// Whether `name` is among the first `k` of `names`.
const fn among(names: &[&str], k: usize, name: &str) -> bool {
    let mut e = 0;
    while e < k {
        if same(names[e], name) {
            return true;
        }
        e += 1;
    }
    false
}

/// How many different dats (`dats`) or globals the loops and the extra
/// names name.
const fn count(loops: &[&LoopDecl], extra: &[&str], dats: bool) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < loops.len() {
        let mut j = 0;
        while j < loops[i].args.len() {
            if let Some(x) = arg_name(loops[i], j, dats) {
                if !named_before(loops, i, j, x, dats) {
                    n += 1;
                }
            }
            j += 1;
        }
        i += 1;
    }
    let mut e = 0;
    while e < extra.len() {
        if !named(loops, extra[e], dats) && !among(extra, e, extra[e]) {
            n += 1;
        }
        e += 1;
    }
    n
}

/// The `const` functions of one kind of declaration (dats or globals):
/// the names of extra ones, their count and their list.
macro_rules! lists_of {
    (
        $decl:ident, $arg:ident, $dats:literal, $what:literal,
        $names:ident, $count:ident, $list:ident
    ) => {
        #[doc = concat!("The names of `extra` ", $what, " (a `const` map).")]
        const fn $names<const M: usize>(extra: &[&'static $decl; M]) -> [&'static str; M] {
            let mut out = [""; M];
            let mut e = 0;
            while e < M {
                out[e] = extra[e].name;
                e += 1;
            }
            out
        }

        #[doc = concat!("How many different ", $what, " the loops and `extra` name.")]
        pub const fn $count<const M: usize>(
            loops: &[&LoopDecl],
            extra: &[&'static $decl; M],
        ) -> usize {
            count(loops, &$names(extra), $dats)
        }

        #[doc = concat!("The different ", $what, " the loops and `extra` name, `N` of them ([`", stringify!($count), "`]), in order of first appearance.")]
        pub const fn $list<const N: usize, const M: usize>(
            loops: &[&LoopDecl],
            extra: &[&'static $decl; M],
        ) -> [&'static $decl; N] {
            let mut out: [Option<&'static $decl>; N] = [None; N];
            let mut n = 0;
            let mut i = 0;
            while i < loops.len() {
                let mut j = 0;
                while j < loops[i].args.len() {
                    if let Some(d) = $arg(loops[i], j) {
                        if !named_before(loops, i, j, d.name, $dats) {
                            out[n] = Some(d);
                            n += 1;
                        }
                    }
                    j += 1;
                }
                i += 1;
            }
            let names = $names(extra);
            let mut e = 0;
            while e < M {
                if !named(loops, names[e], $dats) && !among(&names, e, names[e]) {
                    out[n] = Some(extra[e]);
                    n += 1;
                }
                e += 1;
            }
            let Some(first) = out[0] else {
                panic!(concat!("a method's loops name no ", $what));
            };
            let mut all = [first; N];
            let mut k = 0;
            while k < N {
                if let Some(d) = out[k] {
                    all[k] = d;
                }
                k += 1;
            }
            all
        }
    };
}

lists_of!(DatDecl, arg_dat, true, "dats", dat_names, dat_count, dats);
lists_of!(
    GlobalDecl,
    arg_global,
    false,
    "globals",
    global_names,
    global_count,
    globals
);

/// Declares a method's loops and derives its dats and globals from them
/// (at compile time: plain arrays, listed once by name in order of first
/// appearance). Dats or globals no loop names follow `+` in brackets.
///
/// ```ignore
/// qflow_par::method_lists! {
///     /// Every loop of the method.
///     pub static LOOPS = [&SAVE, &STEP];
///     /// Every dat of the method (its loops', then the stage registers).
///     pub static DATS + [&K2, &K3];
///     /// Every global of the method.
///     pub static GLOBALS;
/// }
/// ```
#[macro_export]
macro_rules! method_lists {
    (
        $(#[$lm:meta])* $lv:vis static $loops:ident = [$($l:expr),+ $(,)?];
        $(#[$dm:meta])* $dv:vis static $dats:ident $(+ [$($d:expr),* $(,)?])?;
        $(#[$gm:meta])* $gv:vis static $globals:ident $(+ [$($g:expr),* $(,)?])?;
    ) => {
        $(#[$lm])*
        $lv static $loops: [&$crate::LoopDecl; [$(stringify!($l)),+].len()] = [$($l),+];
        $(#[$dm])*
        $dv static $dats: [
            &$crate::DatDecl;
            $crate::decl::lists::dat_count(&$loops, &[$($($d),*)?])
        ] = $crate::decl::lists::dats(&$loops, &[$($($d),*)?]);
        $(#[$gm])*
        $gv static $globals: [
            &$crate::GlobalDecl;
            $crate::decl::lists::global_count(&$loops, &[$($($g),*)?])
        ] = $crate::decl::lists::globals(&$loops, &[$($($g),*)?]);
    };
}
