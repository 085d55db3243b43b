//! Independent pieces of work spread over the cores the platform has: `scan`'s diagnoses and
//! the index's per-object decoding. Results always come back in input order, so output does
//! not depend on the number of threads. Where threads cannot start (WASM in a browser or
//! Node), everything runs on the calling thread.

use std::sync::atomic::{AtomicUsize, Ordering};

/// How many threads a request for `requested` means: 0 is one per core the platform reports,
/// and one where it reports none.
pub fn threads(requested: usize) -> usize {
    match requested {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    }
}

/// `f(0), f(1), …, f(len - 1)` in that order, computed on up to `threads` threads. Threads
/// take the next `batch` indices from a shared counter rather than fixed slices: costly items
/// bunch together (the pods of one large job, a block of events) and fixed slices would leave
/// one thread with most of them.
pub fn map<R: Send>(
    len: usize,
    threads: usize,
    batch: usize,
    f: impl Fn(usize) -> R + Sync,
) -> Vec<R> {
    let batch = batch.max(1);
    let threads = threads.min(len.div_ceil(batch));
    if threads <= 1 {
        return (0..len).map(f).collect();
    }
    let next = AtomicUsize::new(0);
    // Helpers write in the caller's language (a scan in Korean diagnoses on every thread).
    let lang = crate::lang::current();
    let run = || crate::lang::scoped(lang, || run_batches(&next, len, batch, &f));
    let mut parts = std::thread::scope(|s| {
        // A thread that cannot start leaves its share to the others (at least this one).
        let helpers: Vec<_> = (1..threads)
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(s, run).ok())
            .collect();
        let mut parts = run();
        for h in helpers {
            match h.join() {
                Ok(more) => parts.extend(more),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        parts
    });
    parts.sort_unstable_by_key(|(start, _)| *start);
    parts.into_iter().flat_map(|(_, part)| part).collect()
}

/// Take the next `batch` indices from `next` until none are left: one thread's share.
fn run_batches<R>(
    next: &AtomicUsize,
    len: usize,
    batch: usize,
    f: &impl Fn(usize) -> R,
) -> Vec<(usize, Vec<R>)> {
    let mut done = Vec::new();
    loop {
        let start = next.fetch_add(batch, Ordering::Relaxed);
        if start >= len {
            return done;
        }
        let end = (start + batch).min(len);
        done.push((start, (start..end).map(f).collect::<Vec<R>>()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_input_order_for_any_thread_count_and_batch() {
        let expect: Vec<usize> = (0..1000).map(|i| i * i).collect();
        for threads in [1, 2, 3, 8] {
            for batch in [1, 7, 64, 5000] {
                assert_eq!(
                    map(1000, threads, batch, |i| i * i),
                    expect,
                    "{threads}/{batch}"
                );
            }
        }
        assert!(map(0, 4, 8, |i| i).is_empty());
    }

    #[test]
    fn work_is_shared_between_threads() {
        let seen = std::sync::Mutex::new(std::collections::HashSet::new());
        map(64, 2, 1, |_| {
            // Long enough that one thread cannot take every item before the other starts.
            std::thread::sleep(std::time::Duration::from_millis(2));
            seen.lock().unwrap().insert(std::thread::current().id());
        });
        assert_eq!(seen.into_inner().unwrap().len(), 2);
    }

    #[test]
    fn zero_means_one_per_core() {
        assert!(threads(0) >= 1);
        assert_eq!(threads(3), 3);
    }
}
