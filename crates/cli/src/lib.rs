//! The `qflow` command line: case files, the run pipeline, and the
//! subcommands' work, as a library so that tests can drive it.
#![deny(missing_docs)]

pub mod bench;
pub mod case;
pub mod devices;
pub mod dg_case;
pub mod dg_run;
pub mod fv_case;
pub mod fv_outputs;
pub mod fv_run;
pub mod lskum_case;
pub mod lskum_run;
pub mod lw_case;
pub mod lw_outputs;
pub mod lw_run;
pub mod partition_cmd;
pub mod run;
