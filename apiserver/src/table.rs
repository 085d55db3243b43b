//! Server-side printing: the `meta.k8s.io/v1` Table that kubectl asks for when it prints
//! human output (`kubectl get pods`).
//!
//! kubectl v1.32 given a plain List instead falls back to its own `NAME AGE` columns, so a
//! Table is not required, but serving one keeps the request/response shape of a real server
//! (and its Accept negotiation) under test. The columns are the generic ones the real server
//! uses for custom resources without printer columns: Name and Age. Age is computed against
//! the wall clock, as the real server does, and formatted like apimachinery's `HumanDuration`.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

/// What the Table's rows embed, from the `includeObject` query parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Include {
    None,
    Metadata,
    Object,
}

impl Include {
    pub fn parse(s: Option<&str>) -> Include {
        match s {
            Some("None") => Include::None,
            Some("Object") => Include::Object,
            _ => Include::Metadata,
        }
    }
}

/// Builds a Table from objects; `list_meta` is the List's metadata (resourceVersion,
/// continue, remainingItemCount), which the Table carries the same way.
pub(crate) fn table<'a>(
    objects: impl Iterator<Item = &'a Value>,
    list_meta: Map<String, Value>,
    include: Include,
) -> Value {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let rows: Vec<Value> = objects
        .map(|obj| {
            let meta = obj.get("metadata").cloned().unwrap_or_else(|| json!({}));
            let name = meta
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            let age = meta
                .get("creationTimestamp")
                .and_then(Value::as_str)
                .and_then(parse_rfc3339)
                .map_or_else(|| "<unknown>".to_owned(), |t| human_duration(now - t));
            let mut row = json!({"cells": [name, age]});
            match include {
                Include::None => {}
                Include::Metadata => {
                    row["object"] = json!({
                        "kind": "PartialObjectMetadata",
                        "apiVersion": "meta.k8s.io/v1",
                        "metadata": meta,
                    });
                }
                Include::Object => row["object"] = obj.clone(),
            }
            row
        })
        .collect();
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": list_meta,
        "columnDefinitions": [
            {"name": "Name", "type": "string", "format": "name", "priority": 0,
             "description": "Name must be unique within a namespace."},
            {"name": "Age", "type": "date", "format": "", "priority": 0,
             "description": "When the object was created."},
        ],
        "rows": rows,
    })
}

/// Seconds since the epoch of an RFC 3339 timestamp as Kubernetes writes them
/// (`2026-10-14T09:41:07Z`, optionally with fractional seconds or a `±hh:mm` offset).
pub(crate) fn parse_rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, min, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut rest = &s[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        rest = frac.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let (h, m) = rest[1..].split_once(':')?;
            sign * (h.parse::<i64>().ok()? * 3600 + m.parse::<i64>().ok()? * 60)
        }
    };
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm), so no date crate is needed.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hour * 3600 + min * 60 + sec - offset)
}

/// apimachinery's `duration.HumanDuration`, which kubectl and the server use for AGE.
pub(crate) fn human_duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".to_owned();
    }
    if seconds < 0 {
        return "0s".to_owned();
    }
    if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    }
    if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{}d", hours / 24)
        } else {
            format!("{}d{h}h", hours / 24)
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        return if dy == 0 {
            format!("{}y", hours / 24 / 365)
        } else {
            format!("{}y{dy}d", hours / 24 / 365)
        };
    }
    format!("{}y", hours / 24 / 365)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_rfc3339("2026-10-14T09:41:07Z"), Some(1_791_970_867));
        assert_eq!(
            parse_rfc3339("2026-10-14T09:41:07.123456Z"),
            Some(1_791_970_867)
        );
        assert_eq!(
            parse_rfc3339("2026-10-14T11:41:07+02:00"),
            Some(1_791_970_867)
        );
        assert_eq!(parse_rfc3339("yesterday"), None);
    }

    #[test]
    fn durations_match_apimachinery() {
        let cases = [
            (-5, "<invalid>"),
            (-1, "0s"),
            (59, "59s"),
            (119, "119s"),
            (125, "2m5s"),
            (600, "10m"),
            (3 * 3600 + 5, "3h"),
            (7 * 3600 + 30 * 60, "7h30m"),
            (47 * 3600, "47h"),
            (3 * 86_400 + 4 * 3600, "3d4h"),
            (30 * 86_400, "30d"),
            (3 * 365 * 86_400 + 5 * 86_400, "3y5d"),
            (9 * 365 * 86_400, "9y"),
        ];
        for (secs, want) in cases {
            assert_eq!(human_duration(secs), want, "{secs}");
        }
    }
}
