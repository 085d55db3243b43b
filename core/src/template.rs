//! Message templates: `{name}` is replaced by what the rule's conditions captured (or a built-in
//! such as `{target}`), and `{name:node is|nodes are}` by the first word(s) when the capture holds
//! one value (the number 1, or one name) and by the second otherwise, so no message says
//! "1 node(s)". Placeholders are checked when rules load, so rendering never fails.

use serde_json::Value;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::hash::BuildHasherDefault;

/// The placeholders in a template, in order (the capture names, also of `{name:one|many}`).
pub fn placeholders(t: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = t;
    while let Some(i) = rest.find('{') {
        let after = &rest[i + 1..];
        match after
            .find('}')
            .and_then(|j| parse(&after[..j]).map(|p| (j, p)))
        {
            Some((j, p)) => {
                out.push(p.name);
                rest = &after[j + 1..];
            }
            None => rest = after,
        }
    }
    out
}

/// One placeholder: a capture's name, and the words to choose between by its number.
struct Placeholder<'a> {
    name: &'a str,
    number: Option<(&'a str, &'a str)>,
}

fn parse(body: &str) -> Option<Placeholder<'_>> {
    let (name, number) = match body.split_once(':') {
        Some((name, words)) => (name, Some(words.split_once('|')?)),
        None => (body, None),
    };
    is_name(name).then_some(Placeholder { name, number })
}

/// Whether values read as one thing: one distinct value that is not a number other than 1.
fn is_one(vals: Values) -> bool {
    if let Values::Lent(list, shared, within) = vals {
        return shared.remember("template.isOne", within, || is_one(Values::Owned(list)));
    }
    let mut all = vals.iter();
    let Some(first) = all.next() else {
        return false;
    };
    let shown = shown(first);
    if !all.all(|v| self::shown(v) == shown) {
        return false;
    }
    match first {
        Value::Number(n) => n.as_f64() == Some(1.0),
        Value::String(s) => s.parse::<f64>().map_or(true, |n| n == 1.0),
        _ => true,
    }
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

/// Where a template's names are looked up. A pair looks in its first scope, then its second:
/// a rule's captures in front of the diagnosis's built-ins, without copying the built-ins
/// (which hold the target's name, however long) into every rule that matched.
pub trait Vars {
    fn values(&self, name: &str) -> Option<Values<'_>>;
}

/// The values of one name.
#[derive(Clone, Copy)]
pub enum Values<'a> {
    Owned(&'a [Value]),
    /// What a rule's path found in the view.
    Found(&'a [&'a Value]),
    /// Every element of a list the view holds on loan ([`crate::lend`]): what a template
    /// makes of it is worked out once per list, not once per view.
    /// `within`: the list's member name when what is on loan is the object holding it.
    Lent(&'a [Value], &'a crate::lend::Shared, &'a str),
}

impl<'a> Values<'a> {
    pub fn iter(self) -> impl Iterator<Item = &'a Value> {
        let (owned, found): (&[Value], &[&Value]) = match self {
            Values::Owned(v) | Values::Lent(v, ..) => (v, &[]),
            Values::Found(v) => (&[], v),
        };
        owned.iter().chain(found.iter().copied())
    }
}

impl Vars for BTreeMap<String, Vec<Value>> {
    fn values(&self, name: &str) -> Option<Values<'_>> {
        self.get(name).map(|v| Values::Owned(v))
    }
}

impl<A: Vars + ?Sized, B: Vars + ?Sized> Vars for (&A, &B) {
    fn values(&self, name: &str) -> Option<Values<'_>> {
        self.0.values(name).or_else(|| self.1.values(name))
    }
}

/// Fill a template. Values of a capture are joined with ", "; unknown names are left as they are.
pub fn render(t: &str, vars: &(impl Vars + ?Sized)) -> String {
    render_joined(t, vars, Joining::Sentence)
}

