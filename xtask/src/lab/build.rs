//! The lab's binaries, built from the Go module proxy with the ordinary `go` client at the
//! versions pinned below, into a cache outside the checkout keyed by component, version and Go
//! version: a pin that changes builds anew, nothing else does. Nothing here is committed, and
//! nothing but `go` fetches anything.

use super::Tier;
use crate::{output, tools};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Kubernetes: kube-apiserver, kube-controller-manager, kube-scheduler and kubectl. 1.35 is
/// the newest minor Kueue 0.17 is built against (its go.mod requires the v0.35 libraries).
pub const KUBERNETES: &str = "v1.35.4";
/// etcd 3.6, as Kubernetes 1.35 ships it (Debian's 3.4.23 is below the supported minimum).
pub const ETCD: &str = "v3.6.17";
/// kwok, the fake nodes' kubelet (its go.mod has no replace directives: `go install` works).
pub const KWOK: &str = "v0.8.0";
/// The integrations whose CRDs the bare tier installs: Kueue, and the JobSet and LWS that
/// Kueue 0.17.0's go.mod requires (the proxy serves those versions, but lists none of theirs).
pub const KUEUE: &str = "v0.17.0";
pub const JOBSET: &str = "v0.11.1";
pub const LWS: &str = "v0.8.0";

/// KAI-Scheduler, the one version of it the proxy serves: `github.com/kai-scheduler/KAI-scheduler`
/// (v0.13 and later) is refused at every version, and `github.com/NVIDIA/KAI-scheduler` lists none
/// but serves v0.20.1, the tag upstream made to carry its `retract` of v0.20.0 and v0.20.1: the
/// code of its main branch on 2025-11-30 (v0.10.2 and four commits), Kubernetes v1.34 libraries.
pub const KAI: &str = "v0.20.1";
pub const KAI_MODULE: &str = "github.com/NVIDIA/KAI-scheduler";
/// KAI's components the lab runs: (`cmd/<component>` of its module, the lab's name for its
/// binary; KAI's own `scheduler` would read as the kube-scheduler's in `lab/bin`). The
/// podgrouper makes a pod's PodGroup, the scheduler judges it (and asks for a binding), the
/// binder binds, the queue controller writes the Queues' status. Not the podgroupcontroller
/// (PodGroup status fields no rule reads): at this version it ignores its
/// `--metrics-bind-address` and serves metrics on `:8080`, every interface.
pub const KAI_COMPONENTS: [(&str, &str); 4] = [
    ("podgrouper", "kai-podgrouper"),
    ("scheduler", "kai-scheduler"),
    ("binder", "kai-binder"),
    ("queuecontroller", "kai-queuecontroller"),
];

/// krew and its manifest validator, for `cargo xtask krew-test` (the proxy lists no later tag
/// of the module; krew's v0.4.4 and v0.4.5 are not published as module versions).
pub const KREW: &str = "v0.4.3";

/// actionlint, which `cargo xtask workflows` runs on `.github/workflows/` (Go module
/// `github.com/rhysd/actionlint`, as the proxy serves it).
pub const ACTIONLINT: &str = "v1.7.12";

/// A module whose zip holds CRD manifests, and the folder in it that holds them.
pub const CRD_MODULES: [(&str, &str, &str); 4] = [
    ("sigs.k8s.io/kueue", KUEUE, "config/components/crd/bases"),
    ("sigs.k8s.io/jobset", JOBSET, "config/components/crd/bases"),
    ("sigs.k8s.io/lws", LWS, "config/crd/bases"),
    (KAI_MODULE, KAI, "deployments/kai-scheduler/crds"),
];

/// A binary built alone from its module, through a wrapper module (etcd's go.mod has replace
/// directives, so `go install` refuses it; the others go the same way for one code path):
/// (binary, module, version, main package).
type Single = (&'static str, &'static str, &'static str, &'static str);

