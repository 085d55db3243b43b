//! Errors of the core, one enum per phase: reading a bundle, loading rules, resolving a target.
//! Each variant carries what a person needs to find the problem (where in the input, which rule
//! file, which names exist) and a stable `code()` shared by the CLI and the npm package.

use thiserror::Error;

/// Where in the input something went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputLocation {
    /// 1-based document number in a stream of several documents.
    pub document: usize,
    /// Path to the object inside the document, e.g. `items[3]` (empty for the document itself).
    pub item: String,
    /// 1-based line and column in the input text, when known.
    pub line: Option<usize>,
    pub column: Option<usize>,
}

impl std::fmt::Display for InputLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "document {}", self.document)?;
        if !self.item.is_empty() {
            write!(f, ", {}", self.item)?;
        }
        if let (Some(l), Some(c)) = (self.line, self.column) {
            write!(f, " (line {l}, column {c})")?;
        }
        Ok(())
    }
}

/// Reading the input bundle failed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum BundleError {
    /// The input is empty or only white space.
    #[error("the input is empty: expected `kubectl get … -o json` or `-o yaml` output")]
    Empty,
    /// The text is not valid JSON.
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    /// The text is not valid YAML.
    #[error("invalid YAML{}: {message}", location.map(|(l, c)| format!(" at line {l}, column {c}")).unwrap_or_default())]
    Yaml {
        location: Option<(usize, usize)>,
        message: String,
    },
    /// `kubectl describe` output that could not be read: the line and what is wrong there.
    #[error("kubectl describe output, line {line}: {message}")]
    Describe { line: usize, message: String },
    /// A document or item is not a Kubernetes object.
    #[error("{location}: {message}")]
    NotAnObject {
        location: InputLocation,
        message: String,
    },
    /// One of several inputs (a file, a paste) could not be read: which one, and why.
    #[error("{input}: {error}")]
    In {
        input: String,
        error: Box<BundleError>,
    },
    /// The input is larger than the limit the caller set.
    #[error(
        "the input is {size} bytes, over the limit of {limit} bytes (raise it with --max-input-bytes)"
    )]
    TooLarge { size: usize, limit: usize },
    /// A stream (standard input) went on past the limit; how far it goes was not read.
    #[error("the input is over the limit of {limit} bytes (raise it with --max-input-bytes)")]
    StreamTooLarge { limit: usize },
    /// YAML grew past what the reader takes once its aliases were expanded (each alias is
    /// replaced by what its anchor holds): at most `growth` times the YAML's own size (the
    /// bundle reader's `YAML_GROWTH`), and never past the input limit.
    #[error(
        "YAML document {document}{}: expanding its anchors and aliases goes past {limit} bytes \
         (a YAML input may become at most {growth} times its size, and no more than \
         --max-input-bytes): an alias bomb, or a file to write out again without aliases \
         (`kubectl get -o json`)",
        at_line(*line, *column)
    )]
    YamlExpands {
        document: usize,
        limit: usize,
        growth: usize,
        line: Option<usize>,
        column: Option<usize>,
    },
    /// Arrays and objects nest deeper than the limit the caller set (`limit`) or than the reader
    /// can go (`most`: `limit` is never above it). Deep nesting is refused before anything
    /// recurses over it, so no input can overflow the stack.
    #[error("{}", too_deep_message(*limit, *most, *line, *column))]
    TooDeep {
        limit: usize,
        most: usize,
        /// 1-based line and column of the first bracket past the limit (JSON input only).
        line: Option<usize>,
        column: Option<usize>,
    },
}

fn at_line(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(" at line {l}, column {c}"),
        _ => String::new(),
    }
}

fn too_deep_message(
    limit: usize,
    most: usize,
    line: Option<usize>,
    column: Option<usize>,
) -> String {
    let at = match (line, column) {
        (Some(l), Some(c)) => format!(" at line {l}, column {c}"),
        _ => String::new(),
    };
    let hint = if limit < most {
        format!("raise the limit with --max-depth (at most {most})")
    } else {
        format!(
            "--max-depth cannot go above {most}: nothing Kubernetes serves nests this deep, so \
             the input is probably not `kubectl get` output"
        )
    };
    format!("the input nests arrays and objects more than {limit} levels deep{at}; {hint}")
}

