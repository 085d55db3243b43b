//! What `-f` reads: each argument (a file, standard input, a directory tree, or a `.tar.gz`,
//! `.tgz` or `.tar` archive, known by its first bytes) turned into the texts the core's one
//! bundle reader takes, and a report of which files were read and which were skipped, and why.
//!
//! A tree is what people already have: `kubectl get -o yaml|json` files, the NVIDIA GPU
//! Operator's must-gather (object YAML beside logs, `-o wide` tables and `kubectl describe`
//! output) and `kubectl cluster-info dump --output-directory` (a JSON List per kind and
//! namespace, a `logs.txt` per pod). In a tree, a file's name says what it holds (`classify`):
//! objects are read and an error in one is an error naming it (skipping a broken `pods.json`
//! would change the verdict without a word); logs, tables and the rest are skipped and listed.
//!
//! Bounds: `--max-input-bytes` holds everything `-f` reads together, and an archive counts
//! whole as it is decompressed (the members it skips too), so a gzip bomb stops at the limit
//! with an error naming the member; `--max-input-files` bounds the entries walked; links are
//! never followed; an archive member named outside the archive (`..`, an absolute path) is
//! refused. Nothing is written to disk.

use crate::Failure;
use layer_core::{Bundle, BundleError, ReadLimits};
use std::cell::Cell;
use std::io::{Cursor, Read};
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

/// What the reading may take.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    /// `--max-input-bytes`: all that is read (archives decompressed) together.
    pub max_bytes: usize,
    /// `--max-input-files`: the entries (files, directories, links) of all trees together.
    pub max_files: usize,
}

/// One `-f` argument and what became of each file in it.
pub(crate) struct Source {
    /// As given (`-` is standard input).
    pub name: String,
    /// A directory or an archive: its files are reported.
    pub tree: bool,
    pub entries: Vec<Entry>,
}

/// A file of a source (its path inside the tree; the source's name for a plain file).
pub(crate) struct Entry {
    pub name: String,
    pub outcome: Outcome,
}

pub(crate) enum Outcome {
    /// Read, with this many objects.
    Read(usize),
    Skipped(Skip),
}

/// Why a file of a tree was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Skip {
    Log,
    Table,
    Marker,
    Empty,
    Hidden,
    Link,
    Special,
    Archive,
    Other,
    /// `kubectl describe` output the core could not read: its words.
    Describe(String),
}

impl Skip {
    /// The summary's word for files skipped for this reason.
    fn label(&self) -> &'static str {
        match self {
            Skip::Log => "logs",
            Skip::Table => "tables",
            Skip::Marker => "markers",
            Skip::Empty => "empty",
            Skip::Hidden => "hidden",
            Skip::Link => "links",
            Skip::Special => "special files",
            Skip::Archive => "archives",
            Skip::Other => "other",
            Skip::Describe(_) => "describe output not read",
        }
    }

    /// The reason, in full, for `--verbose`.
    fn why(&self) -> String {
        match self {
            Skip::Log => "a log: logs are not objects (the bundle has no place for them)".into(),
            Skip::Table => {
                "a `kubectl get -o wide` table: a few columns of each object, not the objects"
                    .into()
            }
            Skip::Marker => "a marker file (the must-gather found no such object)".into(),
            Skip::Empty => "empty".into(),
            Skip::Hidden => "hidden (its name starts with a dot)".into(),
            Skip::Link => "a link: links are not followed, so nothing outside is read".into(),
            Skip::Special => "not a regular file".into(),
            Skip::Archive => "an archive inside the tree: not opened (give it its own -f)".into(),
            Skip::Other => {
                "not named .json, .yaml or .yml (objects) nor .descr (kubectl describe)".into()
            }
            Skip::Describe(e) => format!("kubectl describe output the reader could not read: {e}"),
        }
    }
}

/// How a text is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// Named by the user, or named like objects: an error in it is an error.
    Objects,
    /// `kubectl describe` output (`.descr`, as the must-gather names it): read if the core
    /// reads it, else skipped with the core's words.
    Describe,
}

