//! Kueue's visibility API, asked live: for each ClusterQueue the reads found, its
//! `pendingworkloads` (`visibility.kueue.x-k8s.io`, v1beta2 else v1beta1), page by page with
//! `limit` and `offset` until a page comes back short, kept in the bundle as one
//! `PendingWorkloadsSummary` named after the ClusterQueue (the core reads it in
//! `facts::admission::visibility`).
//!
//! Why apart from the other reads: no layer waits on it. When the cluster does not serve the
//! API, discovery says so (`apis`); when a read fails (forbidden, the API's server down, a
//! page cut short) it goes under `kubectlLayer.visibilityFailed`, not `unreadable`, since the
//! bundle's own order still places the work, and each standing in that queue says the
//! position is that order and why. A partly read queue is dropped whole: a count missing its
//! tail would put work nearer the head than it is.

use std::collections::BTreeSet;
use std::sync::Arc;

use kube::discovery::ApiResource;
use layer_core::diagnosis::Missing;
use layer_core::facts::admission::visibility::{GROUP, KIND, VERSIONS};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::Cluster;
use super::fetch::{Answer, CONCURRENCY, FetchError, Haul, JSON, Read};

/// Pending Workloads asked for in one page: under Kueue's own cap on `limit`.
pub const PAGE: usize = 500;
/// The most ClusterQueues asked about in one read; standings in the others say `notRead`.
pub const MAX_QUEUES: usize = 100;
/// The most pages of one ClusterQueue: past [`PAGE`] × this, its read fails and says so.
const MAX_PAGES: usize = 400;
/// The subresource asked for.
const SUBRESOURCE: &str = "pendingworkloads";

#[derive(Deserialize)]
struct Page<'a> {
    #[serde(borrow, default)]
    items: Vec<&'a RawValue>,
}

impl Cluster {
    /// The version of the visibility API the server serves, the preferred first.
    fn visibility_version(&self) -> Option<&'static str> {
        VERSIONS
            .iter()
            .copied()
            .find(|v| self.group_versions.contains(&format!("{GROUP}/{v}")))
    }

    /// Ask Kueue where the pending work of each ClusterQueue found so far stands.
    pub(super) async fn queue_places(
        self: &Arc<Self>,
        haul: &Arc<Haul>,
    ) -> Result<(), crate::Failure> {
        let Some(version) = self.visibility_version() else {
            return Ok(());
        };
        let queues: BTreeSet<String> = haul.found_in(0..usize::MAX, |found| {
            found
                .iter()
                .filter(|f| f.group == "kueue.x-k8s.io" && f.kind == "ClusterQueue")
                .map(|f| f.name.clone())
                .take(MAX_QUEUES)
                .collect()
        });
        let ar = Arc::new(ApiResource {
            group: GROUP.into(),
            version: version.into(),
            api_version: format!("{GROUP}/{version}"),
            kind: KIND.into(),
            plural: "clusterqueues".into(),
        });
        let seqs = haul.plan(queues.len());
        let sem = Arc::new(tokio::sync::Semaphore::new(CONCURRENCY));
        let mut set = tokio::task::JoinSet::new();
        for (cq, seq) in queues.into_iter().zip(seqs) {
            let (sem, this, haul, ar) = (sem.clone(), self.clone(), haul.clone(), ar.clone());
            set.spawn(async move {
                let _permit = sem.acquire().await;
                match this.pending_workloads(&ar, &cq, &haul).await {
                    Ok(text) => haul.keep(Answer {
                        order: (seq, 0),
                        text,
                        found: Vec::new(),
                    }),
                    Err(why) => haul.visibility_failed(Missing {
                        kind: KIND.into(),
                        api_version: Some(ar.api_version.clone()),
                        resource: Some(format!("clusterqueues/{SUBRESOURCE}.{GROUP}")),
                        namespace: None,
                        name: Some(cq),
                        why,
                    }),
                }
            });
        }
        while set.join_next().await.is_some() {}
        match haul.fatal() {
            Some(f) => Err(f),
            None => Ok(()),
        }
    }

    /// Every page of one ClusterQueue's pending Workloads, as one `PendingWorkloadsSummary`
    /// named after it; or why not.
    async fn pending_workloads(
        &self,
        ar: &ApiResource,
        cq: &str,
        haul: &Haul,
    ) -> Result<String, String> {
        let mut items: Vec<String> = Vec::new();
        for page in 0..MAX_PAGES {
            let read = Read::get(ar, None, cq)
                .subresource(SUBRESOURCE)
                .with("limit", &PAGE.to_string())
                .with("offset", &(page * PAGE).to_string())
                .because("Kueue's own order of the ClusterQueue's pending Workloads");
            let uri = read.uri(None).map_err(|r| format!("not requested: {r}"))?;
            haul.requests
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let text = self
                .request(&uri, JSON, &read.why, haul)
                .await
                .map_err(|e| match e {
                    FetchError::Failed(f) => f.why,
                    FetchError::TooLarge(why) => why,
                    FetchError::Refused(r) => format!("not requested: {r}"),
                })?;
            let answer: Page =
                serde_json::from_str(&text).map_err(|e| format!("unreadable answer ({e})"))?;
            let n = answer.items.len();
            items.extend(answer.items.iter().map(|i| i.get().to_string()));
            if n < PAGE {
                return Ok(format!(
                    "{{\"apiVersion\":{},\"kind\":\"{KIND}\",\"metadata\":{{\"name\":{}}},\"items\":[{}]}}",
                    serde_json::json!(ar.api_version),
                    serde_json::json!(cq),
                    items.join(",")
                ));
            }
        }
        Err(format!(
            "more than {} pending Workloads: not read to the end",
            PAGE * MAX_PAGES
        ))
    }
}
