//! The shape of `kubectl describe` text: lines nested by their indentation into a tree of
//! `Key: value` entries (kubectl's PrefixWriter indents two spaces a level, and its tabwriter
//! pads the value column with spaces, so only the indentation before the key tells the level).

/// A line of the input and its 1-based number.
pub(crate) type Numbered<'a> = (usize, &'a str);

/// One entry: a `Key: value` line, or a line without a key (a label continuation, a table row,
/// a list item), with the lines indented under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry<'a> {
    /// 1-based line number in the whole input, for errors and notes.
    pub line: usize,
    pub indent: usize,
    pub key: Option<&'a str>,
    /// The value after the key, or the whole trimmed line when there is no key.
    pub value: &'a str,
    /// The whole trimmed line, key included (a container's `Args:` lines are values that may
    /// hold `: ` themselves).
    pub raw: &'a str,
    pub children: Vec<Entry<'a>>,
}

impl<'a> Entry<'a> {
    /// The first child whose key is `key`.
    pub fn child(&self, key: &str) -> Option<&Entry<'a>> {
        self.children.iter().find(|c| c.key == Some(key))
    }

    /// Every line under this entry, at any depth, in order, as written (trimmed).
    pub fn lines_below(&self) -> Vec<&'a str> {
        let mut out = Vec::new();
        for c in &self.children {
            out.push(c.raw);
            out.extend(c.lines_below());
        }
        out
    }

    /// The value of the child `key`, when it is not kubectl's `<none>`/`<unset>`/empty.
    pub fn text(&self, key: &str) -> Option<&'a str> {
        self.child(key).and_then(|c| present(c.value))
    }
}

/// `None` for the values kubectl prints when there is nothing.
pub(crate) fn present(v: &str) -> Option<&str> {
    match v.trim() {
        "" | "<none>" | "<unset>" | "<nil>" | "<unknown>" => None,
        v => Some(v),
    }
}

/// `Key:` or `Key:<spaces>value`: the key ends at the first colon followed by white space or the
/// end of the line (so `nvidia.com/gpu:NoSchedule` and `image:tag` are values, not keys).
pub(crate) fn split_key(text: &str) -> (Option<&str>, &str) {
    let b = text.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c == b':' && (i + 1 == b.len() || b[i + 1] == b' ' || b[i + 1] == b'\t') {
            if i == 0 {
                break;
            }
            return (Some(&text[..i]), text[i + 1..].trim());
        }
    }
    (None, text.trim())
}

/// Where each word of a table header starts, in characters (kubectl's tabwriter aligns every
/// row's cells under them, counting characters).
pub(crate) fn column_starts(header: &str) -> Vec<usize> {
    let chars: Vec<char> = header.chars().collect();
    (0..chars.len())
        .filter(|&i| !chars[i].is_whitespace() && (i == 0 || chars[i - 1].is_whitespace()))
        .collect()
}

/// A table row cut at `starts`, each cell trimmed; the last cell runs to the end of the row.
pub(crate) fn cells_at(row: &str, starts: &[usize]) -> Vec<String> {
    let chars: Vec<char> = row.chars().collect();
    let end_of = |i: usize| {
        starts
            .get(i + 1)
            .copied()
            .unwrap_or(chars.len())
            .min(chars.len())
    };
    (0..starts.len())
        .map(|i| {
            let end = end_of(i);
            let cell: String = chars[starts[i].min(end)..end].iter().collect();
            cell.trim().to_string()
        })
        .collect()
}

/// Each `(label, field)` whose label has a value under `e`, copied into `m` as text.
pub(crate) fn copy_texts(
    e: &Entry,
    fields: &[(&str, &str)],
    m: &mut serde_json::Map<String, serde_json::Value>,
) {
    for (label, field) in fields {
        if let Some(v) = e.text(label) {
            m.insert((*field).into(), serde_json::Value::from(v));
        }
    }
}

/// Count leading spaces (a tab counts as kubectl's tabwriter would never write one there: as
/// one column).
fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// Nest `lines` (numbered from `first_line`) by indentation. Deeper than `max_depth` levels is
/// an error naming the line, so no later step recurses without bound.
pub(crate) fn tree<'a>(
    lines: &[Numbered<'a>],
    max_depth: usize,
) -> Result<Vec<Entry<'a>>, (usize, String)> {
    // The open entries, outermost first; each is attached to its parent when it closes.
    let mut open: Vec<Entry<'a>> = Vec::new();
    let mut roots: Vec<Entry<'a>> = Vec::new();
    for &(no, raw) in lines {
        if raw.trim().is_empty() {
            continue;
        }
        let indent = indent_of(raw);
        while open.last().is_some_and(|e| e.indent >= indent) {
            close(&mut open, &mut roots);
        }
        if open.len() >= max_depth {
            return Err((no, format!("nested deeper than {max_depth} levels")));
        }
        let (key, value) = split_key(raw.trim());
        open.push(Entry {
            line: no,
            indent,
            key,
            value,
            raw: raw.trim(),
            children: Vec::new(),
        });
    }
    while !open.is_empty() {
        close(&mut open, &mut roots);
    }
    Ok(roots)
}

fn close<'a>(open: &mut Vec<Entry<'a>>, roots: &mut Vec<Entry<'a>>) {
    let Some(e) = open.pop() else { return };
    match open.last_mut() {
        Some(parent) => parent.children.push(e),
        None => roots.push(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(text: &str) -> Vec<(usize, &str)> {
        text.lines().enumerate().map(|(i, l)| (i + 1, l)).collect()
    }

    #[test]
    fn keys_end_at_a_colon_before_white_space() {
        assert_eq!(
            split_key("Image:   nginx:1.27"),
            (Some("Image"), "nginx:1.27")
        );
        assert_eq!(
            split_key("Controlled By:  Job/x"),
            (Some("Controlled By"), "Job/x")
        );
        assert_eq!(split_key("Limits:"), (Some("Limits"), ""));
        assert_eq!(
            split_key("nvidia.com/gpu:NoSchedule op=Exists"),
            (None, "nvidia.com/gpu:NoSchedule op=Exists")
        );
        assert_eq!(split_key(": odd"), (None, ": odd"));
    }

    #[test]
    fn entries_nest_by_indentation() {
        let t = tree(
            &numbered("Name:  a\nLabels:  x=1\n         y=2\nSpec:\n  Queue Name:  q\nKind:  W"),
            8,
        )
        .unwrap();
        assert_eq!(t.len(), 4);
        assert_eq!(t[1].children[0].value, "y=2");
        assert_eq!(t[2].text("Queue Name"), Some("q"));
        assert_eq!(t[2].children[0].line, 5);
    }

    #[test]
    fn too_deep_names_the_line() {
        let deep: String = (0..20).map(|i| format!("{}K:\n", " ".repeat(i))).collect();
        assert_eq!(tree(&numbered(&deep), 10).unwrap_err().0, 11);
    }
}
