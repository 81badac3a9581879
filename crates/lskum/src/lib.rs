//! The q-LSKUM method.
