//! The one-pass reader: the whole input is read once, each object's identity and span taken
//! on the way and the object kept (or not) as soon as it ends, so nothing but the objects is
//! built.
//!
//! It only ever accepts: on anything it is not sure to read exactly as the checked reader
//! ([`super::Bundle::from_json_text_checked`]) would (a malformed or odd item, a key with
//! escapes, Lists nested too deep, an input without objects), it returns `None` and the checked
//! reader reads the input again and says what is wrong and where.

use super::{
    BundleMeta, ItemsField, Names, RawObject, Uid, from_json, is_json_space, is_list, revision,
    rv_int,
};
use crate::fnv::Fnv;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::hash::{BuildHasher, BuildHasherDefault};

/// Lists nested in Lists beyond this are refused (the checked reader's limit).
const MAX_LIST_DEPTH: usize = 16;

/// The objects (de-duplicated, in order) and the tool's own metadata, or `None` when the
/// checked reader must decide. `objects`: about how many there are, when the depth scan
/// counted them.
pub(super) fn read(
    text: &str,
    objects: Option<usize>,
) -> Option<(Vec<RawObject>, Option<BundleMeta>)> {
    // Room for every object up front: on a large cluster, growing the list step by step
    // copies it again and again into fresh pages, which cost more than the read itself.
    // Without a count, each object has one `"metadata"` key (pod templates add a few more;
    // the spare is never touched).
    let estimate = objects
        .unwrap_or_else(|| memchr::memmem::find_iter(text.as_bytes(), b"\"metadata\"").count());
    let mut r = Reader::new(text, estimate, Some(Dedup::with_capacity(estimate)));
    let mut de = serde_json::Deserializer::from_str(text);
    loop {
        let doc = Value {
            r: &mut r,
            list_type: None,
            depth: 0,
        };
        doc.deserialize(&mut de).ok()?;
        // Only blanks left: the last document was read.
        if de.end().is_ok() {
            break;
        }
    }
    if r.objects.is_empty() && r.meta.is_none() {
        return None;
    }
    Some((r.objects, r.meta.map(|(_, m)| m)))
}

/// The error that makes the reader decline.
fn decline<E: de::Error>() -> E {
    E::custom("left to the checked reader")
}

/// A value where Kubernetes objects may be (a document, an element of an array or of a List's
/// `items`): read, and every object in it kept.
struct Value<'r, 't> {
    r: &'r mut Reader<'t>,
    /// The enclosing typed list's kind and apiVersion for its items.
    list_type: Option<&'r ListType<'t>>,
    depth: usize,
}

impl<'t> DeserializeSeed<'t> for Value<'_, 't> {
    type Value = ();

    fn deserialize<D: Deserializer<'t>>(self, d: D) -> Result<(), D::Error> {
        if self.depth > MAX_LIST_DEPTH {
            return Err(decline());
        }
        d.deserialize_any(self)
    }
}

/// An object's fields the reader needs, unparsed, and where its text starts and ends.
#[derive(Default)]
struct Obj<'a> {
    /// Address of the first key's text (0 for `{}`).
    first_key: usize,
    /// Address just past the last value's text (0 when unknown: `{}`, or a List's `items`
    /// last).
    last_end: usize,
    /// The last value is `metadata` (an object: it ends after its own last value).
    metadata_last: bool,
    api_version: Option<&'a RawValue>,
    kind: Option<&'a RawValue>,
    metadata: Option<MetaNode<'a>>,
    kubectl_layer: Option<&'a RawValue>,
    items: ItemsField,
    /// When the items were read as a List's: the item type they were read with.
    read_as_list: Option<Option<ListType<'a>>>,
}

