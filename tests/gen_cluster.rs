//! `gen-cluster`, the benchmarks' cluster maker, as a command: help, errors that name the flag,
//! the same bytes for the same flags, and a reader that stops early is not a failure.

use std::io::Read;
use std::process::{Command, Stdio};

fn gen_cluster(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gen-cluster"))
        .args(args)
        .output()
        .expect("gen-cluster runs")
}

#[test]
fn help_is_printed_not_a_cluster() {
    let out = gen_cluster(&["--help"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("usage: gen-cluster"), "{text}");
    assert!(text.contains("--shape SHAPE"));
}

#[test]
fn a_bad_flag_or_value_is_refused_by_name() {
    for (args, says) in [
        (&["--bogus", "1"][..], "--bogus: not a flag it knows"),
        (&["--nodes", "many"][..], "--nodes many: not a whole number"),
        (&["--pods"][..], "--pods: a value must follow it"),
        (&["--shape", "sunny"][..], "--shape sunny: not a shape"),
    ] {
        let out = gen_cluster(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}: nothing is written");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn the_same_flags_give_the_same_cluster() {
    let args = [
        "--nodes", "4", "--pods", "30", "--seed", "7", "--shape", "mixed",
    ];
    let (a, b) = (gen_cluster(&args), gen_cluster(&args));
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    let list: serde_json::Value = serde_json::from_slice(&a.stdout).expect("a JSON List");
    assert_eq!(list["kind"], "List");
    let other = gen_cluster(&[
        "--nodes", "4", "--pods", "30", "--seed", "8", "--shape", "mixed",
    ]);
    assert_ne!(a.stdout, other.stdout, "another seed, another cluster");
}

#[test]
fn a_reader_that_stops_early_is_not_a_failure() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gen-cluster"))
        .args(["--nodes", "50", "--pods", "3000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gen-cluster runs");
    let mut first = [0u8; 64];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The pipe's read end is closed here, long before the 3,000 pods are written.
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}
