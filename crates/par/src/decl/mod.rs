//! Declarations: what a method's data are and what each of its loops does
//! with them, stated once, as `static` items.
//!
//! - a [`SetDecl`] is a kind of element: points, cells, edges, boundary
//!   faces, or the cells of a structured block;
//! - a [`DatDecl`] is per-element data on a set: `dim` values of one type
//!   per element, with a [`Role`] (problem input, solution state that a
//!   checkpoint holds, or scratch);
//! - a [`MapDecl`] connects the elements of one set to elements of another,
//!   `arity` of them each ([`Arity::Fixed`]) or a varying number stored as
//!   compressed rows ([`Arity::Variable`]: a point's stencil);
//! - a [`StencilDecl`] is a structured block's neighbourhood as offsets;
//! - a [`GlobalDecl`] is a value outside the sets: a constant the kernels
//!   read, or a reduction (sum, min, max) they contribute to;
//! - a [`LoopDecl`] runs a kernel over a set; each of its arguments
//!   ([`ArgDecl`]) names its dat, how it is reached ([`Via`]) and its
//!   [`Access`] mode, or a global.
//!
//! Everything the execution layer does follows from these: which halos a
//! distributed run refreshes before a loop (dats read through a map or a
//! stencil whose ghost copies are stale), which elements can be computed
//! while they travel, what an OpenCL kernel binds, and which dats a
//! checkpoint holds.

use std::fmt;

use crate::kernel::CpuRunner;

/// A set of elements.
#[derive(Debug)]
pub struct SetDecl {
    /// The set's name (unique within a method).
    pub name: &'static str,
}

/// The type of a dat's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemType {
    /// 64-bit floating point.
    F64,
    /// 32-bit signed integer (flags, kinds).
    I32,
}

impl ElemType {
    /// Bytes of one value.
    pub fn bytes(self) -> usize {
        match self {
            ElemType::F64 => 8,
            ElemType::I32 => 4,
        }
    }

    /// The Rust spelling.
    pub fn name(self) -> &'static str {
        match self {
            ElemType::F64 => "f64",
            ElemType::I32 => "i32",
        }
    }
}

/// What a dat is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Given with the problem (geometry, connectivity-derived data): part of
    /// the problem's fingerprint, never checkpointed.
    Input,
    /// Solution state carried from one step to the next: a checkpoint holds
    /// it and a resume restores it.
    State,
    /// Recomputed within a step before it is read.
    Scratch,
}

/// Per-element data on a set.
#[derive(Debug)]
pub struct DatDecl {
    /// The dat's name (unique within a method).
    pub name: &'static str,
    /// The set it lives on.
    pub set: &'static SetDecl,
    /// Values per element.
    pub dim: usize,
    /// The values' type.
    pub ty: ElemType,
    /// What the dat is for.
    pub role: Role,
    /// Kernels take an element as an array even where `dim` is 1 (`[f64;
    /// 1]`, not `f64`): a dat sized by a parameter that may be 1.
    pub array: bool,
}

impl DatDecl {
    /// A dat of `dim` `f64` values per element (kernels take one value as
    /// `f64`, more as `[f64; dim]`).
    pub const fn f64(name: &'static str, set: &'static SetDecl, dim: usize, role: Role) -> Self {
        DatDecl {
            name,
            set,
            dim,
            ty: ElemType::F64,
            role,
            array: false,
        }
    }

    /// A dat of `dim` `f64` values per element that kernels take as
    /// `[f64; dim]` for every `dim`, 1 included.
    pub const fn f64_array(
        name: &'static str,
        set: &'static SetDecl,
        dim: usize,
        role: Role,
    ) -> Self {
        DatDecl {
            array: true,
            ..DatDecl::f64(name, set, dim, role)
        }
    }

    /// Whether kernels take an element as one value (not an array).
    pub const fn is_scalar(&self) -> bool {
        self.dim == 1 && !self.array
    }

    /// A dat of `dim` `i32` values per element.
    pub const fn i32(name: &'static str, set: &'static SetDecl, dim: usize, role: Role) -> Self {
        DatDecl {
            name,
            set,
            dim,
            ty: ElemType::I32,
            role,
            array: false,
        }
    }
}

/// How many target elements a map gives each source element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Exactly this many (an edge's two cells, a cell's four nodes).
    Fixed(usize),
    /// A varying number, stored as compressed rows (a point's stencil).
    Variable,
}

