//! One read, and a round of them: a GET of one object, or a list followed page by page, each
//! request bounded by the read's deadline; a failure worded for `missing`; every answer kept as
//! the text the server sent, with what the next round needs read from it once ([`links`]).
//!
//! [`links`]: super::links

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use kube::discovery::ApiResource;
use layer_core::diagnosis::Missing;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::Cluster;
use super::links::{self, Found};
use super::request::{Refused, Request};

/// How many requests are in flight at once.
pub const CONCURRENCY: usize = 8;
/// Items per page of a paginated list.
const PAGE: usize = 500;

/// One failed read, worded for `missing`.
#[derive(Debug, Clone)]
pub(super) struct ReadFailure {
    pub status: Option<u16>,
    pub why: String,
}

/// A failed answer's status, worded for `missing`.
fn status_failure(code: u16, message: &str) -> ReadFailure {
    let why = match code {
        403 => "forbidden".to_string(),
        404 => "not found".to_string(),
        401 => "unauthorized".to_string(),
        429 => "rate limited (429) by the API server".to_string(),
        410 => format!("expired (410 Gone): {message}"),
        c => format!("server error {c}: {message}"),
    };
    ReadFailure {
        status: Some(code),
        why,
    }
}

/// Whether an error or one of its sources is this kind of I/O error.
fn io_kind_in(e: &(dyn std::error::Error + 'static), kind: std::io::ErrorKind) -> bool {
    let mut src = Some(e);
    while let Some(s) = src {
        if s.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == kind)
        {
            return true;
        }
        src = s.source();
    }
    false
}

pub(super) fn describe(e: &kube::Error) -> ReadFailure {
    match e {
        kube::Error::Api(s) => status_failure(s.code, &s.message),
        kube::Error::SerdeError(e) => unreadable(e),
        other if io_kind_in(other, std::io::ErrorKind::ConnectionReset) => ReadFailure {
            status: None,
            why: "connection reset by the API server".to_string(),
        },
        other => {
            // Hyper and tower errors nest the useful part (connection refused) in their
            // sources.
            let mut why = other.to_string();
            let mut src = std::error::Error::source(other);
            while let Some(s) = src {
                let t = s.to_string();
                if !why.contains(&t) {
                    why = format!("{why}: {t}");
                }
                src = s.source();
            }
            if why.contains("reading a body") || why.contains("end of file before message") {
                why = format!("the answer was cut off ({why})");
            }
            ReadFailure { status: None, why }
        }
    }
}

/// Why a read ended without its answer.
#[derive(Debug)]
pub(super) enum FetchError {
    /// This read failed; the others go on (it is named in `missing`).
    Failed(ReadFailure),
    /// The answers passed `--max-input-bytes`: the whole collection stops.
    TooLarge(String),
    /// Not sent: a namespace or name that would change the path, or a read outside the role.
    Refused(Refused),
}

impl From<ReadFailure> for FetchError {
    fn from(f: ReadFailure) -> FetchError {
        FetchError::Failed(f)
    }
}

/// What a read accepts: the object or list as JSON.
pub(super) const JSON: &str = "application/json";

/// Tries of a read the server asks to repeat later (429, 503, 504), each after its
/// `Retry-After` (1 s when it gives none), while the deadline allows.
const TRIES: usize = 4;
/// The most of a failed answer read, for its `Status` message.
const STATUS_BYTES: usize = 64 << 10;

/// One answer of the server, before it is judged.
enum Answered {
    Body(String),
    Status {
        code: u16,
        message: String,
        retry_after: Option<String>,
    },
}