const ETCD_BIN: Single = (
    "etcd",
    "go.etcd.io/etcd/server/v3",
    ETCD,
    "go.etcd.io/etcd/server/v3",
);
const KWOK_BIN: Single = (
    "kwok",
    "sigs.k8s.io/kwok",
    KWOK,
    "sigs.k8s.io/kwok/cmd/kwok",
);
const CONTROLLERS: [Single; 3] = [
    (
        "kueue",
        "sigs.k8s.io/kueue",
        KUEUE,
        "sigs.k8s.io/kueue/cmd/kueue",
    ),
    ("jobset", "sigs.k8s.io/jobset", JOBSET, "sigs.k8s.io/jobset"),
    ("lws", "sigs.k8s.io/lws", LWS, "sigs.k8s.io/lws/cmd"),
];

/// krew as kubectl runs it (a plugin named `kubectl-krew`) and `validate-krew-manifest`, the
/// check krew's index runs on every manifest submitted to it.
const KREW_BINS: [Single; 2] = [
    (
        "kubectl-krew",
        "sigs.k8s.io/krew",
        KREW,
        "sigs.k8s.io/krew/cmd/krew",
    ),
    (
        "validate-krew-manifest",
        "sigs.k8s.io/krew",
        KREW,
        "sigs.k8s.io/krew/cmd/validate-krew-manifest",
    ),
];

const ACTIONLINT_BIN: Single = (
    "actionlint",
    "github.com/rhysd/actionlint",
    ACTIONLINT,
    "github.com/rhysd/actionlint/cmd/actionlint",
);

/// The binaries a tier runs, each in its cache folder, once built.
pub struct Bins {
    dirs: Vec<(&'static str, PathBuf)>,
}

impl Bins {
    pub fn path(&self, name: &str) -> PathBuf {
        let dir = self.dirs.iter().find(|(n, _)| *n == name).map(|(_, d)| d);
        dir.expect("a binary of the tier").join(name)
    }

    /// Every binary of the tier by name, for `lab/bin`.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.dirs.iter().map(|(n, _)| *n)
    }
}

/// The cache root: `$KUBECTL_LAYER_LAB_CACHE`, else `$XDG_CACHE_HOME/kubectl-layer-lab`, else
/// `~/.cache/kubectl-layer-lab`.
pub fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("KUBECTL_LAYER_LAB_CACHE") {
        return PathBuf::from(dir);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache"));
    base.join("kubectl-layer-lab")
}

/// The Kubernetes binaries a tier runs (kubectl always: `lab env` puts it on PATH).
pub fn k8s_binaries(tier: Tier) -> &'static [&'static str] {
    match tier {
        Tier::Bare => &["kube-apiserver", "kubectl"],
        Tier::Core | Tier::Full => &[
            "kube-apiserver",
            "kubectl",
            "kube-controller-manager",
            "kube-scheduler",
        ],
    }
}

/// The binaries built alone that `tier` runs.
fn singles(tier: Tier) -> Vec<Single> {
    let mut v = vec![ETCD_BIN];
    if tier >= Tier::Core {
        v.push(KWOK_BIN);
    }
    if tier >= Tier::Full {
        v.extend(CONTROLLERS);
    }
    v
}

/// Build (or find in the cache) every binary `tier` runs, and KAI's components with `kai`.
pub fn ensure(tier: Tier, kai: bool) -> Result<Bins, String> {
    let mut dirs = Vec::new();
    for s in singles(tier) {
        dirs.push((s.0, built(s)?));
    }
    if kai {
        let bin = bin_dir("kai-scheduler", KAI)?;
        kai_components(&bin)?;
        dirs.extend(KAI_COMPONENTS.map(|(_, name)| (name, bin.clone())));
    }
    let k8s = bin_dir("kubernetes", KUBERNETES)?;
    kubernetes(&k8s, k8s_binaries(tier))?;
    dirs.extend(k8s_binaries(tier).iter().map(|b| (*b, k8s.clone())));
    Ok(Bins { dirs })
}