/// A map from the elements of one set to elements of another.
#[derive(Debug)]
pub struct MapDecl {
    /// The map's name (unique within a method).
    pub name: &'static str,
    /// The set mapped from.
    pub from: &'static SetDecl,
    /// The set mapped to.
    pub to: &'static SetDecl,
    /// Targets per source element.
    pub arity: Arity,
}

/// A structured block's neighbourhood: offsets `(dx, dy, dz)` from an
/// element (unused dimensions 0). The largest offset in each direction is
/// the halo depth a distributed run keeps.
#[derive(Debug)]
pub struct StencilDecl {
    /// The stencil's name.
    pub name: &'static str,
    /// The block set it is used on.
    pub set: &'static SetDecl,
    /// The offsets, the element itself included if it is read.
    pub offsets: &'static [[i32; 3]],
}

impl StencilDecl {
    /// The largest `|offset|` per direction.
    pub fn depth(&self) -> [usize; 3] {
        let mut d = [0usize; 3];
        for o in self.offsets {
            for k in 0..3 {
                d[k] = d[k].max(o[k].unsigned_abs() as usize);
            }
        }
        d
    }
}

/// How a reduction combines the contributions of the elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// Sum, exact (order-independent, so every backend, thread count and
    /// rank count gives the same bits on the CPU).
    Sum,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
}

/// What a global is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalKind {
    /// A constant the kernels read, set by the method before a loop.
    Const(ElemType),
    /// A reduction the kernels contribute to. It accumulates over the loops
    /// that name it until the method resets it.
    Reduce(Reduction),
}

/// A value outside the sets.
#[derive(Debug)]
pub struct GlobalDecl {
    /// The global's name (unique within a method).
    pub name: &'static str,
    /// Number of values.
    pub dim: usize,
    /// Constant or reduction.
    pub kind: GlobalKind,
}

impl GlobalDecl {
    /// A constant of `dim` `f64` values.
    pub const fn f64(name: &'static str, dim: usize) -> Self {
        GlobalDecl {
            name,
            dim,
            kind: GlobalKind::Const(ElemType::F64),
        }
    }

    /// A constant of `dim` `i32` values.
    pub const fn i32(name: &'static str, dim: usize) -> Self {
        GlobalDecl {
            name,
            dim,
            kind: GlobalKind::Const(ElemType::I32),
        }
    }

    /// A reduction of `dim` `f64` values.
    pub const fn reduce(name: &'static str, dim: usize, op: Reduction) -> Self {
        GlobalDecl {
            name,
            dim,
            kind: GlobalKind::Reduce(op),
        }
    }
}

/// How a loop uses a dat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read only.
    Read,
    /// Written (every value of the element), not read.
    Write,
    /// Read and written.
    ReadWrite,
    /// Incremented: the kernel adds to it (through a map, several elements
    /// of the loop may add to the same target).
    Inc,
}

impl Access {
    /// Whether the loop changes the dat.
    pub fn writes(self) -> bool {
        !matches!(self, Access::Read)
    }

    /// The keyword of the loop macro.
    pub fn keyword(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
            Access::ReadWrite => "rw",
            Access::Inc => "inc",
        }
    }
}

