//! The bundle reader: turns what people actually have into a list of Kubernetes objects.
//!
//! Accepted: `kubectl describe` output (read by [`crate::describe`]), `kubectl cluster-info dump`
//! printed to standard output (its container logs set aside by [`dump`]), a kubectl `List`, a single object, a JSON array, several JSON documents one after
//! another, the same as YAML (multi-document streams too), Lists nested in Lists, typed lists
//! such as `PodList` from `kubectl get --raw` (items without `kind`; `"items": null` when
//! empty, as `kubectl cluster-info dump` prints them one after another), and the tool's own
//! bundle (a List with a `kubectlLayer` field).
//!
//! Memory: objects are not kept as `serde_json::Value` trees. The bundle owns one JSON text and
//! each object is a byte span into it plus the few identifying fields; the index and views parse
//! only what they need. YAML is converted to JSON text once, up front.

use crate::error::{BundleError, InputLocation};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

mod dump;
mod fast;
mod name;
mod uid;
mod yaml;

pub(crate) use name::Names;
pub use name::{Name, TypeAndNamespace};
pub use uid::Uid;

/// What to ask `kubectl get` for when making a bundle by hand (`kubectl get <these> -A -o json`):
/// the kinds most diagnoses read, all of which exist on any cluster with Kueue. The CLI's help,
/// the README and the web page quote this one list (a test holds them to it). A kind the
/// cluster lacks makes `kubectl get` fail, so CRDs not every cluster has are left to `kubectl
/// layer bundle`, which asks the API server what it serves.
pub const GET_KINDS: &str = "pods,nodes,events,jobs,workloads,localqueues,clusterqueues";

/// Metadata of the tool's own bundle (`kubectlLayer` field of the List).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BundleMeta {
    #[serde(default)]
    pub bundle_version: Option<u32>,
    #[serde(default)]
    pub collected_at: Option<String>,
    #[serde(default)]
    pub server_version: Option<String>,
    #[serde(default)]
    pub context: Option<String>,
    #[serde(default)]
    pub target: Option<serde_json::Value>,
    /// What the collector could not read (`kind` may be empty when only the resource is known).
    #[serde(default)]
    pub unreadable: Vec<Missing>,
    #[serde(default)]
    pub redacted: Option<bool>,
    /// The group/versions the cluster offered among those the tool reads (live reads only),
    /// so "this API is not installed" is an observation rather than a guess.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apis: Option<Vec<String>>,
    /// What the input could not show (a `kubectl describe` paste leaves out UIDs, scheduling
    /// gates …): carried into every diagnosis as `inputNotes`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input_notes: Vec<String>,
    /// Reads of Kueue's visibility API (`clusterqueues/<name>/pendingworkloads`) that failed,
    /// named by the ClusterQueue. Kept apart from `unreadable`: the Workloads in the bundle
    /// still order the queue, so no layer is left unjudged, and each standing in that queue
    /// says the position is the bundle's order, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub visibility_failed: Vec<Missing>,
}

/// Something that could not be judged or read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Missing {
    #[serde(default)]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub why: String,
}

/// One object of the bundle: its identity and where its JSON is.
///
/// A bundle holds tens of thousands of these for as long as it is read, so each is kept small
/// (88 bytes): what runs of objects share is held once ([`TypeAndNamespace`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawObject {
    type_and_namespace: Arc<TypeAndNamespace>,
    pub name: String,
    pub uid: Option<Uid>,
    /// `metadata.resourceVersion`, when it is a number (the API server writes etcd's revision,
    /// a signed 64-bit number, so [`NO_REVISION`] is never one): of two copies of one object,
    /// the newer wins.
    revision: u64,
    span: (usize, usize),
    /// True when `kind`/`apiVersion` came from the enclosing typed list, not the item itself.
    inferred_type: bool,
}

/// [`RawObject::resource_version`] when there is none.
const NO_REVISION: u64 = u64::MAX;

impl RawObject {
    pub fn api_version(&self) -> &Name {
        &self.type_and_namespace.api_version
    }

    pub fn kind(&self) -> &Name {
        &self.type_and_namespace.kind
    }

    pub fn namespace(&self) -> Option<&str> {
        self.type_and_namespace.namespace.as_deref()
    }

    /// The namespace as the shared [`Name`], for a copy that costs no allocation.
    pub fn namespace_name(&self) -> Option<&Name> {
        self.type_and_namespace.namespace.as_ref()
    }

    /// `metadata.resourceVersion`, when it is a number.
    pub fn resource_version(&self) -> Option<u64> {
        (self.revision != NO_REVISION).then_some(self.revision)
    }

    /// The API group (`""` for the core group).
    pub fn group(&self) -> &str {
        group_of(self.api_version())
    }
}

/// `apps/v1` → `apps`, `v1` → `""`.
pub fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

/// Limits on what the reader accepts.
#[derive(Debug, Clone, Copy)]
pub struct ReadLimits {
    /// Largest input in bytes (CLI `--max-input-bytes`, npm option `maxInputBytes`).
    pub max_bytes: usize,
    /// Deepest nesting of arrays and objects, counted from the top of each document, Lists
    /// included (CLI `--max-depth`, npm option `maxDepth`). Values above
    /// [`ReadLimits::MAX_DEPTH_JSON`] (JSON) or [`ReadLimits::MAX_DEPTH_YAML`] (YAML) act as
    /// those ceilings.
    pub max_depth: usize,
    /// The time of the paste, in seconds since the epoch (CLI `--now` or its clock, npm option
    /// `now` or the page's): what the relative ages of `kubectl describe` output count back
    /// from. None: their events carry no times (the diagnosis says so).
    pub now: Option<i64>,
    /// Threads the JSON reader may use on a large List (0: one per core, as
    /// [`crate::Options::threads`]); the bundle read is the same for any number.
    pub threads: usize,
}

impl ReadLimits {
    /// Default `max_depth`: serde_json's own recursion limit. The deepest Kubernetes objects
    /// (CRDs that embed a pod template schema) nest about 40 levels.
    pub const DEFAULT_MAX_DEPTH: usize = 128;
    /// The most the JSON reader goes to: every later step that recurses over an object (its
    /// parse, clone, serialization) stays far from the stack's end, natively and in WASM.
    pub const MAX_DEPTH_JSON: usize = 512;
    /// The most the YAML reader goes to: serde_yaml_ng's fixed recursion limit.
    pub const MAX_DEPTH_YAML: usize = 128;
}

impl Default for ReadLimits {
    fn default() -> Self {
        // Large enough for a 100,000-pod cluster dump; the CLI exposes --max-input-bytes.
        ReadLimits {
            max_bytes: 2 << 30,
            max_depth: ReadLimits::DEFAULT_MAX_DEPTH,
            now: None,
            threads: 0,
        }
    }
}

/// A parsed bundle.
#[derive(Debug, Clone, Default)]
pub struct Bundle {
    text: String,
    /// Texts merged in later, each with the offset its objects' spans start from (past the end
    /// of every text before it): appending them to `text` would copy all of it, 300 MB for a
    /// 5,000-node cluster that `fit` adds a manifest to.
    more: Vec<(usize, String)>,
    objects: Vec<RawObject>,
    meta: Option<BundleMeta>,
    /// The container log sections of a printed `cluster-info dump` that were set aside.
    set_aside: Vec<String>,
}

type Identity = (String, String, Option<String>, String);
/// [`Identity`], borrowed from the object.
type IdentityRef<'a> = (&'a str, &'a str, Option<&'a str>, &'a str);

impl Bundle {
    /// Read a bundle from text (JSON or YAML, detected by the first character).
    pub fn parse(text: impl Into<String>) -> Result<Bundle, BundleError> {
        Bundle::parse_with(text, ReadLimits::default())
    }

    pub fn parse_with(text: impl Into<String>, limits: ReadLimits) -> Result<Bundle, BundleError> {
        let mut text: String = text.into();
        // A byte-order mark (PowerShell's `>` and Notepad write one) is not part of the text.
        if text.starts_with('\u{feff}') {
            text.drain(..'\u{feff}'.len_utf8());
        }
        if text.len() > limits.max_bytes {
            return Err(BundleError::TooLarge {
                size: text.len(),
                limit: limits.max_bytes,
            });
        }
        let aside = dump::set_aside(&mut text);
        let mut bundle = Bundle::parse_text(text, limits)?;
        if let Some(aside) = aside {
            bundle.note_set_aside(aside);
        }
        Ok(bundle)
    }

