//! The HTTP side: routes a request to discovery, GET or LIST, applies the faults the test
//! asked for, and writes the answer the way kube-apiserver does (JSON bodies, `Status`
//! objects for errors, Tables on request).
//!
//! One fallback handler parses the path itself instead of an axum route per shape, because
//! the Kubernetes URL space (`/api/v1/namespaces/{ns}/{plural}/{name}`, `/apis/{g}/{v}/…`)
//! overlaps in ways that route patterns express poorly.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::{Query, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::response::Response;
use http_body::Frame;
use serde_json::{Map, Value, json};

use crate::catalog::{Catalog, Resource};
use crate::selector::{FieldSelector, LabelSelector};
use crate::store::{Object, Store};
use crate::table::{Include, table};
use crate::{Options, RequestRecord};

/// Everything a request needs; read-only apart from the request log.
pub(crate) struct Shared {
    pub catalog: Catalog,
    pub store: Store,
    pub opts: Options,
    pub address: String,
    pub log: Mutex<Vec<RequestRecord>>,
    /// 429 answers given so far, by throttled resource pattern.
    pub throttled: Mutex<HashMap<String, usize>>,
    /// Bytes of `huge` answers sent.
    pub streamed: Arc<AtomicUsize>,
}

const JSON: &str = "application/json";
const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// A response before it is written: kept as bytes so truncation can cut it.
struct Reply {
    status: StatusCode,
    content_type: &'static str,
    body: Vec<u8>,
    breakage: Breakage,
    retry_after: Option<String>,
}

/// How a successful answer is spoiled on the way out (see `Options::truncate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Breakage {
    None,
    Truncate,
    Drop,
    /// A typed list of this many bytes, made up as it is streamed.
    Huge(usize),
}

impl Reply {
    fn json(status: StatusCode, v: &Value) -> Reply {
        Reply {
            status,
            content_type: JSON,
            body: v.to_string().into_bytes(),
            breakage: Breakage::None,
            retry_after: None,
        }
    }

    fn ok(v: &Value) -> Reply {
        Reply::json(StatusCode::OK, v)
    }

    fn text(status: StatusCode, s: &str) -> Reply {
        Reply {
            status,
            content_type: "text/plain; charset=utf-8",
            body: s.as_bytes().to_vec(),
            breakage: Breakage::None,
            retry_after: None,
        }
    }

    fn status(code: StatusCode, reason: &str, message: String, details: Value) -> Reply {
        let mut v = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": reason,
            "code": code.as_u16(),
        });
        if !details.is_null() {
            v["details"] = details;
        }
        Reply::json(code, &v)
    }

    /// The real server's answer for a path or resource it does not serve.
    fn no_resource() -> Reply {
        Reply::status(
            StatusCode::NOT_FOUND,
            "NotFound",
            "the server could not find the requested resource".into(),
            json!({}),
        )
    }

    fn bad_request(message: String) -> Reply {
        Reply::status(StatusCode::BAD_REQUEST, "BadRequest", message, Value::Null)
    }

    fn into_response(self, streamed: &Arc<AtomicUsize>) -> Response {
        let len = self.body.len();
        // The full length is announced either way, so the client knows the body is short.
        let body = match self.breakage {
            Breakage::None => Body::from(self.body),
            Breakage::Truncate => Body::new(Broken::truncated(self.body)),
            Breakage::Drop => Body::new(Broken::dropped()),
            Breakage::Huge(size) => Body::new(Huge::new(size, Arc::clone(streamed))),
        };
        let mut resp = Response::new(body);
        *resp.status_mut() = self.status;
        let headers = resp.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(self.content_type),
        );
        // A huge answer is chunked: its length is not known up front, as for a real server
        // that streams a list from its cache.
        if !matches!(self.breakage, Breakage::Huge(_)) {
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
        }
        if let Some(v) = self
            .retry_after
            .and_then(|v| HeaderValue::from_str(&v).ok())
        {
            headers.insert(header::RETRY_AFTER, v);
        }
        resp
    }
}

