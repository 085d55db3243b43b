//! Kueue's own Configuration, as the bundle may hold it: the ConfigMap Kueue is installed with
//! (`kueue-manager-config`, key [`CONFIG_KEY`]). `fit` reads its integrations and namespace
//! selector; the queue order reads how an evicted Workload is requeued.

use crate::index::Index;
use crate::json::At as _;
use serde_json::Value;

/// The key of Kueue's ConfigMap that holds its Configuration.
pub const CONFIG_KEY: &str = "controller_manager_config.yaml";

/// Kueue's Configuration from a ConfigMap that holds it.
pub fn configuration(configmap: &Value) -> Option<Value> {
    let text = configmap.at("/data")?.get(CONFIG_KEY)?.as_str()?;
    serde_yaml_ng::from_str::<Value>(text).ok()
}

/// Kueue's Configuration from the first ConfigMap of the index whose name mentions Kueue and
/// that holds one.
pub(super) fn in_index(ix: &Index) -> Option<Value> {
    ix.of_kind("ConfigMap")
        .iter()
        .filter(|&&id| ix.object(id).name.contains("kueue"))
        .find_map(|&id| configuration(&ix.value(id)))
}