    /// [`Bundle::parse_with`] once the text is known to be within the limits and bare.
    fn parse_text(text: String, limits: ReadLimits) -> Result<Bundle, BundleError> {
        let first = text.trim_start().chars().next();
        match first {
            None => Err(BundleError::Empty),
            Some('{' | '[') => {
                let limit = limits.max_depth.min(ReadLimits::MAX_DEPTH_JSON);
                let threads = crate::par::threads(limits.threads);
                // A large List is read on several threads, its items found by the depth scan.
                let (too_deep, items, objects) = if threads > 1 && text.len() >= fast::PARALLEL_FROM
                {
                    let mut items = ListItems::default();
                    (scan_depth(&text, limit, &mut items), Some(items), None)
                } else {
                    let mut objects = ObjectCount::default();
                    let too_deep = scan_depth(&text, limit, &mut objects);
                    (too_deep, None, Some(objects.count))
                };
                if let Some(at) = too_deep {
                    let (line, column) = line_col(&text, at);
                    return Err(BundleError::TooDeep {
                        limit,
                        most: ReadLimits::MAX_DEPTH_JSON,
                        line: Some(line),
                        column: Some(column),
                    });
                }
                let list = items.and_then(|items| items.of_the_list(&text));
                Bundle::from_json_text(text, None, list.map(|list| (list, threads)), objects)
            }
            Some(_) if crate::describe::looks_like(&text) => {
                let depth = limits.max_depth.min(ReadLimits::MAX_DEPTH_YAML);
                let read = crate::describe::read(&text, limits.now, depth)
                    .map_err(|(line, message)| BundleError::Describe { line, message })?;
                let json = crate::describe::bundle_json(&read, limits.now);
                Bundle::from_json_text(json, None, None, None)
            }
            Some(_) => {
                let (json, docs) = yaml_to_json(&text, limits)?;
                Bundle::from_json_text(json, Some(docs), None, None)
            }
        }
    }

    /// What a dump's set-aside logs leave: their names, and a note every diagnosis carries.
    fn note_set_aside(&mut self, aside: dump::SetAside) {
        if let Some(note) = aside.note() {
            self.meta
                .get_or_insert_with(BundleMeta::default)
                .input_notes
                .push(note);
        }
        self.set_aside = aside.logs;
    }

    /// The container log sections of a printed `kubectl cluster-info dump` that were set aside
    /// (`container train of pod ml/p-0`), in the order given.
    pub fn set_aside(&self) -> &[String] {
        &self.set_aside
    }

    /// Several inputs (e.g. files dropped together) read as one bundle; later inputs win ties.
    pub fn parse_many<S: AsRef<str>>(texts: &[S]) -> Result<Bundle, BundleError> {
        let mut merged = Bundle::default();
        for t in texts {
            merged.merge(Bundle::parse(t.as_ref())?);
        }
        Ok(merged)
    }

    /// Read several inputs (files, pastes) as one bundle, the one reader the CLI and the npm
    /// package share: each input on its own, so JSON and YAML can be mixed, then merged (later
    /// copies win under the usual rule). An input with a name is named by its error.
    pub fn read_all<S: Into<String>>(
        inputs: impl IntoIterator<Item = (Option<String>, S)>,
        limits: ReadLimits,
    ) -> Result<Bundle, BundleError> {
        let mut merged: Option<Bundle> = None;
        for (name, text) in inputs {
            let b = Bundle::parse_with(text, limits).map_err(|error| match name {
                Some(input) => BundleError::In {
                    input,
                    error: Box::new(error),
                },
                None => error,
            })?;
            match &mut merged {
                Some(m) => m.merge(b),
                None => merged = Some(b),
            }
        }
        merged.ok_or(BundleError::Empty)
    }

    /// Add another bundle's objects; its copies win under the usual de-duplication rule.
    pub fn merge(&mut self, other: Bundle) {
        // One past the end, so that no two texts' offsets meet.
        let offset = self.end() + 1;
        self.more.push((offset, other.text));
        self.more
            .extend(other.more.into_iter().map(|(at, t)| (at + offset, t)));
        // Only identities `other` brings can repeat: map those objects of `self` (one pass
        // over borrowed identities), not all of them. `fit` merges a few objects into a
        // bundle of hundreds of thousands, where owning every identity took seconds.
        let mut seen: HashMap<Identity, usize> = {
            let incoming: HashSet<IdentityRef> = other.objects.iter().map(identity_ref).collect();
            self.objects
                .iter()
                .enumerate()
                .filter(|(_, o)| incoming.contains(&identity_ref(o)))
                .map(|(i, o)| (identity(o), i))
                .collect()
        };
        for mut o in other.objects {
            o.span = (o.span.0 + offset, o.span.1 + offset);
            insert_dedup(&mut self.objects, &mut seen, o);
        }
        self.set_aside.extend(other.set_aside);
        match (&mut self.meta, other.meta) {
            (None, meta) => self.meta = meta,
            // What each input could not show is said once, whichever input it came from.
            (Some(mine), Some(theirs)) => {
                for note in theirs.input_notes {
                    if !mine.input_notes.contains(&note) {
                        mine.input_notes.push(note);
                    }
                }
            }
            (Some(_), None) => {}
        }
    }

    pub fn objects(&self) -> &[RawObject] {
        &self.objects
    }

    /// Leave out the objects at these positions, sorted (their text stays, unreferenced):
    /// `fit` sets aside the cluster's copy of the work it judges anew.
    pub fn remove(&mut self, sorted_positions: &[usize]) {
        let mut i = 0;
        self.objects.retain(|_| {
            let keep = sorted_positions.binary_search(&i).is_err();
            i += 1;
            keep
        });
    }

    pub fn meta(&self) -> Option<&BundleMeta> {
        self.meta.as_ref()
    }

    /// The object's JSON text.
    pub fn raw(&self, o: &RawObject) -> &str {
        let (start, end) = o.span;
        if end <= self.text.len() {
            return &self.text[start..end];
        }
        let (at, text) = &self.more[self.more.partition_point(|(at, _)| *at <= start) - 1];
        &text[start - at..end - at]
    }

    /// Where the last text ends, in span offsets.
    fn end(&self) -> usize {
        self.more
            .last()
            .map_or(self.text.len(), |(at, t)| at + t.len())
    }

    /// Parse one object into a `Value` (with `kind`/`apiVersion` filled in for typed-list items).
    pub fn value(&self, o: &RawObject) -> serde_json::Value {
        let raw = self.raw(o);
        // A number no f64 holds (`1e400`) is valid JSON that serde_json refuses: read it as the
        // text it is (a quantity reader then finds it is no quantity) instead of losing the
        // whole object.
        let mut v: serde_json::Value = from_json(raw)
            .or_else(|| quote_unrepresentable_numbers(raw).and_then(|m| from_json(&m)))
            .unwrap_or(serde_json::Value::Null);
        if o.inferred_type
            && let Some(m) = v.as_object_mut()
        {
            m.entry("kind")
                .or_insert_with(|| o.kind().to_string().into());
            m.entry("apiVersion")
                .or_insert_with(|| o.api_version().to_string().into());
        }
        v
    }

    /// Deserialize one object into a typed partial view (fields it lacks are defaulted).
    pub fn typed<'a, T: Deserialize<'a>>(&'a self, o: &RawObject) -> Option<T> {
        from_json(self.raw(o))
    }

    /// Size of the text the bundle holds, for memory accounting.
    pub fn text_len(&self) -> usize {
        self.text.len() + self.more.iter().map(|(_, t)| t.len()).sum::<usize>()
    }

    /// A bundle from JSON text: read on `threads` threads when it is one List whose items the
    /// depth scan found (`list`), else by the one-pass reader, else by the checked one.
    fn from_json_text(
        text: String,
        yaml_docs: Option<Vec<usize>>,
        list: Option<(TheItems, usize)>,
        objects: Option<usize>,
    ) -> Result<Bundle, BundleError> {
        let read = list
            .and_then(|(list, threads)| fast::read_parallel(&text, &list, threads))
            .or_else(|| fast::read(&text, objects));
        if let Some((objects, meta)) = read {
            return Ok(Bundle {
                text,
                more: Vec::new(),
                objects,
                meta,
                set_aside: Vec::new(),
            });
        }
        Bundle::from_json_text_checked(text, yaml_docs)
    }

    /// The reader that says where input is wrong: it reads each item again on its own, so its
    /// positions are exact. Used when the one-pass reader ([`fast`]) declines the input.
    fn from_json_text_checked(
        text: String,
        yaml_docs: Option<Vec<usize>>,
    ) -> Result<Bundle, BundleError> {
        let mut objects = Vec::new();
        let mut meta = None;
        {
            let mut reader = Reader {
                text: &text,
                objects: &mut objects,
                meta: &mut meta,
                yaml_docs: yaml_docs.as_deref(),
                names: Names::default(),
            };
            let stream = serde_json::Deserializer::from_str(&text).into_iter::<&RawValue>();
            for (i, doc) in stream.enumerate() {
                let doc = doc.map_err(|e| BundleError::Json {
                    line: e.line(),
                    column: e.column(),
                    message: strip_position(&e.to_string()),
                })?;
                reader.document(i + 1, doc)?;
            }
        }
        if objects.is_empty() && meta.is_none() {
            return Err(BundleError::NotAnObject {
                location: InputLocation {
                    document: 1,
                    item: String::new(),
                    line: None,
                    column: None,
                },
                message: "the input holds no Kubernetes objects".into(),
            });
        }
        let mut seen = HashMap::new();
        let mut deduped = Vec::with_capacity(objects.len());
        for o in objects {
            insert_dedup(&mut deduped, &mut seen, o);
        }
        Ok(Bundle {
            text,
            more: Vec::new(),
            objects: deduped,
            meta,
            set_aside: Vec::new(),
        })
    }
}

/// Parse JSON text the reader has accepted. Its depth was checked against
/// [`ReadLimits::MAX_DEPTH_JSON`] when the bundle was read, so serde_json's own recursion limit
/// (128, lower than what `--max-depth` allows) is off here: an accepted object always parses.
fn from_json<'a, T: Deserialize<'a>>(text: &'a str) -> Option<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let v = T::deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(v)
}

