//! The one-pass reader: the whole input is read once, each item's identity and span taken on
//! the way, and the copies it keeps borrow from the text until the survivors of
//! de-duplication are known.
//!
//! It only ever accepts: on anything it is not sure to read exactly as the checked reader
//! ([`super::Bundle::from_json_text_checked`]) would (a malformed or odd item, a key with
//! escapes, Lists nested too deep, an input without objects), it returns `None` and the checked
//! reader reads the input again and says what is wrong and where.

use super::{BundleMeta, RawObject, from_json, group_of, rv_int};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::hash::{BuildHasher, RandomState};

/// Lists nested in Lists beyond this are refused (the checked reader's limit).
const MAX_LIST_DEPTH: usize = 16;

/// The objects (de-duplicated, in order) and the tool's own metadata, or `None` when the
/// checked reader must decide.
pub(super) fn read(text: &str) -> Option<(Vec<RawObject>, Option<BundleMeta>)> {
    let mut r = Reader {
        text,
        objects: Vec::new(),
        seen: HashMap::new(),
        hasher: RandomState::new(),
        meta: None,
    };
    for doc in serde_json::Deserializer::from_str(text).into_iter::<Node>() {
        r.node(doc.ok()?, None, 0)?;
    }
    if r.objects.is_empty() && r.meta.is_none() {
        return None;
    }
    Some((r.objects, r.meta))
}

/// One value as the one-pass reader keeps it: arrays and objects (the places Kubernetes
/// objects can be), with an object's other values skipped.
enum Node<'a> {
    Array(Vec<Node<'a>>),
    Object(Obj<'a>),
    Other,
}

/// An object's fields the reader needs, unparsed, and where its text starts and ends.
#[derive(Default)]
struct Obj<'a> {
    /// Address of the first key's text (0 for `{}`).
    first_key: usize,
    /// Address just past the last value's text (0 when unknown: `{}`, or `items` last).
    last_end: usize,
    /// The last value is `metadata` (an object: it ends after its own last value).
    metadata_last: bool,
    api_version: Option<&'a RawValue>,
    kind: Option<&'a RawValue>,
    metadata: Option<MetaNode<'a>>,
    items: Option<Vec<Node<'a>>>,
    kubectl_layer: Option<&'a RawValue>,
}

impl<'de> Deserialize<'de> for Node<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Node<'de>, E> {
        Ok(Node::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Node<'de>, E> {
        Ok(Node::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Node<'de>, E> {
        Ok(Node::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Node<'de>, E> {
        Ok(Node::Other)
    }

    fn visit_str<E>(self, _: &str) -> Result<Node<'de>, E> {
        Ok(Node::Other)
    }

    fn visit_unit<E>(self) -> Result<Node<'de>, E> {
        Ok(Node::Other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(n) = seq.next_element()? {
            items.push(n);
        }
        Ok(Node::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node<'de>, A::Error> {
        const API_VERSION: u8 = 1;
        const KIND: u8 = 2;
        const METADATA: u8 = 4;
        const ITEMS: u8 = 8;
        const KUBECTL_LAYER: u8 = 16;
        let mut o = Obj::default();
        let mut seen = 0u8;
        // A key with escapes cannot be borrowed: an error, so the checked reader decides.
        while let Some(key) = map.next_key::<&'de str>()? {
            if o.first_key == 0 {
                o.first_key = key.as_ptr() as usize;
            }
            let field = match key {
                "apiVersion" => API_VERSION,
                "kind" => KIND,
                "metadata" => METADATA,
                "items" => ITEMS,
                "kubectlLayer" => KUBECTL_LAYER,
                _ => 0,
            };
            if seen & field != 0 {
                return Err(de::Error::custom("duplicate field"));
            }
            seen |= field;
            o.metadata_last = field == METADATA;
            if field == ITEMS {
                o.items = map.next_value()?;
                o.last_end = 0;
                continue;
            }
            if field == METADATA {
                o.metadata = Some(map.next_value()?);
                o.last_end = 0;
                continue;
            }
            let raw: &'de RawValue = map.next_value()?;
            o.last_end = end_of(raw);
            match field {
                API_VERSION => o.api_version = Some(raw),
                KIND => o.kind = Some(raw),
                KUBECTL_LAYER => o.kubectl_layer = Some(raw),
                _ => {}
            }
        }
        Ok(Node::Object(o))
    }
}

