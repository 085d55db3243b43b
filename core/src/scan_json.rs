//! A scan's report as JSON text, built from each diagnosis's compact text rather than from the
//! diagnoses themselves: what `kubectl layer scan -o json` prints and the npm package's `scan()`
//! returns, byte for byte what serde_json writes for the whole [`ScanReport`].
//!
//! Why: a backlog's report is larger than its bundle (14,496 diagnoses, 106 MB of compact JSON
//! from a 66 MB bundle), and the report can only be written once every diagnosis is made and
//! sorted. A `Diagnosis` in memory (strings, vectors, JSON values, each with its own
//! allocation) takes about twice its compact text, so each diagnosis is serialized on the
//! thread that made it and dropped there. Its text is then held packed: an LZ4 block against
//! a dictionary, the compact text of the first diagnosis of the scan's work. Diagnoses of one
//! cluster repeat each other's keys, layers, summaries and object references, so a backlog's
//! report packs 14 to 1 (106 MB to 7.4 MB; 3.5 to 1 without the dictionary), for about 5 µs a
//! diagnosis to pack and 1 µs to unpack.
//!
//! The pretty form is written from the compact text by [`pretty`], which indents as
//! serde_json's `PrettyFormatter` does; a test holds both to the same bytes on every scenario.
//!
//! [`ScanReport`]: crate::diagnosis::ScanReport

use crate::diagnosis::{Diagnosis, Incomplete, SCHEMA_VERSION};
use crate::layer::LayerState;
use std::io::Write;

/// One listed diagnosis: its verdict's state (for exit statuses and counts), its line (what
/// its group counts: [`crate::groups`]) and its compact JSON, packed against its report's
/// dictionary.
pub struct Part {
    pub state: LayerState,
    pub line: crate::scan_lines::ScanLine,
    packed: Box<[u8]>,
}

impl Part {
    pub(crate) fn of(d: &Diagnosis, dictionary: &str) -> Part {
        Part {
            state: d.verdict.state,
            line: crate::scan_lines::ScanLine::of(d),
            packed: lz4_flex::block::compress_prepend_size_with_dict(
                compact(d).as_bytes(),
                dictionary.as_bytes(),
            )
            .into_boxed_slice(),
        }
    }
}

/// A diagnosis's compact JSON. A diagnosis is plain data with string keys: serializing it
/// cannot fail.
pub(crate) fn compact(d: &Diagnosis) -> String {
    serde_json::to_string(d).unwrap_or_default()
}

/// A scan's report, ready to write.
pub struct ScanJson {
    /// What every part is packed against.
    dictionary: Box<str>,
    parts: Vec<Part>,
    /// Threads to unpack and indent with ([`crate::par::threads`]).
    threads: usize,
    /// What failed reads left unjudged, written after the diagnoses.
    incomplete: Option<Incomplete>,
    /// Whether the per-item diagnoses are left out (`--summary`): the groups say the rest.
    summary: bool,
}

impl ScanJson {
    pub(crate) fn new(dictionary: String, parts: Vec<Part>, threads: usize) -> ScanJson {
        ScanJson {
            dictionary: dictionary.into_boxed_str(),
            parts,
            threads,
            incomplete: None,
            summary: false,
        }
    }

    /// The report with what failed reads left unjudged.
    pub(crate) fn with_incomplete(mut self, incomplete: Option<Incomplete>) -> ScanJson {
        self.incomplete = incomplete;
        self
    }

    /// The report without its per-item diagnoses (`--summary`): the schema version, the groups
    /// and what failed reads left unjudged.
    pub fn summary(mut self) -> ScanJson {
        self.summary = true;
        self
    }

    /// The listed diagnoses grouped by cause ([`crate::groups::of_lines`]).
    pub fn groups(&self) -> Vec<crate::diagnosis::Group> {
        crate::groups::of_lines(self.parts.iter().map(|p| &p.line))
    }

    /// `groups`' member, compact (`[…]`).
    fn groups_member(&self) -> String {
        serde_json::to_string(&self.groups()).unwrap_or_default()
    }

    /// The listed diagnoses, in the report's order.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// What failed reads left unjudged, if any read failed.
    pub fn incomplete(&self) -> Option<&Incomplete> {
        self.incomplete.as_ref()
    }

    /// `incomplete`'s member, compact (`,"incomplete":{…}`), or nothing.
    fn incomplete_member(&self) -> Option<String> {
        let i = self.incomplete.as_ref()?;
        Some(serde_json::to_string(i).unwrap_or_default())
    }