/// The JSON text with each number that no f64 can hold (`1e400`, `-1e999`) turned into a
/// string of the same characters, or None when there is none.
pub(crate) fn quote_unrepresentable_numbers(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 16);
    let (mut i, mut copied, mut in_string, mut changed) = (0, 0, false, false);
    while i < b.len() {
        match (in_string, b[i]) {
            (true, b'\\') => i += 2,
            (true, b'"') | (false, b'"') => {
                in_string = !in_string;
                i += 1;
            }
            (false, c) if c == b'-' || c.is_ascii_digit() => {
                let end = i + b[i..]
                    .iter()
                    .take_while(|c| {
                        c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E')
                    })
                    .count();
                let token = &text[i..end];
                if token.parse::<f64>().is_ok_and(|n| !n.is_finite()) {
                    out.push_str(&text[copied..i]);
                    out.push('"');
                    out.push_str(token);
                    out.push('"');
                    copied = end;
                    changed = true;
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    changed.then(|| {
        out.push_str(&text[copied..]);
        out
    })
}

/// Byte offset of the first `[` or `{` that nests deeper than `limit` in JSON text, if any.
#[cfg(test)]
fn first_too_deep(text: &str, limit: usize) -> Option<usize> {
    scan_depth(text, limit, &mut ObjectCount::default())
}

/// [`first_too_deep`], telling `record` of every bracket it passes outside strings.
/// One pass, no recursion, strings skipped; malformed text is left for the parser to report.
/// Eight bytes at a time: a word without any `"`, `\`, `[`, `]`, `{`, `}` is passed over whole,
/// the others are visited byte by byte (as [`DepthScan::visit`] says).
fn scan_depth(text: &str, limit: usize, record: &mut impl Brackets) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    /// High bit set in each byte of `v` that is zero (exact for the lowest such byte; a byte
    /// above a zero one may be flagged too, so flagged bytes are checked again).
    fn zero_bytes(v: u64) -> u64 {
        v.wrapping_sub(ONES) & !v & (ONES << 7)
    }
    let b = text.as_bytes();
    let mut scan = DepthScan {
        limit,
        depth: 0,
        in_string: false,
        resume: 0,
    };
    let mut chunks = b.chunks_exact(8);
    let mut i = 0;
    for chunk in &mut chunks {
        let x = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        // `[` and `]` differ from `{` and `}` only in bit 5.
        let y = x | (ONES * 0x20);
        let mut hits = zero_bytes(x ^ (ONES * u64::from(b'"')))
            | zero_bytes(x ^ (ONES * u64::from(b'\\')))
            | zero_bytes(y ^ (ONES * u64::from(b'{')))
            | zero_bytes(y ^ (ONES * u64::from(b'}')));
        while hits != 0 {
            let at = i + (hits.trailing_zeros() / 8) as usize;
            hits &= hits - 1;
            if scan.visit(b[at], at, record) {
                return Some(at);
            }
        }
        i += 8;
    }
    for (k, &c) in chunks.remainder().iter().enumerate() {
        if scan.visit(c, i + k, record) {
            return Some(i + k);
        }
    }
    None
}

/// What [`scan_depth`] tells of the brackets outside strings: `open` after the depth has
/// grown to `depth`, `close` before it shrinks from `depth`.
trait Brackets {
    fn open(&mut self, c: u8, at: usize, depth: usize);
    fn close(&mut self, at: usize, depth: usize);
}

/// How many objects the text holds where Kubernetes objects may be: documents, elements of a
/// top-level array, a List's items (and those of a List in an array), and arrays held by a
/// document (as a List's items are). What the one-pass reader makes room for: about one per
/// object, where counting `"metadata"` keys (the reader's fallback) was a pass of its
/// own over the text, and a slow one in the module, which has no vector instructions for it.
#[derive(Default)]
struct ObjectCount {
    count: usize,
    /// Bit `d` set: the container open at depth `d` (1 to 4) is an array.
    arrays: u8,
}

impl Brackets for ObjectCount {
    #[inline(always)]
    fn open(&mut self, c: u8, _: usize, depth: usize) {
        /// For an object at depth `d`, which of the containers above it (bits 1 to `d - 1`)
        /// are arrays when it is such a place: a document; in a top-level array; in an
        /// array held by a document (a List's items); in an array held by an object of a
        /// top-level array (the items of a List in an array).
        const PLACES: [u8; 5] = [0, 0, 0b0010, 0b0100, 0b1010];
        if depth > 4 {
            return;
        }
        let bit = 1u8 << depth;
        if c == b'[' {
            self.arrays |= bit;
            return;
        }
        self.arrays &= !bit;
        if self.arrays & (bit - 2) == PLACES[depth] {
            self.count += 1;
        }
    }
    #[inline(always)]
    fn close(&mut self, _: usize, _: usize) {}
}

/// Where the items of a single JSON document that is a List are, as the depth scan saw the
/// text: each array at depth 2 with the objects in it. Only a guess until
/// [`ListItems::of_the_list`] has checked that one array is the List's `items` and holds
/// objects alone.
#[derive(Default)]
pub(super) struct ListItems {
    /// Documents begun (a value at depth 1), and whether the first was an object.
    documents: usize,
    top_is_object: bool,
    /// Each array at depth 2: its `[`, its `]` (0 until closed), where its items start in
    /// `items`, and whether it held anything but objects.
    arrays: Vec<(usize, usize, usize, bool)>,
    /// Whether the container open at depth 2 is the last of `arrays`.
    in_array: bool,
    /// Each object at depth 3 in an array at depth 2: its `{` and just past its `}`.
    items: Vec<(usize, usize)>,
}

impl Brackets for ListItems {
    fn open(&mut self, c: u8, at: usize, depth: usize) {
        match depth {
            1 => {
                self.documents += 1;
                self.top_is_object = self.documents == 1 && c == b'{';
            }
            2 => {
                self.in_array = c == b'[';
                if self.in_array {
                    self.arrays.push((at, 0, self.items.len(), false));
                }
            }
            3 if self.in_array => {
                if c == b'{' {
                    self.items.push((at, 0));
                } else if let Some(a) = self.arrays.last_mut() {
                    a.3 = true;
                }
            }
            _ => {}
        }
    }

    fn close(&mut self, at: usize, depth: usize) {
        match depth {
            2 if self.in_array => {
                if let Some(a) = self.arrays.last_mut() {
                    a.1 = at;
                }
                self.in_array = false;
            }
            3 if self.in_array => {
                if let Some(item) = self.items.last_mut()
                    && item.1 == 0
                {
                    item.1 = at + 1;
                }
            }
            _ => {}
        }
    }
}

/// A List's `items`, as [`ListItems::of_the_list`] found them.
pub(super) struct TheItems {
    /// The `[` and `]` of the array.
    pub(super) open: usize,
    pub(super) close: usize,
    /// Each item's text, `{` to `}`: nothing but blanks and one comma between two.
    pub(super) items: Vec<(usize, usize)>,
}

impl ListItems {
    /// The items of the one document's `items` array when the text is one object whose
    /// `items` is an array of objects alone, separated as JSON separates them.
    fn of_the_list(self, text: &str) -> Option<TheItems> {
        if self.documents != 1 || !self.top_is_object {
            return None;
        }
        let b = text.as_bytes();
        let blank = |s: &[u8]| s.iter().all(|&c| is_json_space(c));
        let named_items = |open: usize| {
            let before = text[..open].trim_end_matches(is_json_space_char);
            before
                .strip_suffix(':')
                .map(|k| k.trim_end_matches(is_json_space_char))
                .is_some_and(|k| k.ends_with("\"items\""))
        };
        let mut lists = self
            .arrays
            .iter()
            .enumerate()
            .filter(|(_, a)| named_items(a.0));
        let (i, &(open, close, first, odd)) = lists.next()?;
        if lists.next().is_some() || odd || close == 0 {
            return None;
        }
        let last = self.arrays.get(i + 1).map_or(self.items.len(), |a| a.2);
        let items = self.items[first..last].to_vec();
        let (head, tail) = (items.first()?.0, items.last()?.1);
        if !blank(&b[open + 1..head]) || !blank(&b[tail..close]) {
            return None;
        }
        for pair in items.windows(2) {
            let between = &b[pair[0].1..pair[1].0];
            let comma = between.iter().position(|&c| c == b',')?;
            if pair[0].1 == 0 || !blank(&between[..comma]) || !blank(&between[comma + 1..]) {
                return None;
            }
        }
        Some(TheItems { open, close, items })
    }
}

/// JSON's four blanks.
fn is_json_space(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | b'\t' | b'\r')
}

fn is_json_space_char(c: char) -> bool {
    u8::try_from(c).is_ok_and(is_json_space)
}

/// The state of [`scan_depth`]'s pass.
struct DepthScan {
    limit: usize,
    depth: usize,
    in_string: bool,
    /// Bytes before this offset were escaped (the byte after a `\` in a string).
    resume: usize,
}

impl DepthScan {
    /// Look at byte `c` at offset `at` (offsets increase); true when it opens one level too many.
    #[inline]
    fn visit(&mut self, c: u8, at: usize, record: &mut impl Brackets) -> bool {
        if at < self.resume {
            return false;
        }
        match (self.in_string, c) {
            (_, b'"') => self.in_string = !self.in_string,
            // An escape: the next byte (perhaps a `"`) is part of the string.
            (true, b'\\') => self.resume = at + 2,
            (false, b'[' | b'{') => {
                self.depth += 1;
                record.open(c, at, self.depth);
                return self.depth > self.limit;
            }
            (false, b']' | b'}') => {
                record.close(at, self.depth);
                self.depth = self.depth.saturating_sub(1);
            }
            _ => {}
        }
        false
    }
}

fn identity_ref(o: &RawObject) -> IdentityRef<'_> {
    (o.group(), o.kind(), o.namespace(), &o.name)
}