/// The cache folder of a component's binaries at `version`, built with this machine's Go.
fn bin_dir(name: &str, version: &str) -> Result<PathBuf, String> {
    tools::ensure(&[tools::Tool::Go])?;
    let go = tools::go_version()?;
    Ok(cache_root().join(format!("{name}-{version}-{go}/bin")))
}

/// `s` built (or found in the cache); the binary's folder.
fn built(s: Single) -> Result<PathBuf, String> {
    let bin = bin_dir(s.0, s.2)?;
    single(&bin, s)?;
    Ok(bin)
}

/// The lab's kubectl alone (the Kubernetes build of [`ensure`]), for tests that drive plugins
/// through it.
pub fn kubectl() -> Result<PathBuf, String> {
    let k8s = bin_dir("kubernetes", KUBERNETES)?;
    kubernetes(&k8s, &["kubectl"])?;
    Ok(k8s.join("kubectl"))
}

/// (`kubectl-krew`, `validate-krew-manifest`), built at [`KREW`] (or found in the cache).
pub fn krew() -> Result<(PathBuf, PathBuf), String> {
    let [krew, validate] = KREW_BINS;
    Ok((built(krew)?.join(krew.0), built(validate)?.join(validate.0)))
}

/// `actionlint`, built at [`ACTIONLINT`] (or found in the cache).
pub fn actionlint() -> Result<PathBuf, String> {
    Ok(built(ACTIONLINT_BIN)?.join(ACTIONLINT_BIN.0))
}

/// `go` with the settings every lab build shares: the local toolchain only (a pin that needs a
/// newer Go must fail, not download one), static binaries, no VCS stamping.
fn go(dir: &Path) -> Command {
    let mut c = Command::new("go");
    c.current_dir(dir)
        .env("GOTOOLCHAIN", "local")
        .env("CGO_ENABLED", "0")
        .env("GOFLAGS", "-buildvcs=false");
    c
}

/// Run a build step, its output to `log`, and say how long it took: the lab's build times
/// decide whether CI can afford it, so every run reports them.
fn step(what: &str, cmd: &mut Command, log: &Path) -> Result<(), String> {
    eprintln!("==> lab: {what}");
    let start = Instant::now();
    let out = cmd.output().map_err(|e| format!("{what}: {e}"))?;
    let mut text = out.stdout.clone();
    text.extend_from_slice(&out.stderr);
    let mut all = std::fs::read(log).unwrap_or_default();
    all.extend_from_slice(format!("### {what}\n").as_bytes());
    all.extend_from_slice(&text);
    std::fs::write(log, all).map_err(|e| format!("{}: {e}", log.display()))?;
    if !out.status.success() {
        let tail = String::from_utf8_lossy(&text);
        let tail: Vec<&str> = tail.lines().rev().take(30).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(format!(
            "{what} failed ({}); log: {}\n{}",
            out.status,
            log.display(),
            tail.join("\n")
        ));
    }
    eprintln!("    {what}: {:.0} s", start.elapsed().as_secs_f64());
    Ok(())
}

/// A fresh wrapper module in `<dir>/src` (`go mod init`): a module's own replace directives
/// apply only when it is the main module, so etcd and Kubernetes are built from one.
fn wrapper(bin: &Path, name: &str) -> Result<(PathBuf, PathBuf), String> {
    let root = bin.parent().expect("cache dir");
    let src = root.join("src");
    let _ = std::fs::remove_dir_all(&src);
    std::fs::create_dir_all(&src).map_err(|e| format!("{}: {e}", src.display()))?;
    std::fs::create_dir_all(bin).map_err(|e| format!("{}: {e}", bin.display()))?;
    let log = root.join("build.log");
    let _ = std::fs::remove_file(&log);
    step(
        &format!("{name}: go mod init"),
        go(&src).args(["mod", "init", &format!("lab/{name}")]),
        &log,
    )?;
    Ok((src, log))
}

