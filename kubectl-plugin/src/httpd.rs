//! The exporter's HTTP server: HTTP/1.1 with limits that a slow, silent or hostile client
//! cannot get around, so that whatever reaches the port, the exporter's memory and the
//! connections it holds stay bounded and Prometheus is still answered.
//!
//! - At most [`Limits::connections`] connections are held at once; one more is closed as soon
//!   as it is accepted, without a byte read or written (a semaphore, taken before the
//!   connection's task starts).
//! - A connection has [`Limits::request`] to send a complete request head, counted from when
//!   it opens and again from the end of each answer (the keep-alive idle timeout), and its
//!   head may be at most [`HEAD_BYTES`]; past either it is closed.
//! - A write that makes no progress for [`Limits::write_stall`] (a client that asked and does
//!   not read) closes the connection. The answer's body is shared, not copied, between the
//!   connections that send it ([`Reply::body`]), so a client that never reads holds at most
//!   the kernel's socket buffers and a reference to the last scan's series.

use hyper::body::{Bytes, Frame, SizeHint};
use kubectl_layer::limits;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;

/// How much a client may hold of the server.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections held at once; one more is closed as soon as it is accepted.
    pub connections: usize,
    /// Time to send a complete request head, from when the connection opens or its last
    /// answer was written; then it is closed.
    pub request: Duration,
    /// Time a write may wait on a client that does not read; then the connection is closed.
    pub write_stall: Duration,
}

impl Limits {
    /// What the exporter runs with (`kubectl_layer::limits`).
    pub const DEFAULT: Limits = Limits {
        connections: limits::EXPORTER_CONNECTIONS,
        request: limits::EXPORTER_REQUEST_TIME,
        write_stall: limits::EXPORTER_WRITE_STALL,
    };
}

/// The largest request head read (hyper's smallest read buffer is 8 KiB; a scrape's head is
/// a few hundred bytes).
pub const HEAD_BYTES: usize = 16 << 10;

/// The answer to one request. The body is pieces shared with every other connection that sends
/// them (a [`Bytes`] clone is a reference count, not a copy).
pub struct Reply {
    pub status: http::StatusCode,
    pub content_type: &'static str,
    pub body: Vec<Bytes>,
}

/// How many connections are held now and at most since the start, and how many were closed
/// for the cap: the figures the tests and the closing note read.
#[derive(Default, Debug)]
pub struct Held {
    pub now: AtomicUsize,
    pub most: AtomicUsize,
    pub refused: AtomicU64,
}

/// One held connection: counted while it lives, its slot given back when it ends, a panic in
/// its task included.
struct Slot {
    held: Arc<Held>,
    _permit: tokio::sync::OwnedSemaphorePermit,
}

impl Slot {
    fn new(held: Arc<Held>, permit: tokio::sync::OwnedSemaphorePermit) -> Slot {
        let n = held.now.fetch_add(1, Ordering::SeqCst) + 1;
        held.most.fetch_max(n, Ordering::SeqCst);
        Slot {
            held,
            _permit: permit,
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.held.now.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Serve `answer` on `listener` until an accept fails for good.
pub async fn serve<F>(listener: TcpListener, limits: Limits, held: Arc<Held>, answer: F)
where
    F: Fn(&http::Method, &str) -> Reply + Send + Sync + 'static,
{
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.connections));
    let answer = Arc::new(answer);
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of file descriptors, or a connection reset before it was accepted: the
            // listener itself is fine; a short pause keeps a full table from spinning.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = slots.clone().try_acquire_owned() else {
            held.refused.fetch_add(1, Ordering::SeqCst);
            drop(stream);
            continue;
        };
        let slot = Slot::new(held.clone(), permit);
        let answer = answer.clone();
        tokio::spawn(async move {
            let _slot = slot;
            connection(stream, limits, answer).await;
        });
    }
}

/// One connection, request after request, until the client closes it or a limit does.
async fn connection<F>(stream: tokio::net::TcpStream, limits: Limits, answer: Arc<F>)
where
    F: Fn(&http::Method, &str) -> Reply + Send + Sync + 'static,
{
    let io = hyper_util::rt::TokioIo::new(Stalls::new(stream, limits.write_stall));
    let service = hyper::service::service_fn(move |req: http::Request<hyper::body::Incoming>| {
        let reply = answer(req.method(), req.uri().path());
        async move { Ok::<_, Infallible>(response(reply)) }
    });
    // An error here is the client's (gone, too slow, a bad head): nothing to report.
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(limits.request)
        .max_buf_size(HEAD_BYTES)
        .serve_connection(io, service)
        .await;
}

fn response(reply: Reply) -> http::Response<Pieces> {
    let mut r = http::Response::new(Pieces(reply.body.into()));
    *r.status_mut() = reply.status;
    r.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(reply.content_type),
    );
    r
}

/// A body sent as the shared pieces it is made of, with its exact length (`Content-Length`).
struct Pieces(VecDeque<Bytes>);

impl hyper::body::Body for Pieces {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(self.0.pop_front().map(|b| Ok(Frame::data(b))))
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.0.iter().map(|b| b.len() as u64).sum())
    }
}

