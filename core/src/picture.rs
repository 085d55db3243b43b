//! The diagnosis as a picture: the layer stack the course note draws — a pod's path admission →
//! grouping → placement → runtime → serving, with device as the floor under placement and
//! runtime — each layer coloured by its state and showing its state word and who decided, the
//! blocking layer marked, and a misalignment drawn as a dashed arrow from the layer that said
//! yes to the one that said no.
//!
//! [`mermaid`] writes it as a Mermaid flowchart (GitHub renders ```` ```mermaid ```` blocks in
//! issues); the web page draws the same stack as SVG (`web-demo/src/picture.mjs`). Node ids are
//! the contract's layer names; what a node shows goes through the caller's layer-name function,
//! so another language's names need no second picture. Every text from a bundle goes through
//! [`for_mermaid`].

use crate::diagnosis::Diagnosis;
use crate::lang::Words;
use crate::layer::{Layer, LayerState};
use std::fmt::Write as _;

/// The pod's path, in order; device is drawn under placement and runtime, not on the path.
pub const PATH: [Layer; 5] = [
    Layer::Admission,
    Layer::Grouping,
    Layer::Placement,
    Layer::Runtime,
    Layer::Serving,
];

/// The path layers the device layer is the floor of.
pub const ON_DEVICE: [Layer; 2] = [Layer::Placement, Layer::Runtime];

/// The Mermaid class of the layer the verdict blocks at (added to its state's class).
pub const BLOCKING_CLASS: &str = "blocking";

/// The longest misalignment text drawn on the arrow; the full text is in the table beside it.
const ARROW_TEXT_CHARS: usize = 80;

/// Each state's Mermaid class: fill, stroke and text colour (the state word is in every box too,
/// so the picture does not rely on colour alone).
const STATE_STYLES: [(LayerState, &str); 5] = [
    (LayerState::Ok, "fill:#dcefe2,stroke:#1d7a3a,color:#0b2e16"),
    (
        LayerState::Blocked,
        "fill:#f6d6d3,stroke:#b3261e,color:#3d0b07",
    ),
    (
        LayerState::Warn,
        "fill:#f6e7c4,stroke:#8a5a00,color:#2e1f00",
    ),
    (
        LayerState::Unknown,
        "fill:#e5e7eb,stroke:#6b7280,color:#1d1f21",
    ),
    (
        LayerState::NotInvolved,
        "fill:#f3f4f6,stroke:#9ca3af,color:#4b5563,stroke-dasharray:4 3",
    ),
];

/// The words a box shows for a state (the JSON's `notInvolved` reads as two words).
pub fn state_words(state: LayerState) -> &'static str {
    match state {
        LayerState::NotInvolved => "not involved",
        s => s.as_str(),
    }
}

/// [`state_words`] in the diagnosis's language.
fn box_state_words(state: LayerState, words: Words) -> &'static str {
    match state {
        LayerState::NotInvolved => words.get("picture.notInvolved"),
        s => words.state(s),
    }
}

/// Bundle text made safe for a quoted Mermaid label inside a Markdown fence: letters, digits,
/// spaces and a few harmless marks stay; every other character (quotes, brackets, backticks,
/// `<`, `>`, `&`, `#`, `;`, `|`, `\`) is written as Mermaid's `#NNN;` entity, so the text
/// cannot close its label, start a link or an HTML tag, nor close the fence. Controls and
/// newlines are first shown as the terminal shows them (`↵`, `\u{1b}`).
pub fn for_mermaid(s: &str) -> String {
    let s = crate::escape::for_terminal(s);
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_alphanumeric() || matches!(c, ' ' | '.' | ',' | ':' | '/' | '_' | '-' | '↵') {
            out.push(c);
        } else {
            let _ = write!(out, "#{};", c as u32);
        }
    }
    out
}

/// The layer the verdict blocks at, if it blocks.
pub fn blocking_layer(d: &Diagnosis) -> Option<Layer> {
    match d.verdict.state {
        LayerState::Blocked => d.verdict.layer,
        _ => None,
    }
}

