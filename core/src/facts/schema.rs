//! The JSON Schema of `$.facts`, generated from the fact types of the registry
//! ([`super::FACTS`]), and the check of a rule path against it: a path into a field no fact
//! type has is an error that names the field and what is there instead. Only builds with the
//! `schema` feature (the tests and `cargo xtask`) carry it; the built-in rules are checked by
//! a test on every build, so a shipped binary never meets a path this would refuse.

use jsonpath_rust::parser::model::{
    Comparable, Filter, FilterAtom, FnArg, JpQuery, Segment, Selector, SingularQuery,
    SingularQuerySegment, Test, TestFunction,
};
use serde_json::{Map, Value, json};

/// The schema of `$.facts`: an object with one property per key the registry writes, and the
/// definitions its fields refer to.
pub fn facts_schema() -> Value {
    let mut generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let mut properties = Map::new();
    for def in super::FACTS {
        let schema = (def.schema)(&mut generator).to_value();
        properties.insert(def.name.to_string(), schema);
    }
    json!({
        "type": "object",
        "properties": properties,
        "additionalProperties": false,
        "$defs": generator_defs(&generator),
    })
}

fn generator_defs(generator: &schemars::SchemaGenerator) -> Value {
    Value::Object(generator.definitions().clone())
}

/// The schema that allows anything: where a walk can no longer tell.
static ANY: Value = Value::Bool(true);

/// A `$ref` into `$defs` followed (once; the fact types are not recursive).
fn resolve<'s>(schema: &'s Value, defs: &'s Value) -> &'s Value {
    match schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
    {
        Some(name) => defs.get(name).unwrap_or(&ANY),
        None => schema,
    }
}

/// Where a walk stands: the schemas a value there may have (more than one under `anyOf`),
/// borrowed from the one generated schema: a walk per rule path copies none of it (copying
/// made loading the builtin rules take a second in a debug build).
#[derive(Clone)]
struct At<'s> {
    shapes: Vec<&'s Value>,
    /// The path so far, for messages.
    trail: String,
}

impl<'s> At<'s> {
    fn any(trail: String) -> At<'s> {
        At {
            shapes: vec![&ANY],
            trail,
        }
    }

    fn is_any(&self) -> bool {
        self.shapes
            .iter()
            .any(|s| *s == &ANY || s.as_object().is_some_and(|o| o.is_empty()))
    }
}

/// Every alternative of a schema, `$ref`s followed and `anyOf`/`oneOf` flattened; `null` left
/// out (a path never goes into null).
fn alternatives<'s>(schema: &'s Value, defs: &'s Value, out: &mut Vec<&'s Value>) {
    let s = resolve(schema, defs);
    for key in ["anyOf", "oneOf"] {
        if let Some(list) = s.get(key).and_then(Value::as_array) {
            for alt in list {
                alternatives(alt, defs, out);
            }
            return;
        }
    }
    if s.get("type") == Some(&json!("null")) {
        return;
    }
    out.push(s);
}