/// Fill a shell command: several values of a capture become several arguments, each a single
/// shell word ([`shell_quote`]).
pub fn render_command(t: &str, vars: &(impl Vars + ?Sized)) -> String {
    render_joined(t, vars, Joining::Command)
}

/// [`render_command`], or nothing when a value it would pass starts with `-`: quoting stops a
/// shell, not kubectl, which would read `-n`, `--kubeconfig=…` or `-oyaml` from a bundle as its
/// own flags. No Kubernetes name starts with `-`, so such a value is a hostile or broken
/// bundle's, and the command is left out rather than run on it; so is one too long to quote
/// whole ([`QUOTED_BYTES`]), as a cut name would name another object.
pub fn command_if_safe(t: &str, vars: &(impl Vars + ?Sized)) -> Option<String> {
    // The one flag the facts themselves put in an argument list (`describe`: `kind/name -n ns`).
    const OWN_FLAGS: &[&str] = &["-n"];
    let flag_like_in = |vals: Values| {
        vals.iter().any(|v| {
            let v = shown(v);
            (v.starts_with('-') && !OWN_FLAGS.contains(&&*v)) || v.len() > QUOTED_BYTES
        })
    };
    let flag_like = placeholders(t).into_iter().any(|p| match vars.values(p) {
        Some(Values::Lent(list, shared, within)) => {
            shared.remember("template.flagLike", within, || {
                flag_like_in(Values::Owned(list))
            })
        }
        Some(vals) => flag_like_in(vals),
        None => false,
    });
    (!flag_like).then(|| render_command(t, vars))
}

/// How a list of values is written: read in a sentence (", ", the rest counted) or passed as
/// arguments of a command (" ", the rest left out: a command keeps only what it can run on).
#[derive(Clone, Copy)]
enum Joining {
    Sentence,
    Command,
}

fn render_joined(t: &str, vars: &(impl Vars + ?Sized), joining: Joining) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after
            .find('}')
            .and_then(|j| parse(&after[..j]).map(|p| (j, p)))
        {
            Some((j, p)) => {
                match (vars.values(p.name), p.number) {
                    (Some(vals), None) => out.push_str(&join_with(vals, joining)),
                    (Some(vals), Some((one, many))) => {
                        out.push_str(if is_one(vals) { one } else { many });
                    }
                    (None, _) => out.push_str(&rest[i..i + j + 2]),
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

/// Distinct values a message or command names before it stops: a capture can hold every node
/// of a large cluster (5,000 tainted GPU nodes, say), and a sentence or a command line naming
/// them all helps no one.
pub const SHOWN_VALUES: usize = 10;

/// Distinct values, in first-seen order, joined for reading; past [`SHOWN_VALUES`], the rest
/// are counted ("…, and 4990 more").
pub fn join(vals: &[Value]) -> String {
    join_with(Values::Owned(vals), Joining::Sentence)
}

/// [`join`] for names already text (node names in a fact's sentence, say).
pub fn join_names<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    join_display(names.into_iter().map(Cow::Borrowed), Joining::Sentence)
}

fn join_with(vals: Values, joining: Joining) -> String {
    if let Values::Lent(list, shared, within) = vals {
        let name = match joining {
            Joining::Sentence => "template.sentence",
            Joining::Command => "template.command",
        };
        return shared.remember(name, within, || join_with(Values::Owned(list), joining));
    }
    join_display(vals.iter().map(shown), joining)
}

/// [`display`], without copying a string.
fn shown(v: &Value) -> Cow<'_, str> {
    match v {
        Value::String(s) => Cow::Borrowed(s.as_str()),
        other => Cow::Owned(display(other)),
    }
}

fn join_display<'a>(vals: impl Iterator<Item = Cow<'a, str>>, joining: Joining) -> String {
    let mut seen: HashSet<Cow<'a, str>, BuildHasherDefault<crate::fnv::Fnv>> = HashSet::default();
    let mut shown: Vec<Cow<'a, str>> = Vec::new();
    let mut more = 0usize;
    for s in vals {
        if !seen.insert(s.clone()) {
            continue;
        }
        if shown.len() < SHOWN_VALUES {
            shown.push(s);
        } else if let Joining::Command = joining {
            // A command passes what it shows and counts nothing.
            break;
        } else {
            more += 1;
        }
    }
    if let Joining::Sentence = joining {
        for s in shown.iter_mut() {
            if let Some(cut) = cut_for_reading(s) {
                *s = Cow::Owned(cut);
            }
        }
    }
    match joining {
        Joining::Sentence if more > 0 => format!("{}, and {more} more", shown.join(", ")),
        Joining::Sentence => shown.join(", "),
        Joining::Command => shown
            .iter()
            .map(|v| shell_quote(v))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// The most of one value a sentence quotes. Kubernetes keeps its own messages shorter (the
/// kubelet cuts a termination message at 4,096 bytes, names stop at 253), so only a value no
/// cluster writes is cut; whole, a 40 MB name would be copied into every sentence naming it.
pub const QUOTED_BYTES: usize = 4096;

/// A value past [`QUOTED_BYTES`], cut on a character boundary and saying how much is left out.
fn cut_for_reading(s: &str) -> Option<String> {
    if s.len() <= QUOTED_BYTES {
        return None;
    }
    let end = (0..=QUOTED_BYTES)
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0);
    Some(format!("{}… ({} more bytes)", &s[..end], s.len() - end))
}

/// A value as one shell word: as it is when it holds only characters no shell treats
/// specially (every valid Kubernetes name does), else in single quotes. A bundle is any text:
/// a namespace `d;id` or a pod `p$(id)` must reach kubectl as a name, not run as a command.
pub fn shell_quote(v: &str) -> Cow<'_, str> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "._/:=@%+,-".contains(c);
    if !v.is_empty() && v.chars().all(plain) {
        Cow::Borrowed(v)
    } else {
        Cow::Owned(format!("'{}'", v.replace('\'', "'\\''")))
    }
}