fn single(bin: &Path, (name, module, version, package): Single) -> Result<(), String> {
    if bin.join(name).exists() {
        return Ok(());
    }
    let (src, log) = wrapper(bin, name)?;
    step(
        &format!("{name}: go get {module}@{version}"),
        go(&src).args(["get", "-tool", &format!("{package}@{version}")]),
        &log,
    )?;
    // -o: a binary is named after its package's last element (etcd's would be "v3").
    step(
        &format!("{name}: go build {version}"),
        go(&src)
            .args(["build", "-trimpath", "-ldflags=-s -w", "-o"])
            .arg(bin.join(name))
            .arg(package),
        &log,
    )
}

/// The binaries of `want` missing from `bin`, built in one `go build` so the packages they
/// share compile once.
fn kubernetes(bin: &Path, want: &[&str]) -> Result<(), String> {
    let missing: Vec<&str> = want
        .iter()
        .copied()
        .filter(|b| !bin.join(b).exists())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let src = bin.parent().expect("cache dir").join("src");
    let log = src.parent().expect("cache dir").join("build.log");
    if !src.join("go.sum").exists() {
        k8s_module(bin)?;
    }
    let packages = missing.iter().map(|b| format!("k8s.io/kubernetes/cmd/{b}"));
    step(
        &format!(
            "kubernetes: go build {} ({})",
            KUBERNETES,
            missing.join(", ")
        ),
        go(&src)
            .args(["build", "-trimpath", "-ldflags", &version_ldflags(), "-o"])
            .arg(format!("{}/", bin.display()))
            .args(packages),
        &log,
    )
}

/// KAI's components in one `go build` (they share most of their packages), through a wrapper
/// module that carries the replace directives of KAI's own go.mod (a dependency's are
/// ignored), into `bin` as `kai-<component>` once all are built.
fn kai_components(bin: &Path) -> Result<(), String> {
    if KAI_COMPONENTS
        .iter()
        .all(|(_, name)| bin.join(name).exists())
    {
        return Ok(());
    }
    let (src, log) = wrapper(bin, "kai-scheduler")?;
    let gomod = downloaded(&src, &format!("{KAI_MODULE}@{KAI}"), "GoMod")?;
    let gomod = std::fs::read_to_string(&gomod).map_err(|e| format!("{gomod}: {e}"))?;
    let replaces = version_replaces(&gomod)?;
    if !replaces.is_empty() {
        step(
            "kai-scheduler: go mod edit -replace (KAI's own)",
            go(&src)
                .args(["mod", "edit"])
                .args(replaces.iter().map(|r| format!("-replace={r}"))),
            &log,
        )?;
    }
    let packages = KAI_COMPONENTS.map(|(c, _)| format!("{KAI_MODULE}/cmd/{c}"));
    step(
        &format!("kai-scheduler: go get {KAI_MODULE}@{KAI}"),
        go(&src)
            .args(["get", "-tool"])
            .args(packages.iter().map(|p| format!("{p}@{KAI}"))),
        &log,
    )?;
    let out = bin.parent().expect("cache dir").join("out");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    step(
        &format!(
            "kai-scheduler: go build {KAI} ({} components)",
            packages.len()
        ),
        go(&src)
            .args(["build", "-trimpath", "-ldflags=-s -w", "-o"])
            .arg(format!("{}/", out.display()))
            .args(&packages),
        &log,
    )?;
    for (c, name) in KAI_COMPONENTS {
        std::fs::rename(out.join(c), bin.join(name))
            .map_err(|e| format!("kai-scheduler: {c}: {e}"))?;
    }
    Ok(())
}

