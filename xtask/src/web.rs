//! `cargo xtask web | serve | web-test`: the offline page.
//!
//! `web` builds `web-demo/dist/`: the page sources, the npm package's browser entry (`pkg/`) and
//! the built-in example scenarios (`examples/`). `serve` serves it on 127.0.0.1 with the
//! Content-Security-Policy header. `web-test` drives Debian's Chromium with playwright-core
//! through every scenario (`web-demo/tests/e2e.test.mjs`), and saves screenshots of the layer
//! picture at 1280 and 390 px into `<target dir>/shots/`.

use crate::{root, run};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The page's Content-Security-Policy (design: "Web page"): this origin only.
pub const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; style-src 'self'; img-src 'self' data:";

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for e in std::fs::read_dir(from)
        .map_err(|e| format!("{}: {e}", from.display()))?
        .flatten()
    {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(|e| format!("{}: {e}", src.display()))?;
        }
    }
    Ok(())
}

/// Build the site into web-demo/dist/.
pub fn build() -> Result<PathBuf, String> {
    crate::wasm::build()?;
    let dist = root().join("web-demo/dist");
    let _ = std::fs::remove_dir_all(&dist);
    copy_dir(&root().join("web-demo/src"), &dist)?;
    let pkg = root().join("wasm/pkg");
    std::fs::create_dir_all(dist.join("pkg")).map_err(|e| e.to_string())?;
    for f in ["api.mjs", "index.web.mjs"] {
        std::fs::copy(pkg.join(f), dist.join("pkg").join(f)).map_err(|e| format!("{f}: {e}"))?;
    }
    copy_dir(&pkg.join("web"), &dist.join("pkg/web"))?;
    // The Practice tab's questions: the bank `kubectl layer practice` asks from.
    std::fs::copy(
        root().join("rules/practice.json"),
        dist.join("practice.json"),
    )
    .map_err(|e| format!("rules/practice.json: {e}"))?;
    // The built-in examples: every scenario's bundle, with its first target and README title.
    let examples = dist.join("examples");
    std::fs::create_dir_all(&examples).map_err(|e| e.to_string())?;
    let mut index = Vec::new();
    for (dir, bundle, expected) in crate::scenarios()? {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let ext = bundle
            .extension()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let file = format!("{name}.{ext}");
        std::fs::copy(&bundle, examples.join(&file)).map_err(|e| e.to_string())?;
        let title = example_title(&dir, &name)?;
        let target = expected
            .as_array()
            .and_then(|a| a.first())
            .and_then(|t| t["target"].as_str())
            .unwrap_or("")
            .to_string();
        index.push(
            serde_json::json!({"name": name, "file": file, "title": title, "target": target}),
        );
    }
    std::fs::write(
        examples.join("index.json"),
        serde_json::to_string_pretty(&index).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    check_meta_policy(&dist.join("index.html"))?;
    eprintln!("==> web-demo/dist built ({} examples)", index.len());
    Ok(dist)
}

/// The page must carry [`CSP`] in its own `<meta>` tag: where it is published (GitHub Pages)
/// no server sends the header, so the tag is the policy.
fn check_meta_policy(index: &Path) -> Result<(), String> {
    let html = std::fs::read_to_string(index).map_err(|e| format!("{}: {e}", index.display()))?;
    match meta_policy(&html) {
        Some(p) if p == CSP => Ok(()),
        Some(p) => Err(format!(
            "{}: the <meta> Content-Security-Policy is {p:?}, not the served one {CSP:?}",
            index.display()
        )),
        None => Err(format!(
            "{}: no <meta http-equiv=\"Content-Security-Policy\"> (GitHub Pages sends no header)",
            index.display()
        )),
    }
}

/// The `content` of the page's `<meta http-equiv="Content-Security-Policy">`, if it has one.
fn meta_policy(html: &str) -> Option<&str> {
    let tag = html.split('<').find(|t| {
        t.starts_with("meta ")
            && t.to_ascii_lowercase()
                .contains("http-equiv=\"content-security-policy\"")
    })?;
    let content = tag.split("content=\"").nth(1)?;
    content.split('"').next()
}

/// What the example list shows for a scenario: its README's first heading. A missing README,
/// a README without a heading, or a heading that is only the folder name fails the build
/// naming the scenario: the list would show `plc-kai-reservation-namespace` to a reader.
fn example_title(dir: &Path, name: &str) -> Result<String, String> {
    let path = dir.join("README.md");
    let readme = std::fs::read_to_string(&path)
        .map_err(|e| format!("scenario {name}: {}: {e}", path.display()))?;
    readme_title(&readme, name).map_err(|why| format!("scenario {name}: README.md {why}"))
}

/// The first `# ` heading of a README, when it says more than the scenario's folder name.
fn readme_title(readme: &str, name: &str) -> Result<String, String> {
    let title = readme
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or("has no `# ` heading to title the example with")?;
    if title == name {
        return Err(format!(
            "heading is only the folder name `{name}`: give the example a title"
        ));
    }
    Ok(title.to_string())
}

fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "mjs" | "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" => "application/json",
        "yaml" => "text/yaml; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Serve web-demo/dist on 127.0.0.1 (GET and HEAD only, this origin only).
pub fn serve(port: u16) -> Result<(), String> {
    let dist = build()?;
    let listener =
        TcpListener::bind(("127.0.0.1", port)).map_err(|e| format!("127.0.0.1:{port}: {e}"))?;
    eprintln!(
        "==> serving web-demo/dist on http://{} (Ctrl-C to stop)",
        listener.local_addr().map_err(|e| e.to_string())?
    );
    serve_dir(&listener, &dist);
    Ok(())
}

/// Answer every connection of `listener` from `dir`, each on its own thread: one idle or slow
/// connection (a browser keeps spare ones open) must not hold up the others.
fn serve_dir(listener: &TcpListener, dir: &Path) {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    for stream in listener.incoming().flatten() {
        let dir = dir.clone();
        std::thread::spawn(move || {
            let mut stream = stream;
            let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(30)));
            let mut line = String::new();
            if BufReader::new(&stream).read_line(&mut line).is_err() {
                return;
            }
            let (head, body) = answer(&dir, &line);
            let _ = stream
                .write_all(head.as_bytes())
                .and_then(|()| stream.write_all(&body));
        });
    }
}