fn types_of(s: &Value) -> Vec<&str> {
    match s.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Check a rule path (`$.facts.device.degraded[?@.bound==true].node`) against the schema.
/// Paths that do not start at `$.facts` are not this check's business.
pub fn check_path(path: &str, schema: &Value) -> Result<(), String> {
    let query: JpQuery = jsonpath_rust::parser::parse_json_path(path).map_err(|e| e.to_string())?;
    let mut segments = query.segments.iter();
    match segments.next() {
        Some(Segment::Selector(Selector::Name(n))) if n == "facts" => {}
        _ => return Ok(()),
    }
    let defs = schema.get("$defs").unwrap_or(&Value::Null);
    let mut at = At {
        shapes: vec![schema],
        trail: "$.facts".into(),
    };
    for seg in segments {
        at = step(&at, seg, defs)?;
        if at.is_any() {
            return Ok(());
        }
    }
    Ok(())
}

fn step<'s>(at: &At<'s>, seg: &Segment, defs: &'s Value) -> Result<At<'s>, String> {
    match seg {
        // Below a `..` anything may match; there is nothing left to check.
        Segment::Descendant(_) => Ok(At::any(format!("{}..", at.trail))),
        Segment::Selector(sel) => select(at, sel, defs),
        Segment::Selectors(sels) => {
            let mut shapes = Vec::new();
            for sel in sels {
                shapes.extend(select(at, sel, defs)?.shapes);
            }
            Ok(At {
                shapes,
                trail: format!("{}{seg}", at.trail),
            })
        }
    }
}

fn select<'s>(at: &At<'s>, sel: &Selector, defs: &'s Value) -> Result<At<'s>, String> {
    let trail = format!("{}{sel}", at.trail);
    let mut alts = Vec::new();
    for s in &at.shapes {
        alternatives(s, defs, &mut alts);
    }
    let mut shapes: Vec<&'s Value> = Vec::new();
    match sel {
        Selector::Name(name) => {
            let mut fields: Vec<String> = Vec::new();
            for s in &alts {
                if let Some(f) = s.get("properties").and_then(|p| p.get(name)) {
                    shapes.push(f);
                } else if let Some(extra) = s.get("additionalProperties")
                    && extra != &Value::Bool(false)
                {
                    shapes.push(extra);
                } else if *s == &ANY {
                    shapes.push(&ANY);
                }
                if let Some(p) = s.get("properties").and_then(Value::as_object) {
                    fields.extend(p.keys().cloned());
                }
            }
            if shapes.is_empty() {
                fields.sort();
                fields.dedup();
                let what = if fields.is_empty() {
                    format!("`{}` is {}, which has no fields", at.trail, describe(&alts))
                } else {
                    format!("its fields are {}", fields.join(", "))
                };
                return Err(format!("`{name}` is not a field of `{}`: {what}", at.trail));
            }
        }
        Selector::Wildcard | Selector::Index(_) | Selector::Slice(..) | Selector::Filter(_) => {
            for s in &alts {
                if let Some(items) = s.get("items") {
                    shapes.push(items);
                } else if let Some(extra) = s.get("additionalProperties")
                    && extra != &Value::Bool(false)
                {
                    shapes.push(extra);
                } else if *s == &ANY || types_of(s).contains(&"object") {
                    shapes.push(&ANY);
                }
            }
            if shapes.is_empty() {
                return Err(format!(
                    "`{}` is {}: `{sel}` selects nothing in it",
                    at.trail,
                    describe(&alts)
                ));
            }
            if let Selector::Filter(f) = sel {
                let item = At {
                    shapes: shapes.clone(),
                    trail: format!("{}[*]", at.trail),
                };
                check_filter(f, &item, defs)?;
            }
        }
    }
    Ok(At { shapes, trail })
}

fn describe(alts: &[&Value]) -> String {
    let types: Vec<&str> = alts.iter().flat_map(|s| types_of(s)).collect();
    if types.is_empty() {
        "a value".into()
    } else {
        format!("a {}", types.join(" or "))
    }
}

/// Every `@.…` a filter reads must be a field of the items it filters.
fn check_filter<'s>(f: &Filter, item: &At<'s>, defs: &'s Value) -> Result<(), String> {
    match f {
        Filter::Or(fs) | Filter::And(fs) => fs.iter().try_for_each(|f| check_filter(f, item, defs)),
        Filter::Atom(FilterAtom::Filter { expr, .. }) => check_filter(expr, item, defs),
        Filter::Atom(FilterAtom::Test { expr, .. }) => check_test(expr, item, defs),
        Filter::Atom(FilterAtom::Comparison(c)) => {
            let (l, r) = c.vals();
            check_comparable(l, item, defs)?;
            check_comparable(r, item, defs)
        }
    }
}

fn check_test<'s>(t: &Test, item: &At<'s>, defs: &'s Value) -> Result<(), String> {
    match t {
        Test::RelQuery(segs) => walk_relative(segs.to_vec(), item, defs),
        Test::AbsQuery(_) => Ok(()),
        Test::Function(f) => check_function(f, item, defs),
    }
}

