//! The `qflow` command line: case files, the run pipeline, and the
//! subcommands' work, as a library so that tests can drive it.
#![deny(missing_docs)]

/// `eprintln!` that never panics: a message to standard error that cannot
/// be written (`2>/dev/full`, a closed pipe) is dropped, and the run goes
/// on (there is nowhere left to report it).
#[macro_export]
macro_rules! errln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($t)*);
    }};
}

pub mod args;
pub mod bench;
pub mod case;
pub mod check_cmd;
pub mod convert_cmd;
pub mod devices;
pub mod dg_case;
pub mod dg_outputs;
pub mod dg_run;
pub mod fv_case;
pub mod fv_outputs;
pub mod fv_run;
pub mod generate_cmd;
pub mod input_kind;
pub mod lskum_case;
pub mod lskum_outputs;
pub mod lskum_run;
pub mod lw_case;
pub mod lw_outputs;
pub mod lw_run;
pub mod mesh_cmd;
/// The allocator of the `qflow` binary (large blocks on huge pages), from the layer.
pub use qflow_par::memory;
pub mod partition_cmd;
pub mod pipeline;
pub mod run;
