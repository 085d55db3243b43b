//! The language a diagnosis is written in (`--lang en|ko`, issue 19), and the Korean texts.
//!
//! English is the texts' own language: the rule files, `rules/engine.yaml`, `rules/facts.yaml`
//! and `rules/ui.yaml`. Korean is a *pack* beside them: every rule file's `ko:` block and the
//! `*.ko.yaml` twins, gathered by build.rs into one JSON text. Builds with the `ko-embedded`
//! feature (the CLI) carry the pack; the WASM module does not, and is handed the pack by its
//! JavaScript side ([`install`]), so an English-only page does not download it.
//!
//! The facts write sentences deep inside the view's builders; rather than hand the language to
//! each of them, a diagnosis sets it for its own thread for as long as it runs ([`scoped`]).
//! That is the only state the core keeps outside its arguments, and it is never left set: a
//! call in one language cannot change what a later call in another says.

use crate::layer::{Layer, LayerState};
use serde::Deserialize;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// A language the core can write in (its code in JSON: `en`, `ko`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    Ko,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Ko];

    /// Its code, as `--lang`, the npm option and the URL fragment write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ko => "ko",
        }
    }

    /// A code as a person may write it (`ko`, `KO`, `ko-KR`, `ko_KR.UTF-8`); None for one the
    /// core has no texts for.
    pub fn parse(s: &str) -> Option<Lang> {
        let code = s
            .trim()
            .split(['-', '_', '.'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        Lang::ALL.into_iter().find(|l| l.as_str() == code)
    }

    /// [`Lang::parse`], or an error that names the code and the languages there are.
    pub fn from_code(s: &str) -> Result<Lang, LangError> {
        Lang::parse(s).ok_or_else(|| LangError::Unknown(s.to_string()))
    }
}

/// The languages there are, as an error lists them (`en and ko`).
fn known_codes() -> String {
    let codes: Vec<&str> = Lang::ALL.iter().map(|l| l.as_str()).collect();
    codes.join(" and ")
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A rule's texts in another language (the `ko:` block of its file).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleTexts {
    pub summary: Option<String>,
    pub message: Option<String>,
    pub observation: Option<String>,
    pub headline: Option<String>,
    pub why: Option<String>,
    pub fix: Option<String>,
    #[serde(default)]
    pub absent: BTreeMap<String, String>,
}

/// Every Korean text: by rule id, and the engine's, the facts' and the renderers' twins.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pack {
    pub rules: BTreeMap<String, RuleTexts>,
    /// `rules/engine.ko.yaml`, as YAML text (the engine reads it as it reads its English).
    pub engine: String,
    pub facts: BTreeMap<String, String>,
    pub ui: BTreeMap<String, String>,
}

/// Why the Korean texts are not at hand.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LangError {
    #[error(
        "the Korean texts are not in this build: the npm package loads them with the module (see its README), a Rust build needs the core's `ko-embedded` feature"
    )]
    NotInstalled,
    #[error("the Korean texts do not read: {0}")]
    Unreadable(String),
    #[error("the Korean texts were already installed")]
    AlreadyInstalled,
    #[error("`{0}` is not a language kubectl-layer writes; it writes {codes}", codes = known_codes())]
    Unknown(String),
}

static PACK: OnceLock<Pack> = OnceLock::new();

/// Hand the core its Korean texts (the JSON build.rs writes, shipped beside the WASM module).
/// Once per process: the texts are fixed for its life.
pub fn install(pack_json: &str) -> Result<(), LangError> {
    let pack: Pack =
        serde_json::from_str(pack_json).map_err(|e| LangError::Unreadable(e.to_string()))?;
    PACK.set(pack).map_err(|_| LangError::AlreadyInstalled)
}

/// The Korean texts: the embedded ones, else those [`install`]ed.
pub fn pack() -> Result<&'static Pack, LangError> {
    if let Some(p) = PACK.get() {
        return Ok(p);
    }
    let embedded = crate::embedded::KO_PACK;
    if embedded.is_empty() {
        return Err(LangError::NotInstalled);
    }
    let pack: Pack =
        serde_json::from_str(embedded).map_err(|e| LangError::Unreadable(e.to_string()))?;
    // Another thread may have set it meanwhile; either copy is the same text.
    Ok(PACK.get_or_init(|| pack))
}

/// Whether this build can write `lang` without being handed texts.
pub fn available(lang: Lang) -> bool {
    lang == Lang::En || pack().is_ok()
}

