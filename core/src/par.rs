//! Independent pieces of work spread over the cores the platform has: `scan`'s diagnoses and
//! the index's per-object decoding. Results always come back in input order, so output does
//! not depend on the number of threads. Where threads cannot start (WASM in a browser or
//! Node), everything runs on the calling thread, and the module is built without the code
//! that starts them (the one-thread path every function here has, tested natively).

use std::sync::atomic::{AtomicUsize, Ordering};

/// How many threads a request for `requested` means: 0 is one per core the platform reports,
/// and one where it reports none. Always one in WASM.
pub fn threads(requested: usize) -> usize {
    if cfg!(target_family = "wasm") {
        return 1;
    }
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
    let threads = self::threads(threads).min(len.div_ceil(batch));
    if threads <= 1 {
        return (0..len).map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut parts: Vec<(usize, Vec<R>)> =
        on_threads(threads, || run_batches(&next, len, batch, &f))
            .into_iter()
            .flatten()
            .collect();
    parts.sort_unstable_by_key(|(start, _)| *start);
    parts.into_iter().flat_map(|(_, part)| part).collect()
}

/// `run()` on this thread and on `threads - 1` helpers at once; what each returned, this
/// thread's first. Helpers write in the caller's language (a scan in Korean diagnoses on every
/// thread), and a helper's panic is this thread's.
fn on_threads<R: Send>(threads: usize, run: impl Fn() -> R + Sync) -> Vec<R> {
    let lang = crate::lang::current();
    std::thread::scope(|s| {
        // A thread that cannot start leaves its share to the others (at least this one).
        let helpers: Vec<_> = (1..threads).filter_map(|_| helper(s, lang, &run)).collect();
        let mut all = vec![run()];
        all.extend(joined(helpers));
        all
    })
}

/// `run` on a new thread of `s`, writing in `lang`; None when the thread cannot start.
fn helper<'s, R: Send + 's>(
    s: &'s std::thread::Scope<'s, '_>,
    lang: crate::lang::Lang,
    run: impl FnOnce() -> R + Send + 's,
) -> Option<std::thread::ScopedJoinHandle<'s, R>> {
    let run = move || crate::lang::scoped(lang, run);
    std::thread::Builder::new().spawn_scoped(s, run).ok()
}

