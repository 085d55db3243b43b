//! The `Events:` table of `kubectl describe`, with its relative ages ("2m (x5 over 10m)",
//! "<unknown>", "3d4h") turned back into times counted from the paste's "now".

use super::lines::{cells_at, column_starts, present};
use serde_json::{Value, json};

/// One row of the table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    pub line: usize,
    pub kind: String,
    pub reason: String,
    /// Seconds before "now" of the first and the last time; None for `<unknown>`.
    pub first_ago: Option<i64>,
    pub last_ago: Option<i64>,
    pub count: u64,
    pub from: String,
    pub message: String,
    /// `spec.containers{main}` when kubectl prefixed the message with it.
    pub field_path: Option<String>,
}

/// Seconds of one of apimachinery's HumanDuration texts (`45s`, `3m12s`, `2h5m`, `3d4h`,
/// `2y30d`); None for anything else (`<unknown>`, `<invalid>`).
pub(crate) fn parse_age(s: &str) -> Option<i64> {
    let s = s.trim();
    if s.is_empty() || !s.as_bytes()[0].is_ascii_digit() {
        return None;
    }
    let (mut total, mut n) = (0i64, 0i64);
    let mut digits = false;
    for c in s.chars() {
        if let Some(d) = c.to_digit(10) {
            n = n.checked_mul(10)?.checked_add(i64::from(d))?;
            digits = true;
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'y' => 365 * 86_400,
            _ => return None,
        };
        if !digits {
            return None;
        }
        total = total.checked_add(n.checked_mul(unit)?)?;
        (n, digits) = (0, false);
    }
    (!digits).then_some(total)
}

/// The Age cell: `2m`, or `2m (x5 over 10m)` (last seen, count, first seen). None when the
/// cell is neither.
fn parse_interval(cell: &str) -> Option<(Option<i64>, Option<i64>, u64)> {
    let cell = cell.trim();
    let Some((last, rest)) = cell.split_once(" (x") else {
        let age = parse_age(cell);
        return (age.is_some() || cell.starts_with('<')).then_some((age, age, 1));
    };
    let (count, first) = rest.strip_suffix(')')?.split_once(" over ")?;
    let count: u64 = count.parse().ok()?;
    Some((parse_age(first), parse_age(last), count))
}

/// The header `Type Reason Age From Message`'s column starts.
fn columns(header: &str) -> Option<Vec<usize>> {
    let words: Vec<&str> = header.split_whitespace().collect();
    (words == ["Type", "Reason", "Age", "From", "Message"]).then(|| column_starts(header))
}

/// Cut a row at the header's columns; when the paste lost its alignment, split at runs of two
/// or more spaces instead (the tabwriter's padding).
fn cells(row: &str, cols: &[usize]) -> Option<[String; 5]> {
    let aligned: [String; 5] = cells_at(row, cols).try_into().ok()?;
    if matches!(aligned[0].as_str(), "Normal" | "Warning") && parse_interval(&aligned[2]).is_some()
    {
        return Some(aligned);
    }
    let parts: Vec<&str> = row
        .trim()
        .split("  ")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    (parts.len() >= 4 && parse_interval(parts[2]).is_some()).then(|| {
        let (from, message) = if parts.len() == 4 {
            ("", parts[3].to_string())
        } else {
            (parts[3], parts[4..].join("  "))
        };
        [
            parts[0].into(),
            parts[1].into(),
            parts[2].into(),
            from.into(),
            message,
        ]
    })
}

/// The rows of an `Events:` section: its lines after the `Events:` line. A line that is not a
/// row continues the message before it (a message with a line break). Err names the line.
pub(crate) fn rows(lines: &[super::lines::Numbered]) -> Result<Vec<Row>, (usize, String)> {
    let mut it = lines.iter().filter(|(_, l)| !l.trim().is_empty());
    let Some(&(hno, header)) = it.next() else {
        return Ok(Vec::new());
    };
    let cols = columns(header).ok_or((
        hno,
        "an Events table without its `Type Reason Age From Message` header".to_string(),
    ))?;
    let mut out: Vec<Row> = Vec::new();
    for &(no, l) in it {
        if l.trim().starts_with("----") {
            continue;
        }
        match cells(l, &cols) {
            Some(c) => out.push(row(no, c)),
            None => match out.last_mut() {
                Some(prev) => {
                    prev.message.push('\n');
                    prev.message.push_str(l.trim());
                }
                None => return Err((no, "not a row of the Events table".into())),
            },
        }
    }
    Ok(out)
}

fn row(line: usize, c: [String; 5]) -> Row {
    let [kind, reason, age, from, message] = c;
    let (first_ago, last_ago, count) = parse_interval(&age).unwrap_or((None, None, 1));
    let (field_path, message) = split_field_path(&message);
    Row {
        line,
        kind,
        reason,
        first_ago,
        last_ago,
        count,
        from,
        message,
        field_path,
    }
}

