//! A scan's report as JSON text, built from each diagnosis's compact text rather than from the
//! diagnoses themselves: what `kubectl layer scan -o json` prints and the npm package's `scan()`
//! returns, byte for byte what serde_json writes for the whole [`ScanReport`].
//!
//! Why: a backlog's report is larger than its bundle, and a `Diagnosis` in memory (strings,
//! vectors, JSON values, each with its own allocation) takes about twice its compact text.
//! Each diagnosis is serialized on the thread that made it and dropped there. The pretty form
//! is written from the compact text by [`pretty`], which indents as serde_json's
//! `PrettyFormatter` does; a test holds both to the same bytes on every scenario.
//!
//! [`ScanReport`]: crate::diagnosis::ScanReport

use crate::diagnosis::{Diagnosis, SCHEMA_VERSION};
use crate::layer::LayerState;
use std::io::Write;

/// One listed diagnosis: its verdict's state (for exit statuses and counts) and its compact
/// JSON.
pub struct Part {
    pub state: LayerState,
    json: Box<str>,
}

impl Part {
    pub fn of(d: &Diagnosis) -> Part {
        Part {
            state: d.verdict.state,
            // A diagnosis is plain data with string keys: serializing it cannot fail.
            json: serde_json::to_string(d)
                .unwrap_or_default()
                .into_boxed_str(),
        }
    }

    /// The diagnosis's compact JSON.
    pub fn json(&self) -> &str {
        &self.json
    }
}

/// A scan's report, ready to write.
pub struct ScanJson {
    parts: Vec<Part>,
}

impl ScanJson {
    pub(crate) fn new(parts: Vec<Part>) -> ScanJson {
        ScanJson { parts }
    }

    /// The listed diagnoses, in the report's order.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// The report as serde_json's `to_writer` writes it (compact).
    pub fn write_compact(&self, w: &mut dyn Write) -> std::io::Result<()> {
        write!(
            w,
            "{{\"schemaVersion\":{},\"diagnoses\":[",
            quoted(SCHEMA_VERSION)
        )?;
        for (i, p) in self.parts.iter().enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            w.write_all(p.json.as_bytes())?;
        }
        w.write_all(b"]}")
    }

    /// The report as serde_json's `to_writer_pretty` writes it (two spaces an indent).
    pub fn write_pretty(&self, w: &mut dyn Write) -> std::io::Result<()> {
        write!(
            w,
            "{{\n  \"schemaVersion\": {},\n  \"diagnoses\": [",
            quoted(SCHEMA_VERSION)
        )?;
        let mut buf = Vec::new();
        for (i, p) in self.parts.iter().enumerate() {
            buf.clear();
            buf.extend_from_slice(if i == 0 { b"\n    " } else { b",\n    " });
            pretty(&p.json, 2, &mut buf);
            w.write_all(&buf)?;
        }
        if self.parts.is_empty() {
            w.write_all(b"]\n}")
        } else {
            w.write_all(b"\n  ]\n}")
        }
    }

    /// [`ScanJson::write_compact`] into a string.
    pub fn to_compact_string(&self) -> String {
        let mut out = Vec::with_capacity(self.parts.iter().map(|p| p.json.len() + 1).sum());
        // Writing into a Vec cannot fail.
        let _ = self.write_compact(&mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// `compact` (JSON as serde_json writes it compactly) indented as serde_json's pretty printer
/// writes it when the value starts `depth` levels in: a newline and two spaces a level after
/// each opening bracket and comma, `": "` between a key and its value, and empty arrays and
/// objects kept as `[]` and `{}`. Only the bytes outside strings are read as structure.
pub fn pretty(compact: &str, depth: usize, out: &mut Vec<u8>) {
    let bytes = compact.as_bytes();
    let mut depth = depth;
    let newline = |out: &mut Vec<u8>, depth: usize| {
        out.push(b'\n');
        out.extend(std::iter::repeat_n(b' ', depth * 2));
    };
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'"' => {
                // Copy the string through its closing quote; an escape takes the next byte
                // with it, so an escaped quote does not end it.
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                out.extend_from_slice(&bytes[start..i]);
                continue;
            }
            b'{' | b'[' => {
                let close = if b == b'{' { b'}' } else { b']' };
                if bytes.get(i + 1) == Some(&close) {
                    out.extend_from_slice(&[b, close]);
                    i += 2;
                    continue;
                }
                out.push(b);
                depth += 1;
                newline(out, depth);
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                newline(out, depth);
                out.push(b);
            }
            b',' => {
                out.push(b',');
                newline(out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            _ => out.push(b),
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pretty_indents_as_serde_json_does() {
        let v = json!({
            "a": "x\"{,:}[] \\\" \\",
            "b": [],
            "c": {},
            "d": [1, {"e": null, "f": [true, false, -1.5e-7]}, [[]], [{}]],
            "g:h": "ünïcödé \u{1} \n",
            "": ""
        });
        let compact = serde_json::to_string(&v).unwrap();
        let mut out = Vec::new();
        pretty(&compact, 0, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string_pretty(&v).unwrap()
        );
        // Nested: as the value of a member two levels in.
        let outer = json!({"k": [v.clone()]});
        let mut out = b"{\n  \"k\": [\n    ".to_vec();
        pretty(&compact, 2, &mut out);
        out.extend_from_slice(b"\n  ]\n}");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string_pretty(&outer).unwrap()
        );
    }

    #[test]
    fn an_empty_report_writes_as_serde_json_does() {
        let empty = ScanJson::new(Vec::new());
        let report = crate::diagnosis::ScanReport {
            schema_version: SCHEMA_VERSION.into(),
            diagnoses: Vec::new(),
        };
        let mut out = Vec::new();
        empty.write_pretty(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string_pretty(&report).unwrap()
        );
        assert_eq!(
            empty.to_compact_string(),
            serde_json::to_string(&report).unwrap()
        );
    }
}