/// A body that breaks on purpose: it may send a first chunk, waits long enough for hyper to
/// put it (and the headers) on the wire, then fails, which makes hyper close the connection.
struct Broken {
    first: Option<Bytes>,
    pause: Option<Pin<Box<tokio::time::Sleep>>>,
    failed: bool,
}

impl Broken {
    /// Headers and the first half of the body go out, then the connection closes.
    fn truncated(body: Vec<u8>) -> Broken {
        let half = body.len() / 2;
        let pause = Box::pin(tokio::time::sleep(std::time::Duration::from_millis(50)));
        Broken {
            first: Some(Bytes::from(body).slice(..half)),
            pause: Some(pause),
            failed: false,
        }
    }

    /// The connection closes before any byte of the response is sent.
    fn dropped() -> Broken {
        Broken {
            first: None,
            pause: None,
            failed: false,
        }
    }
}

impl http_body::Body for Broken {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        if let Some(chunk) = self.first.take() {
            return Poll::Ready(Some(Ok(Frame::data(chunk))));
        }
        if let Some(pause) = self.pause.as_mut() {
            if pause.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            self.pause = None;
        }
        if !self.failed {
            self.failed = true;
            let err = io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "broken on purpose by the test server",
            );
            return Poll::Ready(Some(Err(err)));
        }
        Poll::Ready(None)
    }
}

/// A typed list of pods made up chunk by chunk as the client reads it, counting what it sends.
struct Huge {
    left: usize,
    next: usize,
    started: bool,
    streamed: Arc<AtomicUsize>,
}

impl Huge {
    const HEAD: &'static str = r#"{"apiVersion":"v1","kind":"PodList","metadata":{},"items":["#;
    const TAIL: &'static str = "]}";

    fn new(size: usize, streamed: Arc<AtomicUsize>) -> Huge {
        Huge {
            left: size,
            next: 0,
            started: false,
            streamed,
        }
    }

    /// About 64 KiB of pods, the last chunk closing the list.
    fn chunk(&mut self) -> String {
        let mut out = String::with_capacity(66 << 10);
        if !self.started {
            self.started = true;
            out.push_str(Self::HEAD);
        }
        while out.len() < 64 << 10 && self.left > out.len() + 1024 {
            if self.next > 0 {
                out.push(',');
            }
            out.push_str(&format!(
                r#"{{"metadata":{{"name":"filler-{n}","namespace":"huge","uid":"huge-{n}"}},"spec":{{"containers":[{{"name":"c","image":"{pad}"}}]}}}}"#,
                n = self.next,
                pad = "x".repeat(800)
            ));
            self.next += 1;
        }
        if self.left <= out.len() + 1024 {
            out.push_str(Self::TAIL);
            self.left = 0;
        } else {
            self.left -= out.len();
        }
        out
    }
}

impl http_body::Body for Huge {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        if self.left == 0 {
            return Poll::Ready(None);
        }
        let chunk = self.chunk();
        self.streamed.fetch_add(chunk.len(), Ordering::Relaxed);
        Poll::Ready(Some(Ok(Frame::data(Bytes::from(chunk)))))
    }
}

/// The axum handler for every request.
pub(crate) async fn handle(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    if let Some(delay) = shared.opts.delay {
        tokio::time::sleep(delay).await;
    }
    let accept = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let mut reply = route(&shared, req.method(), req.uri(), &accept);
    // The server "disappears": every answer after the first `vanish_after` is a dropped
    // connection, discovery included.
    let answered = shared.log.lock().map_or(0, |l| l.len());
    if shared.opts.vanish_after.is_some_and(|n| answered >= n) {
        reply.breakage = Breakage::Drop;
    }
    let streamed = Arc::clone(&shared.streamed);
    let record = RequestRecord {
        method: req.method().as_str().to_owned(),
        path: req.uri().path().to_owned(),
        query: req.uri().query().unwrap_or("").to_owned(),
        accept,
        status: reply.status.as_u16(),
    };
    if let Ok(mut log) = shared.log.lock() {
        log.push(record);
    }
    reply.into_response(&streamed)
}

