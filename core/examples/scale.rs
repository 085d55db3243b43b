//! Scale harness used by `cargo xtask bench` (issue: scale). Each mode does one job on one
//! bundle file and prints one JSON line with the times in milliseconds and the process's peak
//! resident memory (`peakKb`, from `/proc/self/status` VmHWM; null where there is no /proc), so
//! each mode keeps only what its job needs alive and runs in a process of its own.
//!
//! Usage: scale MODE FILE [ARGS]
//! - `scan FILE [OUT]`: read, parse, index and scan as `kubectl layer scan -o json` does;
//!   write the JSON report to OUT when given.
//! - `groups FILE [OUT]`: read, parse, index and scan as `kubectl layer scan` (text) does: the
//!   work grouped by cause, from each piece of work's verdict line; `textLines` is how many
//!   lines it prints; the text written to OUT when given.
//! - `why FILE TARGET [ROUNDS]`: read, parse, index and diagnose one target (from bytes), then
//!   diagnose it again ROUNDS times on the built index (best round reported).
//! - `fit FILE MANIFEST`: read and parse the manifest, then (timed) parse the bundle, place the
//!   manifest's work in it, index the whole once and diagnose that work, as `kubectl layer fit`
//!   does.
//! - `pick FILE`: a target for `why`: the first pending pod asking for a GPU (by name), else the
//!   first pending pod.
//! - `value FILE` / `ignored FILE`: the floor: serde_json into `Value` or `IgnoredAny`;
//!   `read FILE`: only read the file (the memory floor of holding the bytes).
//! - `parse FILE`: read and parse the bundle only; `digest` hashes every object's identity and
//!   JSON text in order (to compare two builds of the reader).
//! - `dump DIR`: for every scenario bundle under DIR, the scan report and the diagnosis of every
//!   candidate target as JSON lines (to compare two builds of the core byte for byte).
//!
//! `SCALE_THREADS=N` sets the threads the index and scan use (default 0: one per core); every
//! line reports the number used as `threads`, and `cpuMs`, the process's CPU time (user and
//! system, all threads) over the measured work.

//!
//! This binary uses mimalloc, as `kubectl-layer` does; `scale_system` runs the same modes with
//! the system allocator (the floor, and the native side of the WASM comparison).

#[path = "common/harness.rs"]
mod harness;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    harness::main();
}