/// kubectl writes `spec.containers{main}: message` when the event names a part of the object.
fn split_field_path(m: &str) -> (Option<String>, String) {
    if let Some((path, rest)) = m.split_once("}: ")
        && path.starts_with("spec.")
        && path.contains('{')
        && !path.contains(' ')
    {
        return (Some(format!("{path}}}")), rest.to_string());
    }
    (None, m.to_string())
}

/// The Event objects of `rows`, about `involved` (kind, apiVersion, namespace, name, uid),
/// timed from `now` (seconds); without `now` they carry no times.
pub(crate) fn objects(rows: &[Row], involved: &Value, now: Option<i64>) -> Vec<Value> {
    let ns = involved["namespace"].as_str().unwrap_or("default");
    let name = involved["name"].as_str().unwrap_or("");
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            let at = |ago: Option<i64>| {
                now.zip(ago)
                    .map(|(n, a)| crate::time::format_rfc3339(n - a))
            };
            let mut involved = involved.clone();
            if let Some(p) = &r.field_path {
                involved["fieldPath"] = json!(p);
            }
            let mut e = json!({
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": format!("{name}.describe-{}", i + 1), "namespace": ns},
                "involvedObject": involved,
                "type": r.kind,
                "reason": r.reason,
                "message": r.message,
                "count": r.count,
                "source": {"component": present(&r.from).unwrap_or("")},
            });
            if let Some(t) = at(r.first_ago) {
                e["firstTimestamp"] = json!(t);
                e["metadata"]["creationTimestamp"] = json!(t);
            }
            if let Some(t) = at(r.last_ago) {
                e["lastTimestamp"] = json!(t);
            }
            e
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_as_apimachinery_writes_them() {
        assert_eq!(parse_age("45s"), Some(45));
        assert_eq!(parse_age("3m12s"), Some(192));
        assert_eq!(parse_age("2h5m"), Some(7500));
        assert_eq!(parse_age("3d4h"), Some(3 * 86_400 + 4 * 3600));
        assert_eq!(parse_age("2y30d"), Some(760 * 86_400));
        for bad in [
            "<unknown>",
            "<invalid>",
            "",
            "m",
            "5",
            "5x",
            "99999999999999999999s",
        ] {
            assert_eq!(parse_age(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_repeated_event_gives_its_first_and_last_time_and_count() {
        assert_eq!(
            parse_interval("2m (x5 over 10m)"),
            Some((Some(600), Some(120), 5))
        );
        assert_eq!(parse_interval("<unknown>"), Some((None, None, 1)));
        assert_eq!(parse_interval("soon"), None);
    }

    #[test]
    fn rows_are_cut_at_the_header_columns_and_continue_on_broken_lines() {
        let text = "  Type     Reason            Age                From               Message\n  ----     ------            ----               ----               -------\n  Warning  FailedScheduling  2m (x5 over 10m)   default-scheduler  0/4 nodes are available: 4 Insufficient nvidia.com/gpu.\n  Normal   Pulled            <unknown>          kubelet            spec.containers{main}: Container image \"x\" already present\n           second line";
        let lines: Vec<(usize, &str)> =
            text.lines().enumerate().map(|(i, l)| (i + 10, l)).collect();
        let r = rows(&lines).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(
            (r[0].first_ago, r[0].last_ago, r[0].count),
            (Some(600), Some(120), 5)
        );
        assert_eq!(
            r[0].message,
            "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."
        );
        assert_eq!(r[1].field_path.as_deref(), Some("spec.containers{main}"));
        assert_eq!(
            r[1].message,
            "Container image \"x\" already present\nsecond line"
        );
        let ev = objects(
            &r,
            &json!({"kind": "Pod", "namespace": "ml", "name": "p"}),
            Some(1_000_000),
        );
        assert_eq!(
            ev[0]["firstTimestamp"],
            crate::time::format_rfc3339(1_000_000 - 600)
        );
        assert_eq!(
            ev[0]["lastTimestamp"],
            crate::time::format_rfc3339(1_000_000 - 120)
        );
        assert!(ev[1].get("lastTimestamp").is_none());
    }

    #[test]
    fn a_collapsed_paste_is_split_at_double_spaces() {
        let text = "Type Reason Age From Message\nWarning  FailedScheduling  3m  default-scheduler  no nodes";
        let lines: Vec<(usize, &str)> = text.lines().enumerate().map(|(i, l)| (i + 1, l)).collect();
        let r = rows(&lines).unwrap();
        assert_eq!(
            (r[0].reason.as_str(), r[0].last_ago, r[0].message.as_str()),
            ("FailedScheduling", Some(180), "no nodes")
        );
    }

    #[test]
    fn a_table_without_a_header_is_an_error_naming_the_line() {
        let r = rows(&[(7, "  Warning  X  2m  y  z")]);
        assert_eq!(r.unwrap_err().0, 7);
    }
}