fn identity(o: &RawObject) -> Identity {
    (
        o.group().to_string(),
        o.kind().to_string(),
        o.namespace().map(str::to_string),
        o.name.clone(),
    )
}

/// The same object twice: the later copy wins, unless both resourceVersions are integers, then
/// the higher one wins (design: "The tool's own bundle").
fn insert_dedup(objects: &mut Vec<RawObject>, seen: &mut HashMap<Identity, usize>, o: RawObject) {
    match seen.get(&identity(&o)) {
        Some(&i) => {
            let old = &objects[i];
            let keep_old = match (rv_int(old), rv_int(&o)) {
                (Some(a), Some(b)) => a > b,
                _ => false,
            };
            if !keep_old {
                objects[i] = o;
            }
        }
        None => {
            seen.insert(identity(&o), objects.len());
            objects.push(o);
        }
    }
}

fn rv_int(o: &RawObject) -> Option<u64> {
    o.resource_version()
}

/// `metadata.resourceVersion` as [`RawObject`] holds it: [`NO_REVISION`] when it is no number.
fn revision(text: Option<&str>) -> u64 {
    text.and_then(|t| t.parse().ok()).unwrap_or(NO_REVISION)
}

#[derive(Deserialize)]
struct Head<'a> {
    #[serde(rename = "apiVersion", borrow, default)]
    api_version: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    metadata: Option<MetaHead<'a>>,
    /// `None` when there is no `items`, `Some(None)` for `"items": null`.
    #[serde(borrow, default, deserialize_with = "present")]
    items: Option<Option<Vec<&'a RawValue>>>,
    #[serde(rename = "kubectlLayer", default)]
    kubectl_layer: Option<BundleMeta>,
}

/// A field that is there (`null` included): `Some`, so that "absent" and `null` differ.
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// What an object's `items` holds, as far as telling a List from an object goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum ItemsField {
    #[default]
    Absent,
    Null,
    Array,
}

/// Whether an object is a List (its items read, itself not kept), given its `items` and its
/// kind (its own, else its typed list's): `items` an array under no kind or a kind ending in
/// `List`; or `"items": null` under a kind ending in `List`, Go's empty slice, as kubectl
/// prints a typed List with nothing in it (`kubectl cluster-info dump` does, for each kind a
/// namespace has none of).
fn is_list(items: ItemsField, kind: Option<&str>) -> bool {
    match items {
        ItemsField::Array => kind.is_none_or(|k| k.ends_with("List")),
        ItemsField::Null => kind.is_some_and(|k| k.ends_with("List")),
        ItemsField::Absent => false,
    }
}

#[derive(Deserialize)]
struct MetaHead<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    namespace: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uid: Option<Cow<'a, str>>,
    #[serde(rename = "resourceVersion", borrow, default)]
    resource_version: Option<Cow<'a, str>>,
}

struct Reader<'t, 'o> {
    text: &'t str,
    objects: &'o mut Vec<RawObject>,
    meta: &'o mut Option<BundleMeta>,
    /// For YAML input: byte offset where each converted document starts (to name documents).
    yaml_docs: Option<&'o [usize]>,
    names: Names,
}

impl<'t> Reader<'t, '_> {
    fn offset(&self, raw: &RawValue) -> usize {
        raw.get().as_ptr() as usize - self.text.as_ptr() as usize
    }

    fn location(&self, document: usize, item: &str, at: usize) -> InputLocation {
        let (line, column) = if self.yaml_docs.is_some() {
            (None, None)
        } else {
            let (l, c) = line_col(self.text, at);
            (Some(l), Some(c))
        };
        InputLocation {
            document,
            item: item.to_string(),
            line,
            column,
        }
    }

    fn document(&mut self, document: usize, raw: &'t RawValue) -> Result<(), BundleError> {
        self.value(document, String::new(), raw, None, 0)
    }

    fn value(
        &mut self,
        document: usize,
        item: String,
        raw: &'t RawValue,
        list_type: Option<(&str, &str)>,
        depth: usize,
    ) -> Result<(), BundleError> {
        let start = self.offset(raw);
        let s = raw.get();
        if depth > 16 {
            return Err(BundleError::NotAnObject {
                location: self.location(document, &item, start),
                message: "Lists nested more than 16 deep".into(),
            });
        }
        match s.as_bytes().first() {
            Some(b'[') => {
                let items: Vec<&RawValue> = serde_json::from_str(s)
                    .map_err(|e| self.json_err(document, &item, start, &e))?;
                for (i, it) in items.into_iter().enumerate() {
                    self.value(
                        document,
                        join_item(&item, &format!("[{i}]")),
                        it,
                        None,
                        depth + 1,
                    )?;
                }
                Ok(())
            }
            Some(b'{') => {
                let head: Head<'t> = {
                    // Depth was checked on the whole text (see `from_json`).
                    let mut de = serde_json::Deserializer::from_str(s);
                    de.disable_recursion_limit();
                    Head::deserialize(&mut de)
                        .and_then(|h| de.end().map(|()| h))
                        .map_err(|e| self.json_err(document, &item, start, &e))?
                };
                let kind = head.kind.as_deref().or(list_type.map(|t| t.0));
                let items = match &head.items {
                    None => ItemsField::Absent,
                    Some(None) => ItemsField::Null,
                    Some(Some(_)) => ItemsField::Array,
                };
                if is_list(items, kind) {
                    if let Some(m) = head.kubectl_layer {
                        *self.meta = Some(m);
                    }
                    // A typed list (`PodList`) has items without kind/apiVersion.
                    let item_type = match (head.kind.as_deref(), head.api_version.as_deref()) {
                        (Some(k), Some(av)) if k != "List" => {
                            k.strip_suffix("List").map(|k| (k, av))
                        }
                        _ => None,
                    };
                    let items = head.items.flatten().unwrap_or_default();
                    for (i, it) in items.into_iter().enumerate() {
                        let path = join_item(&item, &format!("items[{i}]"));
                        self.value(document, path, it, item_type, depth + 1)?;
                    }
                    return Ok(());
                }
                let inferred_type = head.kind.is_none() && list_type.is_some();
                let Some(kind) = kind else {
                    return Err(self.not_object(document, &item, start, "object has no `kind`"));
                };
                let api_version = head.api_version.as_deref().or(list_type.map(|t| t.1));
                let Some(api_version) = api_version else {
                    return Err(self.not_object(
                        document,
                        &item,
                        start,
                        &format!("{kind} has no `apiVersion`"),
                    ));
                };
                let meta = head.metadata.ok_or_else(|| {
                    self.not_object(document, &item, start, &format!("{kind} has no `metadata`"))
                })?;
                let name = meta.name.filter(|n| !n.is_empty()).ok_or_else(|| {
                    self.not_object(
                        document,
                        &item,
                        start,
                        &format!("{kind} has no `metadata.name`"),
                    )
                })?;
                self.objects.push(RawObject {
                    type_and_namespace: self.names.type_and_namespace(
                        api_version,
                        kind,
                        meta.namespace.as_deref().filter(|n| !n.is_empty()),
                    ),
                    name: name.into_owned(),
                    uid: meta.uid.filter(|u| !u.is_empty()).map(|u| Uid::new(&u)),
                    revision: revision(meta.resource_version.as_deref()),
                    span: (start, start + s.len()),
                    inferred_type,
                });
                Ok(())
            }
            _ => {
                let what = match s.as_bytes().first() {
                    Some(b'"') => "a string",
                    Some(b'n') => "null",
                    Some(b't' | b'f') => "a boolean",
                    _ => "a number",
                };
                let mut msg = format!("expected a Kubernetes object or a List, found {what}");
                if s.contains("NAME") && s.contains("STATUS") {
                    msg.push_str("; this looks like kubectl's table output: run kubectl get with -o json or -o yaml");
                }
                Err(self.not_object(document, &item, start, &msg))
            }
        }
    }

    fn json_err(
        &self,
        document: usize,
        item: &str,
        start: usize,
        e: &serde_json::Error,
    ) -> BundleError {
        let (l0, c0) = line_col(self.text, start);
        let (line, column) = if e.line() <= 1 {
            (l0, c0 + e.column().saturating_sub(1))
        } else {
            (l0 + e.line() - 1, e.column())
        };
        let mut location = self.location(document, item, start);
        if self.yaml_docs.is_none() {
            location.line = Some(line);
            location.column = Some(column);
        }
        BundleError::NotAnObject {
            location,
            message: strip_position(&e.to_string()),
        }
    }

    fn not_object(&self, document: usize, item: &str, start: usize, message: &str) -> BundleError {
        BundleError::NotAnObject {
            location: self.location(document, item, start),
            message: message.to_string(),
        }
    }
}

fn join_item(prefix: &str, part: &str) -> String {
    if prefix.is_empty() {
        part.to_string()
    } else if part.starts_with('[') {
        format!("{prefix}{part}")
    } else {
        format!("{prefix}.{part}")
    }
}