/// A count and its noun, for the sentences facts write: "1 node", "3 nodes".
pub fn counted(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
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

    /// One name whose values are on loan, or the same values held.
    struct Loaned<'a>(&'a [Value], Option<&'a crate::lend::Shared>);

    impl Vars for Loaned<'_> {
        fn values(&self, name: &str) -> Option<Values<'_>> {
            (name == "nodes").then_some(match self.1 {
                Some(shared) => Values::Lent(self.0, shared, ""),
                None => Values::Owned(self.0),
            })
        }
    }

    #[test]
    fn a_list_on_loan_reads_as_the_same_values_held_and_is_worked_out_once() {
        let templates = [
            "{nodes} {nodes:is|are} off",
            "kubectl describe node {nodes}",
        ];
        let lists = [
            json!(["gpu-1"]),
            json!(["gpu-1", "gpu-1"]),
            json!([1]),
            json!(["2"]),
            (0..25)
                .chain(0..5)
                .map(|i| json!(format!("gpu-{i:02}")))
                .collect::<Value>(),
            json!(["gpu-1", "-n", "gpu-2"]),
        ];
        for list in lists {
            let shared = crate::lend::Shared::new(list.clone());
            let lent = shared.lend();
            let (lent, held) = (lent.as_array().unwrap(), list.as_array().unwrap());
            for t in templates {
                let want = (
                    render(t, &Loaned(held, None)),
                    command_if_safe(t, &Loaned(held, None)),
                );
                // Twice: the second reading is the remembered one.
                for _ in 0..2 {
                    let got = (
                        render(t, &Loaned(lent, Some(&shared))),
                        command_if_safe(t, &Loaned(lent, Some(&shared))),
                    );
                    assert_eq!(got, want, "{t} over {list}");
                }
            }
        }
    }

    #[test]
    fn long_lists_are_cut_and_counted_in_sentences_and_cut_in_commands() {
        let nodes: Vec<Value> = (0..25)
            .chain(0..25)
            .map(|i| json!(format!("gpu-{i:02}")))
            .collect();
        let mut vars = BTreeMap::new();
        vars.insert("nodes".to_string(), nodes);
        let text = render("off {nodes}", &vars);
        assert!(text.starts_with("off gpu-00, gpu-01, "), "{text}");
        assert!(text.ends_with("gpu-09, and 15 more"), "{text}");
        assert_eq!(
            render_command("kubectl describe node {nodes}", &vars),
            format!(
                "kubectl describe node {}",
                (0..10)
                    .map(|i| format!("gpu-{i:02}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        );
        // At the limit nothing is left out, so nothing is counted.
        vars.insert(
            "nodes".to_string(),
            (0..SHOWN_VALUES).map(|i| json!(i)).collect(),
        );
        assert_eq!(render("{nodes}", &vars), "0, 1, 2, 3, 4, 5, 6, 7, 8, 9");
    }

    #[test]
    fn commands_quote_what_a_shell_would_run() {
        let mut vars = BTreeMap::new();
        vars.insert("namespace".to_string(), vec![json!("d;id")]);
        vars.insert("pod".to_string(), vec![json!("p$(id);x")]);
        vars.insert("node".to_string(), vec![json!("gpu-1.example.com")]);
        vars.insert("quote".to_string(), vec![json!("it's")]);
        assert_eq!(
            render_command(
                "kubectl -n {namespace} describe pod {pod} {node} {quote}",
                &vars
            ),
            "kubectl -n 'd;id' describe pod 'p$(id);x' gpu-1.example.com 'it'\\''s'"
        );
        // Sentences are not commands: they keep the text as it is.
        assert_eq!(render("pod {pod}", &vars), "pod p$(id);x");
        // A value kubectl would take for its own flag: the command is not offered at all.
        vars.insert("pod".to_string(), vec![json!("--kubeconfig=/tmp/evil")]);
        assert_eq!(command_if_safe("kubectl describe pod {pod}", &vars), None);
        // The facts' own `-n` in an argument list is the tool's flag, not the bundle's.
        vars.insert(
            "describe".to_string(),
            vec![json!("job/j"), json!("-n"), json!("ml")],
        );
        assert_eq!(
            command_if_safe("kubectl describe {describe}", &vars).as_deref(),
            Some("kubectl describe job/j -n ml")
        );
        vars.insert(
            "describe".to_string(),
            vec![json!("job/j"), json!("-n"), json!("--all")],
        );
        assert_eq!(command_if_safe("kubectl describe {describe}", &vars), None);
        assert_eq!(
            command_if_safe("kubectl -n {namespace} get pods", &vars).as_deref(),
            Some("kubectl -n 'd;id' get pods")
        );
    }

    #[test]
    fn words_follow_the_number_of_what_was_captured() {
        let t = "{n} {n:node is|nodes are} cordoned";
        let mut vars = BTreeMap::new();
        for (vals, want) in [
            (vec![json!(1)], "1 node is cordoned"),
            (vec![json!(1.0), json!(1)], "1 node is cordoned"),
            (vec![json!("1")], "1 node is cordoned"),
            (vec![json!(3)], "3 nodes are cordoned"),
            (vec![json!(0)], "0 nodes are cordoned"),
            (vec![json!("gpu-1")], "gpu-1 node is cordoned"),
            (
                vec![json!("gpu-1"), json!("gpu-2")],
                "gpu-1, gpu-2 nodes are cordoned",
            ),
        ] {
            vars.insert("n".to_string(), vals);
            assert_eq!(render(t, &vars), want);
        }
        assert_eq!(placeholders(t), vec!["n", "n"]);
        // Without a `|` it is not a choice, so not a placeholder.
        assert!(placeholders("{n:node}").is_empty());
    }

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