/// The replace directives of a go.mod that name a module version (`old => new vX`), as
/// `go mod edit -replace` takes them (`old=new@vX`); one to a local path cannot be carried
/// into another module, and is an error.
fn version_replaces(gomod: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut block = false;
    for line in gomod.lines().map(str::trim) {
        let body = if block {
            if line == ")" {
                block = false;
                continue;
            }
            line
        } else if line == "replace (" {
            block = true;
            continue;
        } else if let Some(rest) = line.strip_prefix("replace ") {
            rest
        } else {
            continue;
        };
        let body = body.split("//").next().unwrap_or_default().trim();
        let Some((old, new)) = body.split_once("=>") else {
            continue;
        };
        let old = old.split_whitespace().collect::<Vec<_>>().join("@");
        match new.split_whitespace().collect::<Vec<_>>()[..] {
            [path, version] => out.push(format!("{old}={path}@{version}")),
            _ => return Err(format!("go.mod replaces {old} by a local path: {body}")),
        }
    }
    Ok(out)
}

/// The wrapper module for `k8s.io/kubernetes`: k/k requires its staging modules at v0.0.0 and
/// maps them to `./staging/src/…`, which a dependency cannot see; each is replaced by its
/// published v0.X.Y. The list is read from the go.mod of the pinned version, never written
/// down, because it changes between minors.
fn k8s_module(bin: &Path) -> Result<(), String> {
    let (src, log) = wrapper(bin, "kubernetes")?;
    let gomod = downloaded(&src, &format!("k8s.io/kubernetes@{KUBERNETES}"), "GoMod")?;
    let gomod = std::fs::read_to_string(&gomod).map_err(|e| format!("{gomod}: {e}"))?;
    let staging = staging_version(KUBERNETES);
    let replaces = staging_modules(&gomod)
        .into_iter()
        .map(|m| format!("-replace={m}={m}@{staging}"));
    step(
        "kubernetes: go mod edit -replace (staging modules)",
        go(&src).args(["mod", "edit"]).args(replaces),
        &log,
    )?;
    // k/k's `godebug default=go1.XX` keeps the TLS and x509 defaults of the official builds.
    if let Some(line) = gomod.lines().find(|l| l.starts_with("godebug ")) {
        let path = src.join("go.mod");
        let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
        std::fs::write(&path, format!("{text}\n{line}\n")).map_err(|e| e.to_string())?;
    }
    let tools = [
        "kube-apiserver",
        "kube-controller-manager",
        "kube-scheduler",
        "kubectl",
    ]
    .map(|c| format!("k8s.io/kubernetes/cmd/{c}@{KUBERNETES}"));
    step(
        &format!("kubernetes: go get k8s.io/kubernetes@{KUBERNETES}"),
        go(&src).args(["get", "-tool"]).args(tools),
        &log,
    )
}

/// The modules k/k's go.mod maps into its staging tree (`k8s.io/x => ./staging/src/k8s.io/x`).
fn staging_modules(gomod: &str) -> Vec<String> {
    gomod
        .lines()
        .filter_map(|l| {
            let (module, target) = l.trim().split_once("=>")?;
            target
                .trim()
                .starts_with("./staging/")
                .then(|| module.trim().to_string())
        })
        .collect()
}

/// v1.35.4 → v0.35.4: the staging modules are tagged alongside each release.
fn staging_version(kubernetes: &str) -> String {
    kubernetes.replacen("v1.", "v0.", 1)
}

/// The version the binaries report: without these, `/version` says v0.0.0-master and
/// controllers that gate features on the server version misjudge it. Set under both packages
/// that carry it, as Kubernetes' own build does.
fn version_ldflags() -> String {
    let minor = KUBERNETES.split('.').nth(1).unwrap_or_default();
    let mut flags = String::from("-s -w");
    for pkg in [
        "k8s.io/component-base/version",
        "k8s.io/client-go/pkg/version",
    ] {
        for (var, value) in [
            ("gitMajor", "1"),
            ("gitMinor", minor),
            ("gitVersion", KUBERNETES),
            ("gitTreeState", "clean"),
            ("buildDate", "1970-01-01T00:00:00Z"),
        ] {
            flags.push_str(&format!(" -X {pkg}.{var}={value}"));
        }
    }
    flags
}

