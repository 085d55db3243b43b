//! `cargo xtask krew-test`: the release archive through real krew, as the krew index checks a
//! submission and as a user installs it.
//!
//! krew and `validate-krew-manifest` are built from their Go module into the lab's cache, and
//! kubectl is the lab's own build. Then:
//! 1. `release --local`: this machine's archive, checked, and `dist/layer.yaml` whose URI is
//!    the archive file;
//! 2. `validate-krew-manifest` on `.krew.yaml` rendered for that archive served on 127.0.0.1
//!    (the validator installs every platform from its URI and wants a licence file in it);
//! 3. `kubectl krew install --manifest=dist/layer.yaml --archive=…` into a new `KREW_ROOT` and
//!    `HOME`, with every HTTP proxy pointed at a closed local port: krew must not fetch its
//!    index (`--manifest` skips it) or anything else, and its index folder stays empty;
//! 4. through kubectl, with only krew's `bin/` and the tools on PATH: `kubectl plugin list`,
//!    `kubectl layer version` (version, this commit, the rule count) and `kubectl layer why
//!    … -f …` on every scenario's first target, whose verdict, headline (its recorded start)
//!    and exit status must be the ones `expected.json` records; and the completion helper linked as the caveats say.

use super::{Platform, dist, local, manifest, tag};
use crate::lab::build;
use crate::{output, root, scenarios, target_dir};
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

pub fn test() -> Result<(), String> {
    let start = Instant::now();
    let kubectl = build::kubectl()?;
    let (krew, validate) = build::krew()?;
    eprintln!(
        "==> krew-test: tools ready in {:.0} s",
        start.elapsed().as_secs_f64()
    );
    let tag = tag();
    let (archive, local_manifest) = local(&tag)?;
    let work = target_dir().join("krew-test");
    let _ = std::fs::remove_dir_all(&work);
    let (krew_root, home) = (work.join("root"), work.join("home"));
    for d in [&krew_root, &home] {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    let path = std::env::join_paths([
        dir_of(&krew),
        dir_of(&kubectl),
        dir_of(&validate),
        krew_root.join("bin"),
    ])
    .map_err(|e| e.to_string())?;

    validate_served(&validate, &path, &tag, &work)?;

    let krew_env = |cmd: &mut Command| {
        cmd.env_clear()
            .env("PATH", &path)
            .env("HOME", &home)
            .env("KREW_ROOT", &krew_root)
            .env("KREW_NO_UPGRADE_CHECK", "1");
        for proxy in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] {
            cmd.env(proxy, "http://127.0.0.1:1");
        }
    };
    let kubectl_run = |args: &[&str]| {
        let mut cmd = Command::new(&kubectl);
        krew_env(&mut cmd);
        cmd.args(args);
        cmd
    };
    let install = kubectl_run(&["krew", "install"])
        .arg(format!("--manifest={}", local_manifest.display()))
        .arg(format!("--archive={}", archive.display()))
        .output()
        .map_err(|e| format!("kubectl krew install: {e}"))?;
    if !install.status.success() {
        return Err(format!(
            "kubectl krew install failed: {}",
            String::from_utf8_lossy(&install.stderr)
        ));
    }
    eprintln!("==> krew-test: kubectl krew install --manifest --archive: installed");
    no_index_fetched(&krew_root)?;
    let installed = krew_root.join("bin/kubectl-layer");
    let plugins = text(kubectl_run(&["plugin", "list"]), "kubectl plugin list")?;
    if !plugins.lines().any(|l| Path::new(l.trim()) == installed) {
        return Err(format!(
            "kubectl plugin list does not show {}:\n{plugins}",
            installed.display()
        ));
    }
    version(&text(
        kubectl_run(&["layer", "version"]),
        "kubectl layer version",
    )?)?;
    let checked = verdicts(&kubectl_run)?;
    completion(&krew_root, &tag, &kubectl_run)?;
    eprintln!(
        "==> krew-test: validated, installed with krew {}, {checked} scenarios diagnosed through \
         kubectl; {:.0} s",
        build::KREW,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn dir_of(bin: &Path) -> PathBuf {
    bin.parent().unwrap_or(Path::new(".")).to_path_buf()
}

fn text(mut cmd: Command, what: &str) -> Result<String, String> {
    Ok(String::from_utf8_lossy(&output(&mut cmd, what)?).into_owned())
}

/// The index check: `.krew.yaml` rendered for the local archive at an http URI on 127.0.0.1,
/// validated (structure, platforms, then an install of each platform from its URI).
fn validate_served(
    validate: &Path,
    path: &std::ffi::OsStr,
    tag: &str,
    work: &Path,
) -> Result<(), String> {
    let host = Platform::host().ok_or("this machine is not a release platform")?;
    let server = Server::start(dist())?;
    let port = server.port;
    let served = work.join("served");
    std::fs::create_dir_all(&served).map_err(|e| e.to_string())?;
    let m = manifest(
        tag,
        &[host],
        &|n| format!("http://127.0.0.1:{port}/{n}"),
        &served,
    )?;
    let out = Command::new(validate)
        .env_clear()
        .env("PATH", path)
        .env("HOME", work.join("home"))
        .arg(format!("-manifest={}", m.display()))
        .output()
        .map_err(|e| format!("validate-krew-manifest: {e}"))?;
    let said = String::from_utf8_lossy(&out.stderr);
    let served_count = server.stop();
    if !out.status.success() {
        return Err(format!("validate-krew-manifest failed:\n{said}"));
    }
    if served_count == 0 {
        return Err("validate-krew-manifest passed without fetching the archive".into());
    }
    eprintln!(
        "==> krew-test: validate-krew-manifest: {}",
        said.lines()
            .filter(|l| l.contains("OK")
                || l.contains("installed fine")
                || l.contains("items are used"))
            .map(|l| l.rsplit("] ").next().unwrap_or(l))
            .collect::<Vec<_>>()
            .join("; ")
    );
    Ok(())
}

/// krew installed from the manifest alone: it made no index (the default one is a git clone).
fn no_index_fetched(krew_root: &Path) -> Result<(), String> {
    let index = krew_root.join("index");
    let entries: Vec<_> = std::fs::read_dir(&index)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    if entries.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "krew fetched an index into {}: {entries:?}",
            index.display()
        ))
    }
}