/// The words on the misalignment arrow: who said yes, who said no, and why (shortened).
fn arrow_text(d: &Diagnosis, name: &dyn Fn(Layer) -> String, words: Words) -> Option<String> {
    let m = d.verdict.misalignment.as_ref()?;
    let why: String = if m.why.chars().count() > ARROW_TEXT_CHARS {
        format!(
            "{}…",
            m.why.chars().take(ARROW_TEXT_CHARS).collect::<String>()
        )
    } else {
        m.why.clone()
    };
    let yes = if m.said_yes_by_configuration {
        words.fill("saidYesByConfiguration", &[("layer", &name(m.said_yes))])
    } else {
        name(m.said_yes)
    };
    Some(words.fill(
        "misalignment",
        &[
            ("saidYes", &for_mermaid(&yes)),
            ("saidNo", &for_mermaid(&name(m.said_no))),
            ("why", &for_mermaid(&why)),
        ],
    ))
}

/// The picture as a fenced ```` ```mermaid ```` block. `name` gives the word a box shows for a
/// layer (`Layer::as_str` in English).
pub fn mermaid(d: &Diagnosis, name: &dyn Fn(Layer) -> String) -> String {
    let words = Words::of_code(d.lang.as_deref());
    let blocking = blocking_layer(d);
    let report = |layer: Layer| d.layers.iter().find(|l| l.layer == layer);
    let state_of = |layer: Layer| report(layer).map_or(LayerState::Unknown, |l| l.state);
    let mut out = String::from("```mermaid\nflowchart LR\n");
    for layer in PATH.into_iter().chain([Layer::Device]) {
        let mark = if blocking == Some(layer) {
            format!("<br/>⛔ {}", words.get("picture.blocksHere"))
        } else {
            String::new()
        };
        let by = report(layer)
            .filter(|l| !l.decided_by.is_empty())
            .map_or(String::new(), |l| {
                format!("<br/>{}", for_mermaid(&l.decided_by.join(", ")))
            });
        let _ = writeln!(
            out,
            "  {}[\"<b>{}</b><br/>{}{mark}{by}\"]",
            layer.as_str(),
            for_mermaid(&name(layer)),
            box_state_words(state_of(layer), words)
        );
    }
    let path: Vec<&str> = PATH.iter().map(|l| l.as_str()).collect();
    let _ = writeln!(out, "  {}", path.join(" --> "));
    for above in ON_DEVICE {
        let _ = writeln!(out, "  {} --- {}", above.as_str(), Layer::Device.as_str());
    }
    if let (Some(m), Some(text)) = (&d.verdict.misalignment, arrow_text(d, name, words)) {
        let _ = writeln!(
            out,
            "  {} -.->|\"{text}\"| {}",
            m.said_yes.as_str(),
            m.said_no.as_str()
        );
    }
    for (state, style) in STATE_STYLES {
        let _ = writeln!(out, "  classDef {} {style}", state.as_str());
    }
    let _ = writeln!(out, "  classDef {BLOCKING_CLASS} stroke-width:4px");
    for layer in Layer::ALL {
        let _ = writeln!(
            out,
            "  class {} {}",
            layer.as_str(),
            state_of(layer).as_str()
        );
    }
    if let Some(layer) = blocking {
        let _ = writeln!(out, "  class {} {BLOCKING_CLASS}", layer.as_str());
    }
    out.push_str("```\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_text_cannot_leave_its_label_or_the_fence() {
        let hostile = "a\"] --> x[\"b`<img src=x>`\n```\n|c|;#quot; &amp;\\";
        let safe = for_mermaid(hostile);
        for c in ['"', '[', ']', '`', '<', '>', '|', '\n', '\\', '&'] {
            assert!(!safe.contains(c), "{c:?} left raw in {safe}");
        }
        // Nothing is lost: each character is there as a letter or an entity.
        assert!(safe.starts_with("a#34;#93; --#62; x#91;#34;b#96;#60;img src#61;x#62;#96;↵"));
        assert_eq!(for_mermaid("chat-frac-6b7c 장치"), "chat-frac-6b7c 장치");
    }
}