    /// Part `i`'s compact JSON, unpacked into `out` (replacing what it held).
    fn unpack(&self, i: usize, out: &mut Vec<u8>) -> std::io::Result<()> {
        let failed = |e: &dyn std::fmt::Display| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "scan report: diagnosis {} of {} does not unpack: {e}",
                    i + 1,
                    self.parts.len()
                ),
            )
        };
        let (len, block) =
            lz4_flex::block::uncompressed_size(&self.parts[i].packed).map_err(|e| failed(&e))?;
        out.clear();
        out.resize(len, 0);
        let written =
            lz4_flex::block::decompress_into_with_dict(block, out, self.dictionary.as_bytes())
                .map_err(|e| failed(&e))?;
        if written != len {
            return Err(failed(&format!("{written} bytes where {len} were packed")));
        }
        Ok(())
    }

    /// Part `i`'s compact JSON (`None` past the last part).
    pub fn json(&self, i: usize) -> Option<std::io::Result<String>> {
        (i < self.parts.len()).then(|| {
            let mut out = Vec::new();
            self.unpack(i, &mut out)?;
            utf8(out)
        })
    }

    /// The report as serde_json's `to_writer` writes it (compact).
    pub fn write_compact(&self, w: &mut dyn Write) -> std::io::Result<()> {
        write!(w, "{{\"schemaVersion\":{}", quoted(SCHEMA_VERSION))?;
        if !self.summary {
            w.write_all(b",\"diagnoses\":[")?;
            let mut buf = Vec::new();
            for i in 0..self.parts.len() {
                if i > 0 {
                    w.write_all(b",")?;
                }
                self.unpack(i, &mut buf)?;
                w.write_all(&buf)?;
            }
            w.write_all(b"]")?;
        }
        write!(w, ",\"groups\":{}", self.groups_member())?;
        if let Some(member) = self.incomplete_member() {
            write!(w, ",\"incomplete\":{member}")?;
        }
        w.write_all(b"}")
    }

    /// The report as serde_json's `to_writer_pretty` writes it (two spaces an indent).
    pub fn write_pretty(&self, w: &mut dyn Write) -> std::io::Result<()> {
        write!(w, "{{\n  \"schemaVersion\": {}", quoted(SCHEMA_VERSION))?;
        if !self.summary {
            self.write_pretty_diagnoses(w)?;
        }
        let mut out = b",\n  \"groups\": ".to_vec();
        pretty(self.groups_member().as_bytes(), 1, &mut out);
        w.write_all(&out)?;
        if let Some(member) = self.incomplete_member() {
            let mut out = b",\n  \"incomplete\": ".to_vec();
            pretty(member.as_bytes(), 1, &mut out);
            w.write_all(&out)?;
        }
        w.write_all(b"\n}")
    }

    /// The `diagnoses` member of [`ScanJson::write_pretty`], after the one before it.
    fn write_pretty_diagnoses(&self, w: &mut dyn Write) -> std::io::Result<()> {
        w.write_all(b",\n  \"diagnoses\": [")?;
        // Unpacked and indented on every thread (indenting is most of the writing: a
        // backlog's report grows from 106 MB to 166 MB) and written in order, with a few parts
        // at a time waiting: the whole report is never held unpacked.
        let mut written = Ok(());
        crate::par::in_order(
            self.parts.len(),
            self.threads,
            (8, 2),
            |i| {
                let mut compact = Vec::new();
                self.unpack(i, &mut compact)?;
                let mut out = Vec::with_capacity(compact.len() * 3 / 2);
                out.extend_from_slice(if i == 0 { b"\n    " } else { b",\n    " });
                pretty(&compact, 2, &mut out);
                Ok::<_, std::io::Error>(out)
            },
            |text| {
                written = text.and_then(|text| w.write_all(&text));
                written.is_ok()
            },
        );
        written?;
        w.write_all(if self.parts.is_empty() {
            b"]"
        } else {
            b"\n  ]"
        })
    }

    /// The bytes the packed parts hold (without the dictionary).
    pub fn packed_bytes(&self) -> usize {
        self.parts.iter().map(|p| p.packed.len()).sum()
    }

    /// Part `i`'s packed bytes, for tests that damage them.
    #[cfg(test)]
    pub(crate) fn packed_mut(&mut self, i: usize) -> &mut Box<[u8]> {
        &mut self.parts[i].packed
    }

    /// [`ScanJson::write_compact`] into a string.
    pub fn to_compact_string(&self) -> std::io::Result<String> {
        let mut out = Vec::new();
        self.write_compact(&mut out)?;
        utf8(out)
    }
}

/// Unpacked JSON as text (it was written from a `String`).
fn utf8(bytes: Vec<u8>) -> std::io::Result<String> {
    String::from_utf8(bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// `compact` (JSON as serde_json writes it compactly) indented as serde_json's pretty printer
/// writes it when the value starts `depth` levels in: a newline and two spaces a level after
/// each opening bracket and comma, `": "` between a key and its value, and empty arrays and
/// objects kept as `[]` and `{}`. Only the bytes outside strings are read as structure.
pub fn pretty(compact: &[u8], depth: usize, out: &mut Vec<u8>) {
    let bytes = compact;
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
        pretty(compact.as_bytes(), 0, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string_pretty(&v).unwrap()
        );
        // Nested: as the value of a member two levels in.
        let outer = json!({"k": [v.clone()]});
        let mut out = b"{\n  \"k\": [\n    ".to_vec();
        pretty(compact.as_bytes(), 2, &mut out);
        out.extend_from_slice(b"\n  ]\n}");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string_pretty(&outer).unwrap()
        );
    }

    /// An empty report, and one that says what failed reads left unjudged, write as
    /// serde_json writes the same [`crate::diagnosis::ScanReport`].
    #[test]
    fn an_empty_report_writes_as_serde_json_does() {
        let failed = crate::diagnosis::Incomplete {
            nothing_judged: true,
            reads: vec![crate::diagnosis::FailedRead {
                read: crate::bundle::Missing {
                    kind: "Pod".into(),
                    api_version: None,
                    resource: Some("pods".into()),
                    namespace: None,
                    name: None,
                    why: "forbidden".into(),
                },
                layers: vec![crate::layer::Layer::Device],
                work_unlisted: true,
                unjudged: "work made of pods".into(),
            }],
        };
        for incomplete in [None, Some(failed)] {
            let empty =
                ScanJson::new(String::new(), Vec::new(), 1).with_incomplete(incomplete.clone());
            let report = crate::diagnosis::ScanReport {
                schema_version: SCHEMA_VERSION.into(),
                diagnoses: Vec::new(),
                groups: Vec::new(),
                incomplete,
            };
            let mut out = Vec::new();
            empty.write_pretty(&mut out).unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string_pretty(&report).unwrap()
            );
            assert_eq!(
                empty.to_compact_string().unwrap(),
                serde_json::to_string(&report).unwrap()
            );
        }
    }
}
