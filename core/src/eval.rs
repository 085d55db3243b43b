//! The one rule driver's inner loop: evaluate a compiled condition against a view and collect
//! what matched (evidence paths and captured values). Tests are existential: a test on a path
//! holds when any value the path yields satisfies it; `exists: false` holds when none exists.

use crate::lend::Shared;
use crate::quantity;
use crate::rule::{Cmp, Cond, Op, Step, Test};
use crate::template::Values;
use serde_json::Value;
use std::cell::OnceCell;
use std::collections::BTreeMap;

/// At most this many evidence entries per test; a path over 10,000 conditions must not flood
/// the output.
pub(crate) const MAX_EVIDENCE_PER_TEST: usize = 8;

/// What a matching condition observed, borrowed from the view it was evaluated on.
#[derive(Debug, Clone, Default)]
pub struct Match<'v> {
    /// (normalized JSONPath into the view, value).
    pub evidence: Vec<(String, Value)>,
    pub captures: BTreeMap<String, Captured<'v>>,
}

/// What one capture holds.
#[derive(Debug, Clone)]
pub enum Captured<'v> {
    /// The values the rule's paths found.
    Found(Vec<&'v Value>),
    /// Every element of a list the view holds on loan ([`crate::lend`]), which templates
    /// read once per list rather than once per view.
    /// `within` is the list's member name when the value on loan is the object holding it
    /// (empty when the list itself is on loan).
    Lent(&'v [Value], &'v Shared, &'v str),
    /// A rule's own words, for a name its paths did not capture.
    Words(Vec<Value>),
}

impl Default for Captured<'_> {
    fn default() -> Self {
        Captured::Found(Vec::new())
    }
}

impl<'v> Captured<'v> {
    /// The values as a template reads them.
    pub fn values(&self) -> Values<'_> {
        match self {
            Captured::Found(v) => Values::Found(v),
            Captured::Lent(list, shared, within) => Values::Lent(list, shared, within),
            Captured::Words(v) => Values::Owned(v),
        }
    }

    /// These values, then `more`'s.
    fn extend(&mut self, more: Captured<'v>) {
        match (&mut *self, more) {
            (Captured::Found(v), more) if v.is_empty() => *self = more,
            (Captured::Found(v), Captured::Found(more)) => v.extend(more),
            (_, more) => {
                let mut all: Vec<&'v Value> = self.found();
                all.extend(more.found());
                *self = Captured::Found(all);
            }
        }
    }

    fn found(&self) -> Vec<&'v Value> {
        match self {
            Captured::Found(v) => v.clone(),
            Captured::Lent(list, ..) => list.iter().collect(),
            // Words only come after evaluation, never into `extend`.
            Captured::Words(_) => Vec::new(),
        }
    }
}

/// A view as rules read it: its JSON, and the lists in it that are on loan.
pub struct Scope<'v> {
    pub root: &'v Value,
    pub lent: Vec<(&'v Value, &'v Shared)>,
    /// Where each head slot's two member names lead ([`assign_heads`]), looked up when a test
    /// first asks: two hundred rules start their paths at some sixty places
    /// (`$.facts.admission`, `$.pod.status`), and looking each up again in the view's maps was
    /// a tenth of every diagnosis.
    heads: Vec<OnceCell<Option<Head<'v>>>>,
}

/// Where a test's first two member names lead in one view, with the names as the view spells
/// them (for the paths of what is found below).
type Head<'v> = ([&'v str; 2], &'v Value);

/// Gives every test whose path starts with two member names the slot of those names, the same
/// for every test that starts alike; returns how many slots there are.
pub(crate) fn assign_heads(rules: &mut [crate::rule::Rule]) -> usize {
    fn visit(c: &mut Cond, slots: &mut Vec<[String; 2]>) {
        match c {
            Cond::All(cs) | Cond::Any(cs) => cs.iter_mut().for_each(|c| visit(c, slots)),
            Cond::Not(c) => visit(c, slots),
            Cond::Test(t) => {
                let Some([a, b]) = head_names(t) else { return };
                let slot = match slots.iter().position(|s| s[0] == a && s[1] == b) {
                    Some(i) => i,
                    None => {
                        slots.push([a.to_string(), b.to_string()]);
                        slots.len() - 1
                    }
                };
                t.head = Some(slot);
            }
        }
    }
    let mut slots = Vec::new();
    for r in rules {
        visit(&mut r.when, &mut slots);
    }
    slots.len()
}

/// A test's first two steps, when both are member names.
fn head_names(t: &Test) -> Option<[&str; 2]> {
    match (&t.steps, &t.walk) {
        (Some(steps), _) => match steps.get(..2)? {
            [Step::Name(a), Step::Name(b)] => Some([a, b]),
            _ => None,
        },
        (None, Some(walk)) => walk.head(),
        (None, None) => None,
    }
}

