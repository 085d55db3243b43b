//! Rule paths with wildcards and simple filters, walked directly instead of through
//! jsonpath-rust's general engine.
//!
//! Why: on a cluster with a backlog every pending Job is diagnosed, and a fifth of each
//! diagnosis went to the general engine, most of it formatting a normalized path string at every
//! step for every candidate (`$['events'][12]`) that the filter then threw away. Here a path is
//! a list of segments walked depth-first, which yields the hits in the general engine's order,
//! and a hit's path is written only when the rule keeps it as evidence.
//!
//! What compiles: member names, indexes, `[*]`, and filters built from `&&`, `||`, `!`,
//! comparisons between a member path of `@` and a literal, existence tests of a member path of
//! `@`, and `search`/`match` of a member path of `@` against a literal pattern (compiled once,
//! where the general engine compiles it for every candidate). Anything else (slices,
//! descendants, other functions, `$` inside a filter) stays with the general engine.
//! Comparisons follow that engine exactly: numbers are equal within `f64::EPSILON`, a missing
//! member equals nothing but another missing member (so `@.state != 'Ready'` holds where there
//! is no `state`), and `<` orders two numbers or two strings and is false for anything else. `tests/view_paths.rs` holds the two engines to the
//! same hits, paths and values on every rule path over every case's view.

use jsonpath_rust::parser::model::{
    Comparable, Comparison, Filter, FilterAtom, FnArg, JpQuery, Literal, Segment, Selector,
    SingularQuery, SingularQuerySegment, Test, TestFunction,
};
use serde_json::Value;

/// A compiled path: see the module docs for what it covers.
#[derive(Debug, Clone)]
pub struct Walk {
    segments: Vec<Seg>,
}

#[derive(Debug, Clone)]
enum Seg {
    Name(String),
    /// Negative from the end.
    Index(i64),
    Wildcard,
    Filter(Pred),
}

/// A filter's condition on one candidate (`@`).
#[derive(Debug, Clone)]
enum Pred {
    Or(Vec<Pred>),
    And(Vec<Pred>),
    Not(Box<Pred>),
    /// `@.a.b` names something (any value, null included).
    Exists(Vec<String>),
    /// `search(@.a, 're')` (anywhere) or `match(@.a, 're')` (whole): the member is a string
    /// and the pattern finds it. A pattern that does not compile finds nothing, as there.
    Regex(Vec<String>, Option<crate::pattern::Pattern>),
    Compare(CmpOp, Operand, Operand),
}

#[derive(Debug, Clone, Copy)]
enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone)]
enum Operand {
    Literal(Value),
    /// Member names under `@`.
    Current(Vec<String>),
}

/// One step of a hit's location, kept until the hit's path is wanted.
#[derive(Debug, Clone, Copy)]
pub enum Part<'v> {
    Key(&'v str),
    Index(usize),
}

impl Walk {
    /// `path` compiled, or None when it uses something only the general engine evaluates.
    pub fn compile(path: &JpQuery) -> Option<Walk> {
        let segments = path
            .segments
            .iter()
            .map(|s| match s {
                Segment::Selector(sel) => selector(sel),
                _ => None,
            })
            .collect::<Option<Vec<Seg>>>()?;
        Some(Walk { segments })
    }

    /// Calls `hit` with each value the path yields and where it is, in the general engine's
    /// order, until `hit` says it wants no more (returns false).
    pub fn each<'v>(&self, root: &'v Value, hit: &mut dyn FnMut(&[Part<'v>], &'v Value) -> bool) {
        self.each_from(root, &[], hit);
    }

    /// [`Walk::each`] from `at`, where the path's first segments lead (`done`, as the view
    /// spells them: the hits' paths start with them).
    pub fn each_from<'v>(
        &self,
        at: &'v Value,
        done: &[Part<'v>],
        hit: &mut dyn FnMut(&[Part<'v>], &'v Value) -> bool,
    ) {
        let Some(rest) = self.segments.get(done.len()..) else {
            return;
        };
        let mut trail = Vec::with_capacity(self.segments.len());
        trail.extend_from_slice(done);
        descend(rest, at, &mut trail, hit);
    }

    /// Whether the path yields anything from `at` ([`Walk::each_from`]).
    pub fn any_from<'v>(&self, at: &'v Value, done: &[Part<'v>]) -> bool {
        let mut found = false;
        self.each_from(at, done, &mut |_, _| {
            found = true;
            false
        });
        found
    }

    /// Its first two segments, when both are member names (`$.facts.admission…`): where a
    /// view's scope (the rule engine's `Scope`) can look the path up once for every test that
    /// starts there.
    pub fn head(&self) -> Option<[&str; 2]> {
        match self.segments.get(..2)? {
            [Seg::Name(a), Seg::Name(b)] => Some([a, b]),
            _ => None,
        }
    }

    /// The list whose every element the path yields, when it is names and a last `[*]`
    /// (`$.facts.device.silentGpuNodes[*]`) and they lead to a list; from `at`, where the
    /// path's first `skip` segments lead (0: the root).
    pub fn whole_list_from<'v>(&self, at: &'v Value, skip: usize) -> Option<&'v [Value]> {
        let (Seg::Wildcard, names) = self.segments.split_last()? else {
            return None;
        };
        names
            .get(skip..)?
            .iter()
            .try_fold(at, |at, seg| match seg {
                Seg::Name(n) => at.as_object()?.get(n),
                _ => None,
            })?
            .as_array()
            .map(Vec::as_slice)
    }
}

