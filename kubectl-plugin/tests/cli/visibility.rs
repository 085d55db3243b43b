//! Kueue's visibility API, read live from the in-process API server: where it is served the
//! positions are Kueue's own answer (read page by page with `limit` and `offset`), and where it
//! is not served or its read is forbidden the positions are the bundle's order, saying which
//! and why, with no layer left unknown and no read counted as an empty queue.

use super::live::{Cluster, objects, serve};
use super::{TempDir, stderr};
use apiserver::{KueueVisibility, Options};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// A generated backlog: more pending Workloads in `gpu-cq` than one page holds.
fn backlog() -> Vec<Value> {
    let dir = TempDir::new("vis");
    let path =
        super::live::generated_cluster_with(dir.0.as_path(), 60, 1080, &["--shape", "backlog"]);
    objects(&std::fs::read_to_string(path).expect("the generated cluster"))
}

/// The pending Workloads of the bundle, in an order of Kueue's that the bundle's own cannot
/// give (by name, last first), as the visibility API lists them; and each one's Job.
fn kueue_order(objs: &[Value]) -> (Vec<Value>, Vec<String>) {
    let mut pending: Vec<&Value> = objs
        .iter()
        .filter(|o| o["kind"] == "Workload" && o["status"]["admission"].is_null())
        .collect();
    pending.sort_by_key(|w| std::cmp::Reverse(w["metadata"]["name"].as_str().unwrap_or("")));
    let items = pending
        .iter()
        .map(|w| {
            json!({"metadata": {"name": w["metadata"]["name"], "namespace": w["metadata"]["namespace"],
                                "ownerReferences": w["metadata"]["ownerReferences"]},
                   "priority": 0, "localQueueName": w["spec"]["queueName"]})
        })
        .collect();
    let jobs = pending
        .iter()
        .map(|w| {
            w["metadata"]["ownerReferences"][0]["name"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    (items, jobs)
}

fn scan(cluster: &Cluster) -> (Value, Option<i32>) {
    let o = cluster.run(&["scan", "-A", "-o", "json"]);
    let v = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stderr(&o)));
    (v, o.status.code())
}

/// The Jobs' queue standings in `gpu-cq`, by name.
fn standings(report: &Value) -> BTreeMap<String, Value> {
    report["diagnoses"]
        .as_array()
        .expect("diagnoses")
        .iter()
        .filter(|d| d["target"]["kind"] == "Job" && d["queue"]["clusterQueue"] == "gpu-cq")
        .map(|d| {
            (
                d["target"]["name"].as_str().unwrap().to_string(),
                d["queue"].clone(),
            )
        })
        .collect()
}

/// The visibility API's requests the server answered: (status, query).
fn visibility_requests(cluster: &Cluster) -> Vec<(u16, String)> {
    cluster
        .server
        .requests()
        .into_iter()
        .filter(|r| {
            r.path.contains("visibility.kueue.x-k8s.io") && r.path.ends_with("/pendingworkloads")
        })
        .map(|r| (r.status, r.query))
        .collect()
}

/// Served: every pending Job's position is Kueue's answer, read in pages of 500 until a short
/// one, and the group of the quota's work says so; not served, or forbidden: the bundle's own
/// order, each standing saying which was used and why, with the same exit status and nothing
/// counted as unread.
#[test]
fn the_visibility_api_places_the_work_where_served_and_the_bundle_does_otherwise() {
    let objs = backlog();
    let (items, jobs) = kueue_order(&objs);
    assert!(
        items.len() > 500,
        "{} pending: more than a page",
        items.len()
    );
    let served = Options {
        aggregated_discovery: true,
        kueue_visibility: Some(KueueVisibility {
            version: "v1beta2".into(),
            queues: vec![("gpu-cq".into(), items.clone())],
        }),
        ..Options::default()
    };
    let cluster = serve(objs.clone(), served.clone(), "default");
    let (report, code) = scan(&cluster);
    let got = standings(&report);
    assert!(got.len() > 500, "{} standings", got.len());
    for (i, job) in jobs.iter().enumerate() {
        let Some(q) = got.get(job) else { continue };
        assert_eq!(q["source"], "visibilityApi", "{job}: {q}");
        assert_eq!(q["visibility"], "used", "{job}");
        assert_eq!(q["position"], json!(i + 1), "{job}");
        assert_eq!(q["of"], json!(items.len()), "{job}");
    }
    let pages: Vec<String> = visibility_requests(&cluster)
        .into_iter()
        .map(|r| r.1)
        .collect();
    assert_eq!(
        pages,
        ["limit=500&offset=0", "limit=500&offset=500"],
        "{pages:?}"
    );
    let role = super::live::printed_role();
    let outside: Vec<String> = cluster
        .server
        .requests()
        .iter()
        .filter(|r| !super::live::allowed(&role, r))
        .map(|r| r.path.clone())
        .collect();
    assert!(outside.is_empty(), "outside the printed role: {outside:?}");
    let quota = report["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["rule"] == "admission/waiting-for-quota")
        .expect("the quota group");
    assert_eq!(quota["queue"]["source"], "visibilityApi", "{quota}");
    assert_eq!(quota["queue"]["of"], json!(items.len()));

    // The same cluster without the API, and with its read forbidden: the bundle's order.
    let offline: BTreeMap<String, Value> = standings(
        &scan(&serve(
            objs.clone(),
            Options {
                aggregated_discovery: true,
                ..Options::default()
            },
            "default",
        ))
        .0,
    );
    assert!(
        offline
            .iter()
            .any(|(job, q)| q["position"] != got[job]["position"]),
        "the bundle's order differs from the one served, so the test can tell them apart"
    );
    for (what, opts, code_word) in [
        (
            "not served",
            Options {
                aggregated_discovery: true,
                ..Options::default()
            },
            "notServed",
        ),
        (
            "forbidden",
            Options {
                forbidden: vec!["clusterqueues/pendingworkloads".into()],
                ..served.clone()
            },
            "failed",
        ),
    ] {
        let cluster = serve(objs.clone(), opts, "default");
        let (fallback, fallback_code) = scan(&cluster);
        assert_eq!(fallback_code, code, "{what}: the same exit status");
        assert!(
            fallback.get("incomplete").is_none_or(Value::is_null),
            "{what}: {}",
            fallback["incomplete"]
        );
        let s = standings(&fallback);
        assert_eq!(s.len(), got.len(), "{what}");
        for (job, q) in &s {
            assert_eq!(q["source"], "bundle", "{what}: {job}");
            assert_eq!(q["visibility"], code_word, "{what}: {job}: {q}");
            assert_eq!(q["position"], offline[job]["position"], "{what}: {job}");
        }
        let asked = visibility_requests(&cluster);
        match code_word {
            "notServed" => assert!(asked.is_empty(), "{asked:?}"),
            _ => {
                assert_eq!(asked.len(), 1, "{asked:?}");
                assert_eq!(asked[0].0, 403);
                let why = s.values().next().unwrap()["visibilityWhy"]
                    .as_str()
                    .unwrap_or("");
                assert!(why.contains("forbidden"), "{why}");
            }
        }
        let text = cluster.run(&["scan", "-A"]);
        let said = match code_word {
            "notServed" => "does not serve Kueue's visibility API",
            _ => "reading Kueue's visibility API failed",
        };
        assert!(
            super::stdout(&text).contains(said),
            "{what}: {}",
            super::stdout(&text)
        );
    }
}
