//! Kubernetes resource quantities (`500m`, `2Gi`, `1e3`, `1.5`, `8`), read the way the API server
//! reads them (k8s.io/apimachinery `resource.ParseQuantity`, after the JSON decoder trims white
//! space), then given as an `f64` in base units. GPU counts, CPU and memory all compare this way;
//! precision beyond f64 does not matter for "does it fit".
//!
//! The grammar, as apimachinery implements it (which accepts a little more than its comment
//! says): an optional sign, digits, an optional `.` and digits (either side may be empty, so
//! `.5`, `1.` and even `.` are numbers), then a suffix: none, a decimal SI suffix (`n u m k M G T
//! P E`), a binary one (`Ki Mi Gi Ti Pi Ei`), or `e`/`E` and a signed integer exponent (`1e3`,
//! `1E-3`; a lone `E` is exa). Anything else is invalid: `1K`, `1i`, `1.1.M`, `1 Gi`, `0x10`.
//! Like apimachinery: a non-zero value smaller than a nano-unit is rounded away from zero to
//! the nano (`0.1n` is `1n`: asking for some gives some), binary-suffixed values are capped at
//! 2^63-1, and the exponent is truncated to 32 bits. Unlike it: a magnitude beyond f64's range
//! (`1e400`, which apimachinery keeps exactly) becomes `f64::MAX`, never infinity.

use serde_json::Value;

/// An extended resource: a name with a domain outside Kubernetes' own (`kubernetes.io` and its
/// subdomains), not a quota name (`requests.…`): the devices and their shares. The API server
/// allows it only whole, and never overcommitted.
pub fn extended(name: &str) -> bool {
    let Some((domain, _)) = name.split_once('/') else {
        return false;
    };
    let native = domain == "kubernetes.io" || domain.ends_with(".kubernetes.io");
    !native && !name.starts_with("requests.")
}

/// Parse a quantity string. `None` when Kubernetes would reject it.
pub fn parse(s: &str) -> Option<f64> {
    read(s, true)
}

/// [`parse`]; `fast`: through [`small`] where it applies (tests compare both ways).
fn read(s: &str, fast: bool) -> Option<f64> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let b = s.as_bytes();
    let digits_end =
        |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let (negative, mut pos) = match b[0] {
        b'-' => (true, 1),
        b'+' => (false, 1),
        _ => (false, 0),
    };
    let num_end = digits_end(pos);
    let num = &s[pos..num_end];
    pos = num_end;
    let mut denom = "";
    if b.get(pos) == Some(&b'.') {
        let end = digits_end(pos + 1);
        denom = &s[pos + 1..end];
        pos = end;
    }
    // The suffix: letters from apimachinery's set, then an optional sign and digits to the end.
    let suffix = &s[pos..];
    while pos < b.len() && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < b.len() && matches!(b[pos], b'+' | b'-') {
        pos += 1;
    }
    if digits_end(pos) != b.len() {
        return None;
    }
    let (binary, exponent): (bool, i64) = match suffix {
        "n" => (false, -9),
        "u" => (false, -6),
        "m" => (false, -3),
        "" => (false, 0),
        "k" => (false, 3),
        "M" => (false, 6),
        "G" => (false, 9),
        "T" => (false, 12),
        "P" => (false, 15),
        "E" => (false, 18),
        "Ki" => (true, 10),
        "Mi" => (true, 20),
        "Gi" => (true, 30),
        "Ti" => (true, 40),
        "Pi" => (true, 50),
        "Ei" => (true, 60),
        // apimachinery: strconv.ParseInt, then int32(...).
        e if e.len() > 1 && e.starts_with(['e', 'E']) => {
            (false, i64::from(e[1..].parse::<i64>().ok()? as i32))
        }
        _ => return None,
    };
    if let Some(v) = small(num, denom, binary, exponent).filter(|_| fast) {
        return Some(if negative && v != 0.0 { -v } else { v });
    }
    // The exact value is `digits × 10^exp10`, with `digits` a decimal string.
    let mut digits: Vec<u8> = num.bytes().chain(denom.bytes()).map(|c| c - b'0').collect();
    if digits.iter().all(|&d| d == 0) {
        return Some(0.0);
    }
    let mut exp10 = -(denom.len() as i64);
    if binary {
        for _ in 0..exponent / 10 {
            multiply(&mut digits, 1024);
        }
    } else {
        exp10 += exponent;
    }
    // Round away from zero to the nano-unit.
    if exp10 < -9 {
        let drop = (-9 - exp10) as u64;
        if drop >= digits.len() as u64 {
            digits = vec![1];
        } else {
            let keep = digits.len() - drop as usize;
            let rest_nonzero = digits[keep..].iter().any(|&d| d != 0);
            digits.truncate(keep);
            if rest_nonzero {
                multiply_add(&mut digits, 1, 1);
            }
        }
        exp10 = -9;
    }
    let text: String = digits.iter().map(|&d| char::from(b'0' + d)).collect();
    let mut v: f64 = format!("{text}e{exp10}").parse().ok()?;
    if binary {
        v = v.min(9_223_372_036_854_775_807.0);
    }
    if v.is_infinite() {
        v = f64::MAX;
    }
    Some(if negative { -v } else { v })
}

