//! Results computed once per index and kept ([`Index::once`]): what every view would
//! otherwise recompute over the whole cluster. Each result is kept under its type, a name and
//! the object it is for.

use super::*;

type Memoized = Arc<dyn Any + Send + Sync>;
/// A memoized result is found by what it is (its type), what it is called, and the object it is
/// for: two results of different types can never meet in one cell, whatever their names.
/// And the language the diagnosis asking for it writes in: some results hold sentences.
type MemoKey = (std::any::TypeId, &'static str, usize, crate::lang::Lang);
type MemoMap = HashMap<MemoKey, Arc<std::sync::OnceLock<Memoized>>>;

/// Results computed once per index (see [`Index::once`]). Interior mutability only: what is
/// stored depends on the index alone, so results do not depend on the order of calls. Each
/// result has its own cell, so threads diagnosing in parallel wait for one computation of a
/// large table instead of each building it, and never hold the map's lock while computing.
#[derive(Default)]
pub(super) struct Memo(Mutex<MemoMap>);

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Memo")
    }
}

impl Index {
    /// Compute `f` once per index and keep it: for what every view would otherwise recompute
    /// over the whole cluster. The result is kept under its type and `name` (so `name` need
    /// only be unique among results of one type); it must depend on the index alone.
    pub fn once<T: Any + Send + Sync>(&self, name: &'static str, f: impl FnOnce() -> T) -> Arc<T> {
        self.memoized(name, usize::MAX, f)
    }

    /// [`Index::once`] per object: the result must depend on the index and `id` alone.
    pub fn once_for<T: Any + Send + Sync>(
        &self,
        name: &'static str,
        id: ObjId,
        f: impl FnOnce() -> T,
    ) -> Arc<T> {
        self.memoized(name, id, f)
    }

    fn memoized<T: Any + Send + Sync>(
        &self,
        name: &'static str,
        id: usize,
        f: impl FnOnce() -> T,
    ) -> Arc<T> {
        let key = (
            std::any::TypeId::of::<T>(),
            name,
            id,
            crate::lang::current(),
        );
        let cell = {
            let mut map = self.memo.0.lock().unwrap_or_else(|e| e.into_inner());
            map.entry(key).or_default().clone()
        };
        // Computed without the map's lock held: `f` may itself ask for other memoized results.
        let mut f = Some(f);
        let stored = cell.get_or_init(|| -> Memoized {
            match f.take() {
                Some(f) => Arc::new(f()),
                None => Arc::new(()),
            }
        });
        // The cell's key holds T's TypeId, so what it stores is a T.
        match (stored.clone().downcast::<T>(), f) {
            (Ok(v), _) => v,
            (Err(_), Some(f)) => Arc::new(f()),
            (Err(_), None) => {
                unreachable!("memo cell {name} filled by this call with another type")
            }
        }
    }
}
