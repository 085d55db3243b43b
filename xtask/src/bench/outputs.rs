//! The memory of every output `kubectl layer` writes from a file: `scan -o json`, `text`,
//! `markdown` and `prometheus`, and `bundle -f`. Each is a whole run of the release binary in
//! a process of its own, output discarded, on every generated shape; its peak resident memory
//! (GNU time's `%M`: the binary is measured as users run it, with nothing added to it) over
//! the file's size. The README promises about twice the file for every output.

use super::{Plan, SHAPES, cluster, exe, mb, shaped_bundle, size};
use std::path::Path;
use std::process::{Command, Stdio};

/// The outputs measured: their name in the table, and the arguments before the file.
const OUTPUTS: &[(&str, &[&str])] = &[
    ("scan -o json", &["scan", "-o", "json", "-f"]),
    ("scan -o text", &["scan", "-o", "text", "-f"]),
    ("scan -o markdown", &["scan", "-o", "markdown", "-f"]),
    ("scan -o prometheus", &["scan", "-o", "prometheus", "-f"]),
    ("bundle -f", &["bundle", "-f"]),
];

/// Measured once (2026-12-06) against main 785588f: not re-measured, the old binary is not in
/// the tree.
const BEFORE_AFTER: &str = include_str!("outputs_before_after.md");

/// What the README and SECURITY.md promise: every output within twice the file. A cell over it
/// is marked in the table, named in the summary, and fails `cargo xtask bench --outputs`.
pub(super) const PROMISE: f64 = 2.0;

/// GNU time: the peak resident memory of a child, read by the kernel when it ends.
const TIME: &str = "/usr/bin/time";

/// The peak resident memory in KiB of `kubectl-layer ARGS FILE`, its output discarded.
fn peak_kb(args: &[&str], file: &Path) -> Result<u64, String> {
    let what = format!("kubectl-layer {} {}", args.join(" "), file.display());
    let out = Command::new(TIME)
        .args(["-f", "peakKb %M", "--"])
        .arg(exe("kubectl-layer"))
        .args(args)
        .arg(file)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("{TIME} {what}: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    // 1 is an answer too: a layer blocks some work.
    if !matches!(out.status.code(), Some(0 | 1)) {
        return Err(format!("{what} failed ({}): {stderr}", out.status));
    }
    stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("peakKb ")?.trim().parse().ok())
        .ok_or_else(|| format!("{what}: {TIME} printed no peak: {stderr}"))
}

/// The section of every output's peak memory over the file, one row per shape and size, its
/// summary line (the worst ratio of each output), and the cells over [`PROMISE`] (`shape at
/// cluster: output ratio`).
pub(super) fn section(plan: &Plan) -> Result<(String, String, Vec<String>), String> {
    if !Path::new(TIME).exists() {
        let why = format!("not measured: {TIME} (GNU time) is not installed");
        return Ok((
            format!("## Memory of every output\n\n{why}.\n\n"),
            why,
            Vec::new(),
        ));
    }
    let mut rows = String::new();
    let mut over = Vec::new();
    let mut worst = vec![0.0_f64; OUTPUTS.len()];
    for &at in plan.shape_sizes {
        for shape in SHAPES {
            let file = shaped_bundle(plan, at, shape)?;
            let bytes = std::fs::metadata(&file).map_err(|e| e.to_string())?.len();
            let mut cells = Vec::new();
            for (k, (output, args)) in OUTPUTS.iter().enumerate() {
                let kb = peak_kb(args, &file)?;
                let r = kb as f64 * 1024.0 / bytes.max(1) as f64;
                worst[k] = worst[k].max(r);
                if r > PROMISE {
                    over.push(format!("{shape} at {}: `{output}` {r:.2}×", cluster(at)));
                    cells.push(format!("**{} ({r:.2}×) over {PROMISE}×**", mb(kb)));
                } else {
                    cells.push(format!("{} ({r:.2}×)", mb(kb)));
                }
            }
            rows.push_str(&format!(
                "| {shape} | {} | {} | {} |\n",
                cluster(at),
                size(bytes),
                cells.join(" | ")
            ));
            if *shape != "usual" {
                let _ = std::fs::remove_file(&file);
            }
        }
    }
    let names: Vec<&str> = OUTPUTS.iter().map(|(n, _)| *n).collect();
    let mut section = format!(
        "## Memory of every output\n\n\
         The release `kubectl-layer` reading each generated shape from its file and writing each output to /dev/null, one process per run (`{TIME} -f %M`): peak resident memory, and over the file's size.\n\n\
         | shape | cluster | file | `{}` |\n|---|---|---:|{}\n{rows}\n",
        names.join("` | `"),
        "---:|".repeat(OUTPUTS.len()),
    );
    section.push_str(BEFORE_AFTER);
    let worst: Vec<String> = names
        .iter()
        .zip(&worst)
        .map(|(n, w)| format!("`{n}` {w:.2}×"))
        .collect();
    let mut summary = format!(
        "every output on every shape, peak memory over the file at most: {}",
        worst.join(", ")
    );
    if !over.is_empty() {
        summary.push_str(&format!(
            "; **over the promised {PROMISE}×**: {}",
            over.join(", ")
        ));
    }
    Ok((section, summary, over))
}

/// `cargo xtask bench --outputs [--quick]`: only this section, printed (the release binary and
/// gen-cluster built first); an error naming every cell over [`PROMISE`].
pub fn only(quick: bool) -> Result<(), String> {
    let plan = Plan::new(quick);
    std::fs::create_dir_all(&plan.dir).map_err(|e| e.to_string())?;
    super::build_cli()?;
    let (section, summary, over) = section(&plan)?;
    println!("{section}{summary}");
    match over.is_empty() {
        true => Ok(()),
        false => Err(format!(
            "peak memory over {PROMISE}× the file (the README's promise): {}",
            over.join(", ")
        )),
    }
}
