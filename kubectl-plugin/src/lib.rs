//! What `kubectl-layer` shares beyond its own binary: the command line's shape (`cli`) and the
//! completion built from it (`complete`), so every program built from this crate reads one
//! definition of the command line.

pub mod cli;
pub mod complete;
