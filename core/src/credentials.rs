//! Credentials a URL carries in its user information (`nats://user:password@host`,
//! `https://TOKEN@github.com`), taken out of any text before it is shown. A bundle quotes such
//! URLs wherever a configuration holds one (an environment variable quoted in a finding, an
//! event's message) and a kubeconfig may name its API server with one; no door of the tool
//! (text, JSON, Markdown, Prometheus, MCP, WASM, a written bundle, an error line) prints them.
//!
//! The one helper every door uses: [`without_userinfo`] for a string, [`in_value`] for every
//! string of a JSON value. `Diagnosis::without_credentials` applies it to a whole diagnosis as
//! the engine finishes it, and `escape::for_terminal` to every line written on a terminal.

use serde_json::Value;
use std::borrow::Cow;

/// Whether `s` may hold a URL with user information: the cheap test that lets nearly every
/// string through without a copy.
fn may_hold(s: &str) -> bool {
    memchr::memchr(b'@', s.as_bytes()).is_some()
        && memchr::memmem::find(s.as_bytes(), b"://").is_some()
}

/// A character that ends a URL's authority (RFC 3986: `/`, `?`, `#`), or ends the URL itself
/// where text quotes it (a space, a quote, a bracket of prose).
fn ends_authority(c: char) -> bool {
    matches!(
        c,
        '/' | '?' | '#' | '"' | '\'' | '<' | '>' | '`' | '\\' | '(' | ')' | '{' | '}' | '|'
    ) || c.is_whitespace()
        || c.is_control()
}

/// Whether what follows the `@` is a host as a URL names one: `host`, `host:port` with a port
/// of digits, or `[v6]:port`. `docker-pullable://nginx@sha256:4c0f…` (an image id, no user)
/// is not one, and is left whole.
fn is_host(h: &str) -> bool {
    // Prose goes on after a URL: `nats://u:p@n:4222, then …`.
    let h = h.trim_end_matches([',', ';', '.', ':']);
    let after_bracket = match h.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((_, after)) => after,
            None => return false,
        },
        None => h,
    };
    match after_bracket.rsplit_once(':') {
        Some((_, port)) => port.bytes().all(|b| b.is_ascii_digit()),
        None => true,
    }
}

/// `s` with the user information of every URL in it left out: `redis://:pw@cache:6379/0`
/// becomes `redis://cache:6379/0`, each URL in a longer text alike. The authority ends where
/// RFC 3986 ends it, so a password holding a raw `/` (no valid URL does) is cut there.
pub fn without_userinfo(s: &str) -> Cow<'_, str> {
    if !may_hold(s) {
        return Cow::Borrowed(s);
    }
    let mut out = String::new();
    let mut copied = 0;
    let mut from = 0;
    while let Some(i) = memchr::memmem::find(&s.as_bytes()[from..], b"://") {
        let start = from + i + 3;
        let end = s[start..]
            .find(ends_authority)
            .map_or(s.len(), |j| start + j);
        from = start;
        let Some(at) = s[start..end].rfind('@') else {
            continue;
        };
        if !is_host(&s[start + at + 1..end]) {
            continue;
        }
        out.push_str(&s[copied..start]);
        copied = start + at + 1;
        from = copied;
    }
    if copied == 0 {
        return Cow::Borrowed(s);
    }
    out.push_str(&s[copied..]);
    Cow::Owned(out)
}

/// [`without_userinfo`] on a string in place.
pub fn in_string(s: &mut String) {
    if let Cow::Owned(clean) = without_userinfo(s) {
        *s = clean;
    }
}

/// [`without_userinfo`] on every string of a JSON value, keys included (a map of environment
/// variables can name its URL in the key as well as in the value).
pub fn in_value(v: &mut Value) {
    match v {
        Value::String(s) => in_string(s),
        Value::Array(items) => items.iter_mut().for_each(in_value),
        Value::Object(m) => {
            if m.keys().any(|k| may_hold(k)) {
                let old = std::mem::take(m);
                *m = old
                    .into_iter()
                    .map(|(k, v)| (without_userinfo(&k).into_owned(), v))
                    .collect();
            }
            m.values_mut().for_each(in_value);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::without_userinfo;

    #[test]
    fn user_information_goes_and_the_rest_stays() {
        for (given, shown) in [
            ("nats://user:pw@nats.dynamo:4222", "nats://nats.dynamo:4222"),
            ("redis://:pw@cache:6379/0", "redis://cache:6379/0"),
            (
                "https://TOKEN@github.com/org/repo",
                "https://github.com/org/repo",
            ),
            (
                "postgres://u:p%40ss@db/x?sslmode=require",
                "postgres://db/x?sslmode=require",
            ),
            ("amqp://u:p@ss@[::1]:5672", "amqp://[::1]:5672"),
            (
                "NATS_SERVER=nats://a:b@n:4222, REDIS=redis://c:d@r. Done",
                "NATS_SERVER=nats://n:4222, REDIS=redis://r. Done",
            ),
            ("'http://u:p@h'", "'http://h'"),
            ("https://u:p@", "https://"),
        ] {
            assert_eq!(without_userinfo(given), shown, "{given}");
        }
    }

    #[test]
    fn text_without_a_url_user_is_left_whole() {
        for s in [
            "docker-pullable://nginx@sha256:4c0fdaa8b6341bfdeca5f18f7837462c80cff90527ee35ef185571e1c327beac",
            "git+https://github.com/org/repo@main",
            "admin@example.com wrote http://host/a",
            "https://host/users/@alice",
            "no url here",
            "http://",
        ] {
            assert!(
                matches!(without_userinfo(s), std::borrow::Cow::Borrowed(_)),
                "{s}"
            );
        }
    }

    #[test]
    fn keys_and_nested_values_are_cleaned() {
        let mut v = serde_json::json!({"a": ["x nats://u:SECRET@n:1 y"], "nats://k:SECRET@h": 1});
        super::in_value(&mut v);
        assert!(!v.to_string().contains("SECRET"), "{v}");
        assert_eq!(v["a"][0], "x nats://n:1 y");
    }
}
