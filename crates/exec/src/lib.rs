//! Execution backends.
