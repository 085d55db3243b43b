//! A compact text form of a parsed JSONPath (jsonpath-rust's `JpQuery`), so the rule paths
//! can be parsed once at build time and only decoded when the rules load.
//!
//! Why: jsonpath-rust's parser (pest and its generated grammar) is a large piece of the WASM
//! module, and the builtin rules are its only user at run time. `core/build.rs` parses every `path:` of
//! `rules/` and writes [`encode`]'s form of each into the build; [`decode`] rebuilds the
//! same `JpQuery`, so the parser can be left out of builds that load only builtin rules.
//!
//! The form is prefix notation: one tag byte per node (unique among the variants of its type),
//! then its fields in order. Integers and counts are decimal ended by `;`, strings are their
//! byte length, `;`, then the bytes; floats are their IEEE bits (exact); a missing slice bound
//! is `_`. This file is also compiled into the build script (`#[path]`), so both sides are
//! one piece of code.

use jsonpath_rust::parser::model::{
    Comparable, Comparison, Filter, FilterAtom, FnArg, JpQuery, Literal, Segment, Selector,
    SingularQuery, SingularQuerySegment, Test, TestFunction,
};
use std::fmt::Write as _;

/// `q` in the compact form.
pub fn encode(q: &JpQuery) -> String {
    let mut out = String::new();
    segments(&mut out, &q.segments);
    out
}

fn num(out: &mut String, n: impl std::fmt::Display) {
    let _ = write!(out, "{n};");
}

fn string(out: &mut String, s: &str) {
    num(out, s.len());
    out.push_str(s);
}

fn segments(out: &mut String, s: &[Segment]) {
    num(out, s.len());
    for x in s {
        segment(out, x);
    }
}

fn segment(out: &mut String, s: &Segment) {
    match s {
        Segment::Descendant(inner) => {
            out.push('D');
            segment(out, inner);
        }
        Segment::Selector(x) => {
            out.push('S');
            selector(out, x);
        }
        Segment::Selectors(xs) => {
            out.push('M');
            num(out, xs.len());
            for x in xs {
                selector(out, x);
            }
        }
    }
}

fn selector(out: &mut String, s: &Selector) {
    match s {
        Selector::Name(n) => {
            out.push('N');
            string(out, n);
        }
        Selector::Wildcard => out.push('*'),
        Selector::Index(i) => {
            out.push('I');
            num(out, i);
        }
        Selector::Slice(a, b, c) => {
            out.push('L');
            for x in [a, b, c] {
                match x {
                    Some(v) => num(out, v),
                    None => out.push('_'),
                }
            }
        }
        Selector::Filter(f) => {
            out.push('F');
            filter(out, f);
        }
    }
}

fn filter(out: &mut String, f: &Filter) {
    match f {
        Filter::Or(fs) | Filter::And(fs) => {
            out.push(if matches!(f, Filter::Or(_)) { '|' } else { '&' });
            num(out, fs.len());
            for x in fs {
                filter(out, x);
            }
        }
        Filter::Atom(a) => {
            out.push('A');
            atom(out, a);
        }
    }
}

fn atom(out: &mut String, a: &FilterAtom) {
    match a {
        FilterAtom::Filter { expr, not } => {
            out.push('f');
            out.push(if *not { '1' } else { '0' });
            filter(out, expr);
        }
        FilterAtom::Test { expr, not } => {
            out.push('t');
            out.push(if *not { '1' } else { '0' });
            test(out, expr);
        }
        FilterAtom::Comparison(c) => {
            out.push('c');
            comparison(out, c);
        }
    }
}

fn comparison(out: &mut String, c: &Comparison) {
    let (tag, l, r) = match c {
        Comparison::Eq(l, r) => ('=', l, r),
        Comparison::Ne(l, r) => ('!', l, r),
        Comparison::Gt(l, r) => ('>', l, r),
        Comparison::Gte(l, r) => ('g', l, r),
        Comparison::Lt(l, r) => ('<', l, r),
        Comparison::Lte(l, r) => ('l', l, r),
    };
    out.push(tag);
    comparable(out, l);
    comparable(out, r);
}

