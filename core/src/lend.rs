//! JSON that many views hold alike, lent to each view instead of built into it.
//!
//! On the day the device plugin is down on every GPU node, each pod's view holds every plugin
//! pod and every silent node of the cluster; in a taint storm, every node its taints keep it
//! off. Built into JSON and dropped again once per diagnosis, those lists made a scan grow with
//! the square of the cluster. A [`Shared`] value is built once; a view takes a copy by move
//! ([`Shared::lend`]) and gives it back when it is dropped ([`Loans::give_back`]), so a scan
//! makes about one copy per thread whatever the number of views.
//!
//! An object of the bundle lent this way keeps no master copy ([`Shared::remade`]): its JSON
//! is in the bundle, so a copy is read from there when none is spare. Nor does it keep the
//! copies given back until it has been lent [`HOT_AFTER`] times: on a cluster whose device
//! plugin is down, the views cite most of a thousand nodes a few times each, and their copies
//! held 10 MB, while a backlog's views cite the same few nodes thousands of times.

use serde_json::Value;
use std::any::Any;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Copies a pool keeps at most: one per thread diagnosing at once, and a few for views kept
/// alive (a clone of a view gives its copies back too).
const SPARE_COPIES: usize = 8;

/// Loans of a [`Shared::remade`] value after which the copies given back are kept: below it,
/// reading the object again costs less than holding copies of every object lent a few times
/// (measured on the 1,000-node shapes: plugin-down's peak 125 → 116 MB for 3% more scan
/// time, a backlog unchanged).
pub const HOT_AFTER: usize = 8;

/// What was worked out, of which member (empty: of the whole value), and the result: a few
/// per value, so a list is enough.
type Remembered = Vec<(&'static str, String, Arc<dyn Any + Send + Sync>)>;

/// One JSON value, the copies of it not lent out at the moment, and what readers worked out
/// from it ([`Shared::remember`]).
pub struct Shared {
    /// The value, when nothing else can make it again (a list a fact built); `None` for an
    /// object of the bundle, whose copies are read from its JSON ([`Shared::lend_or`]).
    master: Option<Value>,
    /// How many times it has been lent.
    lent: AtomicUsize,
    spare: Mutex<Vec<Value>>,
    remembered: Mutex<Remembered>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("master", &self.master)
            .finish()
    }
}

impl Shared {
    pub fn new(master: Value) -> Arc<Shared> {
        Shared::with(Some(master))
    }

    /// A value made again by whoever borrows it whenever no copy is spare
    /// ([`Shared::lend_or`]): an object the bundle holds as text.
    pub fn remade() -> Arc<Shared> {
        Shared::with(None)
    }

    fn with(master: Option<Value>) -> Arc<Shared> {
        Arc::new(Shared {
            master,
            lent: AtomicUsize::new(0),
            spare: Mutex::new(Vec::new()),
            remembered: Mutex::new(Vec::new()),
        })
    }

    /// `f` worked out once from this value (or its member `within`, when not empty) and kept
    /// under `name`: what a message makes of a list of five thousand node names is the same in
    /// every view that holds it.
    pub fn remember<T: Clone + Send + Sync + 'static>(
        &self,
        name: &'static str,
        within: &str,
        f: impl FnOnce() -> T,
    ) -> T {
        let known = self
            .remembered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|(n, w, _)| *n == name && w == within)
            .and_then(|(_, _, v)| v.downcast_ref::<T>())
            .cloned();
        known.unwrap_or_else(|| {
            let v = f();
            self.remembered
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((name, within.to_string(), Arc::new(v.clone())));
            v
        })
    }

    /// A copy to hold until it is given back: a spare one when there is one, else a copy of
    /// the master.
    pub fn lend(&self) -> Value {
        debug_assert!(self.master.is_some(), "a remade value is lent by lend_or");
        self.lend_or(|| Value::Null)
    }

    /// [`Shared::lend`], with `remake` making the copy when there is neither a spare one nor a
    /// master ([`Shared::remade`]).
    pub fn lend_or(&self, remake: impl FnOnce() -> Value) -> Value {
        self.lent.fetch_add(1, Ordering::Relaxed);
        if let Some(spare) = self.spares().pop() {
            return spare;
        }
        self.master.clone().unwrap_or_else(remake)
    }

    fn give_back(&self, copy: Value) {
        // A view is read, never written, once built: what comes back is what was lent.
        debug_assert!(
            self.master.as_ref().is_none_or(|m| copy == *m),
            "a lent value was changed"
        );
        if self.master.is_none() && self.lent.load(Ordering::Relaxed) < HOT_AFTER {
            return;
        }
        let mut spare = self.spares();
        if spare.len() < SPARE_COPIES {
            spare.push(copy);
        }
    }

    fn spares(&self) -> std::sync::MutexGuard<'_, Vec<Value>> {
        self.spare.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The values one JSON document holds on loan: where each sits (a JSON pointer) and whose it
/// is.
#[derive(Debug, Clone, Default)]
pub struct Loans(Vec<(String, Arc<Shared>)>);

