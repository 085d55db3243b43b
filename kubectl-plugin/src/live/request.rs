//! The one place a request's URI is written. Every read of the live reader gets its URI here,
//! page by page ([`super::fetch`]), and nowhere else, so what a namespace or a name holds can
//! never change which resource is read:
//!
//! - a namespace must be a DNS-1123 label, as the API server requires of a Namespace's name;
//! - a name must be one the API server can serve at a path (its `ValidatePathSegmentName`: not
//!   `.` or `..`, no `/` or `%`), without control characters, at most 253 bytes (the kinds the
//!   tool reads by name all name objects with DNS-1123 subdomains), and is percent-encoded, so
//!   a `?` or a `#` stays in the name;
//! - a value put into a field selector (a node's name, a uid) is made of letters, digits and
//!   `.-_:` only, so it cannot add a term to the selector;
//! - the resource and the verb must be a row of the role `kubectl layer rbac` prints
//!   ([`crate::plan::allows`]), the version a plain token and the query a few known keys: a
//!   request outside the role is never written, whatever discovery or an object said.
//!
//! What the user typed is refused with the reason before any request ([`super::check_namespace`],
//! exit status 2); a name read from the cluster that fails is not requested, and its read is
//! named under `missing` with the reason.

use kube::discovery::ApiResource;

/// Why a request was not written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("`{value}` is not a namespace: {why}")]
    Namespace { value: String, why: &'static str },
    #[error("`{value}` is not the name of an object: {why}")]
    Name { value: String, why: &'static str },
    #[error("`{value}` cannot be matched in a field selector: {why}")]
    Selector { value: String, why: &'static str },
    #[error("`{value}` is not an API version")]
    Version { value: String },
    #[error("`{key}` is not a query this reader sends")]
    Query { key: String },
    #[error("{verb} {resource} is not in the role `kubectl layer rbac` prints")]
    OutsideRole {
        verb: &'static str,
        resource: String,
    },
}

/// The query keys a read may carry: selectors, the cache's resource version, paging. Never
/// `watch`.
const QUERY_KEYS: &[&str] = &[
    "fieldSelector",
    "labelSelector",
    "resourceVersion",
    "limit",
    "continue",
    "offset",
];

/// The longest name: a DNS-1123 subdomain's.
const NAME_MAX: usize = 253;

/// A namespace as the API server accepts one: a DNS-1123 label.
pub fn namespace(value: &str) -> Result<(), Refused> {
    dns_label(value).map_err(|why| Refused::Namespace {
        value: value.to_string(),
        why,
    })
}

/// What is wrong with `s` as a DNS-1123 label, if anything.
fn dns_label(s: &str) -> Result<(), &'static str> {
    if s.is_empty() {
        return Err("it is empty");
    }
    if s.len() > 63 {
        return Err("it is longer than 63 characters");
    }
    if !s
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Err("it may hold only lowercase letters, digits and '-' (a DNS-1123 label)");
    }
    if s.starts_with('-') || s.ends_with('-') {
        return Err("it must start and end with a letter or a digit");
    }
    Ok(())
}

/// A name as the API server can serve it at a path.
pub fn name(value: &str) -> Result<(), Refused> {
    path_segment(value).map_err(|why| Refused::Name {
        value: value.to_string(),
        why,
    })
}

/// What is wrong with `s` as one segment of a path, if anything.
fn path_segment(s: &str) -> Result<(), &'static str> {
    if s.is_empty() {
        return Err("it is empty");
    }
    if s == "." || s == ".." {
        return Err("`.` and `..` name no object");
    }
    if s.contains(['/', '%']) {
        return Err("a name holds no '/' or '%'");
    }
    if s.chars().any(char::is_control) {
        return Err("a name holds no control character");
    }
    if s.len() > NAME_MAX {
        return Err("it is longer than 253 characters");
    }
    Ok(())
}

/// A value a field selector compares with (a node's name, a uid): letters, digits and
/// `.-_:`, so it is one value and never another term.
fn selector_value(value: &str) -> Result<(), Refused> {
    let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b':');
    let why = if value.is_empty() || value.len() > NAME_MAX {
        "it is empty or longer than 253 characters"
    } else if !value.bytes().all(plain) {
        "it may hold only letters, digits and '.-_:'"
    } else {
        return Ok(());
    };
    Err(Refused::Selector {
        value: value.to_string(),
        why,
    })
}

