//! The sentences facts write (a node's capacity, a driver's coverage, a container's exit), read
//! from `rules/facts.yaml` rather than spelt in Rust, so a second language is a second file.
//! Each text is a template like a rule's; [`say`] fills one, in the diagnosis's language.

use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::LazyLock;

static TEXTS: LazyLock<BTreeMap<String, String>> = LazyLock::new(|| {
    // The file is embedded at build time and a test parses it, so a broken file never ships;
    // an unreadable one would leave every text as its key rather than stop a diagnosis.
    serde_yaml_ng::from_str(crate::embedded::FACT_TEXTS).unwrap_or_default()
});

/// The text `key` with its placeholders filled from `vars` (values shown as a person reads
/// them; a list is joined like a rule's capture). An unknown key reads as itself.
pub fn say(key: &str, vars: &[(&str, Value)]) -> String {
    // The diagnosis's language (`lang::scoped`); a key its texts lack reads as the English.
    let own = match crate::lang::current() {
        crate::lang::Lang::Ko => crate::lang::pack().ok().and_then(|p| p.facts.get(key)),
        crate::lang::Lang::En => None,
    };
    let template = own.or_else(|| TEXTS.get(key)).map_or(key, String::as_str);
    let vars: BTreeMap<String, Vec<Value>> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), vec![v.clone()]))
        .collect();
    crate::template::render(template, &vars)
}

/// A text without placeholders.
pub fn word(key: &str) -> String {
    say(key, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key of `rules/facts.yaml` is said somewhere in the facts, and every key the facts
    /// say is in the file: a text can neither go stale nor be missing.
    #[test]
    fn every_text_is_used_and_every_use_has_a_text() {
        let file: BTreeMap<String, String> =
            serde_yaml_ng::from_str(crate::embedded::FACT_TEXTS).expect("rules/facts.yaml parses");
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/facts");
        let mut used = std::collections::BTreeSet::new();
        let mut dirs = vec![dir];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).expect("readable").flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                    continue;
                }
                // This file's own tests say made-up keys.
                if p.ends_with("texts.rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&p).expect("readable");
                for call in ["say(", "word("] {
                    for (i, _) in text.match_indices(call) {
                        let rest = text[i + call.len()..].trim_start();
                        if let Some(quoted) = rest.strip_prefix('"')
                            && let Some(end) = quoted.find('"')
                        {
                            used.insert(quoted[..end].to_string());
                        }
                    }
                }
            }
        }
        let keys: std::collections::BTreeSet<String> = file.keys().cloned().collect();
        assert_eq!(
            used, keys,
            "texts said in core/src/facts against rules/facts.yaml"
        );
    }

    #[test]
    fn fills_placeholders_and_counts() {
        assert_eq!(say("taintNodes", &[("count", Value::from("1"))]), "1 node");
        assert_eq!(say("taintNodes", &[("count", Value::from("3"))]), "3 nodes");
        assert_eq!(say("no-such-text", &[]), "no-such-text");
    }
}