/// The decoded query parameters; the first value of a repeated name wins.
struct Params(Vec<(String, String)>);

impl Params {
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Whether one of the Accept header's media ranges carries all these parameters.
fn accepts(accept: &str, params: &[&str]) -> bool {
    accept.split(',').any(|range| {
        let parts: Vec<&str> = range.split(';').map(str::trim).collect();
        params.iter().all(|p| parts.contains(p))
    })
}

fn route(s: &Shared, method: &Method, uri: &Uri, accept: &str) -> Reply {
    if method != Method::GET && method != Method::HEAD {
        return Reply::status(
            StatusCode::METHOD_NOT_ALLOWED,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource".into(),
            json!({}),
        );
    }
    let params = Params(Query::try_from_uri(uri).map(|q| q.0).unwrap_or_default());
    let segs: Vec<&str> = uri.path().split('/').filter(|x| !x.is_empty()).collect();
    // kubectl and client-go ask for aggregated discovery first; without the option they get
    // legacy JSON, whose plain `application/json` content type makes them fall back.
    let aggregated = s.opts.aggregated_discovery
        && accepts(
            accept,
            &["g=apidiscovery.k8s.io", "v=v2", "as=APIGroupDiscoveryList"],
        );
    let aggregated_reply = |core: bool| Reply {
        content_type: AGGREGATED,
        ..Reply::ok(&s.catalog.aggregated(core))
    };
    match segs.as_slice() {
        ["version"] => Reply::ok(&version(&s.opts.server_version)),
        ["healthz" | "livez" | "readyz"] => Reply::text(StatusCode::OK, "ok"),
        ["api"] if aggregated => aggregated_reply(true),
        ["api"] => Reply::ok(&s.catalog.api_versions(&s.address)),
        ["apis"] if aggregated => aggregated_reply(false),
        ["apis"] => Reply::ok(&s.catalog.api_group_list()),
        ["api", "v1"] => s
            .catalog
            .api_resource_list("", "v1")
            .map_or_else(Reply::no_resource, |v| Reply::ok(&v)),
        ["apis", g] => s
            .catalog
            .api_group(g)
            .map_or_else(Reply::no_resource, |v| Reply::ok(&v)),
        ["apis", g, v] => s
            .catalog
            .api_resource_list(g, v)
            .map_or_else(Reply::no_resource, |v| Reply::ok(&v)),
        [
            "apis",
            VISIBILITY,
            v,
            "clusterqueues",
            cq,
            "pendingworkloads",
        ] if s
            .opts
            .kueue_visibility
            .as_ref()
            .is_some_and(|k| k.version == *v) =>
        {
            pending_workloads(s, cq, &params)
        }
        ["api", "v1", rest @ ..] => resource_request(s, "", "v1", rest, &params, accept),
        ["apis", g, v, rest @ ..] => resource_request(s, g, v, rest, &params, accept),
        _ => Reply::text(StatusCode::NOT_FOUND, "404 page not found"),
    }
}

/// Kueue's visibility API group.
pub(crate) const VISIBILITY: &str = "visibility.kueue.x-k8s.io";

/// One page of a ClusterQueue's pending Workloads, as Kueue's visibility API answers it.
fn pending_workloads(s: &Shared, cq: &str, params: &Params) -> Reply {
    if s.opts
        .forbidden
        .iter()
        .any(|f| f == "*" || f == "clusterqueues/pendingworkloads")
    {
        let message = format!(
            "clusterqueues.{VISIBILITY} \"{cq}\" is forbidden: User \"{}\" cannot get resource \"clusterqueues/pendingworkloads\" in API group \"{VISIBILITY}\" at the cluster scope",
            s.opts.user
        );
        let details = json!({"name": cq, "group": VISIBILITY, "kind": "clusterqueues"});
        return Reply::status(StatusCode::FORBIDDEN, "Forbidden", message, details);
    }
    let queues = s.opts.kueue_visibility.as_ref().map(|k| &k.queues);
    let Some((_, items)) = queues.and_then(|q| q.iter().find(|(name, _)| name == cq)) else {
        let message = format!("clusterqueue.{VISIBILITY} \"{cq}\" not found");
        let details = json!({"name": cq, "group": VISIBILITY, "kind": "clusterqueue"});
        return Reply::status(StatusCode::NOT_FOUND, "NotFound", message, details);
    };
    let number = |key: &str, default: usize| {
        params
            .get(key)
            .map_or(Some(default), |v| v.parse::<usize>().ok())
    };
    let (Some(limit), Some(offset)) = (number("limit", 1000), number("offset", 0)) else {
        return Reply::bad_request("limit and offset are whole numbers".into());
    };
    let mut in_lq: HashMap<(String, String), usize> = HashMap::new();
    let mut page = Vec::new();
    for (at, item) in items.iter().enumerate().take(offset.saturating_add(limit)) {
        let lq = (
            item["metadata"]["namespace"]
                .as_str()
                .unwrap_or("")
                .to_owned(),
            item["localQueueName"].as_str().unwrap_or("").to_owned(),
        );
        let n = in_lq.entry(lq).or_insert(0);
        if at >= offset {
            let mut item = item.clone();
            item["positionInClusterQueue"] = json!(at);
            item["positionInLocalQueue"] = json!(*n);
            page.push(item);
        }
        *n += 1;
    }
    Reply::ok(&json!({
        "kind": "PendingWorkloadsSummary",
        "apiVersion": format!("{VISIBILITY}/{}", s.opts.kueue_visibility.as_ref().map_or("", |k| k.version.as_str())),
        "metadata": {"creationTimestamp": null},
        "items": page,
    }))
}

/// `/version`, shaped like a real kube-apiserver's.
fn version(git_version: &str) -> Value {
    let mut nums = git_version.trim_start_matches('v').split(['.', '-', '+']);
    let major = nums.next().unwrap_or("1").to_owned();
    let minor = nums.next().unwrap_or("0").to_owned();
    json!({
        "major": major,
        "minor": minor,
        "emulationMajor": major,
        "emulationMinor": minor,
        "minCompatibilityMajor": major,
        "minCompatibilityMinor": minor,
        "gitVersion": git_version,
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2025-11-11T00:00:00Z",
        "goVersion": "go1.24.9",
        "compiler": "gc",
        "platform": "linux/amd64",
    })
}

/// Whether a fault list names this resource: by plural, by `plural.group`, or `*`.
fn names(patterns: &[String], r: &Resource) -> bool {
    patterns
        .iter()
        .any(|p| p == "*" || *p == r.plural || *p == r.qualified())
}

/// Where a request points inside a resource path.
struct Target<'a> {
    namespace: Option<&'a str>,
    plural: &'a str,
    name: Option<&'a str>,
}

