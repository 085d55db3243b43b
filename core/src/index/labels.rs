//! Pods by namespace and label, built with the index from each pod's labels as the index reads
//! them: a Deployment, StatefulSet or pool finds its pods by selector, and reading every pod
//! of its namespace for each one was quadratic (most of `scan` on 100,000 pods). Built later,
//! on first use, it read every pod's text a second time; on the 1,000-node usual shape that
//! was a third of scan's time on one thread before any diagnosis could start.

use super::ObjId;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Which pods carry `key: value` in each namespace, each list in id order.
#[derive(Debug, Default)]
pub(crate) struct PodsByLabel {
    /// (namespace, key, the value as JSON text) → pods, the three joined by [`label_key`]
    /// into one string: a backlog's pods carry tens of thousands of distinct labels, and three
    /// strings a key took twice the memory. JSON text, so that a value compares as serde_json
    /// compares it (`"4"` and `4` differ) without hashing a `Value`.
    with: HashMap<Box<str>, Vec<ObjId>>,
}

/// [`PodsByLabel`]'s key: the namespace (or `-` for none), the label key and the value's JSON
/// text, the first two after their lengths, so no two triples join into the same string
/// whatever characters they hold.
fn label_key(namespace: Option<&str>, key: &str, value_json: &str) -> Box<str> {
    use std::fmt::Write as _;
    let mut k =
        String::with_capacity(namespace.map_or(0, str::len) + key.len() + value_json.len() + 12);
    match namespace {
        Some(ns) => {
            let _ = write!(k, "{}:{ns}", ns.len());
        }
        None => k.push('-'),
    }
    let _ = write!(k, "{}:{key}{value_json}", key.len());
    k.into_boxed_str()
}

/// [`label_key`] of `key: value` in `namespace`, the value written as JSON.
fn key_of(namespace: Option<&str>, key: &str, value: &(impl Serialize + ?Sized)) -> Box<str> {
    label_key(
        namespace,
        key,
        &serde_json::to_string(value).unwrap_or_default(),
    )
}

/// The keys of a pod's labels in `namespace`, as the index keeps them.
pub(super) fn label_keys<'l, V: Serialize + ?Sized + 'l>(
    namespace: Option<&str>,
    labels: impl IntoIterator<Item = (&'l str, &'l V)>,
) -> Vec<Box<str>> {
    labels
        .into_iter()
        .map(|(k, v)| key_of(namespace, k, v))
        .collect()
}

/// [`label_keys`] of a pod's labels read as JSON (`metadata.labels`; none when it is not an
/// object): what the index keeps for a pod whose typed reading failed.
pub(super) fn label_keys_of(namespace: Option<&str>, pod: &Value) -> Vec<Box<str>> {
    pod.pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map_or_else(Vec::new, |labels| {
            label_keys(namespace, labels.iter().map(|(k, v)| (k.as_str(), v)))
        })
}

impl PodsByLabel {
    /// Note that pod `id` carries the label of `key` ([`label_key`]). Pods are added in id
    /// order: [`PodsByLabel::selected`] relies on it. The key is copied on this thread, the
    /// one that keeps the table: a key the index's helper thread made stays in that helper's
    /// pages after it exits, partly filled (2 MB more at the peak of a scan of the 1,000-node
    /// usual shape, measured).
    pub(super) fn add(&mut self, key: &str, id: ObjId) {
        self.with.entry(key.into()).or_default().push(id);
    }

    /// The pods of `namespace` whose label `key` is `value`.
    pub(crate) fn with(&self, namespace: Option<&str>, key: &str, value: &Value) -> &[ObjId] {
        self.with
            .get(&key_of(namespace, key, value))
            .map_or(&[], Vec::as_slice)
    }

    /// The pods of `namespace` that carry every `key: value` of `selector` (none for an empty
    /// one), in id order.
    pub(crate) fn selected(
        &self,
        namespace: Option<&str>,
        selector: &Map<String, Value>,
    ) -> Vec<ObjId> {
        let lists: Vec<&[ObjId]> = selector
            .iter()
            .map(|(k, v)| self.with(namespace, k, v))
            .collect();
        let Some(shortest) = lists.iter().min_by_key(|l| l.len()) else {
            return Vec::new();
        };
        shortest
            .iter()
            .copied()
            .filter(|p| lists.iter().all(|l| l.binary_search(p).is_ok()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_keys_of_different_triples_differ() {
        let triples = [
            (None, "a", "\"b\""),
            (Some(""), "a", "\"b\""),
            (Some("-"), "a", "\"b\""),
            (Some("1:a"), "", "1"),
            (Some("1"), ":a", "1"),
            (Some("ns"), "a", "1:b"),
            (Some("ns"), "a1:", "b"),
            (Some("ns"), "a", "\"4\""),
            (Some("ns"), "a", "4"),
        ];
        let keys: std::collections::BTreeSet<_> = triples
            .iter()
            .map(|&(ns, k, v)| label_key(ns, k, v))
            .collect();
        assert_eq!(keys.len(), triples.len(), "{keys:?}");
    }
}
