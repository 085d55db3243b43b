//! What `kubectl-layer` shares beyond its own binary: the command line's shape (`cli`), so
//! that every program built from this crate reads one definition of it.

pub mod cli;
