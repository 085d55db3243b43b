//! Every rule's `references` names the upstream sources a reader can open and check: an
//! `https://` URL, and for a file or folder on GitHub one pinned to a release tag or a commit.
//! A path outside the repository (`shared/reference/…`) points at nothing a user has, and a
//! branch moves: the lines a rule cites drift away from the constant or message it relies on.
//!
//! What counts as pinned, for the `<ref>` of `github.com/<owner>/<repo>/blob|tree/<ref>/…`:
//! - a commit: 7 to 40 hexadecimal digits;
//! - a tag that starts with a version: `v` and a digit (`v1.34.0`, `v0.1.0-alpha.11`) or a digit
//!   (`1.2.3`);
//! - a tag that ends in a dotted version after a name (`cluster-autoscaler-1.36.1`,
//!   `kubernetes-1.36.3`), except `release-…`: Kubernetes and many of its projects keep their
//!   release *branches* under that name (`release-1.34`), so it proves nothing;
//! - a tag with a path prefix (`operator/v0.1.0-alpha.11`, `chart/0.4.0`): when the first segment
//!   is not pinned, the first two are read as the tag, and the second must look like a version.
//!
//! Anything else (`main`, `master`, `HEAD`, `develop`, a feature branch) is refused.

use crate::support;

/// Why `reference` is not a pinned upstream URL, or `None` when it is one.
fn problem(reference: &str) -> Option<&'static str> {
    let Some(rest) = reference.strip_prefix("https://") else {
        return Some("not an https:// URL");
    };
    if reference.chars().any(char::is_whitespace) {
        // A note after the URL makes the entry something no browser opens as written.
        return Some("not a single URL (it contains whitespace)");
    }
    let rest = rest.split(['#', '?']).next().unwrap_or_default();
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    if host.is_empty() {
        return Some("no host");
    }
    if host != "github.com" {
        return None;
    }
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match segments.as_slice() {
        [_, _, "blob" | "tree", first, more @ ..] => {
            let pinned =
                is_pinned(first) || matches!(more, [second, ..] if looks_like_version(second));
            (!pinned).then_some("a GitHub file or folder on a branch, not a tag or a commit")
        }
        [_, _, "blob" | "tree"] => Some("a GitHub file or folder URL without a ref"),
        _ => None,
    }
}

fn is_pinned(r: &str) -> bool {
    is_commit(r) || looks_like_version(r) || is_named_version_tag(r)
}

fn is_commit(r: &str) -> bool {
    (7..=40).contains(&r.len()) && r.bytes().all(|b| b.is_ascii_hexdigit())
}

fn looks_like_version(r: &str) -> bool {
    let b = r.as_bytes();
    match b {
        [b'v', d, ..] | [d, ..] => d.is_ascii_digit(),
        [] => false,
    }
}

/// `cluster-autoscaler-1.36.1`: a name, a dash, then a version with at least one dot.
fn is_named_version_tag(r: &str) -> bool {
    let Some((name, version)) = r.rsplit_once('-').and_then(|(n, v)| {
        // `v0.1.0-alpha.11` splits at the pre-release dash; those start with a version anyway.
        v.starts_with(|c: char| c.is_ascii_digit())
            .then_some((n, v))
    }) else {
        return false;
    };
    !name.is_empty()
        && !name.eq_ignore_ascii_case("release")
        && version.contains('.')
        && version
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

#[test]
fn every_reference_is_an_upstream_url_pinned_to_a_tag_or_commit() {
    let mut failures = Vec::new();
    for rule in support::engine().rules() {
        for r in &rule.references {
            if let Some(why) = problem(r) {
                failures.push(format!("rule {}: {r}: {why}", rule.id));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} reference(s) are not pinned upstream URLs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The checker must refuse what the rule files once held, or the test above passes vacuously.
#[test]
fn the_checker_refuses_paths_branches_and_notes() {
    for bad in [
        "shared/reference/device-placement-runtime.md §8.3",
        "kubernetes/kubernetes pkg/kubelet/prober/prober.go",
        "file:///work/shared/reference/serving.md",
        "http://kubernetes.io/docs/",
        "https://",
        "https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/prober/prober.go",
        "https://github.com/run-ai/fake-gpu-operator/blob/main/cmd/device-plugin/main.go",
        "https://github.com/ai-dynamo/dynamo/tree/main/deploy/operator/api",
        "https://github.com/o/r/blob/HEAD/x.go",
        "https://github.com/o/r/blob/develop/x.go#L1",
        "https://github.com/kubernetes/kubernetes/blob/release-1.34/pkg/x.go",
        "https://github.com/o/r/blob/feature/new-thing/x.go",
        "https://github.com/o/r/blob/v1.0.0/x.go (RecordJobStatusEvent)",
        "https://github.com/o/r/blob",
    ] {
        assert!(problem(bad).is_some(), "accepted {bad}");
    }
    for good in [
        "https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/",
        "https://github.com/NVIDIA/k8s-device-plugin#shared-access-to-gpus",
        "https://github.com/kubernetes-sigs/kueue/pull/2574",
        "https://github.com/kubernetes/kubernetes/blob/v1.36.3/pkg/scheduler/framework/types.go#L924-L976",
        "https://github.com/kubernetes/kubernetes/blob/fd18d233ad4113d7f0782b62534ae405ecc5f027/x.go",
        "https://github.com/o/r/blob/0123abc/x.go",
        "https://github.com/kubernetes/autoscaler/blob/cluster-autoscaler-1.36.1/cluster-autoscaler/FAQ.md",
        "https://github.com/ai-dynamo/grove/blob/operator/v0.1.0-alpha.11/operator/api/common/namegen.go",
        "https://github.com/NVIDIA/k8s-device-plugin/tree/v0.20.0/docs/gpu-feature-discovery",
    ] {
        assert_eq!(problem(good), None, "refused {good}");
    }
}