/// serde_json appends " at line L column C"; we report positions ourselves.
fn strip_position(msg: &str) -> String {
    let msg = match msg.rfind(" at line ") {
        Some(i) => &msg[..i],
        None => msg,
    };
    // serde_json's words for a broken `\u` escape name the parser's state, not the mistake.
    let hint = match msg {
        "lone leading surrogate in hex escape" => {
            " (a `\\uD800`–`\\uDFFF` escape is half of a UTF-16 pair and must be followed by its other half: text from a broken export or a hand edit)"
        }
        "unexpected end of hex escape" => {
            " (a `\\u` escape takes four hex digits, and one in `\\uD800`–`\\uDBFF` must be followed by the other half of its UTF-16 pair)"
        }
        "invalid escape" => {
            " (inside a string only \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX may follow a backslash, and a `\\uDC00`–`\\uDFFF` only right after a `\\uD800`–`\\uDBFF`: the two halves of a UTF-16 pair)"
        }
        _ => "",
    };
    format!("{msg}{hint}")
}

/// 1-based line and column of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let col = before
        .rfind('\n')
        .map_or(before.len(), |i| before.len() - i - 1)
        + 1;
    (line, col)
}

/// How many times its own size a YAML input may grow as JSON. Without aliases YAML grows at
/// most about six times as the reader counts it (`{a,b}`: two bytes a key, each counted as a
/// key and a null); past that, anchors named over and over are expanding it, and the reader
/// stops before memory runs out.
pub const YAML_GROWTH: usize = 16;

/// Small inputs may grow to this much whatever their size, so a short hand-written file with
/// a few anchors is never refused.
const YAML_GROWTH_FLOOR: usize = 1 << 20;

/// Convert a YAML stream into a JSON stream, one JSON document per YAML document, refusing
/// documents that nest deeper than `max_depth` (at most [`ReadLimits::MAX_DEPTH_YAML`], where
/// serde_yaml_ng stops by itself before it could recurse further) and a stream whose aliases
/// expand it past [`YAML_GROWTH`] times its size or the input limit.
fn yaml_to_json(text: &str, limits: ReadLimits) -> Result<(String, Vec<usize>), BundleError> {
    let limit = limits.max_depth.min(ReadLimits::MAX_DEPTH_YAML);
    let most_bytes = text
        .len()
        .saturating_mul(YAML_GROWTH)
        .max(YAML_GROWTH_FLOOR)
        .min(limits.max_bytes);
    let budget = yaml::Budget::new(most_bytes);
    let too_deep = |at: Option<serde_yaml_ng::Location>| BundleError::TooDeep {
        limit,
        most: ReadLimits::MAX_DEPTH_YAML,
        line: at.as_ref().map(serde_yaml_ng::Location::line),
        column: at.as_ref().map(serde_yaml_ng::Location::column),
    };
    if let Some(at) = yaml_flow_too_deep(text, YAML_FLOW_GUARD) {
        let (line, column) = line_col(text, at);
        return Err(BundleError::TooDeep {
            limit,
            most: ReadLimits::MAX_DEPTH_YAML,
            line: Some(line),
            column: Some(column),
        });
    }
    let mut out = String::with_capacity(text.len());
    let mut starts = Vec::new();
    for (n, doc) in serde_yaml_ng::Deserializer::from_str(text).enumerate() {
        let value = budget.value(doc).map_err(|e| {
            let at = e.location().map(|l| (l.line(), l.column()));
            if e.to_string().contains(yaml::SPENT) {
                return BundleError::YamlExpands {
                    document: n + 1,
                    limit: most_bytes,
                    growth: YAML_GROWTH,
                    line: at.map(|(l, _)| l),
                    column: at.map(|(_, c)| c),
                };
            }
            let mut message = strip_yaml_position(&e.to_string(), at);
            if message == "repetition limit exceeded" {
                // What the reader refused, in the user's terms: aliases that expand too far.
                message.push_str(
                    " (anchors and aliases expand past what the reader takes: an alias bomb, \
                     or an export to write again without aliases)",
                );
            }
            if message == "recursion limit exceeded" {
                too_deep(e.location())
            } else {
                BundleError::Yaml {
                    location: at,
                    message,
                }
            }
        })?;
        if value.is_null() {
            continue; // an empty document, e.g. a leading `---`
        }
        if value_depth(&value) > limit {
            return Err(too_deep(None));
        }
        starts.push(out.len());
        if let serde_json::Value::String(s) = &value {
            // A lone scalar is not an object; keep it so the reader reports it in place.
            out.push_str(&serde_json::to_string(s).unwrap_or_default());
        } else {
            out.push_str(
                &serde_json::to_string(&value).map_err(|e| BundleError::Yaml {
                    location: None,
                    message: e.to_string(),
                })?,
            );
        }
        out.push('\n');
    }
    if starts.is_empty() {
        return Err(BundleError::Empty);
    }
    Ok((out, starts))
}

/// Flow nesting at which YAML is refused before libyaml reads it. libyaml's scanner slows down
/// with the square of flow depth (100,000 nested `[`: about 30 s) and serde_yaml_ng counts depth
/// only after libyaml has read the whole document; below this guard libyaml takes milliseconds
/// and serde_yaml_ng's own limit applies. Far above any real depth, so a miscount on odd but
/// valid YAML (brackets in block scalars) cannot refuse real input.
const YAML_FLOW_GUARD: usize = 1024;

/// Byte offset of the first YAML flow-collection opener (`[`, `{`) nested deeper than `guard`,
/// found by a one-pass scan that is not a parser: openers count only where a node may start
/// (not inside a plain scalar such as `a[0]`), and quoted scalars and comments are skipped.
fn yaml_flow_too_deep(text: &str, guard: usize) -> Option<usize> {
    let b = text.as_bytes();
    let blank = |i: usize| i >= b.len() || matches!(b[i], b' ' | b'\t' | b'\r' | b'\n');
    let mut depth = 0usize;
    // May the next non-blank character start a node (and so open a collection or a quote)?
    let mut node_start = true;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let line_start = i == 0 || b[i - 1] == b'\n';
        match c {
            b'\n' => {
                // In block context a new line may start a node; in flow context only after an
                // indicator, which already said so.
                if depth == 0 {
                    node_start = true;
                }
            }
            b' ' | b'\t' | b'\r' => {}
            b'#' if i == 0 || blank(i - 1) => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'-' if line_start && b[i..].starts_with(b"---") && blank(i + 3) => {
                depth = 0;
                node_start = true;
                i += 3;
                continue;
            }
            b'[' | b'{' if node_start || depth > 0 => {
                depth += 1;
                if depth > guard {
                    return Some(i);
                }
                node_start = true;
            }
            b']' | b'}' if depth > 0 => {
                depth -= 1;
                node_start = false;
            }
            b',' if depth > 0 => node_start = true,
            b'"' | b'\'' if node_start => {
                // A quoted scalar, possibly over several lines.
                i += 1;
                while i < b.len() {
                    if b[i] == b'\\' && c == b'"' {
                        i += 2;
                        continue;
                    }
                    if b[i] == c {
                        if c == b'\'' && b.get(i + 1) == Some(&b'\'') {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                node_start = false;
            }
            b'-' | b'?' | b':' if blank(i + 1) => node_start = true,
            b':' if depth > 0 => node_start = true,
            b'!' | b'&' if node_start => {
                // A tag or an anchor: the node itself follows it.
                let in_flow = depth > 0;
                let token_ends = |i: usize| blank(i) || (in_flow && b",[]{}".contains(&b[i]));
                while !token_ends(i) {
                    i += 1;
                }
                continue;
            }
            _ => node_start = false,
        }
        i += 1;
    }
    None
}

/// Nesting depth of a value (a scalar is 0), without recursion.
fn value_depth(v: &serde_json::Value) -> usize {
    use serde_json::Value;
    let mut deepest = 0;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, d)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(a) => Box::new(a.iter()),
            Value::Object(m) => Box::new(m.values()),
            _ => continue,
        };
        deepest = deepest.max(d + 1);
        stack.extend(children.map(|c| (c, d + 1)));
    }
    deepest
}

