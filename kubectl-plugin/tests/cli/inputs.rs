//! `-f` on what people already have: a directory tree and a `.tar.gz` of `kubectl get` files in
//! the layouts of `kubectl cluster-info dump --output-directory` and of the NVIDIA GPU
//! Operator's must-gather (shapes from their sources: kubectl's clusterinfo_dump.go,
//! gpu-operator's hack/must-gather.sh), read to the same verdict as the single file; what was
//! skipped said on standard error; and the bounds: a gzip bomb, too many members, member names
//! outside the archive and link loops refused or passed by cleanly.

use super::{TempDir, bin, run, stderr, stdout, with_stdin};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

/// Files of a tree: path inside it, and content.
type Tree = Vec<(String, Vec<u8>)>;

/// The kinds `cluster-info dump` writes per namespace (and `nodes` at the top), by file name.
const DUMP_KINDS: [(&str, &str, &str); 8] = [
    ("v1", "Node", "nodes"),
    ("v1", "Event", "events"),
    ("v1", "ReplicationController", "replication-controllers"),
    ("v1", "Service", "services"),
    ("apps/v1", "DaemonSet", "daemonsets"),
    ("apps/v1", "Deployment", "deployments"),
    ("apps/v1", "ReplicaSet", "replicasets"),
    ("v1", "Pod", "pods"),
];

fn text(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_default().to_string()
}

/// A scenario's objects laid out as `cluster-info dump --output-directory` does (a typed JSON
/// List per kind and namespace, its items without kind, a `logs.txt` per pod), the kinds it
/// does not dump as `kubectl get -o yaml` Lists beside them, and the bundle's metadata.
fn dump_tree(bundle_text: &str) -> Tree {
    let bundle = layer_core::Bundle::parse(bundle_text).unwrap();
    let ix = layer_core::Index::new(bundle.clone());
    let mut files: std::collections::BTreeMap<String, Vec<Value>> = Default::default();
    let mut tree = Tree::new();
    for i in 0..ix.len() {
        let mut o = ix.value(i);
        let (api, kind) = (text(&o, "apiVersion"), text(&o, "kind"));
        let ns = o["metadata"]["namespace"].as_str().map(str::to_string);
        let dumped = DUMP_KINDS.iter().find(|(a, k, _)| *a == api && *k == kind);
        let path = match (dumped, &ns) {
            (Some((_, _, file)), Some(ns)) => format!("{ns}/{file}.json"),
            (Some((_, _, file)), None) => format!("{file}.json"),
            (None, _) => format!("more/{}-{kind}.yaml", api.replace('/', "_")),
        };
        if kind == "Pod" {
            let (ns, name) = (ns.clone().unwrap_or_default(), text(&o["metadata"], "name"));
            let log = format!(
                "==== START logs for container main of pod {ns}/{name} ====\nstarting\n\
                 ==== END logs for container main of pod {ns}/{name} ====\n"
            );
            tree.push((format!("{ns}/{name}/logs.txt"), log.into_bytes()));
        }
        if dumped.is_some() {
            // A typed list's items carry no kind: the List's `kind` says it.
            let m = o.as_object_mut().unwrap();
            m.remove("kind");
            m.remove("apiVersion");
        }
        files.entry(path).or_default().push(o);
    }
    for (path, items) in files {
        let body = if let Some(stem) = path.strip_suffix(".json") {
            let file = stem.rsplit('/').next().unwrap();
            let (api, kind, _) = DUMP_KINDS.iter().find(|(_, _, f)| *f == file).unwrap();
            let list = json!({"kind": format!("{kind}List"), "apiVersion": api,
                              "metadata": {"resourceVersion": "1"}, "items": items});
            serde_json::to_vec_pretty(&list).unwrap()
        } else {
            let list = json!({"apiVersion": "v1", "kind": "List", "items": items});
            serde_yaml_ng::to_string(&list).unwrap().into_bytes()
        };
        tree.push((path, body));
    }
    // A kind the namespace has none of: kubectl writes its List with `"items": null`.
    let empty = json!({"kind": "ReplicationControllerList", "apiVersion": "v1",
                       "metadata": {"resourceVersion": "1"}, "items": null});
    tree.push((
        "ml/replication-controllers.json".into(),
        empty.to_string().into_bytes(),
    ));
    if let Some(meta) = bundle.meta() {
        let list = json!({"apiVersion": "v1", "kind": "List", "items": [], "kubectlLayer": meta});
        tree.push(("kubectl-layer.json".into(), list.to_string().into_bytes()));
    }
    tree
}

