//! Custom resources (and any kind without a describer of its own): kubectl prints the object's
//! fields as a tree, each name turned into a label (`queueName` → `Queue Name`, `uid` → `UID`),
//! maps of a list one after another with nothing between them, scalars with `%v`. This module
//! turns those labels and trees back into JSON.

use super::lines::Entry;
use serde_json::{Map, Value};

/// kubectl's common acronyms, written in capitals in a label.
const ACRONYMS: [&str; 5] = ["API", "URL", "UID", "OSB", "GUID"];

/// Fields whose text stays a string even when it reads as a number (a name or version of digits).
const STRING_FIELDS: [&str; 9] = [
    "name",
    "uid",
    "resourceVersion",
    "message",
    "reason",
    "type",
    "status",
    "value",
    "key",
];

/// Fields named in the plural that hold a map, not a list.
const PLURAL_MAPS: [&str; 4] = ["status", "labels", "annotations", "requests"];

/// The field name a label was made from. A label with characters other than letters, spaces and
/// `-` was printed as the field's own name (`nvidia.com/gpu`); one made of words is joined back
/// in camel case, acronyms first in lower case (`API Version` → `apiVersion`), `-` kept.
pub(crate) fn field_name(label: &str) -> String {
    if !is_smart(label) {
        return label.to_string();
    }
    let mut out = String::new();
    let mut lower_next = true;
    for word in label.split(' ').filter(|w| !w.is_empty()) {
        if word == "-" {
            out.push('-');
            lower_next = true;
            continue;
        }
        if lower_next && ACRONYMS.contains(&word) {
            out.push_str(&word.to_lowercase());
        } else if lower_next {
            let mut c = word.chars();
            out.extend(c.next().map(|f| f.to_ascii_lowercase()));
            out.push_str(c.as_str());
        } else {
            out.push_str(word);
        }
        lower_next = false;
    }
    out
}

/// Whether kubectl made this label from words (else it printed the name as it is).
fn is_smart(label: &str) -> bool {
    label
        .chars()
        .all(|c| c.is_alphabetic() || c == ' ' || c == '-')
}

/// A scalar as `%v` printed it: `true`/`false`, a whole number, `<nil>`, else the text.
pub(crate) fn scalar(field: &str, verbatim_key: bool, text: &str) -> Value {
    match text {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        "<nil>" => return Value::Null,
        _ => {}
    }
    if !verbatim_key
        && !STRING_FIELDS.contains(&field)
        && let Ok(n) = text.parse::<i64>()
    {
        return Value::from(n);
    }
    Value::String(text.to_string())
}

/// The JSON value of one entry (its scalar, or the tree under it).
pub(crate) fn value_of(e: &Entry) -> Value {
    let field = e.key.map(field_name).unwrap_or_default();
    if e.children.is_empty() {
        // `Field:` alone is an empty map or list (an empty string is never written by the API).
        if e.value.is_empty() {
            return Value::Object(Map::new());
        }
        return scalar(&field, e.key.is_some_and(|k| !is_smart(k)), e.value);
    }
    if e.children.iter().all(|c| c.key.is_none()) {
        return Value::Array(
            e.children
                .iter()
                .map(|c| scalar("", true, c.value))
                .collect(),
        );
    }
    let items = maps(&e.children);
    if items.len() > 1 || is_list(&field, &e.children) {
        Value::Array(items.into_iter().map(Value::Object).collect())
    } else {
        Value::Object(items.into_iter().next().unwrap_or_default())
    }
}

/// The keyed children as maps: a new map starts where a key does not sort after the one before
/// (kubectl prints each map's fields sorted, and the maps of a list one after another).
fn maps(children: &[Entry]) -> Vec<Map<String, Value>> {
    let mut out: Vec<Map<String, Value>> = Vec::new();
    let mut last: Option<String> = None;
    for c in children {
        let Some(k) = c.key else { continue };
        let name = field_name(k);
        if out.is_empty() || last.as_ref().is_some_and(|l| name <= *l) {
            out.push(Map::new());
        }
        if let Some(m) = out.last_mut() {
            m.insert(name.clone(), value_of(c));
        }
        last = Some(name);
    }
    out
}

/// The labels of the maps named `resources`: a container's (limits, requests, claims) and a
/// KAI-Scheduler Queue's (`spec.resources`: quota, limit and weight for each of cpu, gpu and
/// memory). A list named `resources` (Kueue's flavors) has items with a `Name`.
const RESOURCE_MAP_KEYS: [&str; 6] = ["Limits", "Requests", "Claims", "Cpu", "Gpu", "Memory"];

