//! `cargo xtask incidents`: diagnose every real incident of `tests/incidents/` and print how
//! often the verdict names the layer the upstream thread established: `N/M layers right`.
//! Exits 1 when the share falls below the floor in `tests/incidents/floor.txt` (a percentage),
//! so CI holds the score once it is reached; `--verbose` prints every incident's row.
//! `KUBECTL_LAYER_INCIDENTS=DIR` scores the incidents of another folder instead (a batch on
//! arrival, before it enters the repository), with no floor unless DIR has a `floor.txt`.

use scenarios::incidents;
use std::process::ExitCode;

fn main() -> ExitCode {
    let verbose = std::env::args().any(|a| a == "--verbose" || a == "-v");
    match run(verbose) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("incidents: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(verbose: bool) -> Result<bool, String> {
    let engine = layer_core::Engine::builtin().map_err(|e| format!("builtin rules: {e}"))?;
    let all = incidents::all()?;
    if all.is_empty() {
        return Err("no incidents in tests/incidents".into());
    }
    let (mut right, mut phrases_right) = (0, 0);
    let mut misses = Vec::new();
    for inc in &all {
        let d = inc.diagnose(&engine)?;
        let s = incidents::score(&inc.thread, &d);
        right += usize::from(s.layer_right);
        phrases_right += usize::from(s.phrases_missing.is_empty());
        let want = inc.thread.layer.as_deref().unwrap_or("-");
        let row = format!(
            "{} {:<46} want {:<10} said {:<10}{}",
            if s.layer_right { "ok  " } else { "MISS" },
            inc.name,
            want,
            s.said,
            if s.phrases_missing.is_empty() {
                String::new()
            } else {
                format!("  phrases missing: {}", s.phrases_missing.join(" | "))
            }
        );
        if verbose || !s.layer_right {
            println!("{row}");
        }
        if !s.layer_right {
            misses.push(inc.name.clone());
        }
    }
    let total = all.len();
    let pct = 100.0 * right as f64 / total as f64;
    println!("{right}/{total} layers right ({pct:.0}%), phrases shown in {phrases_right}/{total}");
    let floor_path = incidents::incidents_dir().join("floor.txt");
    // A batch scored where it arrived has no floor yet: its score is the figure to record.
    if !floor_path.exists() && std::env::var_os("KUBECTL_LAYER_INCIDENTS").is_some() {
        return Ok(true);
    }
    let floor: f64 = std::fs::read_to_string(&floor_path)
        .map_err(|e| format!("{}: {e}", floor_path.display()))?
        .trim()
        .parse()
        .map_err(|e| format!("{}: not a percentage: {e}", floor_path.display()))?;
    if pct + 1e-9 < floor {
        eprintln!(
            "incidents: {pct:.1}% is below the floor of {floor}% (tests/incidents/floor.txt)"
        );
        return Ok(false);
    }
    Ok(true)
}