/// What a file found in a tree holds, by its path inside the tree.
fn classify(rel: &str) -> Result<Expect, Skip> {
    if rel.split('/').any(|c| c.starts_with('.')) {
        return Err(Skip::Hidden);
    }
    let base = rel.rsplit('/').next().unwrap_or(rel).to_ascii_lowercase();
    let ends = |suffixes: &[&str]| suffixes.iter().any(|s| base.ends_with(s));
    if ends(&[".json", ".yaml", ".yml"]) {
        Ok(Expect::Objects)
    } else if ends(&[".descr"]) {
        Ok(Expect::Describe)
    } else if ends(&[".log", ".log.gz"]) || base == "logs.txt" {
        Err(Skip::Log)
    } else if ends(&[".status"]) {
        Err(Skip::Table)
    } else if ends(&[".missing"]) {
        Err(Skip::Marker)
    } else if ends(&[".gz", ".tgz", ".tar", ".zip"]) {
        Err(Skip::Archive)
    } else {
        Err(Skip::Other)
    }
}

/// A text to read, and the entry its outcome goes to.
struct Text {
    source: usize,
    entry: usize,
    /// The name errors give (`ml/pods.json in dump.tar.gz`).
    name: String,
    text: String,
    expect: Expect,
}

/// A member of a tree before it is placed in order: its text, or why it was skipped.
type Member = (String, Result<(String, Expect), Skip>);

/// Every `-f` argument read as one bundle, with the report of what was read.
pub(crate) fn read(
    files: &[String],
    bounds: Bounds,
    limits: ReadLimits,
) -> Result<(Bundle, Vec<Source>), Failure> {
    let mut g = Gatherer {
        left: bounds.max_bytes,
        bounds,
        files: 0,
        sources: Vec::new(),
        texts: Vec::new(),
    };
    for f in files {
        g.argument(f)?;
    }
    let Gatherer {
        mut sources, texts, ..
    } = g;
    let mut merged: Option<Bundle> = None;
    for t in texts {
        if sources[t.source].tree && empty_list(&t.text) {
            sources[t.source].entries[t.entry].outcome = Outcome::Read(0);
            continue;
        }
        let outcome = match Bundle::read_all([(Some(t.name), t.text)], limits) {
            Ok(b) => {
                let n = b.objects().len();
                set_aside_logs(&mut sources[t.source], &b);
                match &mut merged {
                    Some(m) => m.merge(b),
                    None => merged = Some(b),
                }
                Outcome::Read(n)
            }
            Err(BundleError::In { error, .. }) if t.expect == Expect::Describe => {
                Outcome::Skipped(Skip::Describe(error.to_string()))
            }
            Err(e) => return Err(layer_core::Error::from(e).into()),
        };
        sources[t.source].entries[t.entry].outcome = outcome;
    }
    match merged {
        Some(b) => Ok((b, sources)),
        None => Err(nothing_read(&sources)),
    }
}

/// The logs the core set aside from a printed `cluster-info dump`, each reported as a file
/// skipped, so that the source is reported as a tree is.
fn set_aside_logs(source: &mut Source, read: &Bundle) {
    let logs = read.set_aside().iter().map(|log| Entry {
        name: format!("logs for {log}"),
        outcome: Outcome::Skipped(Skip::Log),
    });
    source.entries.extend(logs);
    source.tree |= source.entries.len() > 1;
}

/// A List with no items, as `cluster-info dump` writes one for each kind a namespace has none
/// of (`"items": null`, Go's empty slice): in a tree that is a file read, not an error (the
/// core refuses a text holding no object, which alone, as one file named by the user, it is). Only
/// small texts are looked at, and only their top-level fields; the tool's own bundle (a List
/// with `kubectlLayer`) is the core's to read, empty or not.
fn empty_list(text: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Head {
        kind: Option<String>,
        items: Option<Vec<serde::de::IgnoredAny>>,
        #[serde(rename = "kubectlLayer")]
        kubectl_layer: Option<serde::de::IgnoredAny>,
    }
    text.len() <= 4096
        && serde_json::from_str::<Head>(text).is_ok_and(|h| {
            h.kind.is_some_and(|k| k.ends_with("List"))
                && h.items.is_none_or(|i| i.is_empty())
                && h.kubectl_layer.is_none()
        })
}

