//! Kubernetes resource quantities (`500m`, `2Gi`, `1e3`, `1.5`, `8`) parsed the way the API
//! server reads them, as an `f64` in base units. GPU counts, CPU and memory all compare this way;
//! precision beyond f64 does not matter for "does it fit".

use serde_json::Value;

/// Parse a quantity string. `None` when it is not a quantity.
pub fn parse(s: &str) -> Option<f64> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    // Split the numeric part from the suffix. An `e`/`E` followed by digits is a decimal
    // exponent (`1e3`), but a lone `E` is the exa suffix.
    let bytes = s.as_bytes();
    let mut end = 0;
    while end < bytes.len()
        && (bytes[end].is_ascii_digit() || matches!(bytes[end], b'.' | b'+' | b'-'))
    {
        end += 1;
    }
    let (num, suffix) = s.split_at(end);
    if num.is_empty() || num == "+" || num == "-" || num == "." {
        return None;
    }
    let base: f64 = num.parse().ok()?;
    let factor = match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024.0,
        "Mi" => 1024.0_f64.powi(2),
        "Gi" => 1024.0_f64.powi(3),
        "Ti" => 1024.0_f64.powi(4),
        "Pi" => 1024.0_f64.powi(5),
        "Ei" => 1024.0_f64.powi(6),
        exp if exp.starts_with(['e', 'E']) => {
            let e: i32 = exp[1..].parse().ok()?;
            10f64.powi(e)
        }
        _ => return None,
    };
    let v = base * factor;
    v.is_finite().then_some(v)
}

/// Read a quantity from JSON: a string quantity or a plain number.
pub fn from_value(v: &Value) -> Option<f64> {
    match v {
        Value::String(s) => parse(s),
        Value::Number(n) => n.as_f64().filter(|f| f.is_finite()),
        _ => None,
    }
}

/// Print a quantity compactly: whole numbers without a fraction.
pub fn format(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kubernetes_forms() {
        assert_eq!(parse("8"), Some(8.0));
        assert_eq!(parse("500m"), Some(0.5));
        assert_eq!(parse("2Gi"), Some(2.0 * 1024.0 * 1024.0 * 1024.0));
        assert_eq!(parse("1e3"), Some(1000.0));
        assert_eq!(parse("1.5"), Some(1.5));
        assert_eq!(parse("1k"), Some(1000.0));
        assert_eq!(parse("3E"), Some(3e18));
        assert_eq!(parse("-1"), Some(-1.0));
        assert_eq!(parse(""), None);
        assert_eq!(parse("lots"), None);
        assert_eq!(parse("5Zi"), None);
        assert_eq!(parse("1e999"), None);
    }

    #[test]
    fn formats_compactly() {
        assert_eq!(format(4.0), "4");
        assert_eq!(format(0.5), "0.5");
        assert_eq!(format(1.0 / 3.0), "0.333");
    }
}
