//! Progress of a live read on stderr, one line rewritten in place: only on a terminal, so
//! nothing of it reaches a log or a pipe.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};

/// Requests done, requests planned, objects received.
#[derive(Clone)]
pub(super) struct Progress {
    on: bool,
    state: Arc<Mutex<(usize, usize, usize)>>,
}

impl Progress {
    pub(super) fn new(on: bool) -> Progress {
        Progress {
            on: on && std::io::stderr().is_terminal(),
            state: Arc::new(Mutex::new((0, 0, 0))),
        }
    }

    pub(super) fn planned(&self, n: usize) {
        if let Ok(mut s) = self.state.lock() {
            s.1 += n;
        }
    }

    pub(super) fn done(&self, objects: usize) {
        if !self.on {
            return;
        }
        if let Ok(mut s) = self.state.lock() {
            s.0 += 1;
            s.2 += objects;
            let _ = write!(
                std::io::stderr(),
                "\rreading the cluster: {}/{} requests, {} objects\x1b[K",
                s.0,
                s.1.max(s.0),
                s.2
            );
        }
    }

    pub(super) fn finish(&self) {
        if self.on {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}