impl Loans {
    /// Put a copy of `shared` at `key` of `into`, and remember it sits at `at`.
    pub fn lend(
        &mut self,
        into: &mut serde_json::Map<String, Value>,
        key: &str,
        at: String,
        shared: &Arc<Shared>,
    ) {
        let copy = self.lent(at, shared);
        into.insert(key.to_string(), copy);
    }

    /// A copy of `shared` to put at `at` of the document.
    pub fn lent(&mut self, at: String, shared: &Arc<Shared>) -> Value {
        self.0.push((at, shared.clone()));
        shared.lend()
    }

    /// [`Loans::lent`] of a value `remake` makes again when no copy is spare
    /// ([`Shared::remade`]).
    pub fn lent_or(
        &mut self,
        at: String,
        shared: &Arc<Shared>,
        remake: impl FnOnce() -> Value,
    ) -> Value {
        self.0.push((at, shared.clone()));
        shared.lend_or(remake)
    }

    /// The same loans, sitting under `prefix` (a JSON pointer) of a larger document.
    pub fn under(self, prefix: &str) -> Loans {
        Loans(
            self.0
                .into_iter()
                .map(|(at, s)| (format!("{prefix}{at}"), s))
                .collect(),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn extend(&mut self, other: Loans) {
        self.0.extend(other.0);
    }

    /// Each value `root` holds on loan, and whose it is.
    pub fn in_doc<'d>(&'d self, root: &'d Value) -> Vec<(&'d Value, &'d Shared)> {
        self.0
            .iter()
            .filter_map(|(at, shared)| Some((root.pointer(at)?, &**shared)))
            .collect()
    }

    /// Take every lent value out of `root` and give it back to its pool.
    pub fn give_back(&mut self, root: &mut Value) {
        for (at, shared) in self.0.drain(..) {
            if let Some(v) = root.pointer_mut(&at) {
                shared.give_back(std::mem::take(v));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_copy_given_back_is_lent_again_and_the_document_keeps_its_shape_until_then() {
        let shared = Shared::new(json!(["a", "b"]));
        let mut doc = json!({"facts": {"device": {}}});
        let mut loans = Loans::default();
        let device = doc["facts"]["device"].as_object_mut().unwrap();
        loans.lend(device, "nodes", "/nodes".into(), &shared);
        let mut loans = loans.under("/facts/device");
        assert_eq!(doc, json!({"facts": {"device": {"nodes": ["a", "b"]}}}));
        assert!(shared.spares().is_empty());
        loans.give_back(&mut doc);
        assert_eq!(doc, json!({"facts": {"device": {"nodes": null}}}));
        assert_eq!(shared.spares().len(), 1);
        // The spare goes out next, and no new copy is made while one is there.
        assert_eq!(shared.lend(), json!(["a", "b"]));
        assert!(shared.spares().is_empty());
    }

    #[test]
    fn what_is_worked_out_from_a_value_is_worked_out_once_per_name() {
        let shared = Shared::new(json!(["a", "b"]));
        let mut calls = 0;
        for _ in 0..3 {
            let n = shared.remember("count", "", || {
                calls += 1;
                2usize
            });
            assert_eq!(n, 2);
        }
        assert_eq!(calls, 1);
        assert_eq!(shared.remember("other", "", || "x".to_string()), "x");
        assert_eq!(shared.remember("count", "a", || 3usize), 3);
        assert_eq!(shared.remember("count", "", || 4usize), 2);
    }

    #[test]
    fn a_remade_value_is_made_only_when_no_copy_is_spare() {
        let shared = Shared::remade();
        let made = std::cell::Cell::new(0);
        let make = || {
            made.set(made.get() + 1);
            json!({"kind": "Node"})
        };
        let (mut a, mut b) = (json!({}), json!({}));
        let (mut loans_a, mut loans_b) = (Loans::default(), Loans::default());
        a["node"] = loans_a.lent_or("/node".into(), &shared, make);
        b["node"] = loans_b.lent_or("/node".into(), &shared, make);
        assert_eq!(made.get(), 2, "two views at once: two copies");
        assert_eq!(a["node"], json!({"kind": "Node"}));
        loans_a.give_back(&mut a);
        loans_b.give_back(&mut b);
        let lend_alone = || {
            let mut c = json!({});
            let mut loans = Loans::default();
            c["node"] = loans.lent_or("/node".into(), &shared, make);
            assert_eq!(c["node"], json!({"kind": "Node"}));
            loans.give_back(&mut c);
        };
        // Not kept while it is lent seldom: each loan reads it again.
        for _ in 2..HOT_AFTER - 1 {
            lend_alone();
        }
        assert_eq!(made.get(), HOT_AFTER - 1, "read again each time");
        assert!(shared.spares().is_empty());
        // Lent often: the copy given back is kept and lent again.
        for _ in 0..3 {
            lend_alone();
        }
        assert_eq!(
            made.get(),
            HOT_AFTER,
            "the copies given back are lent again"
        );
        assert_eq!(shared.spares().len(), 1);
    }

    #[test]
    fn the_pool_keeps_a_bounded_number_of_spares() {
        let shared = Shared::new(json!([1]));
        for _ in 0..SPARE_COPIES + 3 {
            shared.give_back(json!([1]));
        }
        assert_eq!(shared.spares().len(), SPARE_COPIES);
    }
}
