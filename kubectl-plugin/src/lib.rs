//! What the two binaries share: the command line's shape (`cli`), completion computed from
//! it (`complete`), and the servers' limits their help quotes (`limits`). A library rather than a copy in each binary, so `kubectl_complete-layer`
//! offers exactly the flags `kubectl-layer` parses.

pub mod cli;
pub mod complete;
pub mod limits;