fn check_function<'s>(f: &TestFunction, item: &At<'s>, defs: &'s Value) -> Result<(), String> {
    let args: Vec<&FnArg> = match f {
        TestFunction::Custom(_, args) => args.iter().collect(),
        TestFunction::Length(a) => vec![a.as_ref()],
        TestFunction::Value(a) | TestFunction::Count(a) => vec![a],
        TestFunction::Search(a, b) | TestFunction::Match(a, b) => vec![a, b],
    };
    for a in args {
        match a {
            FnArg::Literal(_) => {}
            FnArg::Test(t) => check_test(t, item, defs)?,
            FnArg::Filter(f) => check_filter(f, item, defs)?,
        }
    }
    Ok(())
}

fn check_comparable<'s>(c: &Comparable, item: &At<'s>, defs: &'s Value) -> Result<(), String> {
    match c {
        Comparable::Literal(_) => Ok(()),
        Comparable::Function(f) => check_function(f, item, defs),
        Comparable::SingularQuery(SingularQuery::Root(_)) => Ok(()),
        Comparable::SingularQuery(SingularQuery::Current(segs)) => walk_relative(
            segs.iter()
                .map(|s| match s {
                    SingularQuerySegment::Name(n) => Segment::Selector(Selector::Name(n.clone())),
                    SingularQuerySegment::Index(i) => Segment::Selector(Selector::Index(*i)),
                })
                .collect(),
            item,
            defs,
        ),
    }
}

fn walk_relative<'s>(segs: Vec<Segment>, item: &At<'s>, defs: &'s Value) -> Result<(), String> {
    let mut at = At {
        shapes: item.shapes.clone(),
        trail: "@".into(),
    };
    for seg in &segs {
        at = step(&at, seg, defs)
            .map_err(|e| format!("in the filter over `{}`: {e}", item.trail))?;
        if at.is_any() {
            break;
        }
    }
    Ok(())
}

/// The schema of `$.facts`, generated once: the rule loader checks every path against it.
pub fn cached() -> &'static Value {
    static SCHEMA: std::sync::LazyLock<Value> = std::sync::LazyLock::new(facts_schema);
    &SCHEMA
}

/// `docs/view.md`: the view's subjects and facts as a reader of rule files needs them, the
/// facts' fields generated from their types (each field's doc comment is its description).
pub fn view_doc() -> String {
    use std::fmt::Write as _;
    let subjects = crate::catalog::SUBJECTS;
    let mut out = String::from(
        "# The view: what a rule can read\n\n\
         Generated by `cargo xtask docs` from `core/src/catalog.rs` (subjects) and the fact types\n\
         registered in `core/src/facts/registry.rs`; do not edit by hand.\n\n\
         A rule's paths are JSONPath (RFC 9535, as [jsonpath-rust](https://docs.rs/jsonpath-rust) reads\n\
         it) into the **view** of one target: a JSON document whose top-level keys are *subjects*. Each\n\
         subject is a Kubernetes object (or a list of objects) exactly as `kubectl get -o json` prints it,\n\
         so paths look like `$.pod.status.conditions[?@.type=='PodScheduled'].reason`. Evidence points at\n\
         the object the subject came from (`Pod ml/trainer-0` at `.status.conditions[0].reason`).\n\n\
         Subjects are linked by `core/src/view/links.rs`. A path into a subject not listed here, or into a\n\
         field no fact type has, is a load error that names the rule and the path.\n\n\
         ## Subjects\n\n| subject | what | how it is found |\n|---|---|---|\n",
    );
    // Subjects found the same way share a row, as a reader looks for them together.
    let mut i = 0;
    while i < subjects.len() {
        let s = &subjects[i];
        let mut names = vec![format!("`{}`", s.name)];
        let mut j = i + 1;
        while j < subjects.len() && subjects[j].what == s.what && subjects[j].found == s.found {
            names.push(format!("`{}`", subjects[j].name));
            j += 1;
        }
        let _ = writeln!(out, "| {} | {} | {} |", names.join(", "), s.what, s.found);
        i = j;
    }
    out.push_str(
        "\nEvents in the view have one shape whatever their API (`core/src/index/mod.rs`,\n\
         `EVENT_FIELDS`); evidence still points at the event's own field:\n\n\
         | in the view | core/v1 Event | events.k8s.io/v1 Event |\n|---|---|---|\n",
    );
    for f in crate::index::EVENT_FIELDS {
        let _ = writeln!(
            out,
            "| `{}` | `{}` | `{}` |",
            f.view,
            f.core_v1.join("."),
            f.events_v1.join(".")
        );
    }
    out.push_str(
        "\n## Facts (`$.facts`)\n\n\
         Each fact is built by one function from the view's context; its type, in the file linked,\n\
         documents every field. Facts of a later stage may read those of an earlier one.\n",
    );
    let schema = facts_schema();
    let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
    for def in super::FACTS {
        let _ = write!(
            out,
            "\n### `{}`\n\nBuilt by [`{}`](../{}) ({:?} stage): {}.\n\n",
            def.name, def.built_by, def.source, def.stage, def.meaning
        );
        let field = &schema["properties"][def.name];
        let _ = writeln!(out, "{}", shape_line(field, &defs));
        fields(field, &defs, 0, &mut out);
    }
    out
}

