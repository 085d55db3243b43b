//! `cargo xtask release`: the archives krew installs, their sha256 and the krew manifest
//! rendered for them, all in `<target-dir>/dist/`.
//!
//! The platforms are one table ([`PLATFORMS`]); `.krew.yaml` names the same archives (a test
//! holds the two together) and the release workflow reads its build matrix from `--plan
//! --json`, so a platform is added in one place. An archive holds `kubectl-layer`,
//! `kubectl_complete-layer` and `LICENSE` at its root, written here rather than by `tar` so it
//! is the same bytes on every runner: sorted entries, mtime 0, owner 0:0 without names, mode
//! 0755 for the binaries and 0644 for the licence, a gzip header without time or name.

mod krew;

pub use krew::test as krew_test;

use crate::{cargo, root, run, target_dir};
use sha2::Digest as _;
use std::path::{Path, PathBuf};

/// One platform of a release: its Rust target, krew's `os`/`arch` selector and the GitHub
/// runner that builds it natively (no cross toolchain to install).
pub struct Platform {
    pub triple: &'static str,
    pub os: &'static str,
    pub arch: &'static str,
    pub runner: &'static str,
}

pub const PLATFORMS: [Platform; 5] = [
    Platform {
        triple: "x86_64-unknown-linux-gnu",
        os: "linux",
        arch: "amd64",
        runner: "ubuntu-22.04",
    },
    Platform {
        triple: "aarch64-unknown-linux-gnu",
        os: "linux",
        arch: "arm64",
        runner: "ubuntu-22.04-arm",
    },
    Platform {
        triple: "x86_64-apple-darwin",
        os: "darwin",
        arch: "amd64",
        runner: "macos-15-intel",
    },
    Platform {
        triple: "aarch64-apple-darwin",
        os: "darwin",
        arch: "arm64",
        runner: "macos-15",
    },
    Platform {
        triple: "x86_64-pc-windows-msvc",
        os: "windows",
        arch: "amd64",
        runner: "windows-2022",
    },
];

/// The files of an archive, in the order they are written (sorted by name).
const BINARIES: [&str; 2] = ["kubectl-layer", "kubectl_complete-layer"];
/// The release assets' home; `.krew.yaml` names the same.
const DOWNLOAD: &str = "https://github.com/kubectl-layer/kubectl-layer/releases/download";

impl Platform {
    fn exe(&self) -> &'static str {
        if self.os == "windows" { ".exe" } else { "" }
    }

    /// `kubectl-layer-v0.1.0-x86_64-unknown-linux-gnu.tar.gz`, as `.krew.yaml` names it.
    pub fn archive(&self, tag: &str) -> String {
        format!("kubectl-layer-{tag}-{}.tar.gz", self.triple)
    }

    /// The platform this xtask runs on, if it is one of the table's.
    pub fn host() -> Option<&'static Platform> {
        let os = match std::env::consts::OS {
            "macos" => "darwin",
            other => other,
        };
        let arch = match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            other => other,
        };
        PLATFORMS.iter().find(|p| p.os == os && p.arch == arch)
    }
}

/// The tag a release of this checkout carries: `v` and the workspace version.
pub fn tag() -> String {
    format!("v{}", env!("CARGO_PKG_VERSION"))
}

pub fn dist() -> PathBuf {
    target_dir().join("dist")
}