/// One read: the resource, where, which object, its query; its URI is written, and checked,
/// by [`request`] only.
#[derive(Clone, Debug)]
pub(super) struct Read {
    /// Shown in `missing` and errors: `pods`, `workloads.kueue.x-k8s.io`.
    pub resource: String,
    pub kind: String,
    pub api_version: String,
    api: ApiResource,
    query: Vec<(&'static str, String)>,
    /// The values the field selector compares with, checked before it is sent.
    selected: Vec<String>,
    /// Follow `continue` pages.
    paginate: bool,
    pub namespace: Option<String>,
    pub name: Option<String>,
    /// A subresource of the named object (`pendingworkloads`).
    subresource: Option<&'static str>,
    /// What the read is for, for `KUBECTL_LAYER_TRACE`.
    pub why: String,
    /// Whether later rounds plan from what its objects say ([`links`]); a pod's bound pods,
    /// the cluster's largest answer, need not be read twice.
    heads: bool,
}

pub(super) fn qualified(ar: &ApiResource) -> String {
    if ar.group.is_empty() {
        ar.plural.clone()
    } else {
        format!("{}.{}", ar.plural, ar.group)
    }
}

/// A core (`v1`) resource, for the reads that are not in discovery's list of kinds to fan out.
pub(super) fn core(kind: &str, plural: &str) -> ApiResource {
    ApiResource {
        group: String::new(),
        version: "v1".into(),
        api_version: "v1".into(),
        kind: kind.into(),
        plural: plural.into(),
    }
}

impl Read {
    pub(super) fn list(ar: &ApiResource, namespace: Option<&str>) -> Read {
        Read {
            resource: qualified(ar),
            kind: ar.kind.clone(),
            api_version: ar.api_version.clone(),
            api: ar.clone(),
            query: Vec::new(),
            selected: Vec::new(),
            paginate: true,
            namespace: namespace.map(str::to_string),
            name: None,
            subresource: None,
            why: String::new(),
            heads: true,
        }
    }

    pub(super) fn get(ar: &ApiResource, namespace: Option<&str>, name: &str) -> Read {
        Read {
            paginate: false,
            name: Some(name.to_string()),
            ..Read::list(ar, namespace)
        }
    }

    /// A subresource of the object the read names (`pendingworkloads`).
    pub(super) fn subresource(mut self, sub: &'static str) -> Read {
        self.subresource = Some(sub);
        self
    }

    pub(super) fn with(mut self, key: &'static str, value: &str) -> Read {
        self.query.push((key, value.to_string()));
        self
    }

    /// A field selector of fixed terms (`fixed`, which ends with a comma if not empty) and
    /// one that compares `field` with a value found in the cluster (a node's name, a uid),
    /// which is checked before it is sent.
    pub(super) fn selecting(mut self, fixed: &str, field: &str, value: &str) -> Read {
        self.selected.push(value.to_string());
        self.with("fieldSelector", &format!("{fixed}{field}={value}"))
    }

    /// No later round plans from this read's objects.
    pub(super) fn final_read(mut self) -> Read {
        self.heads = false;
        self
    }

    /// Says what the read is for.
    pub(super) fn because(mut self, why: impl Into<String>) -> Read {
        self.why = why.into();
        self
    }

    /// Served from the API server's watch cache, in one answer (no paging).
    pub(super) fn cached(mut self) -> Read {
        self.paginate = false;
        self.with("resourceVersion", "0")
    }

    pub(super) fn missing(&self, why: String) -> Missing {
        Missing {
            kind: self.kind.clone(),
            api_version: Some(self.api_version.clone()),
            resource: Some(self.resource.clone()),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
            why,
        }
    }