/// A string borrowed from the text when it has no escapes.
#[derive(Deserialize)]
struct Str<'a>(#[serde(borrow)] Cow<'a, str>);

fn end_of(raw: &RawValue) -> usize {
    raw.get().as_ptr() as usize + raw.get().len()
}

/// `metadata` as the one-pass reader keeps it: `null`, or an object's identifying fields,
/// unparsed. Anything else (the checked reader also takes a sequence) is an error.
enum MetaNode<'a> {
    Null,
    Map(MetaRaw<'a>),
}

#[derive(Default)]
struct MetaRaw<'a> {
    /// Address just past the last value's text (0 for `{}`).
    last_end: usize,
    name: Option<&'a RawValue>,
    namespace: Option<&'a RawValue>,
    uid: Option<&'a RawValue>,
    resource_version: Option<&'a RawValue>,
}

impl<'de> Deserialize<'de> for MetaNode<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(MetaVisitor)
    }
}

struct MetaVisitor;

impl<'de> Visitor<'de> for MetaVisitor {
    type Value = MetaNode<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("metadata")
    }

    fn visit_unit<E>(self) -> Result<MetaNode<'de>, E> {
        Ok(MetaNode::Null)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MetaNode<'de>, A::Error> {
        let mut m = MetaRaw::default();
        let mut seen = 0u8;
        while let Some(key) = map.next_key::<&'de str>()? {
            let field = match key {
                "name" => 1,
                "namespace" => 2,
                "uid" => 4,
                "resourceVersion" => 8,
                _ => 0,
            };
            if seen & field != 0 {
                return Err(de::Error::custom("duplicate field"));
            }
            seen |= field;
            let raw: &'de RawValue = map.next_value()?;
            m.last_end = end_of(raw);
            match field {
                1 => m.name = Some(raw),
                2 => m.namespace = Some(raw),
                4 => m.uid = Some(raw),
                8 => m.resource_version = Some(raw),
                _ => {}
            }
        }
        Ok(MetaNode::Map(m))
    }
}

/// An optional string field: `None` when it is not a string or null.
fn string(raw: Option<&RawValue>) -> Option<Option<Cow<'_, str>>> {
    match raw {
        None => Some(None),
        Some(r) => from_json::<Option<Str>>(r.get()).map(|s| s.map(|s| s.0)),
    }
}

fn non_empty(s: Option<Cow<'_, str>>) -> Option<Cow<'_, str>> {
    s.filter(|s| !s.is_empty())
}

/// An object found, borrowing from the text until it is kept.
struct Found<'t> {
    api_version: Cow<'t, str>,
    kind: Cow<'t, str>,
    namespace: Option<Cow<'t, str>>,
    name: Cow<'t, str>,
    uid: Option<Cow<'t, str>>,
    resource_version: Option<Cow<'t, str>>,
    span: (usize, usize),
    inferred_type: bool,
}

impl Found<'_> {
    fn into_object(self) -> RawObject {
        RawObject {
            api_version: self.api_version.into_owned(),
            kind: self.kind.into_owned(),
            namespace: self.namespace.map(Cow::into_owned),
            name: self.name.into_owned(),
            uid: self.uid.map(Cow::into_owned),
            resource_version: self.resource_version.map(Cow::into_owned),
            span: self.span,
            inferred_type: self.inferred_type,
        }
    }

    fn rv_int(&self) -> Option<u128> {
        self.resource_version.as_deref()?.parse().ok()
    }
}

/// The kind and apiVersion a typed list (`PodList`) gives its items.
type ListType<'t> = (Cow<'t, str>, Cow<'t, str>);

struct Reader<'t> {
    text: &'t str,
    objects: Vec<RawObject>,
    /// Index of each object by a hash of its identity (group, kind, namespace, name). Two
    /// identities with one hash (about one chance in 10^8 for a million objects) make the
    /// reader decline, and the checked reader de-duplicates.
    seen: HashMap<u64, usize>,
    hasher: RandomState,
    meta: Option<BundleMeta>,
}

impl<'t> Reader<'t> {
    fn node(
        &mut self,
        node: Node<'t>,
        list_type: Option<&ListType<'t>>,
        depth: usize,
    ) -> Option<()> {
        if depth > MAX_LIST_DEPTH {
            return None;
        }
        match node {
            Node::Other => None,
            Node::Array(items) => {
                for it in items {
                    self.node(it, None, depth + 1)?;
                }
                Some(())
            }
            Node::Object(o) => self.object(o, list_type, depth),
        }
    }