/// `kubectl layer version`: this version, this checkout's commit (when git knows it) and the
/// built-in rule count.
fn version(printed: &str) -> Result<(), String> {
    let rules = layer_core::Engine::builtin()
        .map_err(|e| e.to_string())?
        .rules()
        .len();
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let want_commit = commit.unwrap_or_else(|| "unknown".into());
    let want = format!(
        "kubectl-layer {}\ncommit  {want_commit}\nrules   {rules}\n",
        &tag()[1..]
    );
    if printed != want {
        return Err(format!(
            "kubectl layer version printed\n{printed}not\n{want}"
        ));
    }
    eprintln!(
        "==> krew-test: kubectl layer version: {}",
        printed.replace('\n', "; ")
    );
    Ok(())
}

/// Every scenario's first target through `kubectl layer why … -f … -o json`: the verdict,
/// headline and exit status `expected.json` records. Returns how many.
fn verdicts(kubectl: &dyn Fn(&[&str]) -> Command) -> Result<usize, String> {
    let all = scenarios()?;
    for (dir, bundle, expected) in &all {
        let e = &expected[0];
        let target = e["target"]
            .as_str()
            .ok_or_else(|| format!("{}: no target", dir.display()))?;
        let bundle = bundle.to_string_lossy();
        let out = kubectl(&["layer", "why", target, "-o", "json", "-f", &bundle])
            .output()
            .map_err(|err| format!("kubectl layer why: {err}"))?;
        let got: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|err| {
            format!(
                "kubectl layer why {target} -f {bundle}: {err}: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        })?;
        let same = got["verdict"]["state"] == e["verdict"]["state"]
            && got["verdict"]["layer"] == e["verdict"]["layer"]
            && got["verdict"]["headline"]
                .as_str()
                .zip(e["headline"].as_str())
                .is_some_and(|(got, prefix)| got.starts_with(prefix))
            && out.status.code().map(serde_json::Value::from) == Some(e["exit"].clone());
        if !same {
            return Err(format!(
                "kubectl layer why {target} -f {bundle} through kubectl: verdict {}, headline {}, \
                 exit {:?}; expected {}",
                got["verdict"],
                got["headline"],
                out.status.code(),
                e
            ));
        }
    }
    Ok(all.len())
}

/// The caveats' link for `kubectl layer <TAB>`: the helper krew unpacked, linked into krew's
/// bin/, is what kubectl asks for the completions.
fn completion(
    krew_root: &Path,
    tag: &str,
    kubectl: &dyn Fn(&[&str]) -> Command,
) -> Result<(), String> {
    let helper = krew_root.join(format!("store/layer/{tag}/kubectl_complete-layer"));
    let link = krew_root.join("bin/kubectl_complete-layer");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&helper, &link).map_err(|e| format!("{}: {e}", helper.display()))?;
    let words = text(
        kubectl(&["__complete", "layer", ""]),
        "kubectl __complete layer",
    )?;
    if !words.lines().any(|l| l.starts_with("why")) {
        return Err(format!(
            "kubectl __complete layer '' did not offer `why`:\n{words}"
        ));
    }
    eprintln!("==> krew-test: kubectl __complete layer: completed by the linked helper");
    Ok(())
}

/// A file server on 127.0.0.1 for one folder's files by exact name, answering until stopped.
struct Server {
    port: u16,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<usize>,
}

impl Server {
    fn start(dir: PathBuf) -> Result<Server, String> {
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("127.0.0.1: {e}"))?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut served = 0;
            for conn in listener.incoming() {
                if stopping.load(std::sync::atomic::Ordering::SeqCst) {
                    break;
                }
                if let Ok(conn) = conn {
                    served += usize::from(answer(conn, &dir).unwrap_or(false));
                }
            }
            served
        });
        Ok(Server { port, stop, thread })
    }

    /// Stop it (a last connection wakes its accept); how many files it served.
    fn stop(self) -> usize {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(("127.0.0.1", self.port));
        self.thread.join().unwrap_or(0)
    }
}

/// One GET: the file `dir/<name>` (a plain name, nothing else), else 404. True if served.
fn answer(conn: std::net::TcpStream, dir: &Path) -> std::io::Result<bool> {
    conn.set_read_timeout(Some(std::time::Duration::from_secs(10)))?;
    let mut line = String::new();
    let mut reader = BufReader::new(conn.try_clone()?);
    reader.read_line(&mut line)?;
    while reader.read_line(&mut String::new())? > 2 {}
    let name = line
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .trim_start_matches('/');
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    let body = if plain {
        std::fs::read(dir.join(name)).ok()
    } else {
        None
    };
    let mut conn = conn;
    match &body {
        Some(b) => {
            write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                b.len()
            )?;
            conn.write_all(b)?;
        }
        None => write!(
            conn,
            "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )?,
    }
    Ok(body.is_some())
}