    /// The URI of one page, or why it is not sent.
    pub(super) fn uri(&self, cont: Option<&str>) -> Result<String, Refused> {
        let mut query = self.query.clone();
        if self.paginate {
            query.push(("limit", PAGE.to_string()));
            if let Some(c) = cont {
                query.push(("continue", c.to_string()));
            }
        }
        Request {
            api: &self.api,
            namespace: self.namespace.as_deref(),
            name: self.name.as_deref(),
            subresource: self.subresource,
            query: &query,
            selected: &self.selected,
        }
        .uri()
    }
}

/// One answer as the server sent it: an object, or one page of a list.
pub(super) struct Answer {
    /// Where it goes in the bundle: the read's place in the plan, then the page.
    pub order: (usize, usize),
    pub text: String,
    /// What the next round needs to know of its objects.
    pub found: Vec<Found>,
}

/// What the reads of one collection produced, and what could not be read.
pub(super) struct Haul {
    /// `--max-input-bytes`: the most the answers may hold together.
    limit: usize,
    /// Bytes of answers held, or being read.
    bytes: AtomicUsize,
    /// Why the collection stopped, when an answer passed the limit.
    fatal: Mutex<Option<String>>,
    answers: Mutex<Vec<Answer>>,
    unreadable: Mutex<Vec<Missing>>,
    /// Reads of Kueue's visibility API that failed: kept apart, since the bundle's own order
    /// stands in for them (`kubectlLayer.visibilityFailed`).
    visibility_failed: Mutex<Vec<Missing>>,
    pub(super) requests: AtomicUsize,
    /// Objects received.
    objects: AtomicUsize,
    /// Reads planned so far: a read's number orders its answers in the bundle.
    planned: AtomicUsize,
}

impl Haul {
    pub(super) fn new(limit: usize) -> Haul {
        Haul {
            limit,
            bytes: AtomicUsize::new(0),
            fatal: Mutex::new(None),
            answers: Mutex::default(),
            unreadable: Mutex::default(),
            visibility_failed: Mutex::default(),
            requests: AtomicUsize::new(0),
            objects: AtomicUsize::new(0),
            planned: AtomicUsize::new(0),
        }
    }

    /// Why the collection stopped, if it did: as the failure the command ends with.
    pub(super) fn fatal(&self) -> Option<crate::Failure> {
        let why = self.fatal.lock().expect("not poisoned").clone()?;
        Some(crate::Failure::new(3, "input-too-large", why))
    }

    fn stop(&self, why: String) {
        self.fatal.lock().expect("not poisoned").get_or_insert(why);
    }

    /// Numbers for `n` reads planned now, in plan order.
    pub(super) fn plan(&self, n: usize) -> std::ops::Range<usize> {
        let first = self.planned.fetch_add(n, Ordering::Relaxed);
        first..first + n
    }

    pub(super) fn keep(&self, answer: Answer) {
        self.answers.lock().expect("not poisoned").push(answer);
    }

    pub(super) fn fail(&self, m: Missing) {
        self.unreadable.lock().expect("not poisoned").push(m);
    }

    /// A read of Kueue's visibility API that failed.
    pub(super) fn visibility_failed(&self, m: Missing) {
        self.visibility_failed.lock().expect("not poisoned").push(m);
    }

    /// The reads of Kueue's visibility API that failed, sorted by ClusterQueue.
    pub(super) fn take_visibility_failed(&self) -> Vec<Missing> {
        let mut failed = std::mem::take(&mut *self.visibility_failed.lock().expect("not poisoned"));
        failed.sort();
        failed
    }

    /// Whether an answer of the reads numbered `seqs` has a text that passes `test`.
    pub(super) fn any_text(
        &self,
        seqs: std::ops::Range<usize>,
        test: impl Fn(&str) -> bool,
    ) -> bool {
        let answers = self.answers.lock().expect("not poisoned");
        answers
            .iter()
            .any(|a| seqs.contains(&a.order.0) && test(&a.text))
    }

    /// The texts of the answers of the reads numbered `seqs`, in plan order.
    pub(super) fn texts(&self, seqs: std::ops::Range<usize>) -> Vec<String> {
        let answers = self.answers.lock().expect("not poisoned");
        let mut of: Vec<&Answer> = answers
            .iter()
            .filter(|a| seqs.contains(&a.order.0))
            .collect();
        of.sort_by_key(|a| a.order);
        of.into_iter().map(|a| a.text.clone()).collect()
    }

    /// The text of the first answer of the read numbered `seq`.
    pub(super) fn text(&self, seq: usize) -> Option<String> {
        let answers = self.answers.lock().expect("not poisoned");
        answers
            .iter()
            .find(|a| a.order == (seq, 0))
            .map(|a| a.text.clone())
    }

