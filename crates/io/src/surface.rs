//! surface output.