/// What a value is, in a few words: `object`, `list of object`, `string or null`.
fn shape_line(schema: &Value, defs: &Value) -> String {
    let mut alts = Vec::new();
    alternatives(schema, defs, &mut alts);
    let nullable = shape_is_nullable(schema, defs);
    let mut words: Vec<String> = alts.iter().map(|a| kind_word(a, defs)).collect();
    words.dedup();
    if words.is_empty() {
        words.push("null".into());
    }
    let mut s = words.join(" or ");
    if nullable {
        s.push_str(" or null");
    }
    s
}

fn shape_is_nullable(schema: &Value, defs: &Value) -> bool {
    let s = resolve(schema, defs);
    if types_of(s).contains(&"null") {
        return true;
    }
    ["anyOf", "oneOf"].iter().any(|k| {
        s.get(*k)
            .and_then(Value::as_array)
            .is_some_and(|l| l.iter().any(|a| shape_is_nullable(a, defs)))
    })
}

fn kind_word(s: &Value, defs: &Value) -> String {
    if s == &Value::Bool(true) || s == &json!({}) {
        return "any JSON".into();
    }
    if let Some(items) = s.get("items") {
        let mut alts = Vec::new();
        alternatives(items, defs, &mut alts);
        let inner: Vec<String> = alts.iter().map(|a| kind_word(a, defs)).collect();
        return format!("list of {}", inner.join(" or "));
    }
    if s.get("properties").is_none()
        && let Some(extra) = s
            .get("additionalProperties")
            .filter(|e| *e != &Value::Bool(false))
    {
        return format!("map of {}", shape_line(extra, defs));
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        let vals: Vec<String> = e
            .iter()
            .map(|v| format!("`{}`", v.as_str().unwrap_or("?")))
            .collect();
        return format!("one of {}", vals.join(", "));
    }
    let t: Vec<&str> = types_of(s).into_iter().filter(|t| *t != "null").collect();
    if t.is_empty() {
        "value".into()
    } else {
        t.join(" or ")
    }
}

/// The fields of an object (or of a list's or map's items), one bullet each, nested.
fn fields(schema: &Value, defs: &Value, depth: usize, out: &mut String) {
    use std::fmt::Write as _;
    let mut alts = Vec::new();
    alternatives(schema, defs, &mut alts);
    for s in alts {
        let inner = s
            .get("items")
            .or_else(|| {
                s.get("additionalProperties")
                    .filter(|_| s.get("properties").is_none())
            })
            .cloned();
        if let Some(inner) = inner.filter(|i| i != &Value::Bool(false)) {
            fields(&inner, defs, depth, out);
            continue;
        }
        let Some(props) = s.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (name, field) in props {
            let description = field
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let _ = write!(
                out,
                "{}- `{name}` ({})",
                "  ".repeat(depth),
                shape_line(field, defs)
            );
            if !description.is_empty() {
                let _ = write!(out, ": {description}");
            }
            out.push('\n');
            if depth < 4 {
                fields(field, defs, depth + 1, out);
            }
        }
    }
}
