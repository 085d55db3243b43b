//! Text from a bundle made safe for a terminal, and without the credentials a URL in it carries. Below the renderers and the picture, which
//! both show bundle text (and so cannot import each other for it).

use std::fmt::Write as _;

/// A character a terminal would act on rather than show: C0 and C1 controls (ESC starts colour,
/// cursor and OSC title sequences; BEL, CR and backspace rewrite what was shown), DEL, and the
/// bidirectional and line-separator formatting marks that reorder or break a line (U+202E
/// shows the rest of a line backwards).
fn acts_on_terminal(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}'
        )
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// Text from a bundle, made safe to print on a terminal: every character a terminal would act
/// on is written as a visible escape (`\u{1b}`), a newline as `↵`, so nothing is lost and
/// nothing is obeyed. Any pod can set its own termination message; the admin who runs `why`
/// must not have their terminal driven by it. A URL's user information (a password) is left
/// out too ([`crate::credentials`]): every line the tool writes for a person passes here, the
/// errors that quote the API server's address included.
pub fn for_terminal(s: &str) -> std::borrow::Cow<'_, str> {
    let s = crate::credentials::without_userinfo(s);
    if !s.chars().any(acts_on_terminal) {
        return s;
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push('↵'),
            c if acts_on_terminal(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}