    /// `f` of what the answers of the reads numbered `seqs` found, in plan order.
    pub(super) fn found_in<R>(
        &self,
        seqs: std::ops::Range<usize>,
        f: impl FnOnce(Vec<&Found>) -> R,
    ) -> R {
        let answers = self.answers.lock().expect("not poisoned");
        let mut of: Vec<&Answer> = answers
            .iter()
            .filter(|a| seqs.contains(&a.order.0))
            .collect();
        of.sort_by_key(|a| a.order);
        f(of.into_iter().flat_map(|a| a.found.iter()).collect())
    }

    /// What the answers of the reads numbered `seqs` found, in plan order.
    pub(super) fn found(&self, seqs: std::ops::Range<usize>) -> Vec<Found> {
        self.found_in(seqs, |f| f.into_iter().cloned().collect())
    }

    /// Whether any answer came back with objects.
    pub(super) fn has_objects(&self) -> bool {
        self.objects.load(Ordering::Relaxed) > 0
    }

    pub(super) fn requests(&self) -> usize {
        self.requests.load(Ordering::Relaxed)
    }

    /// Every answer in plan order, and what could not be read (sorted, each once).
    pub(super) fn take(&self) -> (Vec<Answer>, Vec<Missing>) {
        let mut answers = std::mem::take(&mut *self.answers.lock().expect("not poisoned"));
        answers.sort_by_key(|a| a.order);
        let mut unreadable = self.unreadable.lock().expect("not poisoned").clone();
        unreadable.sort_by(|a, b| {
            (&a.resource, &a.namespace, &a.name).cmp(&(&b.resource, &b.namespace, &b.name))
        });
        unreadable.dedup();
        (answers, unreadable)
    }

    /// Forget the answers of the read numbered `seq` (a list about to be read again from its
    /// start), and the bytes and objects they held.
    fn forget(&self, seq: usize, objects: usize) {
        let mut answers = self.answers.lock().expect("not poisoned");
        let held: usize = answers
            .iter()
            .filter(|a| a.order.0 == seq)
            .map(|a| a.text.len())
            .sum();
        answers.retain(|a| a.order.0 != seq);
        let less = |n: usize| move |v: usize| Some(v.saturating_sub(n));
        let _ = self
            .bytes
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, less(held));
        let _ = self
            .objects
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, less(objects));
    }

    /// The first read that failed, if any.
    pub(super) fn first_failure(&self) -> Option<String> {
        self.unreadable
            .lock()
            .expect("not poisoned")
            .first()
            .map(|m| m.why.clone())
    }
}

#[derive(Deserialize)]
struct PageMeta {
    #[serde(rename = "continue", default)]
    cont: Option<String>,
}

#[derive(Deserialize)]
struct Page<'a> {
    #[serde(rename = "apiVersion", default)]
    api_version: Option<&'a str>,
    #[serde(default)]
    kind: Option<&'a str>,
    #[serde(default)]
    metadata: Option<PageMeta>,
    #[serde(borrow, default)]
    items: Option<Vec<&'a RawValue>>,
}

fn unreadable(e: &serde_json::Error) -> ReadFailure {
    ReadFailure {
        status: None,
        why: format!("unreadable response ({e}); was the answer cut off?"),
    }
}

/// A list page's items, wrapped in a list typed from the request, when the page does not type
/// them itself (`PodList` → `Pod`): what the server leaves untyped is what was asked for.
fn retyped_page(page: &Page, read: &Read) -> Option<String> {
    let typed = page
        .kind
        .is_some_and(|k| k != "List" && k.ends_with("List"))
        && page.api_version.is_some();
    if typed {
        return None;
    }
    let items: Vec<&str> = page.items.iter().flatten().map(|r| r.get()).collect();
    Some(format!(
        "{{\"apiVersion\":{},\"kind\":{},\"items\":[{}]}}",
        serde_json::json!(read.api_version),
        serde_json::json!(format!("{}List", read.kind)),
        items.join(",")
    ))
}

