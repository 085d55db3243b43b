//! Regular expressions with one meaning in every build: a rule's `matches:`, a path's
//! `search()`/`match()` and the facts that read Kubernetes messages all match as `regex-lite`
//! does, natively, in WASM and in the page.
//!
//! Why two engines: `regex` carries Unicode tables and a lazy DFA that cost the WASM module a
//! quarter of its size, while `regex-lite` (its small sibling, from the same project) is slower
//! natively, by a fifth of a backlog scan. The two read the same syntax and differ only in what
//! Unicode means: `regex-lite` takes `\d \s \w \b` and `(?i)` as ASCII, `regex` as Unicode. On
//! an ASCII haystack those meanings coincide, so the native build asks `regex` there and
//! `regex-lite` for anything else; the module has `regex-lite` alone. A pattern `regex-lite`
//! refuses is refused in every build, and one only `regex` refuses is answered by `regex-lite`
//! alone, so a rule that loads in one build loads in all.

use std::fmt;

/// A compiled pattern. Equal answers in every build: see the module docs.
#[derive(Clone)]
pub struct Pattern(Box<Engines>);

/// The compilations of one pattern (boxed: rule tests hold a pattern in their operator).
#[derive(Clone)]
struct Engines {
    lite: regex_lite::Regex,
    /// `regex`'s compilation of the same text, asked for ASCII haystacks (native builds only),
    /// made when first asked: most of the rules' patterns meet no haystack in a run, and made
    /// with the engine they were about 2 MB of every run's peak and an eighth of a small `why`.
    #[cfg(not(target_arch = "wasm32"))]
    ascii: std::sync::OnceLock<Option<regex::Regex>>,
}

/// Why a pattern does not compile, as `regex-lite` says it.
#[derive(Debug, Clone)]
pub struct PatternError(String);

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PatternError {}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Pattern").field(&self.as_str()).finish()
    }
}

impl Pattern {
    /// Compile `pattern`.
    pub fn new(pattern: &str) -> Result<Pattern, PatternError> {
        let lite = regex_lite::Regex::new(pattern).map_err(|e| PatternError(e.to_string()))?;
        Ok(Pattern(Box::new(Engines {
            lite,
            #[cfg(not(target_arch = "wasm32"))]
            ascii: std::sync::OnceLock::new(),
        })))
    }

    /// The pattern's text.
    pub fn as_str(&self) -> &str {
        self.0.lite.as_str()
    }

    /// The engine for this haystack: `regex`'s where its answer is `regex-lite`'s.
    #[cfg(not(target_arch = "wasm32"))]
    fn fast(&self, hay: &str) -> Option<&regex::Regex> {
        if !hay.is_ascii() {
            return None;
        }
        self.0
            .ascii
            .get_or_init(|| regex::Regex::new(self.as_str()).ok())
            .as_ref()
    }

    /// Whether the pattern matches anywhere in `hay`.
    pub fn is_match(&self, hay: &str) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(re) = self.fast(hay) {
            return re.is_match(hay);
        }
        self.0.lite.is_match(hay)
    }

    /// The groups of the leftmost match (group 0 is the whole match).
    pub fn captures<'h>(&self, hay: &'h str) -> Option<Groups<'h>> {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(re) = self.fast(hay) {
            return re.captures(hay).map(Groups::of_regex);
        }
        self.0.lite.captures(hay).map(Groups::of_lite)
    }

    /// Where the leftmost match starts and ends, in bytes.
    pub fn find(&self, hay: &str) -> Option<std::ops::Range<usize>> {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(re) = self.fast(hay) {
            return re.find(hay).map(|m| m.range());
        }
        self.0.lite.find(hay).map(|m| m.range())
    }

    /// The groups of every successive non-overlapping match.
    pub fn captures_iter<'h>(&self, hay: &'h str) -> std::vec::IntoIter<Groups<'h>> {
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(re) = self.fast(hay) {
            return re
                .captures_iter(hay)
                .map(Groups::of_regex)
                .collect::<Vec<_>>()
                .into_iter();
        }
        let all: Vec<_> = self
            .0
            .lite
            .captures_iter(hay)
            .map(Groups::of_lite)
            .collect();
        all.into_iter()
    }
}

/// The text each group of one match took (`None`: the group took no part). Indexing
/// (`groups[1]`) is for groups the pattern always fills, as in `regex`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Groups<'h>(Vec<Option<&'h str>>);