/// The value of a quantity whose digits (`num` and `denom`, times 1024^(`exponent` / 10) when
/// `binary`) make an integer below 2^53 and whose decimal exponent is within -9 (below it a
/// value is rounded to the nano-unit) and 22, or None. Such an integer and such a power of ten
/// are exact in an f64, so one multiplication or division rounds as reading the exact decimal
/// does (Clinger's fast path): the same f64 [`parse`] makes digit by digit, without the
/// allocations that cost most of reading a cluster's resource quantities.
fn small(num: &str, denom: &str, binary: bool, exponent: i64) -> Option<f64> {
    const EXACT: u64 = 1 << 53;
    const POWERS: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let mut n: u64 = 0;
    for c in num.bytes().chain(denom.bytes()) {
        n = n.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
        if n >= EXACT {
            return None;
        }
    }
    let mut exp10 = -(denom.len() as i64);
    if binary {
        for _ in 0..exponent / 10 {
            n = n.checked_mul(1024).filter(|&m| m < EXACT)?;
        }
    } else {
        exp10 = exp10.checked_add(exponent)?;
    }
    if !(-9..=22).contains(&exp10) {
        return None;
    }
    let power = POWERS[exp10.unsigned_abs() as usize];
    Some(match exp10 >= 0 {
        true => n as f64 * power,
        false => n as f64 / power,
    })
}

/// `digits × factor`, in place (most significant digit first).
fn multiply(digits: &mut Vec<u8>, factor: u32) {
    multiply_add(digits, factor, 0);
}

/// `digits × factor + add`, in place (most significant digit first).
fn multiply_add(digits: &mut Vec<u8>, factor: u32, add: u32) {
    let mut carry = u64::from(add);
    for d in digits.iter_mut().rev() {
        let x = u64::from(*d) * u64::from(factor) + carry;
        *d = (x % 10) as u8;
        carry = x / 10;
    }
    let mut head = Vec::new();
    while carry > 0 {
        head.push((carry % 10) as u8);
        carry /= 10;
    }
    if !head.is_empty() {
        head.reverse();
        digits.splice(0..0, head);
    }
}

/// Read a quantity from JSON: a string quantity or a plain number (which apimachinery parses
/// from its text, by the same grammar).
pub fn from_value(v: &Value) -> Option<f64> {
    match v {
        Value::String(s) => parse(s),
        Value::Number(n) => parse(&n.to_string()),
        _ => None,
    }
}

