//! The distributed layer over MPI (feature `mpi`).
//!
//! A cloud is cut into parts, one per MPI rank ([`qflow_mesh::partition`]).
//! Each rank holds only its part: its owned points and ghost copies of the
//! points of other ranks that its stencils read, numbered locally
//!
//! ```text
//! 0 .. n_interior          owned, stencil wholly owned ("interior")
//! n_interior .. n_owned    owned, stencil reads ghosts ("boundary")
//! n_owned .. n_local       ghosts, grouped by owner rank
//! ```
//!
//! with every point's stencil in its original order, so that every owned
//! point computes exactly the bits it computes in a serial run. Each local
//! point keeps its index in the cloud's original numbering
//! ([`LocalPart::global`]).
//!
//! [`DistributedBackend`] implements [`crate::Backend`] around a local
//! backend, anything that implements [`LocalCompute`]: the CPU backend
//! (serial or threads: MPI ranks x threads) or, with the feature `opencl`,
//! the OpenCL backend (one rank per device; the state stays on the device
//! and only the exchanged values cross to the host, see `docs/gpu.md`).
//! After each step whose output a neighbour reads, the owners send the new
//! values of the points their neighbours hold as ghosts
//! (`qflow_lskum::kernels` lists what each kernel reads through the
//! stencil):
//!
//! | after | exchanged | values per ghost |
//! |---|---|---|
//! | `state_update` | `prim` (a ghost's `q` is computed locally from it) | 4 |
//! | `q_derivatives` | `qx`, `qy`, `q_max`, `q_min` | 16 |
//! | each `q_inner_iteration` | `qx`, `qy` | 8 |
//!
//! An exchange starts at the end of the step that writes the values and is
//! finished by the next step that reads ghosts, which first computes its
//! interior points (whose stencils need no ghost) while the messages travel
//! ([`ExchangeMode::Nonblocking`], the default, with persistent
//! `MPI_Send_init`/`MPI_Recv_init` requests; on the CPU, `MPI_Testall`
//! between chunks of the interior drives progress; a device gets the
//! interior as one launch and computes it while the host waits), then waits
//! and computes its boundary points. The `prim` exchange started by the last stage's update is
//! finished by the next iteration's local time step; that of an earlier
//! stage by the q-derivatives, after the interior of both `q_variables` and
//! `q_derivatives` (ghost `q` is computed once the ghost `prim` is in).
//! [`ExchangeMode::Blocking`] (`MPI_Sendrecv` per neighbour, in increasing
//! rank order, which cannot deadlock) and the one-sided modes
//! [`ExchangeMode::Rma`] (`MPI_Put` into an `MPI_Win_allocate` window of
//! ghost values, with post-start-complete-wait synchronisation among
//! neighbours only) and [`ExchangeMode::RmaFence`] (the same puts between
//! `MPI_Win_fence`s) are there to compare. rsmpi 0.8 exposes no one-sided
//! communication, so the window, the persistent requests and the reduction
//! below use its raw `mpi::ffi` bindings behind the small safe types of
//! this module.
//!
//! The only collective of an iteration is one `MPI_Allreduce` at the last
//! stage of the state update, of a fixed-size record with user-defined
//! commutative merge: the exact (`bitrep`) sums of the squared density
//! changes and of the three force integrals, the first non-physical point
//! (lowest stage, then lowest original point number) and a stop request
//! (Ctrl-C on any rank). Exact sums do not depend on the order of merging,
//! so residue history and forces are bit-identical to the serial run's for
//! any rank count; every rank learns of a bad point at the same iteration
//! and reports the same point. There is no barrier in the iteration.

mod backend;
mod comm;
mod halo;
mod local;
mod part;
mod reduce;

pub use backend::{CommStats, DistributedBackend, Shared};
pub use comm::{
    abort, agree, broadcast_bytes, gather_owned, install_panic_abort, receive_bytes, receive_part,
    scatter, send_bytes, send_error_to_all, send_part, ScatterInput, World,
};
pub use halo::ExchangeTimes;
pub use halo::{ExchangeMode, Fields};
pub use local::LocalCompute;
pub use part::LocalPart;
