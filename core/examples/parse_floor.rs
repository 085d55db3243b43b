//! The floor `scan` is measured against (issue: scale): read the same bytes with serde_json
//! into `serde_json::Value`, or into `serde::de::IgnoredAny`. Prints one JSON line with the
//! times in milliseconds. Usage: parse_floor FILE [value|ignored]
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("file");
    let mode = args.next().unwrap_or_else(|| "value".into());
    let t0 = Instant::now();
    let text = std::fs::read_to_string(&path).expect("read");
    let read_ms = t0.elapsed().as_secs_f64() * 1e3;
    let t1 = Instant::now();
    match mode.as_str() {
        "ignored" => {
            let _: serde::de::IgnoredAny = serde_json::from_str(&text).expect("json");
        }
        _ => {
            let v: serde_json::Value = serde_json::from_str(&text).expect("json");
            std::hint::black_box(&v);
        }
    }
    let parse_ms = t1.elapsed().as_secs_f64() * 1e3;
    println!(
        "{}",
        serde_json::json!({"mode": mode, "bytes": text.len(), "readMs": read_ms, "parseMs": parse_ms})
    );
}