const HELP: &str = "\
cargo xtask release [--local | --target TRIPLE | --plan [--json] | --manifest] [--tag TAG]

  (none)      build every platform's archive (each target's toolchain must be installed;
              the release workflow builds each on its own runner instead)
  --local     only this machine's archive, checked, and dist/layer.yaml whose URI is that
              file (what `kubectl krew install --manifest=… --archive=…` takes)
  --target T  only the archive of the Rust target T
  --plan      list every platform: target, krew os/arch, runner, archive; builds nothing
              (--json: the release workflow's build matrix)
  --manifest  build nothing: dist/layer.yaml for every platform's archive, which must be in
              dist/ already, each matching its .sha256 (the release workflow's last step)
  --tag TAG   the release's tag; it must be v<workspace version> (default)
";

pub fn from_args(args: &[String]) -> Result<(), String> {
    let value = |name: &str| args.iter().skip_while(|a| *a != name).nth(1).cloned();
    let tag = value("--tag").unwrap_or_else(tag);
    if tag != self::tag() {
        return Err(format!(
            "--tag {tag}: this checkout's version makes {} (Cargo.toml's workspace version)",
            self::tag()
        ));
    }
    let has = |flag: &str| args.iter().any(|a| a == flag);
    if has("--help") || has("-h") {
        print!("{HELP}");
        return Ok(());
    }
    if has("--plan") {
        print!("{}", plan(&tag, has("--json")));
        return Ok(());
    }
    if has("--manifest") {
        for p in &PLATFORMS {
            same_sum(&p.archive(&tag))?;
        }
        let all: Vec<&Platform> = PLATFORMS.iter().collect();
        let uri = |name: &str| format!("{DOWNLOAD}/{tag}/{name}");
        return manifest(&tag, &all, &uri, &dist()).map(|_| ());
    }
    if has("--local") {
        return local(&tag).map(|_| ());
    }
    let chosen: Vec<&Platform> = match value("--target") {
        Some(t) => vec![
            PLATFORMS
                .iter()
                .find(|p| p.triple == t)
                .ok_or_else(|| format!("--target {t}: not a release platform\n\n{HELP}"))?,
        ],
        None => PLATFORMS.iter().collect(),
    };
    for p in &chosen {
        build(p, &tag)?;
    }
    let uri = |name: &str| format!("{DOWNLOAD}/{tag}/{name}");
    manifest(&tag, &chosen, &uri, &dist()).map(|_| ())
}

/// An archive of dist/ whose sha256 is the one its `.sha256` file records (the runner that
/// built it wrote that file).
fn same_sum(name: &str) -> Result<(), String> {
    let bytes = std::fs::read(dist().join(name)).map_err(|e| format!("dist/{name}: {e}"))?;
    let file = format!("{name}.sha256");
    let recorded =
        std::fs::read_to_string(dist().join(&file)).map_err(|e| format!("dist/{file}: {e}"))?;
    let sum = sha256(&bytes);
    if recorded != format!("{sum}  {name}\n") {
        return Err(format!(
            "dist/{name}: sha256 {sum}, but {file} says {recorded:?}"
        ));
    }
    Ok(())
}

/// `--local`: this machine's archive, checked, and a manifest whose URI is the file itself.
/// Returns (archive, manifest).
pub fn local(tag: &str) -> Result<(PathBuf, PathBuf), String> {
    let host = Platform::host().ok_or_else(|| {
        format!(
            "this machine ({}/{}) is not a release platform",
            std::env::consts::OS,
            std::env::consts::ARCH
        )
    })?;
    let archive = build(host, tag)?;
    check(&archive, host)?;
    let uri = |name: &str| format!("file://{}", dist().join(name).display());
    let manifest = manifest(tag, &[host], &uri, &dist())?;
    Ok((archive, manifest))
}

/// The platforms as a table, or as the workflow's matrix (`{"include": [...]}`).
fn plan(tag: &str, json: bool) -> String {
    if json {
        let include: Vec<serde_json::Value> = PLATFORMS
            .iter()
            .map(|p| {
                serde_json::json!({"target": p.triple, "os": p.os, "arch": p.arch,
                    "runner": p.runner, "archive": p.archive(tag)})
            })
            .collect();
        return format!("{}\n", serde_json::json!({ "include": include }));
    }
    let mut s = format!("release {tag}: `cargo xtask release --target TARGET` on each runner\n");
    for p in &PLATFORMS {
        s.push_str(&format!(
            "  {:<27} {:>7}/{:<5} {:<17} {}\n",
            p.triple,
            p.os,
            p.arch,
            p.runner,
            p.archive(tag)
        ));
    }
    s
}

/// Build `p`'s binaries in release mode and pack them; returns the archive's path. The host's
/// own target builds into `<target-dir>/release`, which the demo and the tests share.
fn build(p: &Platform, tag: &str) -> Result<PathBuf, String> {
    let mut cmd = cargo();
    cmd.args([
        "build",
        "--release",
        "--locked",
        "-p",
        "kubectl-layer",
        "--bins",
    ]);
    let bins = if Platform::host().is_some_and(|h| h.triple == p.triple) {
        target_dir().join("release")
    } else {
        cmd.args(["--target", p.triple]);
        target_dir().join(p.triple).join("release")
    };
    run(&mut cmd)?;
    let mut files: Vec<(String, Vec<u8>, u32)> = Vec::new();
    for name in BINARIES {
        let file = format!("{name}{}", p.exe());
        let bytes = std::fs::read(bins.join(&file))
            .map_err(|e| format!("{}: {e}", bins.join(&file).display()))?;
        files.push((file, bytes, 0o755));
    }
    let license = std::fs::read(root().join("LICENSE")).map_err(|e| format!("LICENSE: {e}"))?;
    files.push(("LICENSE".into(), license, 0o644));
    let gz = pack(files)?;
    std::fs::create_dir_all(dist()).map_err(|e| format!("{}: {e}", dist().display()))?;
    let name = p.archive(tag);
    let path = dist().join(&name);
    std::fs::write(&path, &gz).map_err(|e| format!("{}: {e}", path.display()))?;
    let sum = sha256(&gz);
    std::fs::write(
        dist().join(format!("{name}.sha256")),
        format!("{sum}  {name}\n"),
    )
    .map_err(|e| format!("{name}.sha256: {e}"))?;
    eprintln!(
        "==> release: {} ({} bytes, sha256 {sum})",
        path.display(),
        gz.len()
    );
    Ok(path)
}

/// A deterministic `.tar.gz` of `files` (name, bytes, mode): the same input gives the same bytes.
fn pack(mut files: Vec<(String, Vec<u8>, u32)>) -> Result<Vec<u8>, String> {
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let gz = flate2::GzBuilder::new()
        .mtime(0)
        .operating_system(255)
        .write(Vec::new(), flate2::Compression::best());
    let mut tar = tar::Builder::new(gz);
    for (name, bytes, mode) in &files {
        let mut h = tar::Header::new_ustar();
        h.set_entry_type(tar::EntryType::Regular);
        h.set_size(bytes.len() as u64);
        h.set_mode(*mode);
        h.set_mtime(0);
        h.set_uid(0);
        h.set_gid(0);
        tar.append_data(&mut h, name, bytes.as_slice())
            .map_err(|e| format!("archive {name}: {e}"))?;
    }
    let gz = tar.into_inner().map_err(|e| format!("archive: {e}"))?;
    gz.finish().map_err(|e| format!("archive: {e}"))
}

pub fn sha256(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Read an archive back: the expected entries in order, each with its mode, mtime 0 and owner
/// 0; then, on the platform it is for, the packed `kubectl-layer version` must name its tag.
fn check(archive: &Path, p: &Platform) -> Result<(), String> {
    let shown = archive.display();
    let bytes = std::fs::read(archive).map_err(|e| format!("{shown}: {e}"))?;
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(bytes.as_slice()));
    let mut seen = Vec::new();
    let mut cli = Vec::new();
    for entry in tar.entries().map_err(|e| format!("{shown}: {e}"))? {
        let mut entry = entry.map_err(|e| format!("{shown}: {e}"))?;
        let h = entry.header();
        let name = entry.path().map_err(|e| format!("{shown}: {e}"))?;
        let name = name.to_string_lossy().to_string();
        let mode = h.mode().map_err(|e| format!("{shown}: {name}: {e}"))?;
        let fixed = (h.mtime().ok(), h.uid().ok(), h.gid().ok()) == (Some(0), Some(0), Some(0));
        if !fixed {
            return Err(format!("{shown}: {name} has a time or an owner"));
        }
        if name == format!("kubectl-layer{}", p.exe()) {
            std::io::Read::read_to_end(&mut entry, &mut cli).map_err(|e| e.to_string())?;
        }
        seen.push(format!("{name} {mode:o}"));
    }
    let exe = p.exe();
    let want = [
        "LICENSE 644".to_string(),
        format!("kubectl-layer{exe} 755"),
        format!("kubectl_complete-layer{exe} 755"),
    ];
    if seen != want {
        return Err(format!("{shown} holds {seen:?}, not {want:?}"));
    }
    let unpacked = target_dir().join("dist-check");
    std::fs::create_dir_all(&unpacked).map_err(|e| e.to_string())?;
    let bin = unpacked.join(format!("kubectl-layer{exe}"));
    write_executable(&bin, &cli)?;
    let out = crate::output(
        std::process::Command::new(&bin).arg("version"),
        "the archive's kubectl-layer version",
    )?;
    let text = String::from_utf8_lossy(&out);
    if !text.starts_with(&format!("kubectl-layer {}\n", &tag()[1..])) {
        return Err(format!("{shown}: `kubectl-layer version` printed {text:?}"));
    }
    eprintln!("==> release: {shown} checked: {}", want.join(", "));
    Ok(())
}

fn write_executable(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// `<out>/layer.yaml`: `.krew.yaml` rendered for the archives of `platforms` (their sha256 read
/// from dist/), each at `uri(archive name)`. krew's validator wants the file named after the
/// plugin.
pub fn manifest(
    tag: &str,
    platforms: &[&Platform],
    uri: &dyn Fn(&str) -> String,
    out: &Path,
) -> Result<PathBuf, String> {
    let template = std::fs::read_to_string(root().join(".krew.yaml"))
        .map_err(|e| format!(".krew.yaml: {e}"))?;
    let mut sums = std::collections::BTreeMap::new();
    for p in platforms {
        let name = p.archive(tag);
        let bytes = std::fs::read(dist().join(&name)).map_err(|e| format!("dist/{name}: {e}"))?;
        sums.insert(name, sha256(&bytes));
    }
    let text = render(&template, tag, &sums, uri)?;
    let path = out.join("layer.yaml");
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("==> release: {} ({} platforms)", path.display(), sums.len());
    Ok(path)
}

/// The krew-release-bot template rendered by hand: `{{ .TagName }}` is the tag, and each
/// platform's `{{addURIAndSha "URL" .TagName }}` becomes `uri:` and `sha256:` for the archive
/// the URL names, at `uri(name)`. A platform whose archive is not in `sums` is left out; an
/// archive of `sums` that no platform names is an error.
pub fn render(
    template: &str,
    tag: &str,
    sums: &std::collections::BTreeMap<String, String>,
    uri: &dyn Fn(&str) -> String,
) -> Result<String, String> {
    const OPEN: &str = "{{addURIAndSha \"";
    let text = template.replace("{{ .TagName }}", tag);
    let (head, platforms) = text
        .split_once("  platforms:\n")
        .ok_or(".krew.yaml: no `  platforms:` list")?;
    let mut out = format!("{head}  platforms:\n");
    // One block per platform: from its `    - selector:` line to the next.
    let mut blocks: Vec<String> = Vec::new();
    for l in platforms.split_inclusive('\n') {
        if l.starts_with("    - ") || blocks.is_empty() {
            blocks.push(String::new());
        }
        blocks.last_mut().expect("pushed").push_str(l);
    }
    let mut used = 0;
    for block in blocks {
        let line = block.lines().find(|l| l.contains(OPEN));
        let line =
            line.ok_or_else(|| format!(".krew.yaml: a platform without addURIAndSha:\n{block}"))?;
        let indent = &line[..line.len() - line.trim_start().len()];
        let url = line.trim_start()[OPEN.len()..]
            .split('"')
            .next()
            .unwrap_or_default();
        let name = url.rsplit('/').next().unwrap_or_default();
        let Some(sum) = sums.get(name) else { continue };
        used += 1;
        let fields = format!("{indent}uri: {}\n{indent}sha256: {sum}", uri(name));
        out.push_str(&block.replace(line, &fields));
    }
    if used != sums.len() {
        return Err(format!(
            ".krew.yaml names {used} of the {} archives {:?}",
            sums.len(),
            sums.keys().collect::<Vec<_>>()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template() -> String {
        std::fs::read_to_string(root().join(".krew.yaml")).unwrap()
    }

    #[test]
    fn krew_manifest_names_every_platform_archive_and_no_other() {
        let t = template().replace("{{ .TagName }}", "v9.9.9");
        let named = t.matches("{{addURIAndSha").count();
        assert_eq!(named, PLATFORMS.len(), ".krew.yaml platforms");
        for p in &PLATFORMS {
            let url = format!("{DOWNLOAD}/v9.9.9/{}\"", p.archive("v9.9.9"));
            assert!(t.contains(&url), ".krew.yaml lacks {url}");
            let selector = format!("os: {}\n          arch: {}\n", p.os, p.arch);
            assert!(t.contains(&selector), ".krew.yaml lacks {selector}");
        }
    }

    #[test]
    fn render_keeps_the_built_platforms_with_their_uri_and_sum() {
        let name = PLATFORMS[0].archive("v1.2.3");
        let sums = [(name.clone(), "ab".repeat(32))].into_iter().collect();
        let out = render(&template(), "v1.2.3", &sums, &|n| format!("file:///d/{n}")).unwrap();
        assert!(out.contains(&format!(
            "      uri: file:///d/{name}\n      sha256: {}\n",
            "ab".repeat(32)
        )));
        assert_eq!(out.matches("- selector:").count(), 1);
        assert!(!out.contains("{{"), "{out}");
        let parsed: serde_yaml_ng::Value = serde_yaml_ng::from_str(&out).unwrap();
        assert_eq!(parsed["spec"]["version"].as_str(), Some("v1.2.3"));
        assert_eq!(
            parsed["spec"]["platforms"][0]["selector"]["matchLabels"]["os"].as_str(),
            Some("linux")
        );
    }

    #[test]
    fn render_refuses_an_archive_no_platform_names() {
        let sums = [(
            "kubectl-layer-v1.2.3-mips.tar.gz".to_string(),
            "00".repeat(32),
        )]
        .into_iter()
        .collect();
        let err = render(&template(), "v1.2.3", &sums, &|n| n.to_string()).unwrap_err();
        assert!(err.contains("names 0 of the 1"), "{err}");
    }

    #[test]
    fn archives_are_the_same_bytes_whatever_the_input_order() {
        let a = || ("b".to_string(), vec![1u8; 100], 0o755);
        let b = || ("LICENSE".to_string(), b"MIT".to_vec(), 0o644);
        let one = pack(vec![a(), b()]).unwrap();
        assert_eq!(one, pack(vec![b(), a()]).unwrap());
        let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(one.as_slice()));
        let names: Vec<(String, u32, u64)> = tar
            .entries()
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let h = e.header();
                (
                    e.path().unwrap().display().to_string(),
                    h.mode().unwrap(),
                    h.mtime().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            names,
            [("LICENSE".into(), 0o644, 0), ("b".into(), 0o755, 0)]
        );
        assert_eq!(
            &one[4..10],
            &[0, 0, 0, 0, 2, 255],
            "gzip: no time, best, unknown OS"
        );
    }
}