/// One read as the plan means it: the resource, where, which object, and its query.
pub(super) struct Request<'a> {
    pub api: &'a ApiResource,
    pub namespace: Option<&'a str>,
    pub name: Option<&'a str>,
    /// A subresource of the named object (`pendingworkloads`), checked against the role as
    /// `plural/subresource`.
    pub subresource: Option<&'a str>,
    /// Keys and values, values not yet encoded.
    pub query: &'a [(&'static str, String)],
    /// The values the field selector of `query` compares with.
    pub selected: &'a [String],
}

impl Request<'_> {
    /// The URI of this read, or why it is not written.
    pub fn uri(&self) -> Result<String, Refused> {
        self.check()?;
        let ar = self.api;
        let mut uri = if ar.group.is_empty() {
            format!("/api/{}", ar.version)
        } else {
            format!("/apis/{}/{}", ar.group, ar.version)
        };
        if let Some(ns) = self.namespace {
            uri.push_str(&format!("/namespaces/{ns}"));
        }
        uri.push('/');
        uri.push_str(&ar.plural);
        if let Some(n) = self.name {
            uri.push('/');
            uri.push_str(&encode(n));
        }
        if let Some(sub) = self.subresource {
            uri.push('/');
            uri.push_str(sub);
        }
        let query: Vec<String> = self
            .query
            .iter()
            .map(|(k, v)| format!("{k}={}", encode(v)))
            .collect();
        if !query.is_empty() {
            uri.push('?');
            uri.push_str(&query.join("&"));
        }
        Ok(uri)
    }

    /// Every part checked: the role first, so nothing outside it is even looked at.
    fn check(&self) -> Result<(), Refused> {
        let ar = self.api;
        let verb = if self.name.is_some() { "get" } else { "list" };
        let resource = match self.subresource {
            Some(sub) if self.name.is_some() => format!("{}/{sub}", ar.plural),
            Some(_) => {
                return Err(Refused::OutsideRole {
                    verb,
                    resource: format!("{} without a name", super::fetch::qualified(ar)),
                });
            }
            // A role entry of a subresource (`clusterqueues/pendingworkloads`) is reached through
            // `subresource` of a named object only: as a plural it would write another path.
            None if ar.plural.contains('/') => {
                return Err(Refused::OutsideRole {
                    verb,
                    resource: super::fetch::qualified(ar),
                });
            }
            None => ar.plural.clone(),
        };
        if !crate::plan::allows(&ar.group, &resource, verb) {
            return Err(Refused::OutsideRole {
                verb,
                resource: match self.subresource {
                    Some(sub) => format!("{}/{sub}", super::fetch::qualified(ar)),
                    None => super::fetch::qualified(ar),
                },
            });
        }
        dns_label(&ar.version).map_err(|_| Refused::Version {
            value: ar.version.clone(),
        })?;
        if let Some(ns) = self.namespace {
            namespace(ns)?;
        }
        if let Some(n) = self.name {
            name(n)?;
        }
        self.selected.iter().try_for_each(|v| selector_value(v))?;
        match self.query.iter().find(|(k, _)| !QUERY_KEYS.contains(k)) {
            Some((key, _)) => Err(Refused::Query {
                key: key.to_string(),
            }),
            None => Ok(()),
        }
    }
}