/// No file held an object: the summary and every file's fate, under the error.
fn nothing_read(sources: &[Source]) -> Failure {
    let names: Vec<&str> = sources.iter().map(|s| s.name.as_str()).collect();
    let mut f = Failure::new(
        2,
        "parse",
        format!(
            "no Kubernetes objects in {}: -f reads `kubectl get -o json|yaml` files",
            names.join(", ")
        ),
    );
    f.hints = report_lines(sources, true);
    f
}

/// Reads the arguments, within the bounds.
struct Gatherer {
    bounds: Bounds,
    /// Bytes that may still be read.
    left: usize,
    /// Entries of trees walked so far.
    files: usize,
    sources: Vec<Source>,
    texts: Vec<Text>,
}

impl Gatherer {
    fn argument(&mut self, f: &str) -> Result<(), Failure> {
        if f == "-" {
            return self.stream(std::io::stdin().lock(), "standard input", None);
        }
        let meta = std::fs::metadata(f).map_err(|e| io_error(f, &e))?;
        if meta.is_dir() {
            return self.directory(f);
        }
        // A regular file says its size; refuse it before reading a byte.
        if meta.is_file() && meta.len() > self.left as u64 {
            return Err(too_large(f, meta.len() as usize, self.bounds.max_bytes));
        }
        let file = std::fs::File::open(f).map_err(|e| io_error(f, &e))?;
        self.stream(file, f, meta.is_file().then_some(meta.len()))
    }

    /// A file or standard input: an archive (gzip or tar, by its first bytes), or one text.
    /// `size`: what a regular file says it holds (nothing for a pipe).
    fn stream(
        &mut self,
        mut from: impl Read,
        name: &str,
        size: Option<u64>,
    ) -> Result<(), Failure> {
        let head = read_head(&mut from).map_err(|e| io_error(name, &e))?;
        let whole = Cursor::new(head).chain(from);
        let head = whole.get_ref().0.get_ref();
        if head.starts_with(&[0x1f, 0x8b]) {
            let mut gz = flate2::read::MultiGzDecoder::new(whole);
            let head = read_head(&mut gz).map_err(|e| not_gzip(name, &e))?;
            if is_tar(&head) {
                return self.archive(Cursor::new(head).chain(gz), name);
            }
            let text = self.take_text(Cursor::new(head).chain(gz), name, None)?;
            self.single(name, text);
            return Ok(());
        }
        if is_tar(head) {
            return self.archive(whole, name);
        }
        let text = self.take_text(whole, name, size)?;
        self.single(name, text);
        Ok(())
    }

    /// A file named by the user: read whatever it is called. Reported only when it is a
    /// `cluster-info dump` printed to standard output, whose container logs the core sets aside.
    fn single(&mut self, name: &str, text: String) {
        self.sources.push(Source {
            name: name.to_string(),
            tree: false,
            entries: vec![Entry {
                name: name.to_string(),
                outcome: Outcome::Read(0),
            }],
        });
        self.texts.push(Text {
            source: self.sources.len() - 1,
            entry: 0,
            name: name.to_string(),
            text,
            expect: Expect::Objects,
        });
    }

    /// All of `from` as text, within what may still be read. `size` is what the source says
    /// it holds: the buffer is made that size at once, never grown by doubling, since each
    /// growth copies the text while the old buffer is still held (1.5 to 2 times the file at
    /// that moment) and leaves up to twice its size reserved while the bundle lives on it.
    fn take_text(
        &mut self,
        from: impl Read,
        name: &str,
        size: Option<u64>,
    ) -> Result<String, Failure> {
        let mut bytes = sized_buffer(size, self.left);
        from.take(self.left as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| io_error(name, &e))?;
        if bytes.len() > self.left {
            return Err(stream_too_large(name, self.bounds.max_bytes));
        }
        self.left -= bytes.len();
        String::from_utf8(bytes).map_err(|e| {
            Failure::new(
                2,
                "parse",
                format!(
                    "{name}: not UTF-8 text (byte {}): -f reads `kubectl get -o json|yaml` \
                     output, a directory of it, or a .tar.gz/.tgz/.tar of it",
                    e.utf8_error().valid_up_to()
                ),
            )
        })
    }