/// What each helper returned, in order, once all are done; a helper's panic is this thread's.
fn joined<R>(helpers: Vec<std::thread::ScopedJoinHandle<'_, R>>) -> Vec<R> {
    helpers
        .into_iter()
        .map(|h| {
            h.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
        .collect()
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

/// `f(state, k, chunk)` for each `chunk` of `items` cut into chunks of `size` (the `k`th), on
/// up to `threads` threads, each taking the next chunk with a `state` of its own, made once
/// per thread: for results written in place, where [`map`]'s lists would be copied into one
/// at the end. False when any `f` returned false.
pub fn fill_chunks<T: Send, S>(
    items: &mut [T],
    size: usize,
    threads: usize,
    state: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, usize, &mut [T]) -> bool + Sync,
) -> bool {
    let size = size.max(1);
    let threads = self::threads(threads).min(items.len().div_ceil(size));
    if threads <= 1 {
        let mut state = state();
        return items
            .chunks_mut(size)
            .enumerate()
            .all(|(k, c)| f(&mut state, k, c));
    }
    let chunks = std::sync::Mutex::new(items.chunks_mut(size).enumerate());
    let failed = std::sync::atomic::AtomicBool::new(false);
    on_threads(threads, || {
        let mut state = state();
        loop {
            let next = chunks.lock().unwrap_or_else(|e| e.into_inner()).next();
            let Some((k, chunk)) = next else { return };
            if !f(&mut state, k, chunk) {
                failed.store(true, Ordering::Relaxed);
            }
        }
    });
    !failed.into_inner()
}

/// `f(0), f(1), …, f(len - 1)` computed on `threads` threads, `batch` at a time, and each
/// result handed to `take` on this thread, in order. This thread computes a share too, between
/// takes: with a helper per thread besides it, the helpers and the taking contended for the
/// cores, and the extra helper's pages stayed behind (measured on the 1,000-node shapes, 2
/// threads: the same time, up to 4 MB less at the peak). At most `ahead` batches wait per
/// helper, so what is held stays bounded however long the list, and the helpers live for the
/// whole list (threads started anew for each block of it leave their allocator pages behind).
/// `take` returning false stops the work: what is left is not computed.
pub fn in_order<R: Send>(
    len: usize,
    threads: usize,
    (batch, ahead): (usize, usize),
    f: impl Fn(usize) -> R + Sync,
    mut take: impl FnMut(R) -> bool,
) {
    let batch = batch.max(1);
    let batches = len.div_ceil(batch);
    let threads = self::threads(threads).min(batches);
    if threads <= 1 {
        for i in 0..len {
            if !take(f(i)) {
                return;
            }
        }
        return;
    }
    let lang = crate::lang::current();
    let f = &f;
    std::thread::scope(|s| {
        let mut helpers = Vec::new();
        let of_batch = move |b: usize| (b * batch..((b + 1) * batch).min(len)).map(f);
        // Share k is every `threads`th batch from k: share 0 is this thread's, each other
        // a helper's; a helper that cannot start leaves its share to this thread.
        let results: Vec<_> = (0..threads)
            .map(|k| {
                if k == 0 {
                    return None;
                }
                let (done, result) = std::sync::mpsc::sync_channel(ahead);
                let share = move || {
                    for b in (k..batches).step_by(threads) {
                        if done.send(of_batch(b).collect::<Vec<R>>()).is_err() {
                            return;
                        }
                    }
                };
                helpers.push(helper(s, lang, share)?);
                Some(result)
            })
            .collect();
        'taking: for b in 0..batches {
            let done = match &results[b % threads] {
                // A helper that stopped early panicked: its join below says so.
                Some(result) => match result.recv() {
                    Ok(done) => done,
                    Err(_) => break,
                },
                None => of_batch(b).collect(),
            };
            for r in done {
                if !take(r) {
                    break 'taking;
                }
            }
        }
        // Helpers still computing find no one to hand to, and stop.
        drop(results);
        joined(helpers);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_taken_in_order_and_taking_can_stop() {
        for threads in [1, 2, 3, 8] {
            for len in [0, 1, 5, 1000] {
                let mut got = Vec::new();
                in_order(
                    len,
                    threads,
                    (3, 2),
                    |i| i * 3,
                    |r| {
                        got.push(r);
                        true
                    },
                );
                assert_eq!(
                    got,
                    (0..len).map(|i| i * 3).collect::<Vec<_>>(),
                    "{threads}/{len}"
                );
            }
            // Stopped at the 10th result: nothing after it is taken, and nothing hangs.
            let computed = AtomicUsize::new(0);
            let mut got = Vec::new();
            in_order(
                1000,
                threads,
                (4, 1),
                |i| {
                    computed.fetch_add(1, Ordering::Relaxed);
                    i
                },
                |r| {
                    got.push(r);
                    got.len() < 10
                },
            );
            assert_eq!(got, (0..10).collect::<Vec<_>>());
            // Each helper runs at most its waiting room and one more batch past what was
            // taken (and the batch taken from is whole).
            assert!(computed.into_inner() <= 12 + threads * 2 * 4, "{threads}");
        }
    }

    #[test]
    fn a_helper_s_panic_is_the_caller_s() {
        let caught = std::panic::catch_unwind(|| {
            in_order(100, 2, (3, 4), |i| assert!(i != 41, "item {i}"), |()| true);
        });
        assert!(caught.is_err());
    }

    #[test]
    fn chunks_are_filled_in_place_on_any_thread_count() {
        for threads in [1, 2, 3, 8] {
            for size in [1, 7, 64, 5000] {
                let mut v = vec![0usize; 1000];
                let made = AtomicUsize::new(0);
                let make = || made.fetch_add(1, Ordering::Relaxed);
                let chunks_seen = AtomicUsize::new(0);
                assert!(fill_chunks(&mut v, size, threads, make, |_, k, c| {
                    chunks_seen.fetch_add(1, Ordering::Relaxed);
                    for (i, x) in c.iter_mut().enumerate() {
                        *x = (k * size + i) * 2;
                    }
                    true
                }));
                assert!(
                    v.iter().enumerate().all(|(i, &x)| x == i * 2),
                    "{threads}/{size}"
                );
                let chunks = v.len().div_ceil(size);
                assert_eq!(chunks_seen.into_inner(), chunks);
                assert!(
                    (1..=threads.min(chunks)).contains(&made.into_inner()),
                    "a state per thread, not per chunk: {threads}/{size}"
                );
                // Chunk 3 fails, where there is one.
                let has_a_fourth = 3 * size < v.len();
                assert_eq!(
                    fill_chunks(&mut v, size, threads, || (), |_, k, _| k != 3),
                    !has_a_fourth
                );
            }
        }
        assert!(fill_chunks(
            &mut Vec::<u8>::new(),
            4,
            4,
            || (),
            |_, _, _| false
        ));
    }

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
