//! `kubectl cluster-info dump` printed to standard output, as people paste it or pipe it to a
//! file: typed Lists one after another (read as any JSON or YAML stream), and after each
//! namespace's pods the log of every container between a `==== START logs for container C of
//! pod NS/P ====` line and its `==== END … ====` line. kubectl 1.4 to 1.18 also ended it with
//! the line `Cluster info dumped to standard output` (1.19 stopped printing it to standard
//! output). Neither a log nor that line is an object: [`set_aside`] takes them out before the
//! text is read, here in the core so that the CLI, the npm package and the page read a dump
//! alike.
//!
//! Each line taken out leaves its line end, so an error in what is left names the line of the
//! text as it was given.

/// The line kubectl writes before each container's log (then `<container> of pod <ns>/<pod> ====`).
const LOG_START: &str = "==== START logs for container ";
/// The line it writes after it, naming the same container.
const LOG_END: &str = "==== END logs for container ";
/// How both lines end.
const MARK_CLOSE: &str = " ====";
/// What kubectl 1.4 to 1.18 printed last when the dump went to standard output.
const OLD_TRAILER: &str = "Cluster info dumped to standard output";

/// What was taken out of a dump.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct SetAside {
    /// Each log section, named as kubectl named it (`container train of pod ml/p-0`).
    pub logs: Vec<String>,
    /// The line of a section that has no END line: everything from it on was set aside.
    pub open_from: Option<usize>,
    /// The old kubectl's closing line was there.
    pub trailer: bool,
}

impl SetAside {
    /// What the diagnosis says of it (`inputNotes`); None when only the trailer went.
    pub(crate) fn note(&self) -> Option<String> {
        let n = self.logs.len();
        if n == 0 {
            return None;
        }
        let mut note = format!(
            "`kubectl cluster-info dump` output: {n} container log {} set aside (logs are \
             not objects; read one with `kubectl logs`)",
            if n == 1 { "section" } else { "sections" }
        );
        if let Some(line) = self.open_from {
            note.push_str(&format!(
                "; the one from line {line} has no END line, so everything after it was set \
                 aside too"
            ));
        }
        Some(note)
    }
}

/// Take the container logs and the old closing line out of `text`; None (and `text` as it
/// was) when it holds neither. A line of JSON or YAML never starts with `====`, and the
/// trailer is taken only as the last line that is not blank, where no valid object ends.
pub(crate) fn set_aside(text: &mut String) -> Option<SetAside> {
    let has_logs = text.starts_with(LOG_START) || text.contains(&format!("\n{LOG_START}"));
    let trailer_at = trailer(text);
    if !has_logs && trailer_at.is_none() {
        return None;
    }
    let mut aside = SetAside::default();
    if let Some(at) = trailer_at {
        text.truncate(at);
        aside.trailer = true;
    }
    if has_logs {
        cut_logs(text, &mut aside);
    }
    Some(aside)
}

/// Where the old closing line starts, when it is the last line that is not blank.
fn trailer(text: &str) -> Option<usize> {
    let body = text.trim_end();
    let last = body.rfind('\n').map_or(0, |i| i + 1);
    (body[last..].trim_end_matches('\r') == OLD_TRAILER).then_some(last)
}

/// The log sections out of `text`, each line's end kept. A log whose last line has no line end
/// runs into its END line (`…last words==== END logs for …`), so a section ends at the line
/// that ends with its own END mark, wherever that mark starts.
fn cut_logs(text: &mut String, aside: &mut SetAside) {
    let mut kept = String::with_capacity(text.len());
    let mut open: Option<(String, usize)> = None;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        match &open {
            None => match bare.strip_prefix(LOG_START) {
                Some(rest) => {
                    let what = rest.strip_suffix(MARK_CLOSE).unwrap_or(rest).trim();
                    aside.logs.push(format!("container {what}"));
                    open = Some((format!("{LOG_END}{what}{MARK_CLOSE}"), i + 1));
                }
                None => {
                    kept.push_str(line);
                    continue;
                }
            },
            Some((end, _)) if bare.ends_with(end.as_str()) => open = None,
            Some(_) => {}
        }
        if line.ends_with('\n') {
            kept.push('\n');
        }
    }
    aside.open_from = open.map(|(_, line)| line);
    *text = kept;
}

#[cfg(test)]
mod tests {
    use super::{SetAside, set_aside};

    fn aside(text: &str) -> (String, Option<SetAside>) {
        let mut t = text.to_string();
        let a = set_aside(&mut t);
        (t, a)
    }

    #[test]
    fn logs_go_and_their_lines_stay_counted() {
        let dump = "{\"kind\": \"NodeList\", \"items\": []}\n\
            ==== START logs for container main of pod ml/p-0 ====\n\
            {\"not\": \"an object\"}\n\
            ==== END logs for container main of pod ml/p-0 ====\n\
            {\"kind\": \"PodList\", \"items\": []}\n";
        let (kept, a) = aside(dump);
        assert_eq!(
            kept,
            "{\"kind\": \"NodeList\", \"items\": []}\n\n\n\n{\"kind\": \"PodList\", \"items\": []}\n"
        );
        let a = a.unwrap();
        assert_eq!(a.logs, ["container main of pod ml/p-0"]);
        assert_eq!(a.open_from, None);
        assert!(
            a.note()
                .unwrap()
                .contains("1 container log section set aside")
        );
    }

    #[test]
    fn a_log_without_a_last_line_end_still_ends_at_its_own_end_mark() {
        let dump = "==== START logs for container a of pod ml/p ====\n\
            started\n\
            ==== START logs for container x of pod other/q ====\n\
            last words==== END logs for container a of pod ml/p ====\n\
            {\"kind\": \"PodList\", \"items\": []}\n";
        let (kept, a) = aside(dump);
        assert_eq!(kept, "\n\n\n\n{\"kind\": \"PodList\", \"items\": []}\n");
        assert_eq!(a.unwrap().logs, ["container a of pod ml/p"]);
    }

    #[test]
    fn a_section_left_open_says_from_which_line() {
        let (kept, a) = aside("{}\n==== START logs for container c of pod n/p ====\n{}\n");
        assert_eq!(kept, "{}\n\n\n");
        let a = a.unwrap();
        assert_eq!(a.open_from, Some(2));
        assert!(
            a.note().unwrap().contains("from line 2 has no END line"),
            "{a:?}"
        );
    }

    #[test]
    fn the_old_closing_line_goes_only_as_the_last_line() {
        let (kept, a) =
            aside("{\"kind\": \"PodList\"}\nCluster info dumped to standard output\n\n");
        assert_eq!(kept, "{\"kind\": \"PodList\"}\n");
        let a = a.unwrap();
        assert!(a.trailer && a.logs.is_empty() && a.note().is_none());
        // Anywhere else, or written otherwise, it is the reader's to refuse.
        let inside = "Cluster info dumped to standard output\n{}\n";
        assert_eq!(aside(inside), (inside.to_string(), None));
        let other = "{}\nCluster info dumped to /tmp/dump\n";
        assert_eq!(aside(other), (other.to_string(), None));
        let plain = "a: 1\n";
        assert_eq!(aside(plain), (plain.to_string(), None));
    }
}
