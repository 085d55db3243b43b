//! Object metadata the fit writes on what it places: the lowest of the fit's modules, so that
//! the Kueue intake and the controllers' effects (`kueue`, `synth`) share it without importing
//! each other. The modules depend one way: `lookup` and `meta` ← `kueue` ← `synth`.

use crate::json::At as _;
use serde_json::{Value, json};

/// An ownerReference to `owner` (controller).
pub(super) fn owner_ref(owner: &Value, uid: &str) -> Value {
    json!({
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": owner.at("/metadata/name"),
        "uid": uid,
        "controller": true,
        "blockOwnerDeletion": true,
    })
}
