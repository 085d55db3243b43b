//! The answers as the tool's own bundle, read by the core once: every answer as the server
//! sent it (an object, or a page of a typed list such as `PodList`), in the order the reads
//! were planned, then the `kubectlLayer` metadata (when the collection ran, from which server,
//! what could not be read). The answers are not re-serialised: the bundle is their text, and
//! the index the diagnosis uses is built from it once.

use layer_core::{Bundle, Index, ReadLimits};

use super::fetch::Haul;
use super::{Cluster, Collected};

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

impl Cluster {
    /// The haul as a bundle and its index. `target` is the `kubectlLayer.target` to record.
    pub(super) fn index(
        &self,
        haul: &Haul,
        target: Option<serde_json::Value>,
        limits: ReadLimits,
    ) -> Result<Collected, crate::Failure> {
        let (answers, unreadable) = haul.take();
        let meta = serde_json::json!({
            "bundleVersion": 1,
            "collectedAt": layer_core::time::format_rfc3339(unix_now()),
            "serverVersion": self.server_version,
            "context": self.context,
            "target": target,
            "unreadable": unreadable,
            "visibilityFailed": haul.take_visibility_failed(),
            "apis": self.apis(),
            "redacted": false,
        });
        // Several JSON documents one after another, each counted from its own top for the
        // depth limit; the metadata last, so no answer can stand in for it.
        let size = answers.iter().map(|a| a.text.len() + 1).sum::<usize>();
        let mut text = String::with_capacity(size + 512);
        for a in &answers {
            text.push_str(&a.text);
            text.push('\n');
        }
        drop(answers);
        text.push_str("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[],\"kubectlLayer\":");
        text.push_str(&meta.to_string());
        text.push('}');
        let bundle = Bundle::parse_with(text, limits).map_err(|e| {
            let mut f: crate::Failure = layer_core::Error::from(e).into();
            f.exit = 3;
            f.message = format!("the cluster's answers: {}", f.message);
            f
        })?;
        Ok(Collected {
            index: Index::new(bundle),
            requests: haul.requests(),
        })
    }
}
