//! Graph and geometric partitioning of clouds for distributed runs.
