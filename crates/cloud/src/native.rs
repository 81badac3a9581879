//! The native binary cloud format (`.qfc`).
