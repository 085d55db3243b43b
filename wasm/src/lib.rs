//! The npm package `kubectl-layer` (issue #5): the core through wasm-bindgen. Not built yet;
//! the crate exists so the workspace has its final shape.