    /// One more entry of a tree, refused past `--max-input-files`.
    fn count(&mut self, source: &str) -> Result<(), Failure> {
        self.files += 1;
        if self.files > self.bounds.max_files {
            return Err(Failure::new(
                2,
                "input-too-large",
                format!(
                    "{source}: more than {} files and directories (raise the limit with \
                     --max-input-files, or give -f the part that holds the objects)",
                    self.bounds.max_files
                ),
            ));
        }
        Ok(())
    }

    /// A tree's members, placed in path order (the same for a directory and its archive).
    fn add_tree(&mut self, name: &str, mut members: Vec<Member>) {
        members.sort_by(|a, b| a.0.cmp(&b.0));
        let source = self.sources.len();
        let mut entries = Vec::with_capacity(members.len());
        for (rel, member) in members {
            let outcome = match member {
                Ok((text, _)) if text.trim().is_empty() => Outcome::Skipped(Skip::Empty),
                Ok((text, expect)) => {
                    self.texts.push(Text {
                        source,
                        entry: entries.len(),
                        name: format!("{rel} in {name}"),
                        text,
                        expect,
                    });
                    Outcome::Read(0)
                }
                Err(skip) => Outcome::Skipped(skip),
            };
            entries.push(Entry { name: rel, outcome });
        }
        self.sources.push(Source {
            name: name.to_string(),
            tree: true,
            entries,
        });
    }
}

/// A buffer for a text that says it holds `size` bytes: that much room at once (one more, so
/// that reading to the end needs no growth to learn it is there), never more than what may
/// still be read (a size is the source's word: a tar header can claim anything). Room the
/// system refuses is not an error: the buffer then grows as the bytes come.
fn sized_buffer(size: Option<u64>, left: usize) -> Vec<u8> {
    let room = size.map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let mut bytes = Vec::new();
    let _ = bytes.try_reserve_exact(room.min(left).saturating_add(1));
    bytes
}

/// The first bytes of a stream, enough to tell gzip and tar from text.
fn read_head(from: &mut impl Read) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(512);
    from.take(512).read_to_end(&mut head)?;
    Ok(head)
}

/// A tar archive's first header: `ustar` at byte 257 (POSIX and GNU), or, in the old format
/// that has no such mark, a header whose checksum (bytes 148..156, octal: the sum of the
/// header's bytes with those eight counted as spaces) holds.
fn is_tar(head: &[u8]) -> bool {
    let Some(header) = head.get(..512) else {
        return false;
    };
    if header[257..262] == *b"ustar" {
        return true;
    }
    let field = String::from_utf8_lossy(&header[148..156]);
    let Ok(sum) = u32::from_str_radix(field.trim_matches(['\0', ' ']), 8) else {
        return false;
    };
    let counted: u32 = header
        .iter()
        .enumerate()
        .map(|(i, b)| {
            if (148..156).contains(&i) {
                32
            } else {
                u32::from(*b)
            }
        })
        .sum();
    counted == sum
}

impl Gatherer {
    /// A directory tree, walked without following links, every entry counted.
    fn directory(&mut self, root: &str) -> Result<(), Failure> {
        let mut members = Vec::new();
        let mut dirs = vec![PathBuf::new()];
        while let Some(rel) = dirs.pop() {
            let here = Path::new(root).join(&rel);
            let list = std::fs::read_dir(&here).map_err(|e| io_error(&shown(&here), &e))?;
            for entry in list {
                let entry = entry.map_err(|e| io_error(&shown(&here), &e))?;
                self.count(root)?;
                let rel = rel.join(entry.file_name());
                let kind = entry.file_type().map_err(|e| io_error(&shown(&here), &e))?;
                let rel_name = slash_path(&rel);
                if kind.is_dir() && !rel_name.rsplit('/').next().unwrap_or("").starts_with('.') {
                    dirs.push(rel);
                } else if kind.is_dir() {
                    members.push((rel_name, Err(Skip::Hidden)));
                } else if kind.is_symlink() {
                    members.push((rel_name, Err(Skip::Link)));
                } else if !kind.is_file() {
                    members.push((rel_name, Err(Skip::Special)));
                } else {
                    let member = self.dir_file(root, &rel, &rel_name)?;
                    members.push((rel_name, member));
                }
            }
        }
        self.add_tree(root, members);
        Ok(())
    }