fn parse_target<'a>(rest: &[&'a str]) -> Option<Target<'a>> {
    let (namespace, tail) = match rest {
        ["namespaces", ns, plural, tail @ ..] if !matches!(*plural, "status" | "finalize") => (
            Some(*ns),
            std::iter::once(*plural)
                .chain(tail.iter().copied())
                .collect::<Vec<_>>(),
        ),
        _ => (None, rest.to_vec()),
    };
    match tail.as_slice() {
        [plural] => Some(Target {
            namespace,
            plural,
            name: None,
        }),
        // `/status` returns the object itself, as the status subresource does on GET.
        [plural, name] | [plural, name, "status"] => Some(Target {
            namespace,
            plural,
            name: Some(name),
        }),
        _ => None,
    }
}

fn resource_request(
    s: &Shared,
    group: &str,
    version: &str,
    rest: &[&str],
    params: &Params,
    accept: &str,
) -> Reply {
    if rest.first() == Some(&"watch") || matches!(params.get("watch"), Some("true" | "1")) {
        return Reply::status(
            StatusCode::METHOD_NOT_ALLOWED,
            "MethodNotAllowed",
            "watch is not supported by this test server".into(),
            json!({}),
        );
    }
    let Some(t) = parse_target(rest) else {
        return Reply::no_resource();
    };
    let Some(r) = s.catalog.resource(group, version, t.plural) else {
        return Reply::no_resource();
    };
    // A namespace path to a cluster-scoped resource, or a cluster path to one namespaced
    // object, does not exist on a real server either.
    if (t.namespace.is_some() && !r.namespaced)
        || (t.name.is_some() && t.namespace.is_none() && r.namespaced)
    {
        return Reply::no_resource();
    }
    if names(&s.opts.forbidden, r) {
        return forbidden(s, r, &t);
    }
    if let Some(reply) = throttled(s, r) {
        return reply;
    }
    if names(&s.opts.fail, r) {
        let msg = format!("injected failure for {}", r.qualified());
        return Reply::status(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalError",
            format!("Internal error occurred: {msg}"),
            json!({"causes": [{"message": msg}]}),
        );
    }
    let as_table = accepts(accept, &["as=Table", "g=meta.k8s.io"]);
    let include = Include::parse(params.get("includeObject"));
    let mut reply = match t.name {
        Some(name) => match s.store.get(r, t.namespace, name) {
            Some(obj) if as_table => {
                let meta = Map::from_iter([(
                    "resourceVersion".to_owned(),
                    json!(s.store.resource_version),
                )]);
                Reply::ok(&table(std::iter::once(&obj.value), meta, include))
            }
            Some(obj) => Reply::ok(&obj.value),
            None => not_found(r, name),
        },
        None => list(s, r, t.namespace, params, as_table, include),
    };
    if reply.status == StatusCode::OK {
        if t.name.is_none() && names(&s.opts.huge, r) {
            reply.breakage = Breakage::Huge(s.opts.huge_bytes);
        } else if names(&s.opts.drop_connection, r) || names(&s.opts.reset_connection, r) {
            reply.breakage = Breakage::Drop;
        } else if names(&s.opts.truncate, r) {
            reply.breakage = Breakage::Truncate;
        }
    }
    reply
}

