//! plot output.