    fn object(&mut self, o: Obj<'t>, list_type: Option<&ListType<'t>>, depth: usize) -> Option<()> {
        // Every field is checked as the checked reader does, list or not.
        let own_kind = string(o.kind)?;
        let own_api_version = string(o.api_version)?;
        let meta = match o.metadata {
            Some(MetaNode::Map(m)) => Some((
                string(m.name)?,
                string(m.namespace)?,
                string(m.uid)?,
                string(m.resource_version)?,
                m.last_end,
            )),
            Some(MetaNode::Null) | None => None,
        };
        let layer = match o.kubectl_layer {
            Some(r) => from_json::<Option<BundleMeta>>(r.get())?,
            None => None,
        };
        let kind = own_kind.clone().or_else(|| list_type.map(|t| t.0.clone()));
        let is_list = o.items.is_some() && kind.as_deref().is_none_or(|k| k.ends_with("List"));
        if is_list {
            if let Some(m) = layer {
                self.meta = Some(m);
            }
            let item_type = match (own_kind, own_api_version) {
                (Some(k), Some(av)) if k != "List" => strip_list(k).map(|k| (k, av)),
                _ => None,
            };
            let items = o.items.unwrap_or_default();
            self.objects.reserve(items.len());
            self.seen.reserve(items.len());
            for it in items {
                self.node(it, item_type.as_ref(), depth + 1)?;
            }
            return Some(());
        }
        let inferred_type = own_kind.is_none() && list_type.is_some();
        let api_version = own_api_version.or_else(|| list_type.map(|t| t.1.clone()))?;
        let (name, namespace, uid, resource_version, meta_end) = meta?;
        let last_end = if o.metadata_last {
            self.text.as_ptr() as usize + self.end(meta_end)?
        } else {
            o.last_end
        };
        let found = Found {
            api_version,
            kind: kind?,
            name: non_empty(name)?,
            namespace: non_empty(namespace),
            uid: non_empty(uid),
            resource_version,
            span: (self.start(o.first_key)?, self.end(last_end)?),
            inferred_type,
        };
        self.insert(found)
    }

    /// Offset of the `{` before an object's first key.
    fn start(&self, first_key: usize) -> Option<usize> {
        let key = first_key.checked_sub(self.text.as_ptr() as usize)?;
        let before = self.text.as_bytes().get(..key.checked_sub(1)?)?;
        let at = before.iter().rposition(|b| !is_space(*b))?;
        (before[at] == b'{').then_some(at)
    }

    /// Offset just past the `}` after an object's last value (given by its address).
    fn end(&self, last_end: usize) -> Option<usize> {
        let end = last_end.checked_sub(self.text.as_ptr() as usize)?;
        let after = self.text.as_bytes().get(end..)?;
        let at = after.iter().position(|b| !is_space(*b))?;
        (after[at] == b'}').then_some(end + at + 1)
    }

    /// The same object twice: the later copy wins, unless both resourceVersions are integers,
    /// then the higher one wins (as `super::insert_dedup`).
    fn insert(&mut self, o: Found<'t>) -> Option<()> {
        let id = (
            group_of(&o.api_version),
            &*o.kind,
            o.namespace.as_deref(),
            &*o.name,
        );
        match self.seen.entry(self.hasher.hash_one(id)) {
            Entry::Occupied(e) => {
                let i = *e.get();
                let old = &self.objects[i];
                let old_id = (
                    old.group(),
                    old.kind.as_str(),
                    old.namespace.as_deref(),
                    old.name.as_str(),
                );
                if old_id != id {
                    return None;
                }
                let keep_old = match (rv_int(&self.objects[i]), o.rv_int()) {
                    (Some(a), Some(b)) => a > b,
                    _ => false,
                };
                if !keep_old {
                    self.objects[i] = o.into_object();
                }
            }
            Entry::Vacant(e) => {
                e.insert(self.objects.len());
                self.objects.push(o.into_object());
            }
        }
        Some(())
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\t' | b'\r')
}

fn strip_list(kind: Cow<'_, str>) -> Option<Cow<'_, str>> {
    match kind {
        Cow::Borrowed(k) => k.strip_suffix("List").map(Cow::Borrowed),
        Cow::Owned(k) => k.strip_suffix("List").map(|k| Cow::Owned(k.to_string())),
    }
}