/// The labels of a DRA claim's `devices` map (`resource.k8s.io` DeviceClaim).
const DEVICE_CLAIM_KEYS: [&str; 3] = ["Requests", "Constraints", "Config"];

/// One map under a plural field is a list of one: `conditions`, `podSets`, `ownerReferences`.
/// Not when its keys are data (`nvidia.com/gpu`), nor for the plural names of maps, nor a
/// `resources` map ([`RESOURCE_MAP_KEYS`]).
fn is_list(field: &str, children: &[Entry]) -> bool {
    let keys: Vec<&str> = children.iter().filter_map(|c| c.key).collect();
    // DRA's claim spec: `devices` is a map of requests, constraints and config, and its
    // `requests` a list of named requests (a resource map never has a `Name` key).
    if field == "requests" && keys.contains(&"Name") {
        return true;
    }
    if field == "devices" && keys.iter().all(|k| DEVICE_CLAIM_KEYS.contains(k)) {
        return false;
    }
    if keys.iter().any(|k| !is_smart(k)) || PLURAL_MAPS.contains(&field) {
        return false;
    }
    if field == "resources" && keys.iter().all(|k| RESOURCE_MAP_KEYS.contains(k)) {
        return false;
    }
    field.ends_with('s') && !field.ends_with("ss") && !field.ends_with("us")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::describe::lines::tree;
    use serde_json::json;

    #[test]
    fn labels_turn_back_into_field_names() {
        for (label, field) in [
            ("API Version", "apiVersion"),
            ("UID", "uid"),
            ("Pod Set Assignments", "podSetAssignments"),
            ("Last Transition Time", "lastTransitionTime"),
            ("nvidia.com/gpu", "nvidia.com/gpu"),
            ("Cpu", "cpu"),
            ("Pod - Template - Hash", "pod-template-hash"),
            ("Owner UID", "ownerUID"),
        ] {
            assert_eq!(field_name(label), field, "{label}");
        }
    }

    fn read(text: &str) -> Value {
        let lines: Vec<(usize, &str)> = text.lines().enumerate().map(|(i, l)| (i + 1, l)).collect();
        let t = tree(&lines, 64).unwrap();
        value_of(&t[0])
    }

    #[test]
    fn lists_of_maps_split_where_the_sorted_keys_start_again() {
        let v = read(
            "Status:\n  Admission:\n    Cluster Queue:  cq\n    Pod Set Assignments:\n      Count:  2\n      Flavors:\n        nvidia.com/gpu:  h100\n      Resource Usage:\n        nvidia.com/gpu:  16\n  Conditions:\n    Message:  a: b\n    Reason:   R\n    Status:   True\n    Type:     QuotaReserved\n    Message:  m\n    Status:   False\n    Type:     Admitted\n",
        );
        assert_eq!(v["conditions"][0]["message"], "a: b");
        assert_eq!(v["conditions"][1]["type"], "Admitted");
        let psa = &v["admission"]["podSetAssignments"];
        assert_eq!(psa[0]["count"], 2);
        assert_eq!(psa[0]["flavors"], json!({"nvidia.com/gpu": "h100"}));
        assert_eq!(psa[0]["resourceUsage"], json!({"nvidia.com/gpu": "16"}));
    }

    /// A KAI Queue's `spec.resources` is one map, so a GPU entry without `Limit` is seen as
    /// the unset limit it is (KAI reads it as 0); Kueue's `resources` of a flavor stays a list.
    #[test]
    fn a_kai_queues_resources_stay_a_map_and_kueues_a_list() {
        let v = read(
            "Spec:\n  Parent Queue:  root\n  Resources:\n    Cpu:\n      Limit:  -1\n      Quota:  -1\n    Gpu:\n      Over Quota Weight:  1\n      Quota:  4\n",
        );
        assert_eq!(
            v["resources"]["gpu"],
            json!({"overQuotaWeight": 1, "quota": 4})
        );
        assert_eq!(v["resources"]["cpu"]["limit"], -1);
        let v = read(
            "Flavors:\n  Name:  h100\n  Resources:\n    Name:  nvidia.com/gpu\n    Nominal Quota:  8\n",
        );
        assert_eq!(v[0]["resources"][0]["nominalQuota"], 8);
    }

    #[test]
    fn scalars_keep_their_json_types() {
        // kubectl prints each map's fields sorted by name.
        let v = read(
            "Spec:\n  Active:  true\n  Args:\n    --a\n    --b\n  Count:  3\n  Empty:\n  Gone:  <nil>\n  Name:  007\n",
        );
        assert_eq!(
            v,
            json!({"active": true, "count": 3, "name": "007", "gone": null, "empty": {}, "args": ["--a", "--b"]})
        );
    }
}