/// Percent-encoding of everything but RFC 3986's unreserved characters.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64*): the same cases on every run.
    struct Cases(u64);

    impl Cases {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        /// True once in `n` times.
        fn one_in(&mut self, n: u64) -> bool {
            self.next().is_multiple_of(n)
        }

        fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
            &from[(self.next() % from.len() as u64) as usize]
        }

        /// A plain word half the time, else up to five pieces, each plain or hostile.
        fn text(&mut self) -> String {
            if self.one_in(2) {
                return self.pick(&PIECES[..4]).to_string();
            }
            let n = self.next() % 6;
            (0..n).map(|_| *self.pick(PIECES)).collect()
        }

        fn maybe(&mut self) -> Option<String> {
            (!self.one_in(3)).then(|| self.text())
        }
    }

    /// What hostile namespaces and names are made of: what changes a path, a query or a
    /// selector, what a decoder may read twice, and plain words around them.
    const PIECES: &[&str] = &[
        "ml",
        "x",
        "trainer-0",
        "a.b",
        "-",
        ".",
        "..",
        "/",
        "?",
        "#",
        "%",
        "%2F",
        "%2e%2e",
        "&",
        "=",
        ",",
        "!",
        "\\",
        " ",
        "\n",
        "\0",
        "\u{7f}",
        "secrets",
        "watch=true",
        "/secrets?",
        "ML",
        "é",
        "\u{202e}",
        ":",
        "~",
        "+",
        ";",
        "@",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ];

    fn api(group: &str, version: &str, plural: &str) -> ApiResource {
        ApiResource {
            group: group.into(),
            version: version.into(),
            api_version: format!("{group}/{version}"),
            kind: "Kind".into(),
            plural: plural.into(),
        }
    }

    /// Resources as discovery may give them: the plan's, and ones a hostile answer could hold.
    fn apis() -> Vec<ApiResource> {
        let mut out: Vec<ApiResource> = crate::plan::wants()
            .map(|w| api(w.group, "v1", w.plural))
            .chain(crate::plan::special().map(|(g, p, _, _)| api(g, "v1beta2", p)))
            .collect();
        out.extend([
            api("", "v1", "secrets"),
            api("", "v1", "pods/../secrets"),
            api("", "v1", "serviceaccounts"),
            api("rbac.authorization.k8s.io", "v1", "clusterroles"),
            api("apps", "v1/../../api/v1/secrets", "deployments"),
            api("apps", "v1?watch=true", "deployments"),
            api("apps/../..", "v1", "deployments"),
            api("", "", "pods"),
        ]);
        out
    }

    /// Percent-decoding, once, as the API server decodes a path or a query value.
    fn decode(s: &str) -> String {
        let b = s.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'%' {
                let hex = std::str::from_utf8(&b[i + 1..i + 3]).expect("two hex digits");
                out.push(u8::from_str_radix(hex, 16).expect("two hex digits"));
                i += 3;
            } else {
                out.push(b[i]);
                i += 1;
            }
        }
        String::from_utf8(out).expect("UTF-8")
    }

    /// What a path asks for, read back as the API server reads it: (group, namespace,
    /// plural, name), each segment decoded once; no segment may move the path.
    type Asked = (String, Option<String>, String, Option<String>);

    fn read_back(path: &str) -> Asked {
        let segs: Vec<String> = path.split('/').skip(1).map(decode).collect();
        for s in &segs {
            assert!(
                !s.is_empty() && s != "." && s != ".." && !s.contains('/'),
                "a segment that moves the path: {s:?} in {path}"
            );
        }
        let (group, rest) = match segs[0].as_str() {
            "api" => (String::new(), &segs[2..]),
            "apis" => (segs[1].clone(), &segs[3..]),
            other => panic!("a path outside the API: {other} in {path}"),
        };
        let (namespace, plural, name) = match rest {
            [n, ns, plural] if n == "namespaces" => (Some(ns), plural, None),
            [n, ns, plural, name] if n == "namespaces" => (Some(ns), plural, Some(name)),
            [plural, name] => (None, plural, Some(name)),
            [plural] => (None, plural, None),
            _ => panic!("a path of no resource: {path}"),
        };
        (group, namespace.cloned(), plural.clone(), name.cloned())
    }

    /// Every key of a query is one the reader sends, every value is encoded (the query splits
    /// where it was written to), and a field selector holds only the terms it was given.
    fn check_query(query: &str, fixed: &str, selected: &[String]) {
        for pair in query.split('&') {
            let (k, v) = pair.split_once('=').expect("key=value");
            assert!(QUERY_KEYS.contains(&k), "{k} in {query}");
            assert!(!v.contains(['=', '&', '#', '?', '/']), "{v} not encoded");
            if k == "fieldSelector" && !selected.is_empty() {
                let terms = decode(v).split(',').count();
                assert_eq!(terms, fixed.split(',').count(), "{query}: a term was added");
            }
        }
    }

    /// Property over hostile strings: every URI the builder writes reads back, as the API
    /// server reads it, to the resource, namespace and name it was asked for, within the role
    /// `kubectl layer rbac` prints, with safe segments, known query keys and no added selector
    /// term; what it refuses, it says why.
    #[test]
    fn every_uri_written_is_the_read_asked_for_within_the_role() {
        let apis = apis();
        let mut cases = Cases(0x9E37_79B9_7F4A_7C15);
        let (mut written, mut refused) = (0, 0);
        for _ in 0..40_000 {
            let api = cases.pick(&apis).clone();
            let namespace = cases.maybe();
            let name = cases.maybe();
            let value = cases.text();
            let fixed = *cases.pick(&["", "involvedObject.kind=Node,"]);
            let selected = if cases.one_in(2) {
                vec![value.clone()]
            } else {
                Vec::new()
            };
            let mut query: Vec<(&'static str, String)> = Vec::new();
            if !selected.is_empty() {
                query.push((
                    "fieldSelector",
                    format!("{fixed}involvedObject.name={value}"),
                ));
            }
            for (key, one_in) in [
                ("labelSelector", 4),
                ("continue", 4),
                ("resourceVersion", 4),
                ("watch", 16),
            ] {
                if cases.one_in(one_in) {
                    query.push((key, cases.text()));
                }
            }
            let request = Request {
                api: &api,
                namespace: namespace.as_deref(),
                name: name.as_deref(),
                subresource: None,
                query: &query,
                selected: &selected,
            };
            let uri = match request.uri() {
                Ok(uri) => uri,
                Err(why) => {
                    assert!(!why.to_string().is_empty());
                    refused += 1;
                    continue;
                }
            };
            written += 1;
            let (path, q) = uri.split_once('?').unwrap_or((&uri, ""));
            assert!(!uri.contains('#'), "{uri}");
            let (group, ns, plural, got_name) = read_back(path);
            let verb = if got_name.is_some() { "get" } else { "list" };
            assert!(
                crate::plan::allows(&group, &plural, verb),
                "{verb} {plural}.{group} is outside the role: {uri}"
            );
            if let Some(ns) = &ns {
                assert!(dns_label(ns).is_ok(), "{ns:?}");
            }
            assert_eq!((ns, got_name), (namespace, name), "{uri}");
            assert_eq!((group, plural), (api.group.clone(), api.plural.clone()));
            if !q.is_empty() {
                check_query(q, fixed, &selected);
            }
        }
        // Both sides were reached often: the property is not vacuous.
        assert!(
            written > 4_000 && refused > 4_000,
            "{written} written, {refused} refused"
        );
    }

    #[test]
    fn what_would_change_the_read_is_refused_with_the_reason() {
        let pods = api("", "v1", "pods");
        let uri = |ns: Option<&str>, name: Option<&str>| {
            Request {
                api: &pods,
                namespace: ns,
                name,
                subresource: None,
                query: &[],
                selected: &[],
            }
            .uri()
        };
        for ns in [
            "x/secrets?",
            "x#",
            "..",
            "ML",
            "x?watch=true",
            "",
            "-x",
            "x%2Fsecrets",
        ] {
            let e = uri(Some(ns), None).expect_err(ns);
            assert!(e.to_string().contains("is not a namespace"), "{e}");
        }
        for name in ["..", ".", "a/b", "a%2Fb", "", "x\n"] {
            let e = uri(Some("ml"), Some(name)).expect_err(name);
            assert!(e.to_string().contains("is not the name"), "{e}");
        }
        // What a name may hold stays in it.
        assert_eq!(
            uri(Some("ml"), Some("a?b#c d")).unwrap(),
            "/api/v1/namespaces/ml/pods/a%3Fb%23c%20d"
        );
        let secrets = api("", "v1", "secrets");
        let e = Request {
            api: &secrets,
            namespace: Some("ml"),
            name: None,
            subresource: None,
            query: &[],
            selected: &[],
        }
        .uri()
        .expect_err("secrets");
        assert_eq!(
            e.to_string(),
            "list secrets is not in the role `kubectl layer rbac` prints"
        );
    }

    /// Kueue's `pendingworkloads` is asked of a named ClusterQueue only, with the paging keys,
    /// and no other subresource of it (nor of another resource) is written.
    #[test]
    fn the_visibility_subresource_is_the_one_in_the_role() {
        let cqs = api("visibility.kueue.x-k8s.io", "v1beta2", "clusterqueues");
        let query = [("limit", "500".to_string()), ("offset", "1000".to_string())];
        let uri = |name: Option<&str>, sub: &str| {
            Request {
                api: &cqs,
                namespace: None,
                name,
                subresource: Some(sub),
                query: &query,
                selected: &[],
            }
            .uri()
        };
        assert_eq!(
            uri(Some("cq-a"), "pendingworkloads").unwrap(),
            "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq-a/pendingworkloads?limit=500&offset=1000"
        );
        assert!(uri(Some("cq-a"), "status").is_err());
        assert!(uri(None, "pendingworkloads").is_err());
        let kueue = api("kueue.x-k8s.io", "v1beta2", "clusterqueues");
        let other = Request {
            api: &kueue,
            namespace: None,
            name: Some("cq-a"),
            subresource: Some("pendingworkloads"),
            query: &[],
            selected: &[],
        };
        assert!(other.uri().is_err());
    }
}
