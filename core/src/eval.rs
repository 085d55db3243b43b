//! The one rule driver's inner loop: evaluate a compiled condition against a view and collect
//! what matched (evidence paths and captured values). Tests are existential: a test on a path
//! holds when any value the path yields satisfies it; `exists: false` holds when none exists.

use crate::quantity;
use crate::rule::{Cmp, Cond, Op, Step, Test};
use serde_json::Value;
use std::collections::BTreeMap;

/// At most this many evidence entries per test; a path over 10,000 conditions must not flood
/// the output.
const MAX_EVIDENCE_PER_TEST: usize = 8;

/// What a matching condition observed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Match {
    /// (normalized JSONPath into the view, value).
    pub evidence: Vec<(String, Value)>,
    pub captures: BTreeMap<String, Vec<Value>>,
}

impl Match {
    fn absorb(&mut self, other: Match) {
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
pub fn eval(c: &Cond, view: &Value) -> Option<Match> {
    match c {
        Cond::All(cs) => {
            let mut m = Match::default();
            for c in cs {
                match eval(c, view) {
                    Some(x) => m.absorb(x),
                    // A test that only feeds the words (`absent:`) never gates the rule.
                    None if matches!(c, Cond::Test(t) if t.optional) => {}
                    None => return None,
                }
            }
            Some(m)
        }
        Cond::Any(cs) => cs.iter().find_map(|c| eval(c, view)),
        Cond::Not(c) => eval(c, view).is_none().then(Match::default),
        Cond::Test(t) => eval_test(t, view),
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
struct Kept<'t> {
    test: &'t Test,
    found: Match,
    any: bool,
}

impl<'t> Kept<'t> {
    fn new(test: &'t Test) -> Kept<'t> {
        Kept {
            test,
            found: Match::default(),
            any: false,
        }
    }

    fn offer(&mut self, v: &Value, path: impl FnOnce() -> String) {
        let t = self.test;
        if !holds(&t.op, v) {
            return;
        }
        self.any = true;
        if t.evidence && self.found.evidence.len() < MAX_EVIDENCE_PER_TEST {
            self.found.evidence.push((path(), v.clone()));
        }
        if let Some(cap) = &t.capture {
            self.found
                .captures
                .entry(cap.clone())
                .or_default()
                .push(v.clone());
        }
    }

    fn done(self) -> Option<Match> {
        self.any.then_some(self.found)
    }
}

fn eval_test(t: &Test, view: &Value) -> Option<Match> {
    if let Some(steps) = &t.steps {
        let hit = walk(view, steps);
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
            return (!walk.any(view)).then(Match::default);
        }
        let mut kept = Kept::new(t);
        walk.each(view, &mut |trail, v| {
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
fn general(t: &Test, view: &Value) -> Option<Match> {
    let hits = jsonpath_rust::query::js_path_process(&t.path, view).unwrap_or_default();
    if let Op::Exists(false) = t.op {
        return hits.is_empty().then(Match::default);
    }
    let mut kept = Kept::new(t);
    for h in hits {
        kept.offer(h.val, || h.path.clone());
    }
    kept.done()
}

#[cfg(not(feature = "rule-authoring"))]
fn general(_: &Test, _: &Value) -> Option<Match> {
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