impl BundleError {
    /// Stable error code, the same in every front end.
    pub fn code(&self) -> &'static str {
        match self {
            BundleError::In { error, .. } => error.code(),
            BundleError::TooLarge { .. }
            | BundleError::StreamTooLarge { .. }
            | BundleError::YamlExpands { .. } => "input-too-large",
            BundleError::TooDeep { .. } => "input-too-deep",
            _ => "parse",
        }
    }
}

/// A rule file is invalid. Rules are embedded, so this is caught by the tests, never by users.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum RuleError {
    #[error("rule file {file}: {message}")]
    Invalid { file: String, message: String },
    #[error("rule file {file}: JSONPath `{path}` does not parse: {message}")]
    Path {
        file: String,
        path: String,
        message: String,
    },
}

impl RuleError {
    pub fn code(&self) -> &'static str {
        "rules"
    }
}

/// The target could not be resolved in the bundle.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum TargetError {
    /// `closest` holds target arguments one can paste after `why` (`job/trainer -n ml`).
    #[error("{what} is not in the bundle{}", closest_hint(closest))]
    NotFound { what: String, closest: Vec<String> },
    #[error("{what} matches several objects; add -n NAMESPACE or KIND/ (KIND.GROUP/ where two API groups have the kind), or give one of: {}", candidates.join(", "))]
    Ambiguous {
        what: String,
        candidates: Vec<String>,
    },
    #[error("the bundle has no object to diagnose")]
    NoTargets,
    /// `closest` is the nearest kind spelling we know (`jb` → `job`).
    #[error("unknown kind `{kind}`{}", kind_hint(closest.as_deref()))]
    UnknownKind {
        kind: String,
        closest: Option<String>,
    },
}

fn closest_hint(closest: &[String]) -> String {
    match closest {
        [] => String::new(),
        [one] => format!("; did you mean `{one}`?"),
        many => format!(
            "; did you mean one of: {}?",
            many.iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn kind_hint(closest: Option<&str>) -> String {
    closest.map_or_else(
        || "; `kubectl layer why --help` lists the kinds".to_string(),
        |k| format!("; did you mean `{k}`?"),
    )
}

impl TargetError {
    pub fn code(&self) -> &'static str {
        match self {
            TargetError::Ambiguous { .. } => "target-ambiguous",
            TargetError::UnknownKind { .. } => "usage",
            _ => "target-not-found",
        }
    }
}

/// A manifest `fit` cannot judge.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FitError {
    /// Nothing in the manifest is work the tool can place.
    #[error(
        "the manifest holds no Pod, Job, JobSet, LeaderWorkerSet, Deployment or StatefulSet to fit{}",
        found_hint(found)
    )]
    NoWork { found: Vec<String> },
    /// An object names a namespace other than the one asked for (kubectl refuses it too).
    #[error(
        "{object} names namespace `{object_namespace}`, but -n names `{namespace}`: remove one, or make them agree"
    )]
    NamespaceMismatch {
        object: String,
        object_namespace: String,
        namespace: String,
    },
    /// The API server would refuse the work as written (its validation of container
    /// resources): it would never be created, so there is nothing to judge.
    #[error(
        "the API server would refuse {object}: {field}: {}{reason}",
        shown_value(value)
    )]
    Refused {
        object: String,
        field: String,
        value: String,
        reason: String,
    },
}

/// The value part of an API server refusal (`Invalid value: "0.5": `), none for a missing one.
fn shown_value(value: &str) -> String {
    if value.is_empty() {
        String::new()
    } else {
        format!("Invalid value: {value:?}: ")
    }
}

fn found_hint(found: &[String]) -> String {
    match found {
        [] => String::new(),
        f if f.len() <= 5 => format!(" (it holds {})", f.join(", ")),
        f => format!(" (it holds {} and {} more)", f[..5].join(", "), f.len() - 5),
    }
}

impl FitError {
    pub fn code(&self) -> &'static str {
        "manifest"
    }
}

/// Any error of the core, for front ends that handle them alike.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Error {
    #[error(transparent)]
    Bundle(#[from] BundleError),
    #[error(transparent)]
    Rule(#[from] RuleError),
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error(transparent)]
    Fit(#[from] FitError),
    #[error("invalid option {name}: {message}")]
    Option { name: String, message: String },
}

impl Error {
    pub fn code(&self) -> &'static str {
        match self {
            Error::Bundle(e) => e.code(),
            Error::Rule(e) => e.code(),
            Error::Target(e) => e.code(),
            Error::Fit(e) => e.code(),
            Error::Option { .. } => "usage",
        }
    }
}