/// A GET answer the core can type: an object without kind or apiVersion becomes the one item
/// of a list typed from the request.
fn typed_object(text: String, read: &Read) -> Result<String, ReadFailure> {
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(rename = "apiVersion", default, borrow)]
        api_version: Option<&'a str>,
        #[serde(default, borrow)]
        kind: Option<&'a str>,
    }
    let head: Head = serde_json::from_str(&text).map_err(|e| unreadable(&e))?;
    if head.kind.is_some() && head.api_version.is_some() {
        return Ok(text);
    }
    Ok(format!(
        "{{\"apiVersion\":{},\"kind\":{},\"items\":[{text}]}}",
        serde_json::json!(read.api_version),
        serde_json::json!(format!("{}List", read.kind)),
    ))
}

/// A body, frame by frame, counted against the haul's limit (and at most `most` bytes of
/// it kept): past the limit the read stops, and the connection with it.
async fn read_body(
    mut body: kube::client::Body,
    haul: &Haul,
    most: usize,
    uri: &str,
) -> Result<Vec<u8>, FetchError> {
    use http_body_util::BodyExt;
    let mut out: Vec<u8> = Vec::new();
    let give_back = |n: usize| haul.bytes.fetch_sub(n, Ordering::Relaxed);
    while let Some(frame) = body.frame().await {
        let frame = match frame {
            Ok(f) => f,
            Err(e) => {
                give_back(out.len());
                return Err(describe(&e).into());
            }
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let take = data.len().min(most.saturating_sub(out.len()));
        let held = haul.bytes.fetch_add(take, Ordering::Relaxed) + take;
        if held > haul.limit {
            give_back(out.len() + take);
            return Err(FetchError::TooLarge(format!(
                "GET {uri}: the cluster's answers are over the limit of {} bytes (raise it with --max-input-bytes)",
                haul.limit
            )));
        }
        out.extend_from_slice(&data[..take]);
    }
    Ok(out)
}

impl Cluster {
    fn remaining(&self) -> std::time::Duration {
        self.deadline
            .saturating_duration_since(Instant::now())
            .max(std::time::Duration::from_millis(1))
    }

    /// `fut`, bounded by what is left of the read's deadline.
    pub(super) async fn bounded<T>(
        &self,
        fut: impl std::future::Future<Output = Result<T, kube::Error>>,
    ) -> Result<T, ReadFailure> {
        match tokio::time::timeout(self.remaining(), fut).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(describe(&e)),
            Err(_) => Err(ReadFailure {
                status: None,
                why: format!("timed out (--request-timeout {}s)", self.timeout.as_secs()),
            }),
        }
    }

    /// One request and its answer's body, read only while the answers together stay within
    /// the haul's limit: a body is never held past it, however long the server goes on.
    async fn answer(&self, uri: &str, accept: &str, haul: &Haul) -> Result<Answered, FetchError> {
        let req = http::Request::get(uri)
            .header("Accept", accept)
            .body(kube::client::Body::empty())
            .map_err(|e| ReadFailure {
                status: None,
                why: e.to_string(),
            })?;
        let res = self.client.send(req).await.map_err(|e| describe(&e))?;
        let code = res.status();
        if code.is_success() {
            let body = read_body(res.into_body(), haul, usize::MAX, uri).await?;
            let text = String::from_utf8(body).map_err(|e| ReadFailure {
                status: None,
                why: format!("unreadable response (not UTF-8: {e})"),
            })?;
            return Ok(Answered::Body(text));
        }
        let retry_after = res
            .headers()
            .get(http::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let body = read_body(res.into_body(), haul, STATUS_BYTES, uri).await?;
        haul.bytes.fetch_sub(body.len(), Ordering::Relaxed);
        #[derive(Deserialize)]
        struct Status {
            #[serde(default)]
            message: String,
        }
        let text = String::from_utf8_lossy(&body);
        let message = serde_json::from_str::<Status>(&text)
            .map(|s| s.message)
            .unwrap_or_else(|_| text.trim().to_string());
        Ok(Answered::Status {
            code: code.as_u16(),
            message,
            retry_after,
        })
    }

    /// [`Cluster::answer`] within the read's deadline.
    async fn answer_in_time(
        &self,
        uri: &str,
        accept: &str,
        haul: &Haul,
    ) -> Result<Answered, FetchError> {
        match tokio::time::timeout(self.remaining(), self.answer(uri, accept, haul)).await {
            Ok(answered) => answered,
            Err(_) => Err(FetchError::Failed(ReadFailure {
                status: None,
                why: format!("timed out (--request-timeout {}s)", self.timeout.as_secs()),
            })),
        }
    }

    /// One request, asked again while the server says "later" and the deadline leaves time to
    /// wait as long as it asks; traced when asked.
    pub(super) async fn request(
        &self,
        uri: &str,
        accept: &str,
        why: &str,
        haul: &Haul,
    ) -> Result<String, FetchError> {
        for attempt in 1..=TRIES {
            let sent = Instant::now();
            let answered = self.answer_in_time(uri, accept, haul).await;
            let ms = sent.elapsed().as_millis();
            let (code, message, retry_after) = match answered {
                Ok(Answered::Body(t)) => {
                    self.trace_line(uri, why, &format!("{} bytes in {ms} ms", t.len()));
                    return Ok(t);
                }
                Ok(Answered::Status {
                    code,
                    message,
                    retry_after,
                }) => (code, message, retry_after),
                Err(e) => {
                    let failure = match &e {
                        FetchError::Failed(f) => f.why.clone(),
                        FetchError::TooLarge(why) => why.clone(),
                        FetchError::Refused(r) => r.to_string(),
                    };
                    self.trace_line(uri, why, &format!("{failure} after {ms} ms"));
                    return Err(e);
                }
            };
            let mut failure = status_failure(code, &message);
            if !matches!(code, 429 | 503 | 504) {
                self.trace_line(uri, why, &format!("{} after {ms} ms", failure.why));
                return Err(failure.into());
            }
            let wait = retry_after.as_deref().map(str::trim).map(str::parse::<u64>);
            let wait = match wait {
                Some(Ok(secs)) => std::time::Duration::from_secs(secs),
                _ => std::time::Duration::from_secs(1 << (attempt - 1)),
            };
            let shown = retry_after.as_deref().map_or_else(
                || format!("{} s (no Retry-After)", wait.as_secs()),
                |r| format!("{r} s"),
            );
            if wait >= self.remaining() {
                failure.why = format!(
                    "{}, which asked to retry after {shown}: past --request-timeout {}s",
                    failure.why,
                    self.timeout.as_secs()
                );
            } else if attempt == TRIES {
                failure.why = format!(
                    "{}: {TRIES} tries, each told to retry after {shown}",
                    failure.why
                );
            } else {
                self.trace_line(
                    uri,
                    why,
                    &format!("{} after {ms} ms; again in {shown}", failure.why),
                );
                tokio::time::sleep(wait).await;
                continue;
            }
            self.trace_line(uri, why, &format!("{} after {ms} ms", failure.why));
            return Err(failure.into());
        }
        unreachable!("the last try returns")
    }

    fn trace_line(&self, uri: &str, why: &str, outcome: &str) {
        if self.trace {
            let outcome = layer_core::render::for_terminal(outcome);
            if why.is_empty() {
                eprintln!("GET {uri} -> {outcome}");
            } else {
                eprintln!("GET {uri} -> {outcome} ({why})");
            }
        }
    }

    /// Run one read: a GET, or a list followed page by page (read again from its start, once,
    /// when its `continue` expires). Its answers go to the haul under the read's number `seq`;
    /// returns how many objects they hold.
    pub(super) async fn fetch(
        &self,
        read: &Read,
        seq: usize,
        haul: &Haul,
    ) -> Result<usize, FetchError> {
        if let Some(f) = haul.fatal() {
            return Err(FetchError::TooLarge(f.message));
        }
        let mut count = 0;
        let mut cont: Option<String> = None;
        let mut pages = 0usize;
        let mut restarted = false;
        loop {
            let uri = read.uri(cont.as_deref()).map_err(|r| {
                self.trace_line(&read.resource, &read.why, &format!("not sent: {r}"));
                FetchError::Refused(r)
            })?;
            if pages == 0 {
                haul.requests.fetch_add(1, Ordering::Relaxed);
            }
            let text = match self.request(&uri, JSON, &read.why, haul).await {
                Ok(text) => text,
                Err(FetchError::Failed(f)) if cont.is_some() && f.status == Some(410) => {
                    // The list's snapshot was compacted away between two pages: its pages so
                    // far are dropped (never kept as if complete) and it is read again from its
                    // start, once; a second expiry is the read's failure, said as such.
                    if restarted {
                        return Err(FetchError::Failed(ReadFailure {
                            status: f.status,
                            why: format!(
                                "the list expired twice while it was read page by page: {}",
                                f.why
                            ),
                        }));
                    }
                    restarted = true;
                    haul.forget(seq, count);
                    self.trace_line(
                        &uri,
                        &read.why,
                        "expired (410): the list is read again from its start",
                    );
                    (count, pages, cont) = (0, 0, None);
                    continue;
                }
                Err(e) => return Err(e),
            };
            if read.name.is_some() {
                let text = typed_object(text, read)?;
                let found = links::of_object(&text, &read.api_version, &read.kind);
                haul.objects.fetch_add(1, Ordering::Relaxed);
                haul.keep(Answer {
                    order: (seq, 0),
                    text,
                    found: found.into_iter().collect(),
                });
                return Ok(1);
            }
            let page: Page = serde_json::from_str(&text).map_err(|e| unreadable(&e))?;
            let list_kind = page.kind.unwrap_or("");
            let kind = list_kind.strip_suffix("List").unwrap_or(&read.kind);
            let kind = if kind.is_empty() { &read.kind } else { kind };
            let api_version = page.api_version.unwrap_or(&read.api_version);
            let items = page.items.as_deref().unwrap_or_default();
            let found = if read.heads {
                links::of_items(items, api_version, kind)
            } else {
                Vec::new()
            };
            count += items.len();
            haul.objects.fetch_add(items.len(), Ordering::Relaxed);
            let next = page
                .metadata
                .as_ref()
                .and_then(|m| m.cont.clone())
                .filter(|c| !c.is_empty());
            let retyped = retyped_page(&page, read);
            drop(page);
            haul.keep(Answer {
                order: (seq, pages),
                text: retyped.unwrap_or(text),
                found,
            });
            pages += 1;
            cont = next;
            if !read.paginate || cont.is_none() || pages > 100_000 {
                return Ok(count);
            }
        }
    }

    /// Run reads together, at most [`CONCURRENCY`] at a time; failures go to `unreadable`,
    /// except a 404 on a GET (the object does not exist, which the core sees by its absence).
    /// Returns the numbers the reads were given, or why the collection stopped.
    pub(super) async fn fetch_all(
        self: &Arc<Self>,
        reads: Vec<Read>,
        haul: &Arc<Haul>,
    ) -> Result<std::ops::Range<usize>, crate::Failure> {
        self.progress.planned(reads.len());
        let seqs = haul.plan(reads.len());
        let sem = Arc::new(tokio::sync::Semaphore::new(CONCURRENCY));
        let mut set = tokio::task::JoinSet::new();
        for (read, seq) in reads.into_iter().zip(seqs.clone()) {
            let sem = sem.clone();
            let this = self.clone();
            let haul = haul.clone();
            set.spawn(async move {
                let _permit = sem.acquire().await;
                match this.fetch(&read, seq, &haul).await {
                    Ok(n) => this.progress.done(n),
                    Err(FetchError::Failed(f)) => {
                        this.progress.done(0);
                        if !(read.name.is_some() && f.status == Some(404)) {
                            haul.fail(read.missing(f.why));
                        }
                    }
                    Err(FetchError::TooLarge(why)) => {
                        this.progress.done(0);
                        haul.stop(why);
                    }
                    Err(FetchError::Refused(r)) => {
                        this.progress.done(0);
                        haul.fail(read.missing(format!("not requested: {r}")));
                    }
                }
            });
        }
        while set.join_next().await.is_some() {}
        match haul.fatal() {
            Some(f) => Err(f),
            None => Ok(seqs),
        }
    }
}