/// The response to one request line: the headers, and the body (none for HEAD).
fn answer(dir: &Path, request_line: &str) -> (String, Vec<u8>) {
    let mut words = request_line.split_whitespace();
    let method = words.next().unwrap_or("");
    let path = words
        .next()
        .unwrap_or("/")
        .split('?')
        .next()
        .unwrap_or("/")
        .to_string();
    let (status, body, ctype, allow) = if !matches!(method, "GET" | "HEAD") {
        (
            "405 Method Not Allowed",
            b"only GET and HEAD".to_vec(),
            "text/plain",
            "Allow: GET, HEAD\r\n",
        )
    } else {
        let rel = if path == "/" {
            "index.html".to_string()
        } else {
            path.trim_start_matches('/').to_string()
        };
        let file = dir.join(&rel);
        let inside = file.canonicalize().is_ok_and(|f| f.starts_with(dir));
        match (inside, std::fs::read(&file)) {
            (true, Ok(b)) => ("200 OK", b, mime(&file), ""),
            _ => ("404 Not Found", b"not found".to_vec(), "text/plain", ""),
        }
    };
    let head = format!(
        "HTTP/1.1 {status}\r\n{allow}Content-Type: {ctype}\r\nContent-Length: {}\r\nContent-Security-Policy: {CSP}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let body = if method == "HEAD" { Vec::new() } else { body };
    (head, body)
}

/// The 20 MB bundle the browser test times the page on against the CLI's `why`.
const BIG: (u32, u32) = (350, 7_000);

/// The bundle of [`BIG`] from the release gen-cluster (seed 1), written afresh each run.
fn big_bundle() -> Result<PathBuf, String> {
    let (nodes, pods) = BIG;
    let dir = crate::target_dir().join("web-test");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(format!("cluster-{nodes}n-{pods}p-s1.json"));
    run(
        Command::new(crate::target_dir().join("release/gen-cluster"))
            .args(["--nodes", &nodes.to_string(), "--pods", &pods.to_string()])
            .args(["--seed", "1", "--out"])
            .arg(&path),
    )?;
    Ok(path)
}

/// Browser tests: Debian's Chromium driven by playwright-core (installed from web-demo's lock),
/// with the page timed against the release CLI on a 20 MB bundle; `record` writes that ratio
/// into docs/benchmarks.md.
/// `pages`: serve it as GitHub Pages will (under `/kubectl-layer/`, no CSP header), so the
/// tests prove the published page and its `<meta>` policy.
pub fn test(record: bool, pages: bool) -> Result<(), String> {
    build()?;
    // Release builds: the page is compared with the CLI as users run it.
    run(crate::cargo().args([
        "build",
        "--release",
        "-p",
        "kubectl-layer",
        "-p",
        "kubectl-layer-tests",
        "--bin",
        "kubectl-layer",
        "--bin",
        "gen-cluster",
    ]))?;
    let big = big_bundle()?;
    let chromium = crate::tools::chromium_ready()?;
    let demo = root().join("web-demo");
    run(Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--silent"])
        .current_dir(&demo))?;
    let mut node = Command::new("node");
    node.args(["--test", "--test-reporter=spec", "tests/e2e.test.mjs"])
        .env("CHROMIUM", &chromium)
        .env("KL_SCENARIOS", root().join("tests/scenarios"))
        .env("KL_PKG", root().join("wasm/pkg"))
        .env("KL_BIG", &big)
        .env("KL_CLI", crate::target_dir().join("release/kubectl-layer"))
        // Screenshots of the layer picture, outside the repository, for a person to look at.
        .env("KL_SHOTS", crate::target_dir().join("shots"))
        .current_dir(&demo);
    if record {
        node.env("KL_RECORD", root().join("docs/benchmarks.md"));
    }
    if pages {
        node.env("KL_PAGES", "1");
    }
    run(&mut node)
}

/// The markers of the page's section in docs/benchmarks.md, which the browser test writes.
const WEB_SECTION: (&str, &str) = ("<!-- web-page:", "<!-- /web-page -->");

/// `new` (docs/benchmarks.md as `cargo xtask bench` writes it) with the web page's section of
/// `old` carried over: the bench does not measure the page, and must not drop its figures.
pub fn keep_web_section(old: &str, new: &str) -> String {
    let (begin, end) = WEB_SECTION;
    let section = old
        .find(begin)
        .and_then(|a| old[a..].find(end).map(|b| &old[a..a + b + end.len()]));
    match section {
        Some(s) if !new.contains(begin) => format!("{}\n\n{s}\n", new.trim_end()),
        _ => new.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;

    fn site() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("kl-serve-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(dir.join("index.html"), "<p>hi</p>").expect("index");
        dir.canonicalize().expect("canonical")
    }

    #[test]
    fn the_page_s_meta_policy_is_read_from_its_tag() {
        let page = format!(
            "<head><meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">"
        );
        assert_eq!(meta_policy(&page), Some(CSP));
        assert_eq!(
            meta_policy("<meta charset=\"utf-8\"><p>content=\"x\"</p>"),
            None
        );
        let shipped = std::fs::read_to_string(root().join("web-demo/src/index.html")).unwrap();
        assert_eq!(meta_policy(&shipped), Some(CSP), "web-demo/src/index.html");
        let dir = site();
        let e = check_meta_policy(&dir.join("index.html")).unwrap_err();
        assert!(e.contains("no <meta"), "{e}");
    }

    #[test]
    fn an_example_is_titled_by_its_readme_s_first_heading() {
        assert_eq!(
            readme_title("# A Job waiting for quota\n\n## More\n", "kq").as_deref(),
            Ok("A Job waiting for quota")
        );
        let none = readme_title("Prose only.\n## Not a title\n", "kq").expect_err("no title");
        assert!(none.contains("no `# ` heading"), "{none}");
        let folder = readme_title("# kq\n", "kq").expect_err("folder name");
        assert!(folder.contains("`kq`"), "{folder}");
        let dir = std::env::temp_dir().join(format!("kl-title-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let missing = example_title(&dir, "no-readme").expect_err("no README");
        assert!(missing.starts_with("scenario no-readme: "), "{missing}");
        // Every scenario of the repository has one.
        for (dir, _, _) in crate::scenarios().expect("scenarios") {
            let name = dir
                .file_name()
                .expect("named")
                .to_string_lossy()
                .to_string();
            example_title(&dir, &name).expect("titled");
        }
    }

    #[test]
    fn the_bench_keeps_the_page_s_figures() {
        let section = "<!-- web-page: x -->\n## Web page\n| page | 1.5× |\n<!-- /web-page -->";
        let old = format!("# Benchmarks\n\nold figures\n\n{section}\n\n## Notes\n");
        let kept = keep_web_section(&old, "# Benchmarks\n\nnew figures\n");
        assert_eq!(kept, format!("# Benchmarks\n\nnew figures\n\n{section}\n"));
        // Nothing to carry: the new text as it is.
        assert_eq!(keep_web_section("# old", "# new\n"), "# new\n");
        // A half-written section (no end marker) is not carried.
        assert_eq!(
            keep_web_section("<!-- web-page: x\n| 1× |", "# new\n"),
            "# new\n"
        );
    }

    #[test]
    fn only_get_and_head_inside_the_directory_are_answered() {
        let dir = site();
        let (head, body) = answer(&dir, "GET / HTTP/1.1\r\n");
        assert!(head.starts_with("HTTP/1.1 200") && head.contains("Content-Security-Policy"));
        assert_eq!(body, b"<p>hi</p>");
        let (head, body) = answer(&dir, "HEAD / HTTP/1.1\r\n");
        assert!(
            head.starts_with("HTTP/1.1 200") && body.is_empty(),
            "{head}"
        );
        let (head, _) = answer(&dir, "POST / HTTP/1.1\r\n");
        assert!(
            head.starts_with("HTTP/1.1 405") && head.contains("Allow: GET, HEAD"),
            "{head}"
        );
        let (head, _) = answer(&dir, "GET /../../etc/passwd HTTP/1.1\r\n");
        assert!(head.starts_with("HTTP/1.1 404"), "{head}");
    }

    #[test]
    fn an_idle_connection_does_not_hold_up_the_next() {
        let dir = site();
        let listener = TcpListener::bind(("127.0.0.1", 0)).expect("bind");
        let addr = listener.local_addr().expect("addr");
        std::thread::spawn(move || serve_dir(&listener, &dir));
        // A connection that never sends its request line.
        let _idle = std::net::TcpStream::connect(addr).expect("idle");
        let mut next = std::net::TcpStream::connect(addr).expect("next");
        next.set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .expect("timeout");
        next.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            .expect("send");
        let mut reply = String::new();
        next.read_to_string(&mut reply)
            .expect("answered while another connection idles");
        assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    }
}
