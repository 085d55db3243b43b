//! Label and field selectors, as the API server applies them to LIST requests.
//!
//! Label selectors follow `k8s.io/apimachinery/pkg/labels`: `k=v`, `k==v`, `k!=v`,
//! `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, `k>1`, `k<1`, joined by commas; `!=` and `notin`
//! also match objects without the label, as upstream. Field selectors compare a dotted path's
//! value as a string with `=`, `==` or `!=`; a missing field reads as the empty string, so
//! `spec.nodeName=` finds unscheduled pods as on a real cluster. Unlike the real server, any
//! path is accepted, not only the fields each resource registers.

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Requirement {
    Eq(String, String),
    NotEq(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    NotExists(String),
    Gt(String, i64),
    Lt(String, i64),
}

/// A parsed `labelSelector`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LabelSelector(Vec<Requirement>);

/// Splits on commas that are not inside parentheses (`a in (x,y),b` is two terms).
fn split_top_level(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

fn check_key(key: &str, term: &str) -> Result<String, String> {
    let key = key.trim();
    if key.is_empty() || key.contains(char::is_whitespace) || key.contains(['=', '!', '(', ')']) {
        return Err(format!(
            "unable to parse requirement: invalid label key in {term:?}"
        ));
    }
    Ok(key.to_owned())
}

impl LabelSelector {
    pub fn parse(s: &str) -> Result<LabelSelector, String> {
        if s.trim().is_empty() {
            return Ok(LabelSelector::default());
        }
        let mut reqs = Vec::new();
        for raw in split_top_level(s) {
            let term = raw.trim();
            if term.is_empty() {
                return Err(format!("found '', expected: identifier in selector {s:?}"));
            }
            reqs.push(Self::parse_term(term)?);
        }
        Ok(LabelSelector(reqs))
    }

    fn parse_term(term: &str) -> Result<Requirement, String> {
        if let Some(open) = term.find('(') {
            let Some(inner) = term[open + 1..].strip_suffix(')') else {
                return Err(format!(
                    "unable to parse requirement: missing ')' in {term:?}"
                ));
            };
            let head: Vec<&str> = term[..open].split_whitespace().collect();
            let [key, op] = head.as_slice() else {
                return Err(format!("unable to parse requirement: {term:?}"));
            };
            let values: Vec<String> = inner
                .split(',')
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
                .collect();
            let key = check_key(key, term)?;
            return match *op {
                "in" => Ok(Requirement::In(key, values)),
                "notin" => Ok(Requirement::NotIn(key, values)),
                other => Err(format!(
                    "unable to parse requirement: unknown operator {other:?}"
                )),
            };
        }
        if let Some(key) = term.strip_prefix('!') {
            return Ok(Requirement::NotExists(check_key(key, term)?));
        }
        if let Some((k, v)) = term.split_once("!=") {
            return Ok(Requirement::NotEq(check_key(k, term)?, v.trim().to_owned()));
        }
        if let Some((k, v)) = term.split_once("==") {
            return Ok(Requirement::Eq(check_key(k, term)?, v.trim().to_owned()));
        }
        if let Some((k, v)) = term.split_once('=') {
            return Ok(Requirement::Eq(check_key(k, term)?, v.trim().to_owned()));
        }
        for (op, gt) in [('>', true), ('<', false)] {
            if let Some((k, v)) = term.split_once(op) {
                let n: i64 = v.trim().parse().map_err(|_| {
                    format!("unable to parse requirement: {v:?} is not an integer in {term:?}")
                })?;
                let key = check_key(k, term)?;
                return Ok(if gt {
                    Requirement::Gt(key, n)
                } else {
                    Requirement::Lt(key, n)
                });
            }
        }
        Ok(Requirement::Exists(check_key(term, term)?))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether an object with these `metadata.labels` is selected.
    pub fn matches(&self, labels: Option<&Map<String, Value>>) -> bool {
        let get = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
        self.0.iter().all(|r| match r {
            Requirement::Eq(k, v) => get(k) == Some(v.as_str()),
            Requirement::NotEq(k, v) => get(k) != Some(v.as_str()),
            Requirement::In(k, vs) => get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            Requirement::NotIn(k, vs) => !get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            Requirement::Exists(k) => get(k).is_some(),
            Requirement::NotExists(k) => get(k).is_none(),
            Requirement::Gt(k, n) => get(k)
                .and_then(|x| x.parse::<i64>().ok())
                .is_some_and(|x| x > *n),
            Requirement::Lt(k, n) => get(k)
                .and_then(|x| x.parse::<i64>().ok())
                .is_some_and(|x| x < *n),
        })
    }
}

/// A parsed `fieldSelector`: (dotted path, wants equal, value).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FieldSelector(Vec<(String, bool, String)>);

/// Splits on commas not escaped with a backslash, then undoes `\,` `\=` `\\` in values,
/// as `k8s.io/apimachinery/pkg/fields` does.
fn split_escaped(s: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            ',' => parts.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    parts.push(cur);
    parts
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Finds the first unescaped occurrence of `op` in `term`.
fn find_unescaped(term: &str, op: &str) -> Option<usize> {
    let bytes = term.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        if term[i..].starts_with(op) {
            return Some(i);
        }
        i += 1;
    }
    None
}

impl FieldSelector {
    pub fn parse(s: &str) -> Result<FieldSelector, String> {
        if s.trim().is_empty() {
            return Ok(FieldSelector::default());
        }
        let mut reqs = Vec::new();
        for term in split_escaped(s) {
            let term = term.trim();
            let parsed = [("!=", false), ("==", true), ("=", true)]
                .into_iter()
                .find_map(|(op, eq)| {
                    find_unescaped(term, op).map(|i| (&term[..i], eq, &term[i + op.len()..]))
                });
            let Some((path, eq, value)) = parsed else {
                return Err(format!(
                    "invalid selector: '{s}'; can't understand '{term}'"
                ));
            };
            let path = path.trim();
            if path.is_empty() {
                return Err(format!("invalid selector: '{s}'; empty field in '{term}'"));
            }
            reqs.push((path.to_owned(), eq, unescape(value.trim())));
        }
        Ok(FieldSelector(reqs))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn matches(&self, obj: &Value) -> bool {
        // An events.k8s.io Event listed as a core one: its involvedObject is `regarding`.
        let event_shape = obj.get("regarding").is_some() && obj.get("involvedObject").is_none();
        self.0.iter().all(|(path, eq, want)| {
            let path = match path.strip_prefix("involvedObject.") {
                Some(rest) if event_shape => format!("regarding.{rest}"),
                _ => path.clone(),
            };
            (field_value(obj, &path) == *want) == *eq
        })
    }
}

/// A dotted path's value as the API server's field sets hold it: strings as they are,
/// numbers and booleans printed, anything missing as "".
fn field_value(obj: &Value, path: &str) -> String {
    let mut cur = obj;
    for part in path.split('.') {
        match cur.get(part) {
            Some(v) => cur = v,
            None => return String::new(),
        }
    }
    match cur {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn label_operators() {
        let l = labels(json!({"app": "train", "tier": "gpu", "n": "3"}));
        let yes = [
            "app=train",
            "app==train",
            "app!=serve",
            "missing!=x",
            "app in (serve, train)",
            "app notin (serve)",
            "missing notin (x)",
            "app",
            "!missing",
            "n>2",
            "n<4",
            "app=train,tier=gpu",
            "tier in (gpu),app",
        ];
        for s in yes {
            assert!(LabelSelector::parse(s).unwrap().matches(Some(&l)), "{s}");
        }
        let no = [
            "app=serve",
            "app!=train",
            "app in (serve)",
            "missing in (x)",
            "!app",
            "missing",
            "n>3",
            "app=train,tier=cpu",
        ];
        for s in no {
            assert!(!LabelSelector::parse(s).unwrap().matches(Some(&l)), "{s}");
        }
        assert!(LabelSelector::parse("").unwrap().matches(None));
        assert!(LabelSelector::parse("a in (x").is_err());
        assert!(LabelSelector::parse("a,,b").is_err());
    }

    #[test]
    fn field_operators() {
        let pod = json!({
            "metadata": {"name": "p", "namespace": "ml"},
            "spec": {},
            "status": {"phase": "Pending"},
        });
        for s in [
            "metadata.name=p",
            "metadata.name==p",
            "status.phase!=Running",
            "spec.nodeName=",
            "metadata.namespace=ml,status.phase=Pending",
        ] {
            assert!(FieldSelector::parse(s).unwrap().matches(&pod), "{s}");
        }
        for s in ["metadata.name=q", "spec.nodeName!=", "status.phase=Running"] {
            assert!(!FieldSelector::parse(s).unwrap().matches(&pod), "{s}");
        }
        let odd = json!({"metadata": {"name": "a,b=c"}});
        assert!(
            FieldSelector::parse(r"metadata.name=a\,b\=c")
                .unwrap()
                .matches(&odd)
        );
        assert!(FieldSelector::parse("nonsense").is_err());
    }
}
