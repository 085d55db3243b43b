//! The MCP server's stdio transport: one JSON-RPC message a line, read bounded, and an answer
//! to every request the server cannot take.
//!
//! rmcp's own stdio transport drops a line over its limit and ignores one that is not JSON or
//! nests too deep, so a client waiting on that request waits for ever. Here each line is read
//! into at most [`MAX_REQUEST_BYTES`] (the rest of a longer line is skipped as it arrives,
//! never held), checked for depth before it is parsed, and a line refused for its size, its
//! depth, or for not being a JSON-RPC message is answered with a JSON-RPC error carrying the
//! request's id where one can be read from it (its first [`HEAD_BYTES`] for a line cut off);
//! then the next line is read. Answers go out through one writer task, in order.

use rmcp::RoleServer;
use rmcp::model::{ErrorCode, ErrorData, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use std::borrow::Cow;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

pub use kubectl_layer::limits::{
    MCP_REQUEST_BYTES as MAX_REQUEST_BYTES, MCP_REQUEST_DEPTH as MAX_REQUEST_DEPTH,
};

/// How much of a line cut off for its size is kept to read its id from.
const HEAD_BYTES: usize = 4096;

/// Lines of answers the writer may have queued before a sender waits.
const QUEUED: usize = 16;

/// The transport over `read` and `write` (standard input and output).
pub struct Lines<R> {
    read: BufReader<R>,
    max_line: usize,
    line: Vec<u8>,
    /// The start of a line over the limit, while the rest of it is skipped.
    cut: Option<Vec<u8>>,
    /// An error answer that has not been queued yet (kept across a cancelled `receive`).
    refusal: Option<Vec<u8>>,
    out: Option<mpsc::Sender<Vec<u8>>>,
    writer: Option<tokio::task::JoinHandle<()>>,
}

impl<R: AsyncRead + Unpin + Send> Lines<R> {
    /// Must be called on a Tokio runtime: the writer is a task of its own.
    pub fn new<W: AsyncWrite + Unpin + Send + 'static>(read: R, write: W, max_line: usize) -> Self {
        let (tx, rx) = mpsc::channel(QUEUED);
        Lines {
            read: BufReader::new(read),
            max_line,
            line: Vec::new(),
            cut: None,
            refusal: None,
            out: Some(tx),
            writer: Some(tokio::spawn(write_lines(write, rx))),
        }
    }

    /// The next whole line into `self.line`, or what cut it off. Cancel-safe: what has been
    /// read stays in `self` for the next call.
    async fn next_line(&mut self) -> Option<Result<(), Vec<u8>>> {
        loop {
            let available = self.read.fill_buf().await.ok()?;
            if available.is_empty() {
                return None;
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            if let Some(head) = &mut self.cut {
                let room = HEAD_BYTES.saturating_sub(head.len()).min(take);
                head.extend_from_slice(&available[..room]);
            } else if self.line.len() + take > self.max_line {
                let mut head = std::mem::take(&mut self.line);
                head.truncate(HEAD_BYTES);
                let room = HEAD_BYTES.saturating_sub(head.len()).min(take);
                head.extend_from_slice(&available[..room]);
                self.cut = Some(head);
            } else {
                self.line.extend_from_slice(&available[..take]);
            }
            self.read.consume(take);
            if newline.is_some() {
                return Some(match self.cut.take() {
                    Some(head) => Err(head),
                    None => Ok(()),
                });
            }
        }
    }

    /// Queue `answer` before the writer (waiting for room, cancel-safe).
    async fn queue_refusal(&mut self) -> Option<()> {
        if let Some(answer) = self.refusal.take() {
            let permit = self.out.as_ref()?.reserve().await;
            match permit {
                Ok(p) => p.send(answer),
                Err(_) => return None,
            }
        }
        Some(())
    }
}

/// Writes each queued line, then flushes: one answer a line, in the order they were queued.
async fn write_lines<W: AsyncWrite + Unpin>(mut write: W, mut rx: mpsc::Receiver<Vec<u8>>) {
    while let Some(line) = rx.recv().await {
        if write.write_all(&line).await.is_err() || write.flush().await.is_err() {
            return;
        }
    }
}

/// One message as a line of JSON.
fn framed(message: &TxJsonRpcMessage<RoleServer>) -> Vec<u8> {
    let mut line = serde_json::to_vec(message).unwrap_or_default();
    line.push(b'\n');
    line
}

/// What a line is: a message for the server, nothing (a blank line, a notification the
/// server does not know), or the error that answers it.
fn judge(line: &[u8]) -> Result<Option<RxJsonRpcMessage<RoleServer>>, ErrorAnswer> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let shape = Shape::of(line, MAX_REQUEST_DEPTH);
    if shape.too_deep {
        return Err(ErrorAnswer::new(
            shape.id,
            ErrorCode::INVALID_REQUEST,
            format!(
                "the request nests arrays and objects deeper than {MAX_REQUEST_DEPTH} levels; \
                 the tools' arguments are strings and words"
            ),
        ));
    }
    match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => Ok(Some(message)),
        Err(e) if e.is_syntax() || e.is_eof() => Err(ErrorAnswer::new(
            shape.id,
            ErrorCode::PARSE_ERROR,
            format!("the line is not JSON: {e}"),
        )),
        // A notification of a kind the server does not know asks for no answer.
        Err(_) if shape.id.is_none() && shape.has_method => Ok(None),
        Err(e) => Err(ErrorAnswer::new(
            shape.id,
            ErrorCode::INVALID_REQUEST,
            format!("not a request the server takes: {e}"),
        )),
    }
}