impl<'t> Visitor<'t> for Value<'_, 't> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Kubernetes object, a List or an array")
    }

    // Anything else (a scalar) is an error: the checked reader reports it.

    fn visit_seq<A: SeqAccess<'t>>(self, mut seq: A) -> Result<(), A::Error> {
        let Value { r, depth, .. } = self;
        while seq
            .next_element_seed(Value {
                r: &mut *r,
                list_type: None,
                depth: depth + 1,
            })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'t>>(self, mut map: A) -> Result<(), A::Error> {
        const API_VERSION: u8 = 1;
        const KIND: u8 = 2;
        const METADATA: u8 = 4;
        const ITEMS: u8 = 8;
        const KUBECTL_LAYER: u8 = 16;
        let Value {
            r,
            list_type,
            depth,
        } = self;
        // Lists are met in the checked reader's order (the tool's metadata: the last one wins).
        r.maps += 1;
        let order = r.maps;
        let mut o = Obj::default();
        let mut seen = 0u8;
        // A key with escapes cannot be borrowed: an error, so the checked reader decides.
        while let Some(key) = map.next_key::<&'t str>()? {
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
                return Err(decline());
            }
            seen |= field;
            o.metadata_last = field == METADATA;
            match field {
                METADATA => {
                    o.metadata = Some(map.next_value()?);
                    o.last_end = 0;
                }
                ITEMS => {
                    // A List as far as is known now: its items are read as they come, with
                    // the item type known now; checked when the object ends.
                    let own_kind = string(o.kind).ok_or_else(decline)?;
                    let own_api_version = string(o.api_version).ok_or_else(decline)?;
                    let as_list = if seen & KIND != 0 {
                        own_kind
                            .clone()
                            .or_else(|| list_type.map(|t| t.0.clone()))
                            .is_none_or(|k| k.ends_with("List"))
                    } else {
                        list_type.is_none()
                    };
                    if as_list {
                        let item_type = item_type(own_kind, own_api_version);
                        if depth == 0 && r.list_items.is_none() {
                            r.list_items = Some(
                                item_type
                                    .as_ref()
                                    .map(|(k, av)| (k.to_string(), av.to_string())),
                            );
                        }
                        let array = map.next_value_seed(Items {
                            r: &mut *r,
                            item_type: item_type.as_ref(),
                            depth: depth + 1,
                        })?;
                        o.items = if array {
                            ItemsField::Array
                        } else {
                            ItemsField::Null
                        };
                        o.read_as_list = Some(item_type);
                        o.last_end = 0;
                    } else {
                        let raw: &'t RawValue = map.next_value()?;
                        if !raw.get().starts_with('[') && raw.get() != "null" {
                            return Err(decline());
                        }
                        o.items = if raw.get() == "null" {
                            ItemsField::Null
                        } else {
                            ItemsField::Array
                        };
                        o.last_end = end_of(raw);
                    }
                }
                _ => {
                    let raw: &'t RawValue = map.next_value()?;
                    o.last_end = end_of(raw);
                    match field {
                        API_VERSION => o.api_version = Some(raw),
                        KIND => o.kind = Some(raw),
                        KUBECTL_LAYER => o.kubectl_layer = Some(raw),
                        _ => {}
                    }
                }
            }
        }
        r.object(o, list_type, order).ok_or_else(decline)
    }
}

/// A List's `items`: `null`, or an array whose elements are read as they come. True for an
/// array.
struct Items<'r, 't> {
    r: &'r mut Reader<'t>,
    item_type: Option<&'r ListType<'t>>,
    depth: usize,
}

impl<'t> DeserializeSeed<'t> for Items<'_, 't> {
    type Value = bool;

    fn deserialize<D: Deserializer<'t>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'t> Visitor<'t> for Items<'_, 't> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("items")
    }

    fn visit_none<E>(self) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_some<D: Deserializer<'t>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_seq(self)
    }

    fn visit_seq<A: SeqAccess<'t>>(self, mut seq: A) -> Result<bool, A::Error> {
        while seq
            .next_element_seed(Value {
                r: &mut *self.r,
                list_type: self.item_type,
                depth: self.depth,
            })?
            .is_some()
        {}
        Ok(true)
    }
}

/// A typed list (`PodList`) has items without kind/apiVersion: theirs.
fn item_type<'t>(
    kind: Option<Cow<'t, str>>,
    api_version: Option<Cow<'t, str>>,
) -> Option<ListType<'t>> {
    match (kind, api_version) {
        (Some(k), Some(av)) if k != "List" => strip_list(k).map(|k| (k, av)),
        _ => None,
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
    fn into_object(self, names: &mut Names) -> RawObject {
        RawObject {
            type_and_namespace: names.type_and_namespace(
                &self.api_version,
                &self.kind,
                self.namespace.as_deref(),
            ),
            name: self.name.into_owned(),
            uid: self.uid.map(|u| Uid::new(&u)),
            revision: revision(self.resource_version.as_deref()),
            span: self.span,
            inferred_type: self.inferred_type,
        }
    }
}

/// The kind and apiVersion a typed list (`PodList`) gives its items.
type ListType<'t> = (Cow<'t, str>, Cow<'t, str>);

struct Reader<'t> {
    text: &'t str,
    objects: Vec<RawObject>,
    /// Copies of one object made one as they are kept (none when the objects are kept as
    /// found, to be de-duplicated by whoever reads them in order).
    dedup: Option<Dedup>,
    /// The tool's metadata, with the number of the List it came from.
    meta: Option<(usize, BundleMeta)>,
    /// Objects (JSON objects, Lists included) begun so far, in document order.
    maps: usize,
    /// The type the outermost List's items were read with, once its `items` were met.
    list_items: Option<Option<(String, String)>>,
    /// API versions, kinds and namespaces, each made once on this reader.
    names: Names,
}