fn selector(s: &Selector) -> Option<Seg> {
    Some(match s {
        Selector::Name(n) => Seg::Name(n.clone()),
        Selector::Index(i) => Seg::Index(*i),
        Selector::Wildcard => Seg::Wildcard,
        Selector::Filter(f) => Seg::Filter(filter(f)?),
        Selector::Slice(..) => return None,
    })
}

fn filter(f: &Filter) -> Option<Pred> {
    Some(match f {
        Filter::Or(fs) => Pred::Or(fs.iter().map(filter).collect::<Option<_>>()?),
        Filter::And(fs) => Pred::And(fs.iter().map(filter).collect::<Option<_>>()?),
        Filter::Atom(FilterAtom::Filter { expr, not }) => negated(filter(expr)?, *not),
        Filter::Atom(FilterAtom::Test { expr, not }) => match expr.as_ref() {
            Test::RelQuery(segments) => negated(Pred::Exists(member_names(segments)?), *not),
            Test::Function(f) => match f.as_ref() {
                TestFunction::Search(on, pattern) => negated(regex_pred(on, pattern, false)?, *not),
                TestFunction::Match(on, pattern) => negated(regex_pred(on, pattern, true)?, *not),
                _ => return None,
            },
            _ => return None,
        },
        Filter::Atom(FilterAtom::Comparison(c)) => {
            let op = match c.as_ref() {
                Comparison::Eq(..) => CmpOp::Eq,
                Comparison::Ne(..) => CmpOp::Ne,
                Comparison::Lt(..) => CmpOp::Lt,
                Comparison::Lte(..) => CmpOp::Le,
                Comparison::Gt(..) => CmpOp::Gt,
                Comparison::Gte(..) => CmpOp::Ge,
            };
            let (l, r) = c.vals();
            Pred::Compare(op, operand(l)?, operand(r)?)
        }
    })
}

/// The names of a relative query made of member names only (`@.a.b`).
fn member_names(segments: &[Segment]) -> Option<Vec<String>> {
    segments
        .iter()
        .map(|s| match s {
            Segment::Selector(Selector::Name(n)) => Some(n.clone()),
            _ => None,
        })
        .collect()
}

/// `search`/`match` of a member of `@` against a literal pattern, compiled once.
fn regex_pred(on: &FnArg, pattern: &FnArg, whole: bool) -> Option<Pred> {
    let FnArg::Test(t) = on else { return None };
    let Test::RelQuery(segments) = t.as_ref() else {
        return None;
    };
    let FnArg::Literal(Literal::String(pattern)) = pattern else {
        return None;
    };
    let re = crate::pattern::Pattern::new(&i_regexp(pattern, whole)).ok();
    Some(Pred::Regex(member_names(segments)?, re))
}

/// An I-Regexp (RFC 9485) in the `regex` crate's syntax, as the general engine reads it: `.`
/// outside a class matches anything but `\n` and `\r` (the crate's `.` would take `\r`), an
/// escape keeps the character after it, and `match` anchors the whole pattern.
fn i_regexp(pattern: &str, whole: bool) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut in_class = false;
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                out.extend(chars.next());
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            '.' if !in_class => out.push_str("[^\\n\\r]"),
            _ => out.push(c),
        }
    }
    if whole { format!("^(?:{out})$") } else { out }
}

fn negated(p: Pred, not: bool) -> Pred {
    if not { Pred::Not(Box::new(p)) } else { p }
}