/// How a loop's element reaches a dat.
#[derive(Clone, Copy, Debug)]
pub enum Via {
    /// The element's own value (the dat is on the loop's set).
    Direct,
    /// Through slot `k` of a fixed-arity map from the loop's set.
    Map(&'static MapDecl, usize),
    /// Through a compressed-row map from the loop's set (the kernel gets a
    /// `Star`): to itself, the element and its neighbours (a stencil); to
    /// another set, a row of its elements of any length (a cell's nodes).
    Star(&'static MapDecl),
    /// Structured: the element's neighbours at the stencil's offsets (the
    /// kernel gets an `Offsets`).
    Offsets(&'static StencilDecl),
}

impl Via {
    /// Whether the access reads other elements than the loop's own (and so
    /// needs fresh halo values in a distributed run).
    pub fn reaches_others(self) -> bool {
        !matches!(self, Via::Direct)
    }
}

/// What one argument of a loop is.
#[derive(Clone, Copy, Debug)]
pub enum ArgKind {
    /// A dat, reached `via`, used as `access` says.
    Dat {
        /// The dat.
        dat: &'static DatDecl,
        /// How it is reached.
        via: Via,
        /// How it is used.
        access: Access,
    },
    /// Work space of a device type, private to a thread (a chunk of
    /// elements on the CPU, one work item on a device), made by `ctor` and
    /// handed to every element it runs: the kernel must not depend on what
    /// an earlier element left in it.
    Scratch {
        /// The type's name.
        ty: &'static str,
        /// Its constructor's device name (`Type_new`).
        ctor: &'static str,
    },
    /// A global: a constant read by every element, or a reduction.
    Global {
        /// The global.
        global: &'static GlobalDecl,
        /// How the loop uses it.
        usage: GlobalUse,
    },
}

/// How a loop uses a global.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalUse {
    /// Reads a constant.
    Read,
    /// Contributes to a reduction.
    Reduce(Reduction),
}

/// One argument of a loop: the kernel parameter it binds to, and what it is.
#[derive(Clone, Copy, Debug)]
pub struct ArgDecl {
    /// The kernel's parameter name.
    pub name: &'static str,
    /// What is passed.
    pub kind: ArgKind,
}

/// A parallel loop: a kernel over every element of a set, with its
/// arguments in the kernel's parameter order.
pub struct LoopDecl {
    /// The loop's name (the kernel's, unless a kernel runs in several loops).
    pub name: &'static str,
    /// The kernel function's name (the device code's entry).
    pub kernel: &'static str,
    /// The set iterated over.
    pub set: &'static SetDecl,
    /// The arguments.
    pub args: &'static [ArgDecl],
    /// The kernel over spans of elements on the CPU (generated by
    /// [`crate::par_loop!`]).
    pub cpu: CpuRunner,
    /// `Some`: the loop is a Gauss-Seidel sweep, run colour by colour.
    pub sweep: Option<Sweep>,
    /// `Some`: a line loop on a structured block ([`Axis`]): its kernel
    /// gets a whole line of elements along the axis and writes all of them.
    pub line: Option<Axis>,
}

/// A direction of a block (x, y, z; in case files `"x"`, `"y"`, `"z"`):
/// that of a line loop ([`LoopDecl::line`]), or of a method's own, such
/// as the normal of a picture's plane.
///
/// A line loop's kernel is called once per line of its block's elements
/// along the axis (a row along x, a column along y; the layer hands it
/// whole lines of a rank's owned box, or pieces of them while halos
/// travel), gets every dat argument as a view of that line
/// ([`crate::kernel::Line`]) and writes every element of it, so that it
/// can march along the line and carry values (a flux, a filtered state)
/// from one element to the next instead of recomputing them per element.
/// Its result for an element must not depend on where the line starts or
/// ends: a line cut in two gives the same bits (what the kernel carries
/// must be recomputed exactly at a line's start). Serial, threads and
/// ranks then give the same bits. CPU backends only: OpenCL does not
/// offer it ([`crate::backend::LocalBackend::lines`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Axis {
    /// Rows: consecutive elements.
    X,
    /// Columns: elements a row apart.
    Y,
    /// Elements a plane apart.
    Z,
}

impl Axis {
    /// The direction's index (x 0, y 1, z 2).
    pub fn index(self) -> usize {
        match self {
            Axis::X => 0,
            Axis::Y => 1,
            Axis::Z => 2,
        }
    }
}

/// How a sweep loop (a Gauss-Seidel sweep) runs: colour by colour of an
/// `i32` input dat of its set that gives each element a colour no
/// element it reads through its `Star` shares (`plan::stencil_colours`),
/// in increasing colour order or, `reverse`, decreasing. Such a loop may
/// write a dat (directly) that it also reads through its `Star`: the
/// elements of one colour read only other colours' values, which are the
/// current sweep's for the colours already run and the last sweep's for
/// the rest, in any backend and on any number of ranks (the layer
/// refreshes the halos between colours). Serial, threads and ranks give
/// the same bits.
#[derive(Clone, Copy, Debug)]
pub struct Sweep {
    /// The colour of each element (an `i32` input dat of the loop's set).
    pub colour: &'static DatDecl,
    /// Colours in decreasing order (a backward sweep).
    pub reverse: bool,
}

impl fmt::Debug for LoopDecl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopDecl")
            .field("name", &self.name)
            .field("set", &self.set.name)
            .field("args", &self.args)
            .field("line", &self.line)
            .finish()
    }
}

pub mod lists;
mod validate;
pub use validate::DeclError;