fn strip_yaml_position(msg: &str, at: Option<(usize, usize)>) -> String {
    // libyaml writes positions into its sentences ("… at line 2 column 1, while parsing a flow
    // sequence at line 1 column 4"). The error already leads with where it stopped, so that
    // position goes; another one (where the construct began) stays, in the error's own words.
    let mut out = String::with_capacity(msg.len());
    let mut rest = msg;
    while let Some(i) = rest.find(" at line ") {
        out.push_str(&rest[..i]);
        let after = &rest[i + " at line ".len()..];
        let (line, tail) = leading_number(after);
        let (column, tail) = match (line, tail.strip_prefix(" column ")) {
            (Some(_), Some(t)) => leading_number(t),
            _ => (None, tail),
        };
        match (line, column) {
            (Some(l), Some(c)) if at == Some((l, c)) => {}
            (Some(l), Some(c)) => out.push_str(&format!(" (from line {l}, column {c})")),
            _ => {
                out.push_str(" at line ");
                rest = after;
                continue;
            }
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}

fn leading_number(s: &str) -> (Option<usize>, &str) {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    (s[..end].parse().ok(), &s[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    const POD: &str = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"ml","uid":"u1","resourceVersion":"5"}}"#;

    /// The depth scan counts one object per place where Kubernetes objects may be, and none
    /// of what they hold, nor what strings hold.
    #[test]
    fn the_depth_scan_counts_the_objects_the_reader_makes_room_for() {
        let count = |text: &str| {
            let mut objects = ObjectCount::default();
            assert_eq!(scan_depth(text, 64, &mut objects), None, "{text}");
            objects.count
        };
        let item = r#"{"kind":"Pod","metadata":{"ownerReferences":[{"uid":"x"}]},
            "spec":{"containers":[{"name":"a"},{"name":"b"}]},"status":{"note":"{[{"}}"#;
        let list = |n: usize| {
            let items = vec![item; n].join(",");
            format!(r#"{{"kind":"List","metadata":{{}},"items":[{items}]}}"#)
        };
        assert_eq!(count(item), 1);
        assert_eq!(count(&format!("{item}\n{item}")), 2, "two documents");
        assert_eq!(count(&format!("[{item},{item},{item}]")), 3, "an array");
        assert_eq!(count(&list(0)), 1, "an empty List");
        assert_eq!(count(&list(5)), 6, "a List and its items");
        assert_eq!(
            count(&format!("[{},{}]", list(2), list(3))),
            2 + 2 + 3,
            "Lists in an array"
        );
        assert_eq!(count("[]"), 0);
    }

    /// The byte-by-byte depth scan [`first_too_deep`] must agree with.
    fn first_too_deep_bytewise(text: &str, limit: usize) -> Option<usize> {
        let b = text.as_bytes();
        let (mut depth, mut in_string, mut i) = (0usize, false, 0);
        while i < b.len() {
            match (in_string, b[i]) {
                (_, b'"') => in_string = !in_string,
                (true, b'\\') => i += 1,
                (false, b'[' | b'{') => {
                    depth += 1;
                    if depth > limit {
                        return Some(i);
                    }
                }
                (false, b']' | b'}') => depth = depth.saturating_sub(1),
                _ => {}
            }
            i += 1;
        }
        None
    }

    #[test]
    fn the_word_at_a_time_depth_scan_agrees_with_the_bytewise_one() {
        // Random text over the bytes that matter (and a few that look like them in one bit).
        let alphabet = b"\"\\[]{}{[a ;=}]\n\x02\x7c";
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for round in 0..4000 {
            let len = round % 97;
            let text: String = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    char::from(alphabet[(seed % alphabet.len() as u64) as usize])
                })
                .collect();
            for limit in [0, 1, 2, 3, 5, 8] {
                assert_eq!(
                    first_too_deep(&text, limit),
                    first_too_deep_bytewise(&text, limit),
                    "{text:?} limit {limit}"
                );
            }
        }
    }

    /// The one-pass reader's answer, checked against the checked reader's: when it accepts,
    /// the same objects (spans included) and metadata. Returns whether it accepted.
    fn one_pass_agrees(text: &str) -> bool {
        let checked = Bundle::from_json_text_checked(text.to_string(), None);
        match fast::read(text, None) {
            Some((objects, meta)) => {
                let checked = checked.expect("the one-pass reader accepted a refused input");
                assert_eq!(checked.objects, objects, "{text}");
                assert_eq!(checked.meta, meta, "{text}");
                true
            }
            None => false,
        }
    }

    /// The parallel reader's answer, checked against the one-pass reader's: when it accepts,
    /// the same objects (spans included) and metadata. Returns whether it accepted.
    fn parallel_agrees(text: &str, threads: usize) -> bool {
        let mut items = ListItems::default();
        assert_eq!(scan_depth(text, 512, &mut items), None);
        let Some(list) = items.of_the_list(text) else {
            return false;
        };
        match fast::read_parallel(text, &list, threads) {
            Some((objects, meta)) => {
                let (want, want_meta) = fast::read(text, None)
                    .expect("the parallel reader accepted what the other declined");
                assert!(objects == want, "{text}");
                assert_eq!(meta, want_meta, "{text}");
                true
            }
            None => false,
        }
    }

    #[test]
    fn the_parallel_reader_reads_as_the_one_pass_reader() {
        let pod = |i: usize, rv: &str| {
            format!(
                r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p{i}","namespace":"ml","resourceVersion":"{rv}"}},"spec":{{"x":[{{"y":"]}},\"{{"}}]}}}}"#
            )
        };
        // Copies of one pod in two runs of items: 5, then "x" (not a number: the later wins),
        // then 3 (the later wins again), the last two in one run. Folding each run first
        // would keep 5 (3 against 5); copies in a third run as well.
        let items: Vec<String> = (0..1300)
            .map(|i| match i {
                600 => pod(10, "x"),
                601 => pod(10, "3"),
                1100 => pod(20, "1"),
                _ => pod(i, "5"),
            })
            .collect();
        let list = |items: &[String], sep: &str| {
            format!(
                r#"{{"apiVersion": "v1", "items": [{sep}{}{sep}], "kind": "List", "metadata": {{"resourceVersion": ""}}}}"#,
                items.join(&format!(",{sep}"))
            )
        };
        let typed: Vec<String> = (0..700)
            .map(|i| format!(r#"{{"metadata":{{"name":"t{i}","namespace":"n"}}}}"#))
            .collect();
        let accepted = [
            list(&items, ""),
            list(&items, "\n    "),
            list(&items[..1], " "),
            format!(
                r#"{{"kind":"PodList","apiVersion":"v1","metadata":{{}},"items":[{}]}}"#,
                typed.join(",")
            ),
            format!(
                r#"{{"apiVersion":"v1","kind":"List","kubectlLayer":{{"bundleVersion":1,"context":"c"}},"items":[{}]}}"#,
                items[..600].join(",")
            ),
        ];
        for text in &accepted {
            for threads in [2, 3] {
                assert!(
                    parallel_agrees(text, threads),
                    "declined {}",
                    &text[..200.min(text.len())]
                );
            }
        }
        let a = &items[0];
        let declined = [
            // A List in the items, the tool's metadata in one: read in order.
            format!(r#"{{"kind":"List","items":[{a},{{"kind":"List","items":[{a}]}}]}}"#),
            format!(
                r#"{{"kind":"List","items":[{a},{{"kind":"List","kubectlLayer":{{"context":"i"}},"items":[]}}]}}"#
            ),
            // Not one List of objects.
            format!(r#"[{a},{a}]"#),
            format!(r#"{{"kind":"List","items":[{a}]}} {{"kind":"List","items":[{a}]}}"#),
            format!(r#"{{"kind":"List","items":[{a},1]}}"#),
            format!(r#"{{"kind":"List","items":[{a},[{a}]]}}"#),
            format!(r#"{{"kind":"List","items":[{a}{a}]}}"#),
            format!(r#"{{"kind":"List","items":[{a},,{a}]}}"#),
            format!(r#"{{"kind":"List","items":[{a}],"items":[{a}]}}"#),
            r#"{"kind":"List","items":[]}"#.to_string(),
            r#"{"kind":"List","items":null}"#.to_string(),
            // A kind not ending in List keeps its `items`.
            format!(
                r#"{{"apiVersion":"v1","kind":"Bag","metadata":{{"name":"b"}},"items":[{a}]}}"#
            ),
            // Read by neither: typed items before the List's type, a key with an escape.
            format!(
                r#"{{"items":[{}],"apiVersion":"v1","kind":"PodList"}}"#,
                typed.join(",")
            ),
            format!(r#"{{"kind":"List","items":[{a}], "k\u0041":1}}"#),
            format!(r#"{{"kind":"List","items":[{a}]}} x"#),
        ];
        for text in &declined {
            assert!(!parallel_agrees(text, 2), "accepted {text}");
        }
    }

    #[test]
    fn the_one_pass_reader_reads_as_the_checked_reader() {
        let pod = |name: &str, rv: &str| {
            format!(
                r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}","namespace":"ml","uid":"u-{name}","resourceVersion":"{rv}"}},"spec":{{"x":[{{"y":"]}}\"{{"}}]}}}}"#
            )
        };
        let (a, b, a9) = (pod("a", "5"), pod("b", "x"), pod("a", "9"));
        let accepted = [
            a.clone(),
            format!("  \n{a}\n{b}\n\n{a9}  "),
            format!(r#"{{"apiVersion":"v1","items":[{a9},{b},{a}],"kind":"List","metadata":{{}}}}"#),
            format!(r#"[{a}, [{b}], {{"kind":"List","items":[{a9}]}}]"#),
            format!("{a9}{a}{b}{b}"),
            // Typed lists: items without kind (or apiVersion) take the list's.
            r#"{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"p","namespace":"n"}},{"kind":"Node","metadata":{"name":"n1"}}]}"#.into(),
            // Pretty-printed, metadata last, escapes in values, empty namespace and uid.
            "{\n  \"apiVersion\" : \"v1\",\r\n\t\"data\": {\"k\": \"v\\\"}\"},\n  \"kind\": \"ConfigMap\",\n  \"metadata\": {\"name\": \"c\\u0041\", \"namespace\": \"\", \"uid\": \"\"}\n}\n".into(),
            // The tool's own bundle.
            format!(r#"{{"apiVersion":"v1","kind":"List","kubectlLayer":{{"bundleVersion":1,"context":"c"}},"items":[{a}]}}"#),
            r#"{"apiVersion":"v1","kind":"List","kubectlLayer":{"bundleVersion":1},"items":[]}"#.into(),
            // metadata null on a List; metadata last, with other fields after the name.
            format!(r#"{{"kind":"List","metadata":null,"items":[{a}]}}"#),
            "{\"kind\":\"Secret\",\"apiVersion\":\"v1\",\"metadata\": {\"labels\":{\"a\":\"}\"}, \"name\":\"s\" , \"annotations\": {\"k\":\"v\"} } }".into(),
            // Nested Lists of the tool's own: the inner one's metadata wins, wherever it is.
            format!(
                r#"{{"kind":"List","kubectlLayer":{{"context":"outer"}},"items":[{{"kind":"List","kubectlLayer":{{"context":"inner"}},"items":[{a}]}}]}}"#
            ),
            format!(
                r#"{{"items":[{{"items":[{a}],"kind":"List","kubectlLayer":{{"context":"inner"}}}}],"kind":"List","kubectlLayer":{{"context":"outer"}}}}"#
            ),
            // A kind not ending in List keeps its `items`.
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"items":[]}"#.into(),
            r#"{"apiVersion":"x/v1","kind":"Bag","items":[1,"a",null,{}],"metadata":{"name":"bag"}}"#.into(),
            // `kubectl cluster-info dump` on standard output: typed Lists one after another,
            // Go's empty slice as `"items": null`; an object's own `items: null` is kept.
            format!(
                "{{\n    \"kind\": \"EventList\",\n    \"apiVersion\": \"v1\",\n    \"metadata\": {{\"resourceVersion\": \"9\"}},\n    \"items\": null\n}}\n{}\n{{\"kind\":\"ServiceList\",\"apiVersion\":\"v1\",\"metadata\":{{}},\"items\":[]}}\n",
                r#"{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"p","namespace":"n"}}]}"#
            ),
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"items":null}"#.into(),
        ];
        for text in &accepted {
            assert!(one_pass_agrees(text), "declined {text}");
        }
        let declined = [
            // Refused by both.
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{}}"#.to_string(),
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":""}}"#.into(),
            r#"{"apiVersion":"v1","metadata":{"name":"a"}}"#.into(),
            r#"{"kind":"Pod","metadata":{"name":"a"}}"#.into(),
            r#"{"apiVersion":"v1","kind":"Pod","kind":"Pod","metadata":{"name":"a"}}"#.into(),
            r#"{"apiVersion":"v1","kind":5,"metadata":{"name":"a"}}"#.into(),
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"kubectlLayer":3}"#.into(),
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","name":"b"}}"#.into(),
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"items":{}}"#.into(),
            r#"{"apiVersion":"v1","kind":"List","items":[]}"#.into(),
            // Empty Lists alone hold no object; `items: null` under no kind is no List.
            r#"{"kind":"EventList","apiVersion":"v1","metadata":{},"items":null}"#.into(),
            format!(r#"{{"items":null}} {a}"#),
            format!(r#"{{"kind":"List","items":[{a},"x"]}}"#),
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":5}}"#.into(),
            r#"{"apiVersion":"v1","kind":"Pod","metadata":"a"}"#.into(),
            r#"{"apiVersion":"v1","kind":"Pod","metadata":null}"#.into(),
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"uid":"u","name":"a","uid":"v"}}"#
                .into(),
            format!("{a} 1"),
            format!("{a} {{"),
            format!(
                "{}{a}{}",
                r#"{"kind":"List","items":["#.repeat(17),
                "]}".repeat(17)
            ),
            // Accepted by the checked reader only; it reads these.
            r#"{"items":[],"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}}"#.into(),
            r#"{"apiVersion":"v1","kin\u0064":"Pod","metadata":{"name":"a"}}"#.into(),
        ];
        for text in &declined {
            assert!(!one_pass_agrees(text), "accepted {text}");
        }
        // Lists nested 16 deep are read in one pass.
        let deep = format!(
            "{}{a}{}",
            r#"{"kind":"List","items":["#.repeat(16),
            "]}".repeat(16)
        );
        assert!(one_pass_agrees(&deep));
    }

    #[test]
    fn the_one_pass_reader_reads_every_scenario() {
        // The scenario bundles are the kinds of input people have: none may fall back.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/scenarios");
        let mut read = 0;
        for entry in std::fs::read_dir(&dir).expect("scenarios") {
            let path = entry.expect("entry").path();
            if let Ok(text) = std::fs::read_to_string(path.join("bundle.json")) {
                assert!(one_pass_agrees(&text), "{}", path.display());
                read += 1;
            }
            if let Ok(text) = std::fs::read_to_string(path.join("bundle.yaml")) {
                let limits = ReadLimits {
                    max_depth: ReadLimits::MAX_DEPTH_YAML,
                    ..ReadLimits::default()
                };
                let (json, _) = yaml_to_json(&text, limits).expect("yaml");
                assert!(one_pass_agrees(&json), "{}", path.display());
                read += 1;
            }
        }
        assert!(read > 30, "{read} scenario bundles");
    }

    #[test]
    fn reads_every_shape() {
        let list = format!(r#"{{"apiVersion":"v1","kind":"List","items":[{POD}]}}"#);
        assert_eq!(Bundle::parse(list.clone()).unwrap().objects().len(), 1);
        assert_eq!(Bundle::parse(POD).unwrap().objects()[0].name, "a");
        assert_eq!(
            Bundle::parse(format!("[{POD}]")).unwrap().objects().len(),
            1
        );
        let nested = format!(r#"{{"apiVersion":"v1","kind":"List","items":[{list}]}}"#);
        assert_eq!(Bundle::parse(nested).unwrap().objects().len(), 1);
        let typed = r#"{"apiVersion":"v1","kind":"PodList","items":[{"metadata":{"name":"b","namespace":"x"}}]}"#;
        let b = Bundle::parse(typed).unwrap();
        assert_eq!(b.objects()[0].kind(), "Pod");
        assert_eq!(b.value(&b.objects()[0])["kind"], "Pod");
    }

    #[test]
    fn an_object_s_identity_stays_small() {
        // Held for every object of the bundle: 72,000 on a 1,000-node cluster. A field with a
        // 16-byte alignment (a `u128`) made it 192.
        assert!(size_of::<RawObject>() <= 160, "{}", size_of::<RawObject>());
    }

    #[test]
    fn concatenated_documents_and_dedup_by_resource_version() {
        let newer = POD.replace("\"5\"", "\"9\"");
        let b = Bundle::parse(format!("{newer}\n{POD}")).unwrap();
        assert_eq!(b.objects().len(), 1);
        assert_eq!(b.objects()[0].resource_version(), Some(9));
    }

    #[test]
    fn a_resource_version_is_kept_only_when_it_is_a_revision() {
        let rv = |text: &str| {
            let b = Bundle::parse(POD.replace("\"5\"", text)).unwrap();
            b.objects()[0].resource_version()
        };
        assert_eq!(rv("\"9223372036854775807\""), Some(i64::MAX as u64));
        assert_eq!(rv("\"abc\""), None);
        // The largest u64 is no etcd revision (those are signed 64-bit numbers): it is the
        // mark for "none", so such a copy loses to no other by its resourceVersion.
        assert_eq!(rv("\"18446744073709551615\""), None);
    }

    #[test]
    fn merged_texts_keep_each_object_s_text_and_the_dedup_rule() {
        let pod = |name: &str, rv: &str| {
            POD.replace("\"a\"", &format!("\"{name}\""))
                .replace("\"5\"", &format!("\"{rv}\""))
        };
        let mut b = Bundle::parse(format!("{}\n{}", pod("a", "5"), pod("b", "5"))).unwrap();
        // A bundle that was itself merged, with an empty text between: every offset moves.
        let mut other = Bundle::parse(pod("c", "1")).unwrap();
        other.merge(Bundle::parse(format!("{}\n{}", pod("a", "9"), pod("b", "2"))).unwrap());
        b.merge(other);
        b.merge(Bundle::parse(pod("d", "1")).unwrap());
        let got: Vec<(String, serde_json::Value)> = b
            .objects()
            .iter()
            .map(|o| {
                (
                    o.name.clone(),
                    b.value(o)["metadata"]["resourceVersion"].clone(),
                )
            })
            .collect();
        // `a` replaced by the newer copy in its place, `b` kept (the newer), `c` and `d` added.
        assert_eq!(
            got,
            [("a", "9"), ("b", "5"), ("c", "1"), ("d", "1")]
                .map(|(n, rv)| (n.to_string(), serde_json::Value::from(rv)))
        );
        for o in b.objects() {
            assert_eq!(
                b.typed::<serde_json::Value>(o).unwrap()["metadata"]["name"],
                o.name.as_str()
            );
        }
        let texts: usize = [
            pod("a", "5"),
            pod("b", "5"),
            pod("c", "1"),
            pod("a", "9"),
            pod("b", "2"),
            pod("d", "1"),
        ]
        .iter()
        .map(String::len)
        .sum();
        assert_eq!(b.text_len(), texts + 2, "two newlines between documents");
    }

    #[test]
    fn yaml_stream() {
        let y = "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n";
        let b = Bundle::parse(y).unwrap();
        assert_eq!(b.objects().len(), 2);
    }

    #[test]
    fn deep_nesting_is_refused_with_the_limit_and_the_flag() {
        // 100,000 nested arrays, JSON and YAML (flow style): a clear error, no stack overflow.
        let json = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let e = Bundle::parse(json).unwrap_err();
        assert_eq!(e.code(), "input-too-deep");
        assert_eq!(
            e,
            BundleError::TooDeep {
                limit: 128,
                most: ReadLimits::MAX_DEPTH_JSON,
                line: Some(1),
                column: Some(129)
            }
        );
        assert!(e.to_string().contains("--max-depth"), "{e}");
        let yaml = format!("a: {}{}", "[".repeat(100_000), "]".repeat(100_000));
        let e = Bundle::parse(yaml).unwrap_err();
        assert_eq!(e.code(), "input-too-deep", "{e}");
        assert!(e.to_string().contains("more than 128 levels"), "{e}");
        // Unclosed brackets and brackets inside strings.
        assert_eq!(
            Bundle::parse("{".repeat(1_000)).unwrap_err().code(),
            "input-too-deep"
        );
        // Brackets in YAML scalars and comments are text, however many.
        let many = "[{".repeat(2000);
        let y = format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a # {many}\n  annotations:\n    plain: x{many}\n    double: \"{many}\"\n    single: '{many}'\n    block: |\n      x{many}\n"
        );
        let b = Bundle::parse(y).unwrap();
        assert_eq!(
            b.value(&b.objects()[0])["metadata"]["annotations"]["single"],
            many
        );
        let quoted = format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{}\"{}"}}}}"#,
            "[".repeat(1000),
            "{".repeat(1000)
        );
        assert_eq!(Bundle::parse(quoted).unwrap().objects().len(), 1);
    }

    #[test]
    fn the_depth_limit_counts_from_the_document_top_and_can_be_raised() {
        // A pod whose annotations-free field nests `n` levels below the pod itself.
        let pod = |n: usize| {
            format!(
                r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"a"}},"spec":{{"x":{}1{}}}}}"#,
                "[".repeat(n),
                "]".repeat(n)
            )
        };
        let limits = |max_depth| ReadLimits {
            max_depth,
            ..ReadLimits::default()
        };
        // Pod (1) + spec (2) + n arrays.
        assert!(Bundle::parse_with(pod(126), limits(128)).is_ok());
        let e = Bundle::parse_with(pod(127), limits(128)).unwrap_err();
        assert!(matches!(e, BundleError::TooDeep { limit: 128, .. }), "{e}");
        // Raised past serde_json's own limit of 128: the object still parses in full.
        let b = Bundle::parse_with(pod(400), limits(500)).unwrap();
        let v = b.value(&b.objects()[0]);
        assert_eq!(v["metadata"]["name"], "a");
        assert!(v["spec"]["x"].is_array());
        // Above the ceiling, the ceiling holds and the message says so.
        let e = Bundle::parse_with(pod(600), limits(usize::MAX)).unwrap_err();
        assert!(
            matches!(
                e,
                BundleError::TooDeep {
                    limit: ReadLimits::MAX_DEPTH_JSON,
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("cannot go above 512"), "{e}");
        // YAML: the same count; its ceiling is the YAML reader's.
        let yaml = |n: usize| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: a}}\nspec: {{x: {}1{}}}\n",
                "[".repeat(n),
                "]".repeat(n)
            )
        };
        assert!(Bundle::parse_with(yaml(100), limits(102)).is_ok());
        let e = Bundle::parse_with(yaml(101), limits(102)).unwrap_err();
        assert!(
            matches!(
                e,
                BundleError::TooDeep {
                    limit: 102,
                    line: None,
                    ..
                }
            ),
            "{e}"
        );
        assert!(Bundle::parse_with(yaml(126), limits(500)).is_ok());
        let e = Bundle::parse_with(yaml(127), limits(500)).unwrap_err();
        assert!(
            matches!(
                e,
                BundleError::TooDeep {
                    limit: 128,
                    most: 128,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn errors_say_where() {
        let e = Bundle::parse("{\n  \"kind\": \"Pod\",\n  oops\n}").unwrap_err();
        assert!(matches!(e, BundleError::Json { line: 3, .. }), "{e}");
        let e = Bundle::parse(r#"{"kind":"List","apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Pod","metadata":{}}]}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "document 1, items[0] (line 1, column 43): Pod has no `metadata.name`"
        );
        let e = Bundle::parse("NAME   READY   STATUS\ntrainer-0   0/1   Pending").unwrap_err();
        assert!(e.to_string().contains("table output"), "{e}");
        assert_eq!(Bundle::parse("  \n").unwrap_err(), BundleError::Empty);
        let e = Bundle::parse("a: [1, 2\nb: c").unwrap_err();
        assert!(
            matches!(
                e,
                BundleError::Yaml {
                    location: Some(_),
                    ..
                }
            ),
            "{e}"
        );
        // Several inputs: merged, and an error names the input it came from.
        let both = Bundle::read_all(
            [
                (Some("a.json".to_string()), POD.to_string()),
                (
                    Some("b.yaml".to_string()),
                    "kind: Node\napiVersion: v1\nmetadata: {name: n1}\n".to_string(),
                ),
            ],
            ReadLimits::default(),
        )
        .expect("both read");
        assert_eq!(both.objects().len(), 2);
        let e = Bundle::read_all(
            [
                (Some("a.json".to_string()), POD),
                (Some("b.json".to_string()), "{\"kind\": "),
            ],
            ReadLimits::default(),
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("b.json: invalid JSON"), "{e}");
        assert_eq!(e.code(), "parse");
        assert_eq!(
            Bundle::read_all(
                Vec::<(Option<String>, String)>::new(),
                ReadLimits::default()
            )
            .unwrap_err(),
            BundleError::Empty
        );
        // Numbers no f64 holds become their text; strings and ordinary numbers stay.
        assert_eq!(
            quote_unrepresentable_numbers(
                r#"{"a":1e400,"b":"1e400","c":[-1e999,2.5e3],"d":"x\"1e400"}"#
            )
            .as_deref(),
            Some(r#"{"a":"1e400","b":"1e400","c":["-1e999",2.5e3],"d":"x\"1e400"}"#)
        );
        assert_eq!(quote_unrepresentable_numbers(r#"{"a":1e300,"b":-7}"#), None);
        // Aliases that expand without end are refused, and said so.
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            bomb.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        bomb.push_str("kind: Pod\napiVersion: v1\nmetadata: {name: p}\nspec: {x: *a8}\n");
        let e = Bundle::parse(bomb).unwrap_err().to_string();
        assert!(e.contains("alias bomb"), "{e}");
    }

    /// An anchor of 100 KB named 2,000 times in 200 KB of YAML once became 200 MB of values
    /// (and 3.9 GB at 25,000): the expansion is bounded by the YAML's size, and the error says
    /// which document and where.
    #[test]
    fn aliases_expand_yaml_only_so_far() {
        let anchored = format!("[{}]", vec!["x".repeat(1000); 100].join(", "));
        let doc = |names: usize| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: ml}}\nspec:\n  a: &a {anchored}\n  b: [{}]\n",
                vec!["*a"; names].join(", ")
            )
        };
        // Named a few times, it reads.
        let b = Bundle::parse(doc(3)).unwrap();
        assert_eq!(b.objects().len(), 1);
        let two = format!("{}---\n{}", doc(1), doc(25_000));
        let e = Bundle::parse(two).unwrap_err();
        assert_eq!(e.code(), "input-too-large");
        let BundleError::YamlExpands { document, line, .. } = e else {
            panic!("{e}")
        };
        assert_eq!((document, line), (2, Some(12)), "{e}");
        let text = e.to_string();
        assert!(text.starts_with("YAML document 2 at line 12"), "{text}");
        // The limit is the input limit when that is lower.
        let limits = ReadLimits {
            max_bytes: 300_000,
            ..ReadLimits::default()
        };
        let e = Bundle::parse_with(doc(3), limits).unwrap_err().to_string();
        assert!(e.contains("past 300000 bytes"), "{e}");
    }

    /// Without aliases, the shapes that grow most as JSON (keys without values, nulls) stay
    /// within the budget, at any size.
    #[test]
    fn yaml_without_aliases_is_never_refused_for_its_growth() {
        let shapes: [fn(usize) -> String; 3] = [
            |i| format!("  k{i}: {{a,b,c,d,e,f,g,h}}\n"),
            |i| format!("  k{i}:\n  - ~\n  -\n  - ''\n"),
            |i| format!("  k{i}: [~,~,~,~,~,~,~,~]\n"),
        ];
        for shape in shapes {
            let body: String = (0..100_000).map(shape).collect();
            let text = format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n{body}");
            assert!(
                text.len() > YAML_GROWTH_FLOOR / YAML_GROWTH,
                "past the floor"
            );
            let b = Bundle::parse(text).unwrap_or_else(|e| panic!("{}: {e}", shape(0)));
            assert_eq!(b.objects().len(), 1);
        }
        // A broken `\u` escape says what the mistake is, not only the parser's state.
        let e = Bundle::parse(r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p\udc00x"}}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("UTF-16 pair"), "{e}");
        let e = Bundle::parse(r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p\u12"}}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("uXXXX") || e.contains("four hex digits"), "{e}");
        // The position is said once, up front; where the broken construct began is kept.
        let e = Bundle::parse("a: [1, 2\nb: c").unwrap_err().to_string();
        assert_eq!(e.matches("line 2").count(), 1, "{e}");
        assert!(e.contains("(from line 1, column 4)"), "{e}");
        let e = Bundle::parse("a: \"x\n").unwrap_err().to_string();
        assert_eq!(e.matches("line 2").count(), 1, "{e}");
        assert!(!e.contains("line 2 column"), "{e}");
    }
}
