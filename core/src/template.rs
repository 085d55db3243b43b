//! Message templates: `{name}` is replaced by what the rule's conditions captured (or a built-in
//! such as `{target}`). Placeholders are checked when rules load, so rendering never fails.

use serde_json::Value;
use std::collections::BTreeMap;

/// The placeholders in a template, in order.
pub fn placeholders(t: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = t;
    while let Some(i) = rest.find('{') {
        let after = &rest[i + 1..];
        match after.find('}') {
            Some(j) if is_name(&after[..j]) => {
                out.push(&after[..j]);
                rest = &after[j + 1..];
            }
            _ => rest = after,
        }
    }
    out
}

/// kubectl's own template keywords (`{range …}{.name}{end}`), left as they are in commands.
const KUBECTL_KEYWORDS: &[&str] = &["end", "else"];

fn is_name(s: &str) -> bool {
    if KUBECTL_KEYWORDS.contains(&s) {
        return false;
    }
    // Starts with a letter, so kubectl's own `{.status…}` templates in commands pass through.
    s.as_bytes().first().is_some_and(u8::is_ascii_alphabetic)
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
}

/// Fill a template. Values of a capture are joined with ", "; unknown names are left as they are.
pub fn render(t: &str, vars: &BTreeMap<String, Vec<Value>>) -> String {
    render_joined(t, vars, ", ")
}

/// Fill a shell command: several values of a capture become several arguments.
pub fn render_command(t: &str, vars: &BTreeMap<String, Vec<Value>>) -> String {
    render_joined(t, vars, " ")
}

fn render_joined(t: &str, vars: &BTreeMap<String, Vec<Value>>, sep: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find('}') {
            Some(j) if is_name(&after[..j]) => {
                match vars.get(&after[..j]) {
                    Some(vals) => out.push_str(&join_with(vals, sep)),
                    None => out.push_str(&rest[i..i + j + 2]),
                }
                rest = &after[j + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Distinct values, in first-seen order, joined for reading.
pub fn join(vals: &[Value]) -> String {
    join_with(vals, ", ")
}

fn join_with(vals: &[Value], sep: &str) -> String {
    let mut seen: Vec<String> = Vec::new();
    for v in vals {
        let s = display(v);
        if !seen.contains(&s) {
            seen.push(s);
        }
    }
    seen.join(sep)
}

/// A JSON value as a person reads it: strings bare, whole numbers without a fraction.
pub fn display(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n
            .as_f64()
            .map_or_else(|| n.to_string(), crate::quantity::format),
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fills_captures_and_keeps_braces() {
        let mut vars = BTreeMap::new();
        vars.insert("n".to_string(), vec![json!(4.0), json!(4), json!("x")]);
        assert_eq!(
            render("need {n} {missing} {not a name}", &vars),
            "need 4, x {missing} {not a name}"
        );
        assert_eq!(
            placeholders("a {b} {c.d} {e f} {.status.x}"),
            vec!["b", "c.d"]
        );
    }
}
