//! Outputs.
