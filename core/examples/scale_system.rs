//! The `scale` harness with the system allocator: the floor of `cargo xtask bench` (serde_json
//! into `Value` ran 1.2–3.7× slower under mimalloc on a 290 MB bundle, its page purging costing
//! system time), and the native side of the WASM comparison (the library as an embedder gets
//! it). Modes and output: see `scale.rs`.

#[path = "common/harness.rs"]
mod harness;

fn main() {
    harness::main();
}
