//! What the two binaries share: the command line's shape (`cli`) and completion computed from
//! it (`complete`). A library rather than a copy in each binary, so `kubectl_complete-layer`
//! offers exactly the flags `kubectl-layer` parses.

pub mod cli;
pub mod complete;