fn operand(c: &Comparable) -> Option<Operand> {
    Some(match c {
        Comparable::Literal(l) => Operand::Literal(match l {
            Literal::Int(i) => Value::from(*i),
            Literal::Float(f) => Value::from(*f),
            Literal::String(s) => Value::from(s.as_str()),
            Literal::Bool(b) => Value::from(*b),
            Literal::Null => Value::Null,
        }),
        Comparable::SingularQuery(SingularQuery::Current(segments)) => Operand::Current(
            segments
                .iter()
                .map(|s| match s {
                    SingularQuerySegment::Name(n) => Some(n.clone()),
                    SingularQuerySegment::Index(_) => None,
                })
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

/// Walks `segments` from `at`; false once `hit` wants no more.
fn descend<'v>(
    segments: &[Seg],
    at: &'v Value,
    trail: &mut Vec<Part<'v>>,
    hit: &mut dyn FnMut(&[Part<'v>], &'v Value) -> bool,
) -> bool {
    let Some((seg, rest)) = segments.split_first() else {
        return hit(trail, at);
    };
    let mut child = |part: Part<'v>, v: &'v Value, trail: &mut Vec<Part<'v>>| {
        trail.push(part);
        let more = descend(rest, v, trail, hit);
        trail.pop();
        more
    };
    match seg {
        Seg::Name(n) => match at.as_object().and_then(|m| m.get_key_value(n)) {
            Some((k, v)) => child(Part::Key(k), v, trail),
            None => true,
        },
        Seg::Index(i) => match at.as_array() {
            Some(a) => match element(a.len(), *i).and_then(|i| Some((i, a.get(i)?))) {
                Some((i, v)) => child(Part::Index(i), v, trail),
                None => true,
            },
            None => true,
        },
        Seg::Wildcard | Seg::Filter(_) => {
            let keep = |v: &Value| match seg {
                Seg::Filter(p) => holds(p, v),
                _ => true,
            };
            match at {
                Value::Array(a) => a
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| keep(v))
                    .all(|(i, v)| child(Part::Index(i), v, trail)),
                Value::Object(m) => m
                    .iter()
                    .filter(|(_, v)| keep(v))
                    .all(|(k, v)| child(Part::Key(k), v, trail)),
                _ => true,
            }
        }
    }
}

/// The position a JSONPath index (negative: from the end) names in an array of `len` elements;
/// None when a negative one reaches before the first (one past the end is for `get` to refuse).
pub(crate) fn element(len: usize, index: i64) -> Option<usize> {
    if index < 0 {
        len.checked_sub(index.unsigned_abs() as usize)
    } else {
        Some(index as usize)
    }
}

fn member<'v>(at: &'v Value, names: &[String]) -> Option<&'v Value> {
    names.iter().try_fold(at, |v, n| v.as_object()?.get(n))
}

fn holds(p: &Pred, current: &Value) -> bool {
    match p {
        Pred::Or(ps) => ps.iter().any(|p| holds(p, current)),
        Pred::And(ps) => ps.iter().all(|p| holds(p, current)),
        Pred::Not(p) => !holds(p, current),
        Pred::Exists(names) => member(current, names).is_some(),
        Pred::Regex(names, re) => re.as_ref().is_some_and(|re| {
            member(current, names)
                .and_then(Value::as_str)
                .is_some_and(|s| re.is_match(s))
        }),
        Pred::Compare(op, l, r) => {
            compare(*op, operand_value(l, current), operand_value(r, current))
        }
    }
}

fn operand_value<'a>(o: &'a Operand, current: &'a Value) -> Option<&'a Value> {
    match o {
        Operand::Literal(v) => Some(v),
        Operand::Current(names) => member(current, names),
    }
}

fn compare(op: CmpOp, l: Option<&Value>, r: Option<&Value>) -> bool {
    match op {
        CmpOp::Eq => eq(l, r),
        CmpOp::Ne => !eq(l, r),
        CmpOp::Lt => lt(l, r),
        CmpOp::Le => lt(l, r) || eq(l, r),
        CmpOp::Gt => lt(r, l),
        CmpOp::Ge => lt(r, l) || eq(l, r),
    }
}

fn number(v: &Value) -> Option<f64> {
    v.as_f64().or_else(|| v.as_i64().map(|i| i as f64))
}

fn eq(l: Option<&Value>, r: Option<&Value>) -> bool {
    match (l, r) {
        (Some(l), Some(r)) => match (number(l), number(r)) {
            (Some(a), Some(b)) => (a - b).abs() < f64::EPSILON,
            _ => l == r,
        },
        (None, None) => true,
        _ => false,
    }
}

fn lt(l: Option<&Value>, r: Option<&Value>) -> bool {
    let (Some(l), Some(r)) = (l, r) else {
        return false;
    };
    match (number(l), number(r), l.as_str(), r.as_str()) {
        (Some(a), Some(b), _, _) => a < b,
        (_, _, Some(a), Some(b)) => a < b,
        _ => false,
    }
}

/// The normalized path (RFC 9535 §2.7) of a hit, as the general engine writes it.
pub fn normalized(trail: &[Part<'_>]) -> String {
    let mut out = String::from("$");
    for p in trail {
        match p {
            Part::Key(k) => push_name(&mut out, k),
            Part::Index(i) => {
                use std::fmt::Write as _;
                let _ = write!(out, "[{i}]");
            }
        }
    }
    out
}

/// `['name']`, with `'`, `\` and control characters escaped.
pub(crate) fn push_name(out: &mut String, n: &str) {
    use std::fmt::Write as _;
    out.push_str("['");
    for ch in n.chars() {
        match ch {
            '\u{0008}' => out.push_str("\\b"),
            '\u{000C}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if c < '\u{0020}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push_str("']");
}
