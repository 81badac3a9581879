//! The `par_loop!` macro: a loop's declaration and its CPU runner from one
//! statement.

/// Declares a parallel loop: the kernel, the set it runs over, and for
/// every kernel parameter (in order) its dat or global, how it is reached
/// and how it is used.
///
/// ```ignore
/// par_loop! {
///     /// First least-squares q-derivatives.
///     pub static Q_DERIVATIVES = q_derivatives over POINTS {
///         power: global(POWER),
///         x: read(X via STENCIL),
///         y: read(Y via STENCIL),
///         q: read(Q via STENCIL),
///         qx: write(QX),
///         qy: write(QY),
///     }
/// }
/// ```
///
/// Argument forms: `read(D)`, `write(D)`, `rw(D)`, `inc(D)` (the
/// element's own value); `read(D via M[k])`, `inc(D via M[k])` (slot `k` of
/// a fixed-arity map); `read(D via M)` (a `Star` through a compressed-row
/// map); `read(D at S)` (an `Offsets` through a structured stencil);
/// `global(G)` (a constant); `sum(G)`, `min(G)`, `max(G)` (reductions);
/// `scratch(Type::new)` (work space of a device type, made once per chunk
/// of elements on the CPU and once per work item on a device).
///
/// `over SET along x` (or `along y`, `along z`) declares a line loop
/// ([`Axis`](crate::decl::Axis)): the kernel is called once per line of
/// the block along that axis and gets its dat arguments as line views
/// ([`crate::kernel::Line`]); it takes `read(D at S)`, `read(D)`,
/// `write(D)`, `rw(D)`, globals, `min`/`max` reductions and
/// `scratch(Type::new)` (made once per call of the runner, for all the
/// lines it runs: buffers a kernel marches through).
///
/// `over SET in colours(C)` (or `in colours_reversed(C)`) declares a
/// Gauss-Seidel sweep ([`Sweep`](crate::decl::Sweep)): the loop runs colour
/// by colour of the `i32` dat `C`, and may write a dat it reads through its
/// `Star`.
///
/// It defines a `static` [`LoopDecl`](crate::decl::LoopDecl) whose CPU
/// runner calls the kernel element by element, built both for the target's
/// baseline and, on x86-64 processors that have it, for AVX2 (chosen at run
/// time; the same bits, since neither contracts `a * b + c` into a fused
/// multiply-add), and each of those twice: with views for arrays of
/// structures (no layout test in the hot loop) and with views that copy a
/// structure of arrays per component ([`crate::layout`]). The kernel and
/// every function it calls in its hot loops should be `#[inline(always)]`,
/// so that the AVX2 build covers them (a kernel left to the compiler's
/// choice may stay out of line, compiled for the baseline only).
///
/// `where avx2(EXPR)` after the set (a `bool` constant expression) runs
/// the AVX2 build only where `EXPR` holds as well; where it does not, the
/// baseline build calls the kernel out of line ([`crate::kernel::apart`]),
/// compiled as a function of its own. For kernels whose inlined AVX2 code
/// is the slower (node loops the compiler splits badly into 4 lanes: the
/// DG kernels of 3, 5 and 6 nodes). Every build gives the same bits.
///
/// `with cpu(PATH)` last, before the arguments, gives the loop a CPU runner
/// of the method's own: `PATH(args, spans, each)`, a function of the
/// [`LoopArgs`](crate::kernel::LoopArgs), the spans and the generated
/// runner `each` (a [`CpuRunner`](crate::kernel::CpuRunner)), for a kernel
/// written by hand for the processor's vector units (several elements at
/// once) where the arguments allow it, calling `each` where they do not.
/// It must give the generated runner's bits; the device code is still the
/// kernel's. (Not for line loops; the method's runner decides for itself
/// which instructions it uses, whatever `where avx2(...)` says.)
#[macro_export]
macro_rules! par_loop {
    (
        $(#[$meta:meta])*
        $vis:vis static $loop_name:ident = $kernel:ident over $set:ident along $axis:ident {
            $($arg:ident : $mode:ident ( $($spec:tt)* )),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis static $loop_name: $crate::decl::LoopDecl = $crate::decl::LoopDecl {
            name: stringify!($kernel),
            kernel: stringify!($kernel),
            set: &$set,
            args: &[$($crate::decl::ArgDecl {
                name: stringify!($arg),
                kind: $crate::par_loop!(@decl $mode ($($spec)*)),
            }),*],
            cpu: {
                #[inline(always)]
                #[allow(unused_mut, non_snake_case)]
                fn body(
                    args: &$crate::kernel::LoopArgs<'_>,
                    spans: &[::std::ops::Range<usize>],
                ) {
                    let step = args.line_step($crate::par_loop!(@axis $axis).index());
                    // Vector spills on aligned slots, wherever the stack is.
                    $crate::kernel::align_frame();
                    let mut cursor = args.cursor();
                    // The views without drop glue in the loop (see `@body`).
                    $(let mut $arg = ::core::mem::ManuallyDrop::new(
                        $crate::par_loop!(@line_view cursor $mode ($($spec)*)));)*
                    cursor.done();
                    for span in spans {
                        let line = $crate::kernel::Line::of(span, step);
                        $kernel($($arg.line(&line)),*);
                        $($arg.after();)*
                    }
                    $(let _ = ::core::mem::ManuallyDrop::into_inner($arg);)*
                }
                fn run(
                    args: &$crate::kernel::LoopArgs<'_>,
                    spans: &[::std::ops::Range<usize>],
                ) {
                    #[cfg(target_arch = "x86_64")]
                    {
                        #[target_feature(enable = "avx2")]
                        unsafe fn avx2(
                            args: &$crate::kernel::LoopArgs<'_>,
                            spans: &[::std::ops::Range<usize>],
                        ) {
                            body(args, spans)
                        }
                        if $crate::kernel::use_avx2() {
                            // SAFETY: the processor has AVX2, all `avx2` requires.
                            unsafe { avx2(args, spans) };
                            return;
                        }
                    }
                    body(args, spans)
                }
                run
            },
            sweep: None,
            line: Some($crate::par_loop!(@axis $axis)),
        };
    };
    (
        $(#[$meta:meta])*
        $vis:vis static $loop_name:ident = $kernel:ident over $set:ident
            $(in $order:ident ($colour:ident))? $(where avx2($avx2:expr))?
            $(with cpu($cpu:path))? {
            $($arg:ident : $mode:ident ( $($spec:tt)* )),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis static $loop_name: $crate::decl::LoopDecl = $crate::decl::LoopDecl {
            name: stringify!($kernel),
            kernel: stringify!($kernel),
            set: &$set,
            args: &[$($crate::decl::ArgDecl {
                name: stringify!($arg),
                kind: $crate::par_loop!(@decl $mode ($($spec)*)),
            }),*],
            cpu: {
                #[inline(always)]
                #[allow(unused_mut, non_snake_case)]
                fn body<const SOA: bool>(
                    args: &$crate::kernel::LoopArgs<'_>,
                    spans: &[::std::ops::Range<usize>],
                ) {
                    // Where the AVX2 build is off, the kernel runs out of line.
                    const QF_APART: bool = !$crate::par_loop!(@avx2 $($avx2)?);
                    if SOA {
                        $crate::par_loop!(@body soa args spans QF_APART $kernel { $($arg : $mode ( $($spec)* )),* });
                    } else {
                        $crate::par_loop!(@body aos args spans QF_APART $kernel { $($arg : $mode ( $($spec)* )),* });
                    }
                }
                fn run(
                    args: &$crate::kernel::LoopArgs<'_>,
                    spans: &[::std::ops::Range<usize>],
                ) {
                    #[cfg(target_arch = "x86_64")]
                    {
                        #[target_feature(enable = "avx2")]
                        unsafe fn avx2<const SOA: bool>(
                            args: &$crate::kernel::LoopArgs<'_>,
                            spans: &[::std::ops::Range<usize>],
                        ) {
                            body::<SOA>(args, spans)
                        }
                        if $crate::kernel::use_avx2() && $crate::par_loop!(@avx2 $($avx2)?) {
                            // SAFETY: the processor has AVX2, all `avx2` requires.
                            unsafe {
                                if args.any_soa() {
                                    avx2::<true>(args, spans)
                                } else {
                                    avx2::<false>(args, spans)
                                }
                            };
                            return;
                        }
                    }
                    if args.any_soa() {
                        body::<true>(args, spans)
                    } else {
                        body::<false>(args, spans)
                    }
                }
                $crate::par_loop!(@cpu run $($cpu)?)
            },
            sweep: $crate::par_loop!(@sweep $($order $colour)?),
            line: None,
        };
    };
    // The CPU runner: the generated one, or the method's, which gets the
    // generated one to fall back on.
    (@cpu $run:ident) => { $run };
    (@cpu $run:ident $cpu:path) => {{
        fn custom(args: &$crate::kernel::LoopArgs<'_>, spans: &[::std::ops::Range<usize>]) {
            $cpu(args, spans, $run)
        }
        custom
    }};
    // A line loop's axis.
    (@avx2) => { true };
    (@avx2 $e:expr) => { $e };
    (@axis x) => { $crate::decl::Axis::X };
    (@axis y) => { $crate::decl::Axis::Y };
    (@axis z) => { $crate::decl::Axis::Z };
    // The view a line runner takes for one argument.
    (@line_view $c:ident read ($d:ident at $s:ident)) => { $c.line_offsets() };
    (@line_view $c:ident read ($d:ident)) => { $c.line_read() };
    (@line_view $c:ident write ($d:ident)) => { $c.line_write() };
    (@line_view $c:ident rw ($d:ident)) => { $c.line_write() };
    (@line_view $c:ident global ($g:ident)) => { $c.global() };
    (@line_view $c:ident scratch ($t:ident :: $f:ident)) => { $c.scratch($t::$f()) };
    (@line_view $c:ident sum ($g:ident)) => { $c.reduce() };
    (@line_view $c:ident min ($g:ident)) => { $c.reduce() };
    (@line_view $c:ident max ($g:ident)) => { $c.reduce() };

    // A sweep's order: none, `colours(D)` or `colours_reversed(D)`.
    (@sweep) => { None };
    (@sweep colours $c:ident) => {
        Some($crate::decl::Sweep { colour: &$c, reverse: false })
    };
    (@sweep colours_reversed $c:ident) => {
        Some($crate::decl::Sweep { colour: &$c, reverse: true })
    };

    // A runner's body over views of one layout (`aos`: every dat an array
    // of structures; `soa`: some dat a structure of arrays).
    (@body $layout:ident $args:ident $spans:ident $apart:ident $kernel:ident {
        $($arg:ident : $mode:ident ( $($spec:tt)* )),*
    }) => {{
                    // The maps of the `Star` arguments (`""`: another kind).
                    const STAR_MAPS: &[&str] = &[$($crate::par_loop!(@star_map $mode ($($spec)*))),*];
                    const ONE_STAR_MAP: bool = $crate::kernel::one_star_map(STAR_MAPS);
                    // Vector spills on aligned slots, wherever the stack is.
                    $crate::kernel::align_frame();
                    let mut cursor = $args.cursor();
                    // The views are dropped by hand at the end (a reduction's
                    // view hands its partial result over when dropped): a
                    // view with drop glue alive in the loop gives every
                    // possible panic in the kernel an unwind edge, and then
                    // the compiler leaves the kernel scalar (the last stage
                    // of DG's low-storage scheme: docs/performance.md 6.2).
                    // On a panic the views are leaked, not dropped.
                    $(let mut $arg = ::core::mem::ManuallyDrop::new(
                        $crate::par_loop!(@view $layout cursor $mode ($($spec)*)));)*
                    cursor.done();
                    if ONE_STAR_MAP {
                        // One row per element for every `Star`.
                        let rows = $args.star_rows();
                        for span in $spans {
                            rows.span(span);
                            $($arg.span(span);)*
                            for i in span.clone() {
                                let row = rows.row(i);
                                // SAFETY: `row` is element `i`'s row (of a
                                // checked span) of the map of every `Star`
                                // argument (`star_rows` checked that).
                                if $apart {
                                    $crate::kernel::apart(|| $kernel($(unsafe { $arg.arg_row(i, &row) }),*));
                                } else {
                                    $kernel($(unsafe { $arg.arg_row(i, &row) }),*);
                                }
                                $($arg.after();)*
                            }
                        }
                        $(let _ = ::core::mem::ManuallyDrop::into_inner($arg);)*
                        return;
                    }
                    for span in $spans {
                        $($arg.span(span);)*
                        for i in span.clone() {
                            if $apart {
                                $crate::kernel::apart(|| $kernel($($arg.arg(i)),*));
                            } else {
                                $kernel($($arg.arg(i)),*);
                            }
                            $($arg.after();)*
                        }
                    }
                    $(let _ = ::core::mem::ManuallyDrop::into_inner($arg);)*
                    }};

    // The declaration of one argument.
    (@decl read ($d:ident via $m:ident [$k:expr])) => {
        $crate::par_loop!(@dat $d, $crate::decl::Via::Map(&$m, $k), Read)
    };
    (@decl inc ($d:ident via $m:ident [$k:expr])) => {
        $crate::par_loop!(@dat $d, $crate::decl::Via::Map(&$m, $k), Inc)
    };
    (@decl read ($d:ident via $m:ident)) => {
        $crate::par_loop!(@dat $d, $crate::decl::Via::Star(&$m), Read)
    };
    (@decl read ($d:ident at $s:ident)) => {
        $crate::par_loop!(@dat $d, $crate::decl::Via::Offsets(&$s), Read)
    };
    (@decl read ($d:ident)) => { $crate::par_loop!(@dat $d, $crate::decl::Via::Direct, Read) };
    (@decl write ($d:ident)) => { $crate::par_loop!(@dat $d, $crate::decl::Via::Direct, Write) };
    (@decl rw ($d:ident)) => { $crate::par_loop!(@dat $d, $crate::decl::Via::Direct, ReadWrite) };
    (@decl inc ($d:ident)) => { $crate::par_loop!(@dat $d, $crate::decl::Via::Direct, Inc) };
    (@decl scratch ($t:ident :: $f:ident)) => {
        $crate::decl::ArgKind::Scratch {
            ty: stringify!($t),
            ctor: concat!(stringify!($t), "_", stringify!($f)),
        }
    };
    (@decl global ($g:ident)) => {
        $crate::decl::ArgKind::Global { global: &$g, usage: $crate::decl::GlobalUse::Read }
    };
    (@decl sum ($g:ident)) => { $crate::par_loop!(@red $g, Sum) };
    (@decl min ($g:ident)) => { $crate::par_loop!(@red $g, Min) };
    (@decl max ($g:ident)) => { $crate::par_loop!(@red $g, Max) };
    (@dat $d:ident, $via:expr, $access:ident) => {
        $crate::decl::ArgKind::Dat {
            dat: &$d,
            via: $via,
            access: $crate::decl::Access::$access,
        }
    };
    (@red $g:ident, $op:ident) => {
        $crate::decl::ArgKind::Global {
            global: &$g,
            usage: $crate::decl::GlobalUse::Reduce($crate::decl::Reduction::$op),
        }
    };

    // The map of a `Star` argument, `""` for the others.
    (@star_map read ($d:ident via $m:ident)) => { stringify!($m) };
    (@star_map $mode:ident ($($spec:tt)*)) => { "" };

    // The view a runner takes for one argument, for a layout.
    (@view aos $c:ident read ($d:ident via $m:ident [$k:expr])) => { $c.mapped() };
    (@view soa $c:ident read ($d:ident via $m:ident [$k:expr])) => { $c.mapped_soa() };
    (@view aos $c:ident inc ($d:ident via $m:ident [$k:expr])) => { $c.mapped_inc::<_, false>() };
    (@view soa $c:ident inc ($d:ident via $m:ident [$k:expr])) => { $c.mapped_inc::<_, true>() };
    (@view $l:ident $c:ident read ($d:ident via $m:ident)) => { $c.star() };
    (@view $l:ident $c:ident read ($d:ident at $s:ident)) => { $c.offsets() };
    (@view aos $c:ident read ($d:ident)) => { $c.read() };
    (@view soa $c:ident read ($d:ident)) => { $c.read_soa() };
    (@view aos $c:ident write ($d:ident)) => { $c.write() };
    (@view soa $c:ident write ($d:ident)) => { $c.write_soa() };
    (@view aos $c:ident rw ($d:ident)) => { $c.write() };
    (@view soa $c:ident rw ($d:ident)) => { $c.write_soa() };
    (@view aos $c:ident inc ($d:ident)) => { $c.write() };
    (@view soa $c:ident inc ($d:ident)) => { $c.write_soa() };
    (@view $l:ident $c:ident global ($g:ident)) => { $c.global() };
    (@view $l:ident $c:ident scratch ($t:ident :: $f:ident)) => { $c.scratch($t::$f()) };
    (@view $l:ident $c:ident sum ($g:ident)) => { $c.reduce() };
    (@view $l:ident $c:ident min ($g:ident)) => { $c.reduce() };
    (@view $l:ident $c:ident max ($g:ident)) => { $c.reduce() };
}