    /// A regular file of a directory: its text, if its name says it holds objects.
    fn dir_file(
        &mut self,
        root: &str,
        rel: &Path,
        rel_name: &str,
    ) -> Result<Result<(String, Expect), Skip>, Failure> {
        let expect = match classify(rel_name) {
            Ok(e) => e,
            Err(skip) => return Ok(Err(skip)),
        };
        let path = Path::new(root).join(rel);
        let name = shown(&path);
        let file = std::fs::File::open(&path).map_err(|e| io_error(&name, &e))?;
        let size = file.metadata().ok().map(|m| m.len());
        let text = self.take_text(file, &name, size)?;
        Ok(Ok((text, expect)))
    }

    /// A tar stream: every member counted, its decompressed bytes against the limit.
    fn archive(&mut self, from: impl Read, name: &str) -> Result<(), Failure> {
        let read = Rc::new(Cell::new(0u64));
        let (limit, max) = (self.left as u64, self.bounds.max_bytes);
        let mut archive = tar::Archive::new(Bounded {
            inner: from,
            left: limit,
            read: read.clone(),
        });
        // A read that failed: past the limit (a bomb), else a broken archive; named by the
        // member being read or skipped through.
        let failed = |current: &str, e: &std::io::Error| {
            let at = match current {
                "" => name.to_string(),
                member => format!("{member} in {name}"),
            };
            match read.get() > limit {
                true => stream_too_large(&at, max),
                false => not_tar(&at, e),
            }
        };
        let mut members = Vec::new();
        let mut current = String::new();
        for entry in archive.entries().map_err(|e| not_tar(name, &e))? {
            let mut entry = entry.map_err(|e| failed(&current, &e))?;
            self.count(name)?;
            let kind = entry.header().entry_type();
            if kind.is_pax_global_extensions() || kind.is_dir() {
                continue;
            }
            current = member_name(&entry, name)?;
            let member = match not_a_file(kind).map_or_else(|| classify(&current), Err) {
                Err(skip) => Err(skip),
                Ok(expect) => {
                    let mut bytes = sized_buffer(Some(entry.size()), self.left);
                    entry
                        .read_to_end(&mut bytes)
                        .map_err(|e| failed(&current, &e))?;
                    Ok((member_text(bytes, &current, name)?, expect))
                }
            };
            members.push((current.clone(), member));
        }
        self.left -= read.get().min(limit) as usize;
        self.add_tree(name, members);
        Ok(())
    }
}

/// Why an archive member that is not a regular file is skipped.
fn not_a_file(kind: tar::EntryType) -> Option<Skip> {
    if kind.is_symlink() || kind.is_hard_link() {
        Some(Skip::Link)
    } else if kind.is_file() || kind == tar::EntryType::Continuous {
        None
    } else {
        Some(Skip::Special)
    }
}

