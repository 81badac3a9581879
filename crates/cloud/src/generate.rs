//! Point-cloud generators (NACA 4-digit O-grids).
