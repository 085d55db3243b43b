//! `tests/lab/*`: the course's incidents as the real components of `cargo xtask lab` wrote them
//! (`kubectl-plugin/tests/cli/lab_course.rs` makes and exports them). Offline, like the
//! scenarios: each is diagnosed exactly as its `expected.json` says, and its README names the
//! layer that file expects and the versions that wrote it.

use crate::support;

#[test]
fn every_lab_incident_matches_its_expectations() {
    let (checked, failures) = support::mismatches(&scenarios::lab());
    assert!(checked > 0, "tests/lab holds no incident");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A bundle here is what a real API server stored: the tool's own, with its collection time,
/// the server's version, and no managedFields.
#[test]
fn every_lab_bundle_is_the_tools_own_from_a_real_server() {
    for s in scenarios::lab() {
        let v: serde_json::Value = serde_json::from_str(&s.bundle_text())
            .unwrap_or_else(|e| panic!("{}: {e}", s.bundle_path.display()));
        let meta = &v["kubectlLayer"];
        assert!(
            meta["collectedAt"].is_string(),
            "{}: no collectedAt",
            s.name
        );
        assert!(
            meta["serverVersion"]
                .as_str()
                .is_some_and(|x| x.starts_with("v1.")),
            "{}",
            s.name
        );
        let items = v["items"].as_array().map_or(&[][..], |a| a);
        assert!(
            items
                .iter()
                .all(|o| o["metadata"]["managedFields"].is_null()),
            "{}: managedFields left in",
            s.name
        );
        assert!(
            items.iter().all(|o| o["metadata"]["uid"].is_string()),
            "{}: an object without a uid",
            s.name
        );
    }
}

#[test]
fn every_lab_readme_names_its_layer_and_versions() {
    for s in scenarios::lab() {
        let readme = std::fs::read_to_string(s.dir.join("README.md"))
            .unwrap_or_else(|e| panic!("{}: README.md: {e}", s.name));
        for e in &s.expectations {
            let layer = e.verdict.layer.as_deref().unwrap_or("none");
            assert!(
                readme.contains(&format!("Expected layer: **{layer}**")),
                "{}: the README does not name the layer expected.json expects ({layer})",
                s.name
            );
        }
        assert!(
            readme.contains("Kubernetes v1."),
            "{}: no Kubernetes version",
            s.name
        );
    }
}