/// Print a quantity compactly: whole numbers without a fraction, fractions to three places
/// (more where three would print a non-zero amount as 0). From 1e15 on, past the fifteen
/// digits every f64 keeps exactly, the float's own digits are not the bundle's
/// (`99999999999999999999999999` would print as `100000000000000004764729344`), so such a
/// magnitude reads "about 1e26"; [`parse`] clamps what no f64 holds to `f64::MAX`, which reads
/// "more than 1.797e308" (its negative "less than -1.797e308").
pub fn format(v: f64) -> String {
    if v == f64::MAX {
        return "more than 1.797e308".into();
    }
    if v == -f64::MAX {
        return "less than -1.797e308".into();
    }
    if v.abs() >= 1e15 {
        return format!("about {}", scientific(v));
    }
    if v.fract() == 0.0 {
        return format!("{}", v as i64);
    }
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "0" || s == "-0" {
        format!("{v}")
    } else {
        s.to_string()
    }
}

/// `1e26`, `1.235e23`: four significant digits at most, as "about" promises no more.
fn scientific(v: f64) -> String {
    let s = format!("{v:.3e}");
    match s.split_once('e') {
        Some((mantissa, exp)) => {
            let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
            format!("{mantissa}e{exp}")
        }
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Quantities read through the fast path are the same f64, bit for bit, as read digit by
    /// digit: every sign, suffix and exponent, digits on both sides of the point, at the
    /// edges of where the fast path applies (2^53, 10^-9, 10^22).
    #[test]
    fn the_fast_path_reads_what_the_exact_one_reads() {
        let mut numbers: Vec<String> = [
            "0",
            "00",
            "1",
            "7",
            "8",
            "10",
            "16",
            "96",
            "100",
            "125",
            "250",
            "500",
            "512",
            "999",
            "1000",
            "1024",
            "4096",
            "65536",
            "123456789",
            "9007199254740991",
            "9007199254740992",
            "9007199254740993",
            "18014398509481984",
            "99999999999999999999",
            "0.1",
            "0.5",
            "1.5",
            "2.25",
            "0.001",
            "0.0001",
            "3.14159",
            "1.",
            ".5",
            ".",
            "0.000000001",
            "0.0000000001",
            "123.456",
            "8796093022208.5",
            "4503599627370495.5",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in 1..=18 {
            for _ in 0..20 {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1442695040888963407);
                let digits: String = (0..len)
                    .map(|k| char::from(b'0' + ((seed >> (k % 16 * 4)) % 10) as u8))
                    .collect();
                let point = (seed >> 60) as usize % (len + 1);
                numbers.push(digits.clone());
                numbers.push(format!("{}.{}", &digits[..point], &digits[point..]));
            }
        }
        let suffixes = [
            "", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
            "e0", "e3", "e-3", "e9", "e-9", "e-10", "e15", "e22", "e23", "E-7", "e+2",
        ];
        let mut checked = 0;
        for number in &numbers {
            for suffix in suffixes {
                for sign in ["", "-", "+"] {
                    let text = format!("{sign}{number}{suffix}");
                    let (fast, exact) = (read(&text, true), read(&text, false));
                    assert_eq!(fast.map(f64::to_bits), exact.map(f64::to_bits), "{text}");
                    checked += usize::from(fast.is_some());
                }
            }
        }
        assert!(checked > 20_000, "{checked} quantities read");
    }

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
        assert_eq!(parse("1e999"), Some(f64::MAX));
    }

    #[test]
    fn formats_compactly() {
        assert_eq!(format(4.0), "4");
        assert_eq!(format(0.5), "0.5");
        assert_eq!(format(1.0 / 3.0), "0.333");
        assert_eq!(format(999_999_999_999_999.0), "999999999999999");
        assert_eq!(format(0.0001), "0.0001", "a non-zero amount never reads 0");
    }

    /// A number past what an f64 keeps digit for digit is never printed with the float's
    /// digits as if the bundle had said them.
    #[test]
    fn overflowing_quantities_say_they_are_approximate() {
        let q = parse("99999999999999999999999999").unwrap();
        assert_eq!(format(q), "about 1e26");
        assert_eq!(
            format(parse("123456789012345678901234").unwrap()),
            "about 1.235e23"
        );
        assert_eq!(format(parse("1e400").unwrap()), "more than 1.797e308");
        assert_eq!(format(parse("-1e400").unwrap()), "less than -1.797e308");
        assert_eq!(format(parse("2Ei").unwrap()), "about 2.306e18");
    }
}
