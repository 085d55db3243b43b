//! The servers' limits, in one place: `httpd.rs` (the exporter), `mcp.rs` and `mcp_lines.rs`
//! enforce them, and `--help` quotes them from here (README.md and SECURITY.md state the same
//! figures).

use std::time::Duration;

/// Connections the exporter holds at once; one more is closed as soon as it is accepted.
pub const EXPORTER_CONNECTIONS: usize = 32;
/// Time an exporter connection has to send a complete request head, from when it opens and
/// again from the end of each answer (the keep-alive idle timeout).
pub const EXPORTER_REQUEST_TIME: Duration = Duration::from_secs(5);
/// Time an exporter write may make no progress (a client that asked and does not read).
pub const EXPORTER_WRITE_STALL: Duration = Duration::from_secs(10);

/// The most one MCP answer carries, its JSON and its text together: about 32,000 tokens, what
/// an agent can read in one answer beside its own work. The one bound of an answer meant to be
/// read whole: issue 40's scan summary for agents is held to it too.
pub const MCP_ANSWER_BYTES: usize = 128 << 10;
/// The longest MCP request line taken: the size of rmcp's own limit, so a client sees the same
/// bound as before, now with an answer. A larger bundle goes in a file given with `-f`.
pub const MCP_REQUEST_BYTES: usize = 16 << 20;
/// The deepest an MCP request may nest arrays and objects. A request's own shape is a few
/// levels (`params.arguments.bundle`); every argument the tools take is a string or a word.
pub const MCP_REQUEST_DEPTH: usize = 32;

/// `mcp --help`'s paragraph on its limits, then the exit codes.
pub fn mcp_help() -> String {
    format!(
        "Limits:
  An answer carries at most {} KiB, its JSON and its text together; a longer list is cut to
  what fits and says how to narrow the call (`namespace`, `limit`, `target`, `layer`). A
  request is one line of at most {} MiB, nested at most {MCP_REQUEST_DEPTH} levels; one refused
  for either, or for not being JSON, is answered with a JSON-RPC error, and the next is read.

{}",
        MCP_ANSWER_BYTES >> 10,
        MCP_REQUEST_BYTES >> 20,
        crate::cli::EXIT_HELP
    )
}

/// `exporter --help`'s paragraph on its limits, then the exit codes.
pub fn exporter_help() -> String {
    format!(
        "Limits:
  At most {EXPORTER_CONNECTIONS} connections at once (one more is closed as soon as it is accepted);
  {} s to send a complete request, from a connection's start and again after each answer;
  {} s for a write that makes no progress (a client that does not read).

{}",
        EXPORTER_REQUEST_TIME.as_secs(),
        EXPORTER_WRITE_STALL.as_secs(),
        crate::cli::EXIT_HELP
    )
}