/// One field (`Dir`, `GoMod`) of `go mod download -json module@version`: the module's files
/// in the module cache, fetched from the proxy if missing.
pub fn downloaded(dir: &Path, module: &str, field: &str) -> Result<String, String> {
    let json = output(
        go(dir).args(["mod", "download", "-json", module]),
        &format!("go mod download {module}"),
    )?;
    let v: serde_json::Value =
        serde_json::from_slice(&json).map_err(|e| format!("go mod download {module}: {e}"))?;
    v[field]
        .as_str()
        .map(String::from)
        .ok_or_else(|| format!("go mod download {module}: no {field}: {v}"))
}

/// The kwok stages the lab runs, from kwok's module zip: nodes become Ready and keep a lease
/// (`node/fast`, `node/heartbeat-with-lease`); pods run, complete and are deleted
/// (`pod/fast`). kwok 0.8 starts with none unless given some.
pub const KWOK_STAGES: [&str; 5] = [
    "kustomize/stage/node/fast/node-initialize.yaml",
    "kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
    "kustomize/stage/pod/fast/pod-ready.yaml",
    "kustomize/stage/pod/fast/pod-complete.yaml",
    "kustomize/stage/pod/fast/pod-delete.yaml",
];

pub fn kwok_stages() -> Result<Vec<PathBuf>, String> {
    let dir = downloaded(
        &std::env::temp_dir(),
        &format!("sigs.k8s.io/kwok@{KWOK}"),
        "Dir",
    )?;
    Ok(KWOK_STAGES
        .iter()
        .map(|s| Path::new(&dir).join(s))
        .collect())
}

/// The CRD folders of [`CRD_MODULES`] in the module cache.
pub fn crd_dirs() -> Result<Vec<PathBuf>, String> {
    let scratch = std::env::temp_dir();
    CRD_MODULES
        .iter()
        .map(|(module, version, sub)| {
            let dir = downloaded(&scratch, &format!("{module}@{version}"), "Dir")?;
            Ok(Path::new(&dir).join(sub))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staging_modules_are_read_from_the_replace_block() {
        let gomod = "module k8s.io/kubernetes\n\nreplace (\n\tk8s.io/api => ./staging/src/k8s.io/api\n\tk8s.io/streaming => ./staging/src/k8s.io/streaming\n)\nreplace github.com/x/y => github.com/x/z v1.0.0\n";
        assert_eq!(staging_modules(gomod), ["k8s.io/api", "k8s.io/streaming"]);
        assert_eq!(staging_version("v1.35.4"), "v0.35.4");
    }

    #[test]
    fn version_replaces_are_carried_and_local_ones_refused() {
        let gomod = "module x\n\nreplace k8s.io/api => k8s.io/api v0.35.4\n\nreplace (\n\tk8s.io/apimachinery v0.36.2 => k8s.io/apimachinery v0.35.4 // pinned\n)\n";
        assert_eq!(
            version_replaces(gomod).unwrap(),
            [
                "k8s.io/api=k8s.io/api@v0.35.4",
                "k8s.io/apimachinery@v0.36.2=k8s.io/apimachinery@v0.35.4"
            ]
        );
        assert!(version_replaces("replace a => ../a\n").is_err());
        assert_eq!(
            version_replaces("module x\n").unwrap(),
            Vec::<String>::new()
        );
    }

    #[test]
    fn the_version_is_stamped_in_both_packages() {
        let f = version_ldflags();
        assert!(f.contains("k8s.io/component-base/version.gitVersion=v1.35.4"));
        assert!(f.contains("k8s.io/client-go/pkg/version.gitMinor=35"));
    }
}