fn comparable(out: &mut String, c: &Comparable) {
    match c {
        Comparable::Literal(l) => {
            out.push('L');
            literal(out, l);
        }
        Comparable::Function(f) => {
            out.push('F');
            function(out, f);
        }
        Comparable::SingularQuery(q) => {
            let (tag, segs) = match q {
                SingularQuery::Current(s) => ('@', s),
                SingularQuery::Root(s) => ('$', s),
            };
            out.push('S');
            out.push(tag);
            num(out, segs.len());
            for s in segs {
                match s {
                    SingularQuerySegment::Index(i) => {
                        out.push('I');
                        num(out, i);
                    }
                    SingularQuerySegment::Name(n) => {
                        out.push('N');
                        string(out, n);
                    }
                }
            }
        }
    }
}

fn test(out: &mut String, t: &Test) {
    match t {
        Test::RelQuery(s) => {
            out.push('R');
            segments(out, s);
        }
        Test::AbsQuery(q) => {
            out.push('A');
            segments(out, &q.segments);
        }
        Test::Function(f) => {
            out.push('F');
            function(out, f);
        }
    }
}

fn function(out: &mut String, f: &TestFunction) {
    match f {
        TestFunction::Custom(name, args) => {
            out.push('C');
            string(out, name);
            num(out, args.len());
            for a in args {
                fn_arg(out, a);
            }
        }
        TestFunction::Length(a) => {
            out.push('L');
            fn_arg(out, a);
        }
        TestFunction::Value(a) => {
            out.push('V');
            fn_arg(out, a);
        }
        TestFunction::Count(a) => {
            out.push('N');
            fn_arg(out, a);
        }
        TestFunction::Search(a, b) | TestFunction::Match(a, b) => {
            out.push(if matches!(f, TestFunction::Search(..)) {
                'S'
            } else {
                'M'
            });
            fn_arg(out, a);
            fn_arg(out, b);
        }
    }
}

fn fn_arg(out: &mut String, a: &FnArg) {
    match a {
        FnArg::Literal(l) => {
            out.push('L');
            literal(out, l);
        }
        FnArg::Test(t) => {
            out.push('T');
            test(out, t);
        }
        FnArg::Filter(f) => {
            out.push('F');
            filter(out, f);
        }
    }
}

fn literal(out: &mut String, l: &Literal) {
    match l {
        Literal::Int(i) => {
            out.push('I');
            num(out, i);
        }
        Literal::Float(f) => {
            out.push('F');
            num(out, f.to_bits());
        }
        Literal::String(s) => {
            out.push('S');
            string(out, s);
        }
        Literal::Bool(b) => out.push(if *b { 'T' } else { 'f' }),
        Literal::Null => out.push('0'),
    }
}

/// The `JpQuery` that [`encode`] wrote as `code`; an error names the byte offset where the
/// text stops making sense.
pub fn decode(code: &str) -> Result<JpQuery, String> {
    let mut r = Reader { s: code, at: 0 };
    // One error for every way the text can be wrong: the table is generated, so a bad entry
    // is a bug to locate, not a case to explain (and the WASM module stays small).
    match r.segments() {
        Some(segments) if r.at == code.len() => Ok(JpQuery { segments }),
        _ => Err(format!("compiled JSONPath is malformed at byte {}", r.at)),
    }
}

struct Reader<'a> {
    s: &'a str,
    at: usize,
}