/// De-duplication as the checked reader does it ([`super::insert_dedup`]): the same object
/// twice, the later copy wins, unless both resourceVersions are integers, then the higher one
/// wins.
struct Dedup {
    /// Index of each object by a hash of its identity (group, kind, namespace, name). Two
    /// identities with one hash (about one chance in 10^8 for a million objects) make the
    /// reader decline, and the checked reader de-duplicates.
    seen: HashMap<u64, usize, BuildHasherDefault<Fnv>>,
    hasher: BuildHasherDefault<Fnv>,
}

impl Dedup {
    fn with_capacity(n: usize) -> Dedup {
        Dedup {
            seen: HashMap::with_capacity_and_hasher(n, BuildHasherDefault::default()),
            hasher: BuildHasherDefault::default(),
        }
    }

    /// Where `o`, met as the `next`th object, goes among those kept so far (`kept(j)` the
    /// `j`th): `None` when its identity's hash is another's.
    fn place<'k>(
        &mut self,
        o: &RawObject,
        next: usize,
        kept: impl Fn(usize) -> Option<&'k RawObject>,
    ) -> Option<Placed> {
        let id = (o.group(), o.kind().as_str(), o.namespace(), o.name.as_str());
        match self.seen.entry(self.hasher.hash_one(id)) {
            Entry::Occupied(e) => {
                let old = kept(*e.get())?;
                let old_id = (
                    old.group(),
                    old.kind().as_str(),
                    old.namespace(),
                    old.name.as_str(),
                );
                if old_id != id {
                    return None;
                }
                let keep_old = match (rv_int(old), rv_int(o)) {
                    (Some(a), Some(b)) => a > b,
                    _ => false,
                };
                Some(if keep_old {
                    Placed::Dropped
                } else {
                    Placed::Replaces(*e.get())
                })
            }
            Entry::Vacant(e) => {
                e.insert(next);
                Some(Placed::New)
            }
        }
    }

    /// Keep `o` in `objects`: at the end, or in place of its earlier copy.
    fn insert(&mut self, objects: &mut Vec<RawObject>, o: RawObject) -> Option<()> {
        match self.place(&o, objects.len(), |j| objects.get(j))? {
            Placed::New => objects.push(o),
            Placed::Replaces(j) => objects[j] = o,
            Placed::Dropped => {}
        }
        Some(())
    }
}

/// What [`Dedup::place`] decided.
enum Placed {
    /// A new identity: kept where it was met.
    New,
    /// A later copy that wins: kept in place of the earlier one.
    Replaces(usize),
    /// A later copy that loses.
    Dropped,
}