/// 429 in API Priority and Fairness's words, while the resource's throttle lasts.
fn throttled(s: &Shared, r: &Resource) -> Option<Reply> {
    let t = s
        .opts
        .throttle
        .iter()
        .find(|t| names(std::slice::from_ref(&t.resource), r))?;
    let mut given = s.throttled.lock().ok()?;
    let n = given.entry(t.resource.clone()).or_insert(0);
    if *n >= t.times {
        return None;
    }
    *n += 1;
    let mut reply = Reply::status(
        StatusCode::TOO_MANY_REQUESTS,
        "TooManyRequests",
        "the server has received too many requests and has asked us to try again later".into(),
        json!({"retryAfterSeconds": t.retry_after.as_deref().and_then(|v| v.parse::<u64>().ok())}),
    );
    reply.retry_after = t.retry_after.clone();
    Some(reply)
}

fn not_found(r: &Resource, name: &str) -> Reply {
    let mut details = json!({"name": name, "kind": r.plural});
    if !r.group.is_empty() {
        details["group"] = json!(r.group);
    }
    Reply::status(
        StatusCode::NOT_FOUND,
        "NotFound",
        format!("{} \"{name}\" not found", r.qualified()),
        details,
    )
}

/// 403 in the RBAC authorizer's words.
fn forbidden(s: &Shared, r: &Resource, t: &Target) -> Reply {
    let (verb, subject) = match t.name {
        Some(name) => ("get", format!("{} \"{name}\"", r.qualified())),
        None => ("list", r.qualified()),
    };
    let scope = match t.namespace {
        Some(ns) => format!("in the namespace \"{ns}\""),
        None => "at the cluster scope".to_owned(),
    };
    let message = format!(
        "{subject} is forbidden: User \"{}\" cannot {verb} resource \"{}\" in API group \"{}\" {scope}",
        s.opts.user, r.plural, r.group
    );
    let mut details = json!({"kind": r.plural});
    if let Some(name) = t.name {
        details["name"] = json!(name);
    }
    if !r.group.is_empty() {
        details["group"] = json!(r.group);
    }
    Reply::status(StatusCode::FORBIDDEN, "Forbidden", message, details)
}