impl Reader<'_> {
    fn tag(&mut self) -> Option<u8> {
        let b = *self.s.as_bytes().get(self.at)?;
        self.at += 1;
        Some(b)
    }

    /// Decimal text up to the next `;`, parsed.
    fn word<T: std::str::FromStr>(&mut self) -> Option<T> {
        let rest = self.s.get(self.at..)?;
        let end = rest.find(';')?;
        let v = rest[..end].parse().ok()?;
        self.at += end + 1;
        Some(v)
    }

    fn string(&mut self) -> Option<String> {
        let n: usize = self.word()?;
        let s = self.s.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s.to_string())
    }

    fn flag(&mut self) -> Option<bool> {
        match self.tag()? {
            b'1' => Some(true),
            b'0' => Some(false),
            _ => None,
        }
    }

    fn many<T>(&mut self, mut one: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let n: usize = self.word()?;
        // Never trust a count for an allocation: the text bounds how many nodes can follow.
        let mut out = Vec::with_capacity(n.min(self.s.len() - self.at));
        for _ in 0..n {
            out.push(one(self)?);
        }
        Some(out)
    }

    fn segments(&mut self) -> Option<Vec<Segment>> {
        self.many(Self::segment)
    }

    fn segment(&mut self) -> Option<Segment> {
        Some(match self.tag()? {
            b'D' => Segment::Descendant(Box::new(self.segment()?)),
            b'S' => Segment::Selector(self.selector()?),
            b'M' => Segment::Selectors(self.many(Self::selector)?),
            _ => return None,
        })
    }

    fn slice_bound(&mut self) -> Option<Option<i64>> {
        if self.s.as_bytes().get(self.at) == Some(&b'_') {
            self.at += 1;
            return Some(None);
        }
        self.word().map(Some)
    }

    fn selector(&mut self) -> Option<Selector> {
        Some(match self.tag()? {
            b'N' => Selector::Name(self.string()?),
            b'*' => Selector::Wildcard,
            b'I' => Selector::Index(self.word()?),
            b'L' => Selector::Slice(
                self.slice_bound()?,
                self.slice_bound()?,
                self.slice_bound()?,
            ),
            b'F' => Selector::Filter(self.filter()?),
            _ => return None,
        })
    }

    fn filter(&mut self) -> Option<Filter> {
        Some(match self.tag()? {
            b'|' => Filter::Or(self.many(Self::filter)?),
            b'&' => Filter::And(self.many(Self::filter)?),
            b'A' => Filter::Atom(self.atom()?),
            _ => return None,
        })
    }

    fn atom(&mut self) -> Option<FilterAtom> {
        Some(match self.tag()? {
            b'f' => {
                let not = self.flag()?;
                FilterAtom::Filter {
                    expr: Box::new(self.filter()?),
                    not,
                }
            }
            b't' => {
                let not = self.flag()?;
                FilterAtom::Test {
                    expr: Box::new(self.test()?),
                    not,
                }
            }
            b'c' => FilterAtom::Comparison(Box::new(self.comparison()?)),
            _ => return None,
        })
    }

    fn comparison(&mut self) -> Option<Comparison> {
        let make: fn(Comparable, Comparable) -> Comparison = match self.tag()? {
            b'=' => Comparison::Eq,
            b'!' => Comparison::Ne,
            b'>' => Comparison::Gt,
            b'g' => Comparison::Gte,
            b'<' => Comparison::Lt,
            b'l' => Comparison::Lte,
            _ => return None,
        };
        let l = self.comparable()?;
        Some(make(l, self.comparable()?))
    }

    fn singular_segment(&mut self) -> Option<SingularQuerySegment> {
        Some(match self.tag()? {
            b'I' => SingularQuerySegment::Index(self.word()?),
            b'N' => SingularQuerySegment::Name(self.string()?),
            _ => return None,
        })
    }

    fn comparable(&mut self) -> Option<Comparable> {
        Some(match self.tag()? {
            b'L' => Comparable::Literal(self.literal()?),
            b'F' => Comparable::Function(self.function()?),
            b'S' => {
                let make: fn(Vec<SingularQuerySegment>) -> SingularQuery = match self.tag()? {
                    b'@' => SingularQuery::Current,
                    b'$' => SingularQuery::Root,
                    _ => return None,
                };
                Comparable::SingularQuery(make(self.many(Self::singular_segment)?))
            }
            _ => return None,
        })
    }

    fn test(&mut self) -> Option<Test> {
        Some(match self.tag()? {
            b'R' => Test::RelQuery(self.segments()?),
            b'A' => Test::AbsQuery(JpQuery {
                segments: self.segments()?,
            }),
            b'F' => Test::Function(Box::new(self.function()?)),
            _ => return None,
        })
    }

    fn function(&mut self) -> Option<TestFunction> {
        Some(match self.tag()? {
            b'C' => {
                let name = self.string()?;
                TestFunction::Custom(name, self.many(Self::fn_arg)?)
            }
            b'L' => TestFunction::Length(Box::new(self.fn_arg()?)),
            b'V' => TestFunction::Value(self.fn_arg()?),
            b'N' => TestFunction::Count(self.fn_arg()?),
            b'S' => {
                let a = self.fn_arg()?;
                TestFunction::Search(a, self.fn_arg()?)
            }
            b'M' => {
                let a = self.fn_arg()?;
                TestFunction::Match(a, self.fn_arg()?)
            }
            _ => return None,
        })
    }

    fn fn_arg(&mut self) -> Option<FnArg> {
        Some(match self.tag()? {
            b'L' => FnArg::Literal(self.literal()?),
            b'T' => FnArg::Test(Box::new(self.test()?)),
            b'F' => FnArg::Filter(self.filter()?),
            _ => return None,
        })
    }

    fn literal(&mut self) -> Option<Literal> {
        Some(match self.tag()? {
            b'I' => Literal::Int(self.word()?),
            b'F' => Literal::Float(f64::from_bits(self.word()?)),
            b'S' => Literal::String(self.string()?),
            b'T' => Literal::Bool(true),
            b'f' => Literal::Bool(false),
            b'0' => Literal::Null,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonpath_rust::parser::parse_json_path;

    /// Paths that reach every node type of the model, written in the forms rules use.
    const CORPUS: &[&str] = &[
        "$.a.b",
        "$.*",
        "$[0]",
        "$[-1]",
        "$[1:3]",
        "$[::2]",
        "$[-3:]",
        "$[:-1:-2]",
        "$['a','b',0,*]",
        "$..x",
        "$..[0]",
        "$['ü\\'q']",
        "$[\"a\\\"b\"]",
        "$.metadata.labels['kueue.x-k8s.io/queue-name']",
        "$[?@.a == 1]",
        "$[?@.a != 'x']",
        "$[?@.a > 1.5]",
        "$[?@.a >= -2]",
        "$[?@.a < 1e300]",
        "$[?@.a <= null]",
        "$[?@.a == false && @.b == true]",
        "$[?@.a && @.b || !@.c]",
        "$[?!(@.a == 1)]",
        "$[?(@.a == 1 || @.b == 2) && @.c]",
        "$[?$.x]",
        "$[?@[0] == $.y['z']]",
        "$[?length(@.a) > 2]",
        "$[?count(@.*) == 1]",
        "$[?value(@..a) == 1]",
        "$[?match(@.a, 'b.*')]",
        "$[?search(@.a, '[0-9]+')]",
        "$[?!match(@.a, 'x')]",
        "$.facts.resources[?@.fit=='noneFreeNow' && @.schedulerInsufficient==true].closest[0].node",
    ];

    #[test]
    fn every_form_decodes_to_what_the_parser_returns() {
        for p in CORPUS {
            let q = parse_json_path(p).unwrap_or_else(|e| panic!("{p}: {e}"));
            let code = encode(&q);
            assert_eq!(decode(&code).as_ref(), Ok(&q), "{p} as {code}");
        }
    }

    #[test]
    fn broken_codes_are_errors_never_panics() {
        let code = encode(&parse_json_path(CORPUS[CORPUS.len() - 1]).expect("parses"));
        for end in 0..code.len() {
            if let Some(prefix) = code.get(..end) {
                assert!(decode(prefix).is_err(), "prefix {prefix}");
            }
        }
        for bad in [
            "1;Q",
            "1;N99999999999999999999;x",
            "1;SN18446744073709551615;x",
            "1;S?",
            "2;S*",
        ] {
            assert!(decode(bad).is_err(), "{bad}");
        }
        assert!(decode(&format!("{code}x")).is_err(), "trailing text");
    }
}