impl<'v> Scope<'v> {
    /// A view's scope, with room for the engine's `head_slots`.
    pub fn new(root: &'v Value, lent: Vec<(&'v Value, &'v Shared)>, head_slots: usize) -> Self {
        Scope {
            root,
            lent,
            heads: (0..head_slots).map(|_| OnceCell::new()).collect(),
        }
    }

    /// Where `t`'s head leads (None inside: nowhere, so the path yields nothing); None when
    /// `t` has no slot here and is walked from the root.
    fn head(&self, t: &Test) -> Option<Option<Head<'v>>> {
        let cell = self.heads.get(t.head?)?;
        Some(*cell.get_or_init(|| {
            let [a, b] = head_names(t)?;
            let (ka, at) = self.root.as_object()?.get_key_value(a)?;
            let (kb, at) = at.as_object()?.get_key_value(b)?;
            Some(([ka.as_str(), kb.as_str()], at))
        }))
    }

    /// Whose `list` is, when it is on loan: the value lent, or a member of an object lent.
    fn lent_list(&self, list: &'v [Value]) -> Option<(&'v Shared, &'v str)> {
        let is = |v: &Value| {
            v.as_array()
                .is_some_and(|a| std::ptr::eq(a.as_slice(), list))
        };
        self.lent.iter().find_map(|&(v, shared)| match v {
            v if is(v) => Some((shared, "")),
            Value::Object(m) => m
                .iter()
                .find(|(_, member)| is(member))
                .map(|(k, _)| (shared, k.as_str())),
            _ => None,
        })
    }
}

impl<'v> Match<'v> {
    fn absorb(&mut self, other: Match<'v>) {
        for e in other.evidence {
            if !self.evidence.contains(&e) {
                self.evidence.push(e);
            }
        }
        for (k, v) in other.captures {
            self.captures.entry(k).or_default().extend(v);
        }
    }
}

/// Evaluate a condition; `None` when it does not hold.
pub fn eval<'v>(c: &Cond, scope: &Scope<'v>) -> Option<Match<'v>> {
    match c {
        Cond::All(cs) => {
            let mut m = Match::default();
            for c in cs {
                match eval(c, scope) {
                    Some(x) => m.absorb(x),
                    // A test that only feeds the words (`absent:`) never gates the rule.
                    None if matches!(c, Cond::Test(t) if t.optional) => {}
                    None => return None,
                }
            }
            Some(m)
        }
        Cond::Any(cs) => cs.iter().find_map(|c| eval(c, scope)),
        Cond::Not(c) => eval(c, scope).is_none().then(Match::default),
        Cond::Test(t) => eval_test(t, scope),
    }
}

/// Walk plain steps: the one value there, if any.
pub fn walk<'v>(view: &'v Value, steps: &[Step]) -> Option<&'v Value> {
    let mut at = view;
    for s in steps {
        at = match s {
            Step::Name(n) => at.as_object()?.get(n)?,
            Step::Index(i) => {
                let a = at.as_array()?;
                a.get(crate::walk::element(a.len(), *i)?)?
            }
        };
    }
    Some(at)
}

/// The normalized path (RFC 9535 §2.7) of plain steps, as the general engine writes it: member
/// names in single quotes with `'`, `\` and control characters escaped, indexes as numbers.
pub fn normalized(view: &Value, steps: &[Step]) -> String {
    use std::fmt::Write as _;
    let mut out = String::from("$");
    let mut at = Some(view);
    for s in steps {
        match s {
            Step::Name(n) => {
                crate::walk::push_name(&mut out, n);
                at = at.and_then(|v| v.get(n));
            }
            Step::Index(i) => {
                let len = at.and_then(Value::as_array).map_or(0, Vec::len);
                let i = if *i < 0 {
                    len.saturating_sub(i.unsigned_abs() as usize)
                } else {
                    *i as usize
                };
                let _ = write!(out, "[{i}]");
                at = at.and_then(|v| v.get(i));
            }
        }
    }
    out
}

/// What a test keeps of the values its path yields: whether any satisfies it, at most
/// [`MAX_EVIDENCE_PER_TEST`] of those as evidence (a path is written only for these), and all
/// of them under its capture. One for every way a path is walked.
struct Kept<'t, 'v> {
    test: &'t Test,
    evidence: Vec<(String, Value)>,
    any: bool,
    /// What the capture holds: the values kept, or the whole list on loan the path walks.
    captured: Captured<'v>,
}

impl<'t, 'v> Kept<'t, 'v> {
    fn new(test: &'t Test) -> Kept<'t, 'v> {
        Kept {
            test,
            evidence: Vec::new(),
            any: false,
            captured: Captured::default(),
        }
    }

