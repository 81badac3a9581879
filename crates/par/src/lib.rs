//! qflow's execution layer, in the spirit of OP2 and OPS, extended where
//! meshfree methods need it.
//!
//! A method declares its **sets** (points, cells, edges, boundary faces,
//! structured blocks), **maps** between them (fixed arity, or compressed
//! rows for stencils), **dats** (per-element data) and **globals**, and
//! its **parallel loops**: a kernel (a Rust function of one element) over
//! a set, each argument naming its dat, how it is reached and how it is
//! used ([`decl`], [`par_loop!`]). From those declarations alone the layer
//! derives
//!
//! - what a distributed run exchanges before a loop: the halos of dats the
//!   loop reads through a map or stencil, only when stale ([`exec`]);
//! - which elements can be computed while halos travel (the core);
//! - what an OpenCL kernel binds (argument by argument), and the kernel's
//!   device code, translated at build time from the same Rust
//!   (`qflow-par-codegen`);
//! - which dats a checkpoint holds (those declared as state, [`decl::Role`]);
//! - how a loop that increments through a map runs in parallel: a
//!   colouring of its elements ([`plan`]), after a renumbering for
//!   locality if asked ([`reorder`]).
//!
//! Backends ([`backend`]): serial, threads (rayon; the same bits for any
//! thread count), OpenCL (feature `opencl`). The distributed layer
//! ([`exec`], [`comm`]) wraps any of them over a [`comm::Comm`] whose world
//! of one rank is the plain build: one code path with and without MPI
//! (feature `mpi`). The run driver ([`driver`]) runs any method that
//! implements [`driver::Method`]: time loop, stop rules, checkpoints and
//! resume, progress, history and summary.
#![deny(missing_docs)]

pub mod backend;
pub mod block;
pub mod comm;
pub mod decl;
pub mod driver;
pub mod exec;
pub mod kernel;
pub mod launch;
pub mod layout;
mod macros;
pub mod memory;
pub mod part;
pub mod plan;
pub mod problem;
pub mod reorder;

pub use decl::{
    Access, ArgDecl, ArgKind, Arity, Axis, DatDecl, ElemType, GlobalDecl, GlobalKind, LoopDecl,
    MapDecl, Reduction, Role, SetDecl, StencilDecl, Via,
};
pub use exec::{Exec, ExecError};
pub use kernel::{Line, LineOffsets, LineRead, LineWrite, Offsets, Star};
pub use problem::{DatData, MapData, PartitionHints, Problem, SetData, Shape, Values};