impl<'t> Reader<'t> {
    /// A reader of `text` with room for `objects`, keeping the copies of one object as
    /// `dedup` says.
    fn new(text: &'t str, objects: usize, dedup: Option<Dedup>) -> Reader<'t> {
        Reader {
            text,
            objects: Vec::with_capacity(objects),
            dedup,
            meta: None,
            maps: 0,
            list_items: None,
            names: Names::default(),
        }
    }

    /// An object has ended: keep it, or check that it was the List its items were read as.
    /// `order` numbers it among the objects begun.
    fn object(&mut self, o: Obj<'t>, list_type: Option<&ListType<'t>>, order: usize) -> Option<()> {
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
        let is_list = is_list(o.items, kind.as_deref());
        if let Some(read_with) = o.read_as_list {
            // Its items were read already: it must be a List with that item type.
            if !is_list || item_type(own_kind, own_api_version) != read_with {
                return None;
            }
            if let Some(m) = layer
                && self.meta.as_ref().is_none_or(|(at, _)| *at < order)
            {
                self.meta = Some((order, m));
            }
            return Some(());
        }
        if is_list {
            return None;
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
        let at = before.iter().rposition(|b| !is_json_space(*b))?;
        (before[at] == b'{').then_some(at)
    }

    /// Offset just past the `}` after an object's last value (given by its address).
    fn end(&self, last_end: usize) -> Option<usize> {
        let end = last_end.checked_sub(self.text.as_ptr() as usize)?;
        let after = self.text.as_bytes().get(end..)?;
        let at = after.iter().position(|b| !is_json_space(*b))?;
        (after[at] == b'}').then_some(end + at + 1)
    }

    /// Keep an object found (see [`Dedup`]).
    fn insert(&mut self, o: Found<'t>) -> Option<()> {
        let o = o.into_object(&mut self.names);
        match &mut self.dedup {
            Some(d) => d.insert(&mut self.objects, o),
            None => {
                self.objects.push(o);
                Some(())
            }
        }
    }
}

/// Texts at least this long are read on several threads when they are one List: below it,
/// starting threads costs more than the read (a 1 MB List reads in about 3 ms).
pub(crate) const PARALLEL_FROM: usize = 4 << 20;

/// [`read`] on up to `threads` threads, for one JSON document that is a List whose `items`
/// are the objects the depth scan found (`list`). The List itself is read as [`read`] reads
/// it, from its text with the items left out; the items a run at a time on each thread, each
/// as [`read`] reads an item of that List; then de-duplicated in order. `None` (the caller
/// reads the text with [`read`]) on anything else: a List nested in an item, the tool's
/// metadata in one, a List [`read`] would decline.
pub(super) fn read_parallel(
    text: &str,
    list: &super::TheItems,
    threads: usize,
) -> Option<(Vec<RawObject>, Option<BundleMeta>)> {
    let head = format!("{}{}", &text[..=list.open], &text[list.close..]);
    let mut r = Reader::new(&head, 0, Some(Dedup::with_capacity(0)));
    let mut de = serde_json::Deserializer::from_str(&head);
    Value {
        r: &mut r,
        list_type: None,
        depth: 0,
    }
    .deserialize(&mut de)
    .ok()?;
    de.end().ok()?;
    // The one object of the text is a List, read as one: nothing kept, its item type known.
    if !r.objects.is_empty() {
        return None;
    }
    let item_type = r.list_items?;
    let meta = r.meta.map(|(_, m)| m);
    let item_type: Option<ListType<'_>> = item_type.map(|(k, av)| (Cow::Owned(k), Cow::Owned(av)));
    // Runs of items a thread reads at once: enough that a run costs far more than taking it.
    // Each item's object is written in its slot, so the objects are not copied from lists
    // made per run into one (on a large cluster that copy is a fifth of the bundle).
    const RUN: usize = 512;
    let mut slots: Vec<Option<RawObject>> = Vec::new();
    slots.resize_with(list.items.len(), || None);
    // One thread's runs share its names: made anew for each run, a 1,000-node bundle's
    // kinds and namespaces were made 150 times over.
    let read = crate::par::fill_chunks(
        &mut slots,
        RUN,
        threads,
        Names::default,
        |names, run, slots| {
            let items = &list.items[run * RUN..run * RUN + slots.len()];
            let mut r = Reader::new(text, 1, None);
            r.names = std::mem::take(names);
            for (slot, &(start, end)) in slots.iter_mut().zip(items) {
                let mut de = serde_json::Deserializer::from_str(&text[start..end]);
                let read = Value {
                    r: &mut r,
                    list_type: item_type.as_ref(),
                    depth: 1,
                }
                .deserialize(&mut de)
                .is_ok()
                    && de.end().is_ok();
                // One object per item: a List among them (its own items read) or the tool's
                // metadata in one is read in order by [`read`], whose numbering of Lists decides
                // which metadata wins.
                if !read || r.meta.is_some() || r.maps != 1 || r.objects.len() != 1 {
                    return false;
                }
                r.maps = 0;
                *slot = r.objects.pop();
            }
            *names = r.names;
            true
        },
    );
    if !read {
        return None;
    }
    // Copies of one object, made one as the one-pass reader does, in place.
    let mut dedup = Dedup::with_capacity(slots.len());
    for i in 0..slots.len() {
        let o = slots[i].take()?;
        match dedup.place(&o, i, |j| slots.get(j).and_then(Option::as_ref))? {
            Placed::New => slots[i] = Some(o),
            Placed::Replaces(j) => slots[j] = Some(o),
            Placed::Dropped => {}
        }
    }
    // Same size as the objects (a `String`'s pointer is never null): collected in place,
    // which `flatten` is not.
    #[allow(clippy::filter_map_identity)]
    let objects: Vec<RawObject> = slots.into_iter().filter_map(|o| o).collect();
    if objects.is_empty() && meta.is_none() {
        return None;
    }
    Some((objects, meta))
}

fn strip_list(kind: Cow<'_, str>) -> Option<Cow<'_, str>> {
    match kind {
        Cow::Borrowed(k) => k.strip_suffix("List").map(Cow::Borrowed),
        Cow::Owned(k) => k.strip_suffix("List").map(|k| Cow::Owned(k.to_string())),
    }
}