/// A member's bytes as text, or an error naming it.
fn member_text(bytes: Vec<u8>, member: &str, archive: &str) -> Result<String, Failure> {
    String::from_utf8(bytes).map_err(|e| {
        Failure::new(
            2,
            "parse",
            format!(
                "{member} in {archive}: not UTF-8 text (byte {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// A member's path inside the archive, `/`-separated; a name that leaves the archive (`..`, an
/// absolute path) is refused: no reader should ever be asked to place it.
fn member_name<R: Read>(entry: &tar::Entry<'_, R>, archive: &str) -> Result<String, Failure> {
    let path = entry.path().map_err(|e| not_tar(archive, &e))?;
    let mut parts = Vec::new();
    for c in path.components() {
        match c {
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(Failure::new(
                    2,
                    "parse",
                    format!(
                        "{archive}: member `{}` is named outside the archive (`..` or an \
                         absolute path): refused",
                        path.display()
                    ),
                ));
            }
        }
    }
    Ok(parts.join("/"))
}

/// A reader that stops once more than `left` bytes have come through it: an archive counts
/// whole, as decompressed, the members it skips included.
struct Bounded<R> {
    inner: R,
    left: u64,
    /// Bytes read so far, past `left` by at most one read when it stopped.
    read: Rc<Cell<u64>>,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        if self.read.get() > self.left {
            return Err(std::io::Error::other("over --max-input-bytes"));
        }
        Ok(n)
    }
}

/// A path as `/`-separated text (the same on every platform, for sorting and showing).
fn slash_path(p: &Path) -> String {
    let parts: Vec<_> = p
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect();
    parts.join("/")
}

fn shown(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn io_error(name: &str, e: &std::io::Error) -> Failure {
    Failure::new(2, "io", format!("{name}: {e}"))
}

fn not_gzip(name: &str, e: &std::io::Error) -> Failure {
    Failure::new(
        2,
        "parse",
        format!("{name}: not a readable gzip stream: {e}"),
    )
}

fn not_tar(name: &str, e: &std::io::Error) -> Failure {
    Failure::new(
        2,
        "parse",
        format!("{name}: not a readable tar archive: {e}"),
    )
}

fn too_large(name: &str, size: usize, limit: usize) -> Failure {
    layer_core::Error::from(BundleError::In {
        input: name.to_string(),
        error: Box::new(BundleError::TooLarge { size, limit }),
    })
    .into()
}

fn stream_too_large(name: &str, limit: usize) -> Failure {
    layer_core::Error::from(BundleError::In {
        input: name.to_string(),
        error: Box::new(BundleError::StreamTooLarge { limit }),
    })
    .into()
}

/// The report's lines: for each directory or archive, what was read and skipped (counted by
/// reason); `verbose` adds a line per file.
pub(crate) fn report_lines(sources: &[Source], verbose: bool) -> Vec<String> {
    let mut lines = Vec::new();
    for s in sources.iter().filter(|s| s.tree) {
        lines.push(summary(s, verbose));
        if !verbose {
            continue;
        }
        for e in &s.entries {
            lines.push(match &e.outcome {
                Outcome::Read(n) => format!("  read     {}: {n} {}", e.name, objects(*n)),
                Outcome::Skipped(why) => format!("  skipped  {}: {}", e.name, why.why()),
            });
        }
    }
    lines
}

/// `-f dump/: read 9 files (120 objects); skipped 23 (logs: 20, other: 3)`.
fn summary(s: &Source, verbose: bool) -> String {
    let mut read = 0;
    let mut objects_read = 0;
    let mut skipped: Vec<(&'static str, usize)> = Vec::new();
    for e in &s.entries {
        match &e.outcome {
            Outcome::Read(n) => {
                read += 1;
                objects_read += n;
            }
            Outcome::Skipped(why) => match skipped.iter_mut().find(|(l, _)| *l == why.label()) {
                Some((_, n)) => *n += 1,
                None => skipped.push((why.label(), 1)),
            },
        }
    }
    let mut line = format!(
        "-f {}: read {read} {} ({objects_read} {})",
        s.name,
        if read == 1 { "file" } else { "files" },
        objects(objects_read)
    );
    if !skipped.is_empty() {
        let total: usize = skipped.iter().map(|(_, n)| n).sum();
        let each: Vec<String> = skipped.iter().map(|(l, n)| format!("{l}: {n}")).collect();
        line.push_str(&format!("; skipped {total} ({})", each.join(", ")));
        if !verbose {
            line.push_str("; --verbose lists each file");
        }
    }
    line
}

fn objects(n: usize) -> &'static str {
    if n == 1 { "object" } else { "objects" }
}

#[cfg(test)]
mod tests {
    use super::{Expect, Skip, classify};

    #[test]
    fn names_say_what_a_tree_file_holds() {
        assert_eq!(classify("ml/pods.json"), Ok(Expect::Objects));
        assert_eq!(classify("cluster_policy.yaml"), Ok(Expect::Objects));
        assert_eq!(classify("gpu_nodes.descr"), Ok(Expect::Describe));
        assert_eq!(classify("ml/p-0/logs.txt"), Err(Skip::Log));
        assert_eq!(classify("gpu_operator_pod.previous.log"), Err(Skip::Log));
        assert_eq!(classify("nvidia-bug-report_n1.log.gz"), Err(Skip::Log));
        assert_eq!(classify("gpu_nodes.status"), Err(Skip::Table));
        assert_eq!(classify("cluster_policy.missing"), Err(Skip::Marker));
        assert_eq!(classify("inner.tgz"), Err(Skip::Archive));
        assert_eq!(classify(".git/config.yaml"), Err(Skip::Hidden));
        assert_eq!(classify("version"), Err(Skip::Other));
    }
}