impl<'h> Groups<'h> {
    #[cfg(not(target_arch = "wasm32"))]
    fn of_regex(c: regex::Captures<'h>) -> Groups<'h> {
        Groups(c.iter().map(|m| m.map(|m| m.as_str())).collect())
    }

    fn of_lite(c: regex_lite::Captures<'h>) -> Groups<'h> {
        Groups(c.iter().map(|m| m.map(|m| m.as_str())).collect())
    }

    /// Group `i`'s text, when it took part in the match.
    pub fn get(&self, i: usize) -> Option<&'h str> {
        self.0.get(i).copied().flatten()
    }
}

impl<'h> std::ops::Index<usize> for Groups<'h> {
    type Output = str;

    fn index(&self, i: usize) -> &str {
        self.get(i)
            .unwrap_or_else(|| panic!("group {i} took no part in the match"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Haystacks where `regex` and `regex-lite` disagree.
    const UNICODE: &[(&str, &str)] = &[
        // Kelvin sign: a `k` to Unicode case folding, not to ASCII's.
        (r"(?i)^ok$", "o\u{212A}"),
        // No-break space: white space to Unicode, not to ASCII.
        (r"^a\sb$", "a\u{a0}b"),
        (r"^\S+$", "a\u{a0}b"),
        // A Greek letter: a word character to Unicode only.
        (r"^\w$", "δ"),
        (r"x\b", "xδ"),
        (r"^\d$", "٣"),
    ];

    #[test]
    fn every_build_answers_as_regex_lite_also_where_regex_would_not() {
        for (pattern, hay) in UNICODE {
            let p = Pattern::new(pattern).expect("compiles");
            let lite = regex_lite::Regex::new(pattern).expect("lite");
            let unicode = regex::Regex::new(pattern).expect("regex");
            // The cases are chosen where the engines differ: the test shows which one counts.
            assert_ne!(
                unicode.is_match(hay),
                lite.is_match(hay),
                "{pattern} on {hay:?}"
            );
            assert_eq!(p.is_match(hay), lite.is_match(hay), "{pattern} on {hay:?}");
            assert_eq!(
                p.captures(hay).is_some(),
                lite.is_match(hay),
                "{pattern} on {hay:?}"
            );
        }
    }

    #[test]
    fn groups_are_the_leftmost_match_s_on_either_engine() {
        let p = Pattern::new(r"flavor (\S+?)(?:,|;|$)(x)?").expect("compiles");
        for hay in ["in flavor a, flavor b;", "in flavor ä, flavor b;"] {
            let all: Vec<_> = p.captures_iter(hay).collect();
            assert_eq!(p.find(hay).map(|r| &hay[r]), all[0].get(0));
            let firsts: Vec<_> = all.iter().map(|g| g.get(1)).collect();
            assert_eq!(
                firsts,
                [hay.split(' ').nth(2).map(|s| &s[..s.len() - 1]), Some("b")]
            );
            assert_eq!(all[0].get(2), None, "a group that took no part");
            assert_eq!(all[0].get(9), None, "no such group");
            assert_eq!(p.captures(hay), all.first().cloned());
        }
        assert!(p.captures("no flavour here").is_none());
        assert_eq!(p.captures_iter("no flavour here").count(), 0);
        assert_eq!(p.find("no flavour here"), None);
    }

    /// `regex` compiles a pattern the first time an ASCII haystack asks, and only then.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn the_native_engine_is_made_when_first_asked() {
        let p = Pattern::new(r"insufficient (\w+)").expect("compiles");
        assert!(p.0.ascii.get().is_none(), "not made with the pattern");
        assert!(p.is_match("insufficient quotä"));
        assert!(
            p.0.ascii.get().is_none(),
            "a haystack beyond ASCII asks regex-lite"
        );
        let copy = p.clone();
        assert_eq!(
            &p.captures("insufficient quota").expect("a match")[1],
            "quota"
        );
        assert!(
            p.0.ascii.get().is_some_and(Option::is_some),
            "made once asked"
        );
        assert!(
            copy.0.ascii.get().is_none(),
            "a copy made before keeps its own"
        );
        assert!(copy.is_match("insufficient quota"));
    }

    #[test]
    fn a_pattern_regex_lite_refuses_is_refused_with_its_reason() {
        // Unicode classes are `regex`'s alone: refused in every build, not only in WASM.
        let e = Pattern::new(r"\p{Greek}").expect_err("refused");
        assert!(!e.to_string().is_empty());
        assert!(Pattern::new("(unclosed").is_err());
        assert_eq!(Pattern::new("a.b").expect("compiles").as_str(), "a.b");
    }
}