/// Continue tokens are opaque to clients; this one is the hex of `o:<offset>`, which is
/// enough because the objects never change while the server runs.
fn encode_continue(offset: usize) -> String {
    format!("o:{offset}")
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn decode_continue(token: &str) -> Option<usize> {
    if !token.len().is_multiple_of(2) || !token.is_ascii() {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..token.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&token[i..i + 2], 16).ok())
        .collect();
    String::from_utf8(bytes?)
        .ok()?
        .strip_prefix("o:")?
        .parse()
        .ok()
}

fn list(
    s: &Shared,
    r: &Resource,
    namespace: Option<&str>,
    params: &Params,
    as_table: bool,
    include: Include,
) -> Reply {
    let labels = match LabelSelector::parse(params.get("labelSelector").unwrap_or("")) {
        Ok(l) => l,
        Err(e) => return Reply::bad_request(e),
    };
    let fields = match FieldSelector::parse(params.get("fieldSelector").unwrap_or("")) {
        Ok(f) => f,
        Err(e) => return Reply::bad_request(e),
    };
    let offset = match params.get("continue").filter(|c| !c.is_empty()) {
        None => 0,
        Some(token) => match decode_continue(token) {
            Some(o) => o,
            None => return Reply::bad_request(format!("continue key is not valid: {token:?}")),
        },
    };
    let limit = params
        .get("limit")
        .and_then(|l| l.parse::<usize>().ok())
        .filter(|l| *l > 0);

    let selected: Vec<&Object> = s
        .store
        .list(r, namespace)
        .filter(|o| {
            labels.matches(
                o.value
                    .pointer("/metadata/labels")
                    .and_then(Value::as_object),
            )
        })
        .filter(|o| fields.matches(&o.value))
        .collect();
    let start = offset.min(selected.len());
    let end = limit.map_or(selected.len(), |l| {
        start.saturating_add(l).min(selected.len())
    });
    let page = &selected[start..end];

    let mut meta = Map::new();
    meta.insert("resourceVersion".into(), json!(s.store.resource_version));
    if end < selected.len() {
        meta.insert("continue".into(), json!(encode_continue(end)));
        // The real server leaves the count out when a selector filtered the list, because
        // it cannot know it without reading everything; do the same so clients cope.
        if labels.is_empty() && fields.is_empty() {
            meta.insert("remainingItemCount".into(), json!(selected.len() - end));
        }
    }
    if as_table {
        return Reply::ok(&table(page.iter().map(|o| &o.value), meta, include));
    }
    let items: Vec<&Value> = page.iter().map(|o| &o.value).collect();
    Reply::ok(&json!({
        "kind": format!("{}List", r.kind),
        "apiVersion": r.group_version(),
        "metadata": meta,
        "items": items,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_tokens_round_trip() {
        assert_eq!(decode_continue(&encode_continue(42)), Some(42));
        assert_eq!(decode_continue("zz"), None);
        assert_eq!(decode_continue("6f3a"), None);
    }

    #[test]
    fn accept_ranges() {
        let kubectl_table = concat!(
            "application/json;as=Table;v=v1;g=meta.k8s.io,",
            "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
        );
        assert!(accepts(kubectl_table, &["as=Table", "g=meta.k8s.io"]));
        assert!(!accepts("application/json", &["as=Table", "g=meta.k8s.io"]));
    }
}