fn write_tree(dir: &Path, tree: &Tree) {
    for (path, body) in tree {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    }
}

/// The tree as a tar archive, gzip-compressed if asked, built with the crates the tool reads it
/// with.
fn tar_of(tree: &Tree, gzip: bool) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (path, body) in tree {
        let mut h = tar::Header::new_gnu();
        h.set_size(body.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, path, body.as_slice()).unwrap();
    }
    let raw = b.into_inner().unwrap();
    if !gzip {
        return raw;
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&raw).unwrap();
    gz.finish().unwrap()
}

fn path_str(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// Every scenario, split into a cluster-info-dump tree, then read as the directory and as a
/// `.tar.gz` (`why` on its first expectation) and as a `.tar` on standard input (`scan`): the
/// same diagnosis, byte for byte, as the single file gives. (A process each: every expectation
/// in every form took minutes.)
#[test]
fn a_directory_and_its_archives_give_the_verdict_of_the_single_file() {
    for s in scenarios::all() {
        let file = path_str(&s.bundle_path);
        let tree = dump_tree(&s.bundle_text());
        let tmp = TempDir::new("tree");
        let dir = tmp.0.join("dump");
        write_tree(&dir, &tree);
        let tgz = tmp.0.join("dump.tar.gz");
        std::fs::write(&tgz, tar_of(&tree, true)).unwrap();
        let e = &s.expectations[0];
        let want = run(&["why", &e.target, "-f", &file, "-o", "json"]);
        for form in [path_str(&dir), path_str(&tgz)] {
            let got = run(&["why", &e.target, "-f", &form, "-o", "json"]);
            assert_eq!(got.status.code(), want.status.code(), "{} {form}", s.name);
            assert_eq!(
                stdout(&got),
                stdout(&want),
                "{} {} {form}",
                s.name,
                e.target
            );
            // Standard output holds the diagnosis alone; the report is on standard error.
            assert!(stderr(&got).contains("skipped"), "{}", stderr(&got));
        }
        let tar = tmp.0.join("dump.tar");
        std::fs::write(&tar, tar_of(&tree, false)).unwrap();
        let want = run(&["scan", "-f", &file, "-o", "json"]);
        let got = super::bin()
            .args(["scan", "-f", "-", "-o", "json"])
            .stdin(std::fs::File::open(&tar).unwrap())
            .output()
            .unwrap();
        assert_eq!(
            stdout(&got),
            stdout(&want),
            "{}: scan of a .tar piped in",
            s.name
        );
    }
}

/// The summary counts what was read and skipped, by reason; --verbose names each file.
#[test]
fn what_was_read_and_skipped_is_said_on_standard_error() {
    let s = scenarios::get("healthy-gpu-job").unwrap();
    let tree = dump_tree(&s.bundle_text());
    let pods = tree
        .iter()
        .filter(|(p, _)| p.ends_with("/logs.txt"))
        .count();
    let tmp = TempDir::new("report");
    write_tree(&tmp.0, &tree);
    std::fs::write(tmp.0.join("notes.md"), "# what I saw\n").unwrap();
    let dir = path_str(&tmp.0);
    let o = run(&["scan", "-f", &dir]);
    let e = stderr(&o);
    let read = tree.len() - pods;
    assert!(
        e.contains(&format!("read {read} files"))
            && e.contains(&format!("skipped {} (logs: {pods}, other: 1)", pods + 1))
            && e.contains("--verbose"),
        "{e}"
    );
    assert!(!stdout(&o).contains("skipped"), "{}", stdout(&o));
    let v = stderr(&run(&["scan", "-f", &dir, "--verbose"]));
    for (path, _) in &tree {
        let verb = if path.ends_with("logs.txt") {
            "skipped"
        } else {
            "read"
        };
        assert!(v.contains(&format!("  {verb:<8} {path}: ")), "{path}:\n{v}");
    }
    assert!(v.contains("notes.md: not named .json"), "{v}");
    assert!(v.contains("logs.txt: a log: logs are not objects"), "{v}");
}

/// The GPU Operator's must-gather, as its script writes it: object YAML read; logs, `-o wide`
/// tables, label lists, the version, a marker and the bug report skipped, each for its reason;
/// describe output read if the reader knows it, else skipped with the reader's words.
#[test]
fn a_gpu_operator_must_gather_is_read_for_its_objects() {
    let s = scenarios::get("healthy-gpu-job").unwrap();
    let objects = super::live::scenario_objects("healthy-gpu-job");
    let pods: Vec<&Value> = objects.iter().filter(|o| o["kind"] == "Pod").collect();
    let rest: Vec<&Value> = objects.iter().filter(|o| o["kind"] != "Pod").collect();
    let yaml = |items: Vec<&Value>| {
        serde_yaml_ng::to_string(&json!({"apiVersion": "v1", "kind": "List", "items": items}))
            .unwrap()
    };
    let tmp = TempDir::new("must-gather");
    let mg = tmp.0.join("nvidia-gpu-operator_20261206_1200");
    let files: Vec<(&str, String)> = vec![
        (
            "must-gather.log",
            "Using ARTIFACT_DIR=/must-gather\n".into(),
        ),
        ("must-gather.stderr.log", "+ kubectl version\n".into()),
        ("version", "NVIDIA GPU Operator\nv25.3.0\n".into()),
        ("cluster_policy.missing", String::new()),
        (
            "gpu_nodes.labels",
            "gpu-1\n- nvidia.com/gpu.present=true\n".into(),
        ),
        (
            "gpu_nodes.status",
            "NAME    STATUS   ROLES\ngpu-1   Ready    <none>\n".into(),
        ),
        (
            "gpu_nodes.descr",
            "Name:               gpu-1\nRoles:              <none>\n".into(),
        ),
        (
            "gpu_operator_pod.yaml",
            serde_yaml_ng::to_string(pods[0]).unwrap(),
        ),
        ("gpu_operator_pod.log", "{\"level\":\"info\"}\n".into()),
        ("gpu_operand_pods.yaml", yaml(pods[1..].to_vec())),
        (
            "gpu_operand_pod_images.txt",
            "nvidia-device-plugin: nvcr.io/x\n".into(),
        ),
        ("gpu_operand_ds.yaml", yaml(rest)),
        ("gpu_operand_ds.status", "NAME   DESIRED\n".into()),
    ];
    std::fs::create_dir_all(&mg).unwrap();
    for (name, body) in &files {
        std::fs::write(mg.join(name), body).unwrap();
    }
    std::fs::write(
        mg.join("nvidia-bug-report_gpu-1.log.gz"),
        [0x1f, 0x8b, 8, 0],
    )
    .unwrap();
    let dir = path_str(&mg);
    let file = path_str(&s.bundle_path);
    for e in &s.expectations {
        let want = stdout(&run(&["why", &e.target, "-f", &file, "-o", "json"]));
        let want: Value = serde_json::from_str(&want).unwrap();
        let got = run(&["why", &e.target, "-f", &dir, "-o", "json", "-v"]);
        let got_v: Value = serde_json::from_slice(&got.stdout).unwrap_or_default();
        // The scenario's metadata is not in a must-gather: the verdicts are compared.
        assert_eq!(
            got_v["verdict"],
            want["verdict"],
            "{}\n{}",
            e.target,
            stderr(&got)
        );
        assert_eq!(got_v["findings"], want["findings"], "{}", e.target);
    }
    let v = stderr(&run(&["scan", "-f", &dir, "-v"]));
    for (name, why) in [
        ("gpu_operator_pod.log", "a log"),
        ("must-gather.stderr.log", "a log"),
        ("nvidia-bug-report_gpu-1.log.gz", "a log"),
        ("gpu_nodes.status", "a `kubectl get -o wide` table"),
        ("cluster_policy.missing", "a marker"),
        ("version", "not named .json"),
        ("gpu_nodes.labels", "not named .json"),
    ] {
        assert!(
            v.contains(&format!("skipped  {name}: {why}")),
            "{name}:\n{v}"
        );
    }
    for name in [
        "gpu_operator_pod.yaml",
        "gpu_operand_pods.yaml",
        "gpu_operand_ds.yaml",
    ] {
        assert!(v.contains(&format!("read     {name}: ")), "{name}:\n{v}");
    }
    assert!(
        v.contains("read     gpu_nodes.descr: ")
            || v.contains("skipped  gpu_nodes.descr: kubectl describe output"),
        "{v}"
    );
}

/// A tree with nothing to read is an error that lists what it skipped; a broken object file
/// in a tree is an error naming it, inside an archive too.
#[test]
fn nothing_to_read_and_a_broken_file_are_errors_naming_them() {
    let tmp = TempDir::new("empty");
    std::fs::write(tmp.0.join("app.log"), "started\n").unwrap();
    let o = run(&["why", "x", "-f", &path_str(&tmp.0)]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("no Kubernetes objects in") && e.contains("app.log: a log"),
        "{e}"
    );
    std::fs::create_dir_all(tmp.0.join("ml")).unwrap();
    std::fs::write(tmp.0.join("ml/pods.json"), "{\"items\": [").unwrap();
    let e = stderr(&run(&["why", "x", "-f", &path_str(&tmp.0)]));
    assert!(
        e.contains("ml/pods.json in ") && e.contains("invalid JSON"),
        "{e}"
    );
    let tree: Tree = vec![("ml/pods.json".into(), b"{\"items\": [".to_vec())];
    let tgz = tmp.0.join("x.tgz");
    std::fs::write(&tgz, tar_of(&tree, true)).unwrap();
    let e = stderr(&run(&["why", "x", "-f", &path_str(&tgz)]));
    assert!(
        e.contains("ml/pods.json in ") && e.contains("x.tgz: invalid JSON"),
        "{e}"
    );
}

/// A small `.tar.gz` that decompresses far past `--max-input-bytes` stops at the limit with an
/// error naming the member, whether the member is one to read or one to skip through.
#[test]
fn a_gzip_bomb_is_refused_at_the_limit_naming_the_member() {
    let tmp = TempDir::new("bomb");
    let zeros = vec![b' '; 16 << 20];
    for member in ["ml/pods.json", "ml/p/logs.txt"] {
        let tree: Tree = vec![(member.into(), zeros.clone())];
        let bomb = tmp.0.join("bomb.tar.gz");
        std::fs::write(&bomb, tar_of(&tree, true)).unwrap();
        assert!(std::fs::metadata(&bomb).unwrap().len() < 1 << 20);
        let o = run(&[
            "scan",
            "-f",
            &path_str(&bomb),
            "--max-input-bytes",
            "1000000",
        ]);
        assert_eq!(o.status.code(), Some(2), "{member}");
        let e = stderr(&o);
        assert!(
            e.contains("error[input-too-large]")
                && e.contains(&format!("{member} in "))
                && e.contains("--max-input-bytes"),
            "{member}: {e}"
        );
    }
    // A gzip'd single file is held to the same limit.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&zeros).unwrap();
    let one = tmp.0.join("bundle.json.gz");
    std::fs::write(&one, gz.finish().unwrap()).unwrap();
    let o = run(&[
        "scan",
        "-f",
        &path_str(&one),
        "--max-input-bytes",
        "1000000",
    ]);
    assert!(stderr(&o).contains("input-too-large"), "{}", stderr(&o));
}

/// More entries than `--max-input-files` are refused, in an archive and in a directory.
#[test]
fn too_many_members_are_refused() {
    let tmp = TempDir::new("many");
    let tree: Tree = (0..3000)
        .map(|i| (format!("d/{i}.log"), Vec::new()))
        .collect();
    let tar = tmp.0.join("many.tar");
    std::fs::write(&tar, tar_of(&tree, false)).unwrap();
    let o = run(&["scan", "-f", &path_str(&tar), "--max-input-files", "1000"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("more than 1000 files") && stderr(&o).contains("--max-input-files")
    );
    let dir = tmp.0.join("dir");
    write_tree(&dir, &tree[..50].to_vec());
    let o = run(&["scan", "-f", &path_str(&dir), "--max-input-files", "20"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("more than 20 files"), "{}", stderr(&o));
}

/// A tar header naming `name`, written byte by byte: the tar crate's own writer refuses names
/// that leave the archive, so an attacker's archive is made by hand. `old`: the format before
/// POSIX, whose header has no `ustar` mark.
fn raw_member(name: &str, body: &[u8], old: bool) -> Vec<u8> {
    let mut h = if old {
        tar::Header::new_old()
    } else {
        tar::Header::new_gnu()
    };
    h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
    h.set_size(body.len() as u64);
    h.set_mode(0o644);
    h.set_cksum();
    let mut out = h.as_bytes().to_vec();
    out.extend_from_slice(body);
    out.resize(out.len().div_ceil(512) * 512, 0);
    out
}

/// Member names outside the archive (`../`, absolute) are refused, naming the member.
#[test]
fn member_names_outside_the_archive_are_refused() {
    let tmp = TempDir::new("traversal");
    let pod = br#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ml"}}"#;
    let names = [
        "../../etc/pods.json",
        "/etc/pods.json",
        "ml/../../pods.json",
    ];
    for (name, old) in names.iter().flat_map(|n| [(n, true), (n, false)]) {
        let mut raw = raw_member("ml/ok.json", pod, old);
        raw.extend(raw_member(name, pod, old));
        raw.extend([0u8; 1024]);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&raw).unwrap();
        for (file, bytes) in [("evil.tgz", gz.finish().unwrap()), ("evil.tar", raw)] {
            let path = tmp.0.join(file);
            std::fs::write(&path, bytes).unwrap();
            let o = run(&["why", "p", "-f", &path_str(&path)]);
            assert_eq!(o.status.code(), Some(2), "{name} {file}: {}", stderr(&o));
            let e = stderr(&o);
            assert!(
                e.contains(&format!("member `{name}` is named outside")),
                "{e}"
            );
        }
    }
}

/// Links are not followed: a loop ends nothing, and a link to objects outside the tree does
/// not bring them in; each is listed as skipped. The same for links inside an archive.
#[cfg(unix)]
#[test]
fn links_are_listed_and_never_followed() {
    let tmp = TempDir::new("links");
    let s = scenarios::get("healthy-gpu-job").unwrap();
    let outside = tmp.0.join("outside.json");
    std::fs::write(&outside, s.bundle_text()).unwrap();
    let dir = tmp.0.join("tree");
    std::fs::create_dir_all(dir.join("ml")).unwrap();
    let pod = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ml"},"status":{"phase":"Pending"}}"#;
    std::fs::write(dir.join("ml/pods.json"), pod).unwrap();
    std::os::unix::fs::symlink(&dir, dir.join("ml/loop")).unwrap();
    std::os::unix::fs::symlink("..", dir.join("ml/up")).unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("ml/jobs.json")).unwrap();
    let o = run(&["scan", "-f", &path_str(&dir), "-v", "-o", "json"]);
    let e = stderr(&o);
    for link in ["ml/loop", "ml/up", "ml/jobs.json"] {
        assert!(
            e.contains(&format!("skipped  {link}: a link")),
            "{link}: {e}"
        );
    }
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let targets: Vec<&Value> = report["diagnoses"].as_array().unwrap().iter().collect();
    assert_eq!(targets.len(), 1, "only the tree's pod: {targets:?}");
    let mut b = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_gnu();
    h.set_entry_type(tar::EntryType::Symlink);
    h.set_size(0);
    h.set_cksum();
    b.append_link(&mut h, "ml/jobs.json", &outside).unwrap();
    let mut h = tar::Header::new_gnu();
    h.set_size(pod.len() as u64);
    h.set_cksum();
    b.append_data(&mut h, "ml/pods.json", pod.as_bytes())
        .unwrap();
    let tar = tmp.0.join("links.tar");
    std::fs::write(&tar, b.into_inner().unwrap()).unwrap();
    let o = run(&["scan", "-f", &path_str(&tar), "-v"]);
    assert!(
        stderr(&o).contains("skipped  ml/jobs.json: a link"),
        "{}",
        stderr(&o)
    );
}

/// `kubectl cluster-info dump --namespaces ml` printed to standard output by the lab's kubectl
/// 1.35 (`fixtures/cluster-info-dump.txt`: the NodeList, then the namespace's typed Lists one
/// after another, five of them `"items": null`, then the pod's log between its `====` lines)
/// after the scheduler refused a Job's pod for `nvidia.com/gpu`: read as a file and from
/// standard input to the same diagnosis, placement, the log set aside and counted in the
/// diagnosis's input notes; the line kubectl before 1.19 printed last changes nothing; text
/// broken after a log is an error naming its line in the text as given.
#[test]
fn a_cluster_info_dump_printed_to_standard_output_is_read() {
    let dump = include_str!("fixtures/cluster-info-dump.txt");
    let tmp = TempDir::new("dump-stdout");
    let file = tmp.0.join("dump.txt");
    std::fs::write(&file, dump).unwrap();
    let args = ["why", "pod/too-big-wgt59", "-n", "ml", "-o", "json", "-f"];
    let from_file = bin().args(args).arg(&file).output().unwrap();
    let d: Value = serde_json::from_slice(&from_file.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", stderr(&from_file)));
    assert_eq!(d["verdict"]["layer"], "placement", "{}", d["verdict"]);
    assert!(
        stderr(&from_file).contains("read 1 file (5 objects); skipped 1 (logs: 1)"),
        "{}",
        stderr(&from_file)
    );
    assert!(
        d["inputNotes"][0]
            .as_str()
            .is_some_and(|n| n.contains("1 container log section set aside")),
        "{}",
        d["inputNotes"]
    );
    let from_stdin = with_stdin(bin().args(args).arg("-"), dump);
    assert_eq!(
        stdout(&from_stdin),
        stdout(&from_file),
        "{}",
        stderr(&from_stdin)
    );
    let before_1_19 = format!("{dump}Cluster info dumped to standard output\n");
    let old = with_stdin(bin().args(args).arg("-"), &before_1_19);
    assert_eq!(stdout(&old), stdout(&from_file), "{}", stderr(&old));
    let broken = format!("{dump}{{\"kind\": \"PodList\", \"items\": [}}\n");
    let o = with_stdin(bin().args(args).arg("-"), &broken);
    let line = dump.lines().count() + 1;
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("invalid JSON at line {line},")),
        "{}",
        stderr(&o)
    );
}