/// A stream whose writes fail once they have waited `limit` without progress: a client that
/// does not read cannot hold its connection (and what is queued for it) for ever.
struct Stalls<S> {
    io: S,
    limit: Duration,
    waiting: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<S> Stalls<S> {
    fn new(io: S, limit: Duration) -> Stalls<S> {
        Stalls {
            io,
            limit,
            waiting: None,
        }
    }

    /// `polled`, the outcome of a write: progress resets the clock; waiting past the limit
    /// is an error.
    fn bounded<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if polled.is_ready() {
            self.waiting = None;
            return polled;
        }
        let limit = self.limit;
        let clock = self
            .waiting
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match clock.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client read nothing of the answer in time",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Stalls<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Stalls<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write(cx, buf);
        self.bounded(cx, polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.bounded(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.io).poll_flush(cx);
        self.bounded(cx, polled)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.io).poll_shutdown(cx);
        self.bounded(cx, polled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::{SocketAddr, TcpStream};
    use std::time::Instant;

    /// Guards a wait on the server: far longer than any limit the tests set, so it fails only
    /// when the server does not do what it should.
    const GUARD: Duration = Duration::from_secs(20);

    /// A server with `limits` answering every GET with `body`, on its own runtime and thread.
    fn start(limits: Limits, body: Bytes) -> (SocketAddr, Arc<Held>) {
        let held = Arc::new(Held::default());
        let (tx, rx) = std::sync::mpsc::channel();
        let counted = held.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(listener.local_addr().unwrap()).unwrap();
                serve(listener, limits, counted, move |_, _| Reply {
                    status: http::StatusCode::OK,
                    content_type: "text/plain",
                    body: vec![body.clone()],
                })
                .await;
            });
        });
        (rx.recv().unwrap(), held)
    }

    fn until(what: &str, done: impl Fn() -> bool) {
        let start = Instant::now();
        while !done() {
            assert!(start.elapsed() < GUARD, "{what}: not within {GUARD:?}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn connect(addr: SocketAddr) -> TcpStream {
        let s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(GUARD)).unwrap();
        s
    }

    /// Reads until the server closes the connection; fails if it is still open after GUARD.
    fn closed_by_server(mut s: TcpStream) {
        let mut buf = [0u8; 64 << 10];
        loop {
            match s.read(&mut buf) {
                Ok(0) => return,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return,
                Err(e) => panic!("the server did not close the connection: {e}"),
            }
        }
    }

    /// One answer on `s`: its status and body length (`Content-Length` read from the head).
    fn answer(s: &mut TcpStream) -> (u16, usize) {
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            assert_eq!(
                s.read(&mut byte).unwrap(),
                1,
                "the answer ended in its head"
            );
            head.push(byte[0]);
        }
        let head = String::from_utf8(head).unwrap();
        let status = head[9..12].parse().unwrap();
        let length: usize = head
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-length: ")
                    .map(str::to_string)
            })
            .expect("a length")
            .trim()
            .parse()
            .unwrap();
        let mut body = vec![0u8; length];
        s.read_exact(&mut body).unwrap();
        (status, length)
    }

    fn get(addr: SocketAddr) -> (u16, usize) {
        let mut s = connect(addr);
        s.write_all(b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
            .unwrap();
        answer(&mut s)
    }

    fn quick(connections: usize) -> Limits {
        Limits {
            connections,
            request: Duration::from_millis(200),
            write_stall: Duration::from_millis(200),
        }
    }

    #[test]
    fn a_client_that_sends_nothing_or_half_a_request_is_closed() {
        let (addr, held) = start(quick(4), Bytes::from_static(b"ok\n"));
        closed_by_server(connect(addr));
        let mut half = connect(addr);
        half.write_all(b"GET /metrics HTTP/1.1\r\nHost: t\r\n")
            .unwrap();
        closed_by_server(half);
        until("every connection let go", || {
            held.now.load(Ordering::SeqCst) == 0
        });
        assert_eq!(get(addr), (200, 3), "the next client is answered");
    }

    #[test]
    fn a_kept_alive_connection_that_stays_idle_is_closed() {
        let (addr, _) = start(quick(4), Bytes::from_static(b"ok\n"));
        let mut s = connect(addr);
        for _ in 0..2 {
            s.write_all(b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
                .unwrap();
            assert_eq!(answer(&mut s), (200, 3));
        }
        closed_by_server(s);
    }

    #[test]
    fn connections_beyond_the_cap_are_closed_and_the_held_never_exceed_it() {
        let limits = Limits {
            request: GUARD * 4,
            ..quick(3)
        };
        let (addr, held) = start(limits, Bytes::from_static(b"ok\n"));
        let mut idle: Vec<TcpStream> = (0..3).map(|_| connect(addr)).collect();
        until("three held", || held.now.load(Ordering::SeqCst) == 3);
        for _ in 0..4 {
            closed_by_server(connect(addr));
        }
        assert_eq!(held.refused.load(Ordering::SeqCst), 4);
        assert_eq!(held.most.load(Ordering::SeqCst), 3);
        // A slot given back is a client answered.
        drop(idle.pop());
        until("a slot free", || held.now.load(Ordering::SeqCst) == 2);
        assert_eq!(get(addr), (200, 3));
        assert_eq!(held.most.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn a_client_that_never_reads_a_large_answer_blocks_no_one_and_is_let_go() {
        // Larger than what the kernel buffers for a loopback connection, both ends together.
        let big = Bytes::from(vec![b'x'; 64 << 20]);
        let (addr, held) = start(quick(4), big);
        let mut silent = connect(addr);
        silent
            .write_all(b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
            .unwrap();
        until("the silent client held", || {
            held.now.load(Ordering::SeqCst) == 1
        });
        assert_eq!(
            get(addr),
            (200, 64 << 20),
            "another client is answered in full"
        );
        // The silent client has read nothing, and the server has let it go.
        until("the silent client let go", || {
            held.now.load(Ordering::SeqCst) == 0
        });
        drop(silent);
    }
}