/// The error answering a line: a JSON-RPC error response, framed as a line.
#[derive(Debug)]
struct ErrorAnswer(Vec<u8>);

impl ErrorAnswer {
    fn new(id: Option<RequestId>, code: ErrorCode, message: String) -> ErrorAnswer {
        ErrorAnswer(framed(&TxJsonRpcMessage::<RoleServer>::error(
            ErrorData::new(code, Cow::Owned(message), None),
            id,
        )))
    }

    /// The answer to a line cut off at `limit` bytes, whose first bytes are `head`.
    fn too_long(head: &[u8], limit: usize) -> ErrorAnswer {
        ErrorAnswer::new(
            Shape::of(head, MAX_REQUEST_DEPTH).id,
            ErrorCode::INVALID_REQUEST,
            format!(
                "the request is longer than {limit} bytes, the line limit of this server: pass \
                 a large bundle as a file with `kubectl layer mcp -f FILE` at start, or a \
                 smaller one (one namespace's objects)"
            ),
        )
    }
}

/// What a quick pass over a line's bytes tells without parsing it: whether it nests deeper
/// than the limit (the pass stops there), whether it has a top-level `method`, and its
/// top-level `id` when that is a number or a string.
#[derive(Default)]
struct Shape {
    too_deep: bool,
    has_method: bool,
    id: Option<RequestId>,
}

impl Shape {
    fn of(line: &[u8], limit: usize) -> Shape {
        let mut shape = Shape::default();
        let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
        // At depth 1: where the last key started, the last key, where the `id` value started.
        let (mut key_from, mut key, mut id_from) = (None, &line[..0], None);
        for (i, &b) in line.iter().enumerate() {
            if in_string {
                match (escaped, b) {
                    (true, _) => escaped = false,
                    (false, b'\\') => escaped = true,
                    (false, b'"') => {
                        in_string = false;
                        if let Some(from) = key_from.take() {
                            key = &line[from..i];
                        }
                    }
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => {
                    in_string = true;
                    if depth == 1 && id_from.is_none() && key.is_empty() {
                        key_from = Some(i + 1);
                    }
                }
                b'{' | b'[' => {
                    depth += 1;
                    if depth > limit {
                        shape.too_deep = true;
                        return shape;
                    }
                }
                b'}' | b']' | b',' if depth == 1 => {
                    if let Some(from) = id_from.take() {
                        shape.id = serde_json::from_slice(&line[from..i]).ok();
                    }
                    key = &line[..0];
                    depth -= usize::from(b != b',');
                }
                b'}' | b']' => depth = depth.saturating_sub(1),
                b':' if depth == 1 => {
                    shape.has_method |= key == b"method";
                    if key == b"id" {
                        id_from = Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        shape
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> rmcp::transport::Transport<RoleServer> for Lines<R> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = self.out.clone();
        let line = framed(&item);
        async move {
            let closed = || std::io::Error::new(std::io::ErrorKind::BrokenPipe, "output closed");
            out.ok_or_else(closed)?
                .send(line)
                .await
                .map_err(|_| closed())
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            self.queue_refusal().await?;
            let answer = match self.next_line().await? {
                Err(head) => ErrorAnswer::too_long(&head, self.max_line),
                Ok(()) => {
                    let judged = judge(&self.line);
                    self.line.clear();
                    match judged {
                        Ok(Some(message)) => return Some(message),
                        Ok(None) => continue,
                        Err(answer) => answer,
                    }
                }
            };
            self.refusal = Some(answer.0);
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // The writer ends once every sender is gone, after writing what was queued.
        self.out = None;
        if let Some(writer) = self.writer.take() {
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), writer).await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(line: &str) -> Option<RequestId> {
        Shape::of(line.as_bytes(), MAX_REQUEST_DEPTH).id
    }

    #[test]
    fn the_top_level_id_is_read_and_no_other() {
        let n = |v: i64| Some(RequestId::Number(v));
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":3,"method":"x"}"#), n(3));
        assert_eq!(
            id(r#"{"params":{"id":9,"s":"}\"{"},"id" : "a"}"#),
            Some(RequestId::String("a".into()))
        );
        assert_eq!(id(r#"{"params":{"id":9}}"#), None);
        assert_eq!(id(r#"{"method":"id","x":{"id":1}}"#), None);
        assert_eq!(id(r#"{"id":{"a":1}}"#), None);
        // A line cut off before its id ends has none.
        assert_eq!(id(r#"{"id":12"#), None);
    }

    #[test]
    fn depth_is_counted_outside_strings_only() {
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(40), "]".repeat(40));
        assert!(Shape::of(deep.as_bytes(), MAX_REQUEST_DEPTH).too_deep);
        let quoted = format!("{{\"a\":\"{}\"}}", "[".repeat(40));
        assert!(!Shape::of(quoted.as_bytes(), MAX_REQUEST_DEPTH).too_deep);
    }

    #[test]
    fn every_refused_line_gets_an_answer_and_a_notification_none() {
        assert!(judge(b"\n").unwrap().is_none());
        assert!(
            judge(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#)
                .unwrap()
                .is_none()
        );
        let e = judge(br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":7}"#)
            .err()
            .unwrap();
        let v = serde_json::from_slice::<serde_json::Value>(&e.0).unwrap();
        assert_eq!(
            (v["id"].clone(), v["error"]["code"].clone()),
            (4.into(), (-32600).into())
        );
        let e = ErrorAnswer::too_long(br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","par"#, 10);
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&e.0).unwrap()["id"],
            5
        );
    }
}