    /// Keep `v` if it satisfies the test; false once nothing more would be kept.
    fn offer(&mut self, v: &'v Value, path: impl FnOnce() -> String) -> bool {
        let t = self.test;
        let capturing = t.capture.is_some() && !matches!(self.captured, Captured::Lent(..));
        if holds(&t.op, v) {
            self.any = true;
            if t.evidence && self.evidence.len() < MAX_EVIDENCE_PER_TEST {
                self.evidence.push((path(), v.clone()));
            }
            if capturing && let Captured::Found(vals) = &mut self.captured {
                vals.push(v);
            }
        }
        capturing || (t.evidence && self.evidence.len() < MAX_EVIDENCE_PER_TEST) || !self.any
    }

    fn done(self) -> Option<Match<'v>> {
        if !self.any {
            return None;
        }
        let mut captures = BTreeMap::new();
        if let Some(cap) = &self.test.capture {
            captures.insert(cap.clone(), self.captured);
        }
        Some(Match {
            evidence: self.evidence,
            captures,
        })
    }
}

fn eval_test<'v>(t: &Test, scope: &Scope<'v>) -> Option<Match<'v>> {
    let view = scope.root;
    // Where the path starts: the root, or where its head leads (the names there done).
    let head_keys;
    let (at, done): (&'v Value, &[crate::walk::Part<'v>]) = match scope.head(t) {
        None => (view, &[]),
        // The head leads nowhere: the path yields nothing.
        Some(None) => return matches!(t.op, Op::Exists(false)).then(Match::default),
        Some(Some((keys, at))) => {
            head_keys = keys.map(crate::walk::Part::Key);
            (at, &head_keys)
        }
    };
    if let Some(steps) = &t.steps {
        let hit = walk(at, &steps[done.len()..]);
        if let Op::Exists(false) = t.op {
            return hit.is_none().then(Match::default);
        }
        let mut kept = Kept::new(t);
        if let Some(v) = hit {
            kept.offer(v, || normalized(view, steps));
        }
        return kept.done();
    }
    if let Some(walk) = &t.walk {
        if let Op::Exists(false) = t.op {
            return (!walk.any_from(at, done)).then(Match::default);
        }
        let mut kept = Kept::new(t);
        // Capturing every element of a list on loan: the capture is the list.
        if let (Op::Exists(true), Some(_)) = (&t.op, &t.capture)
            && let Some(list) = walk.whole_list_from(at, done.len())
            && !list.is_empty()
            && let Some((shared, within)) = scope.lent_list(list)
        {
            kept.captured = Captured::Lent(list, shared, within);
        }
        walk.each_from(at, done, &mut |trail, v| {
            kept.offer(v, || crate::walk::normalized(trail))
        });
        return kept.done();
    }
    general(t, view)
}

/// A path neither plain nor walkable, through jsonpath-rust's general engine. Only rules read
/// at run time can have one: every builtin path walks (a test holds that), so builds without
/// `rule-authoring` (the WASM module) leave the engine out and refuse such a path when rules
/// load.
#[cfg(feature = "rule-authoring")]
fn general<'v>(t: &Test, view: &'v Value) -> Option<Match<'v>> {
    let hits = jsonpath_rust::query::js_path_process(&t.path, view).unwrap_or_default();
    if let Op::Exists(false) = t.op {
        return hits.is_empty().then(Match::default);
    }
    let mut kept = Kept::new(t);
    for h in hits {
        if !kept.offer(h.val, || h.path.clone()) {
            break;
        }
    }
    kept.done()
}

#[cfg(not(feature = "rule-authoring"))]
fn general<'v>(_: &Test, _: &'v Value) -> Option<Match<'v>> {
    None
}

fn holds(op: &Op, v: &Value) -> bool {
    match op {
        Op::Exists(want) => *want,
        Op::Equals(x) => same(v, x),
        Op::In(xs) => xs.iter().any(|x| same(v, x)),
        Op::Matches(re) => v.as_str().is_some_and(|s| re.is_match(s)),
        Op::Contains(needle) => match v {
            Value::String(s) => s.contains(needle.as_str()),
            Value::Array(a) => a.iter().any(|x| x.as_str() == Some(needle.as_str())),
            _ => false,
        },
        Op::Compare(cmp, rhs) => quantity::from_value(v).is_some_and(|lhs| match cmp {
            Cmp::Gt => lhs > *rhs,
            Cmp::Ge => lhs >= *rhs,
            Cmp::Lt => lhs < *rhs,
            Cmp::Le => lhs <= *rhs,
        }),
    }
}

/// Equality where numbers compare by value (`4` equals `4.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}