/// The words renderers write around a diagnosis, in one language: `rules/ui.yaml`, or its
/// Korean twin from the language pack (a word the twin lacks reads as the English).
#[derive(Debug, Clone, Copy)]
pub struct Words {
    lang: Lang,
    own: &'static BTreeMap<String, String>,
}

static UI_EN: std::sync::LazyLock<BTreeMap<String, String>> = std::sync::LazyLock::new(|| {
    // Embedded at build time and parsed by a test, so a broken file never ships.
    serde_json::from_str(crate::embedded::UI_TEXTS).unwrap_or_default()
});

impl Words {
    /// The words of `lang`; English where this build has no Korean texts.
    pub fn of(lang: Lang) -> Words {
        let own = match lang {
            Lang::Ko => pack().map(|p| &p.ui).ok(),
            Lang::En => None,
        };
        match own {
            Some(own) => Words { lang, own },
            None => Words {
                lang: Lang::En,
                own: &UI_EN,
            },
        }
    }

    /// The words of a language code as a diagnosis's `lang` holds it (absent: English).
    pub fn of_code(code: Option<&str>) -> Words {
        Words::of(code.and_then(Lang::parse).unwrap_or_default())
    }

    pub fn lang(self) -> Lang {
        self.lang
    }

    /// One word or phrase; its key where no file has it (a test holds every key used).
    pub fn get(self, key: &str) -> &'static str {
        self.own
            .get(key)
            .or_else(|| UI_EN.get(key))
            .map_or("", String::as_str)
    }

    /// A phrase with its `{name}` placeholders filled in one pass, so a value that itself
    /// reads `{other}` is shown as it is, never filled again.
    pub fn fill(self, key: &str, vars: &[(&str, &str)]) -> String {
        let template = self.get(key);
        let mut out = String::with_capacity(template.len() + 32);
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            match after
                .find('}')
                .and_then(|close| Some((close, vars.iter().find(|(k, _)| *k == &after[..close])?)))
            {
                Some((close, (_, value))) => {
                    out.push_str(value);
                    rest = &after[close + 1..];
                }
                None => {
                    out.push('{');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    /// Every word, by key: what a page shows around a diagnosis, from the same files as the
    /// renderers (a key the language lacks reads as the English).
    pub fn all(self) -> BTreeMap<&'static str, &'static str> {
        UI_EN.keys().map(|k| (k.as_str(), self.get(k))).collect()
    }

    pub fn layer(self, l: Layer) -> &'static str {
        self.get(&format!("layer.{}", l.as_str()))
    }

    pub fn state(self, s: LayerState) -> &'static str {
        self.get(&format!("state.{}", s.as_str()))
    }
}

thread_local! {
    static CURRENT: Cell<Lang> = const { Cell::new(Lang::En) };
}

/// The language the diagnosis running on this thread is written in.
pub fn current() -> Lang {
    CURRENT.with(Cell::get)
}

/// Run `f` writing in `lang`, and put back what was set before, also when `f` panics.
pub fn scoped<R>(lang: Lang, f: impl FnOnce() -> R) -> R {
    struct Restore(Lang);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.replace(lang)));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_read_as_people_write_them() {
        assert_eq!(Lang::parse("ko"), Some(Lang::Ko));
        assert_eq!(Lang::parse("KO"), Some(Lang::Ko));
        assert_eq!(Lang::parse("ko_KR.UTF-8"), Some(Lang::Ko));
        assert_eq!(Lang::parse("en-US"), Some(Lang::En));
        assert_eq!(Lang::parse("fr"), None);
        assert_eq!(Lang::parse(""), None);
    }

    #[test]
    fn a_scope_puts_back_the_language_it_found() {
        assert_eq!(current(), Lang::En);
        scoped(Lang::Ko, || {
            assert_eq!(current(), Lang::Ko);
            scoped(Lang::En, || assert_eq!(current(), Lang::En));
            assert_eq!(current(), Lang::Ko);
        });
        assert_eq!(current(), Lang::En);
        let panicked = std::panic::catch_unwind(|| scoped(Lang::Ko, || panic!("inside")));
        assert!(panicked.is_err());
        assert_eq!(
            current(),
            Lang::En,
            "a panic inside does not leave Korean set"
        );
    }

    #[test]
    fn the_embedded_pack_reads_and_has_every_rule() {
        let pack = pack().expect("the tests build with ko-embedded");
        let rules = crate::embedded::RULES.len();
        assert_eq!(pack.rules.len(), rules, "one ko: block per rule file");
        assert!(!pack.engine.is_empty() && !pack.facts.is_empty() && !pack.ui.is_empty());
    }
}
