//! The view's pod's PersistentVolumeClaims, at `$.facts.placement.volumes`.

use super::{Ctx, arr};
use crate::json::str_at as s;
use serde::Serialize;
use serde_json::Value;

/// The PersistentVolumeClaims the pod mounts, and which of them hold it back.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Volumes {
    /// One per `persistentVolumeClaim` volume, in the pod's order.
    pub claims: Vec<VolumeClaim>,
    /// The names of the claims in the bundle whose phase is not `Bound`.
    pub unbound: Vec<String>,
    /// The names of the claims the bundle does not hold.
    pub missing: Vec<String>,
}

/// One PersistentVolumeClaim the pod mounts.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct VolumeClaim {
    /// The claim's name (`persistentVolumeClaim.claimName`).
    pub name: String,
    /// The bundle holds it; when false, every other field is null.
    pub found: bool,
    /// `status.phase`, `Pending` when unset.
    pub phase: Option<String>,
    /// `spec.storageClassName`.
    pub storage_class_name: Option<String>,
    /// `spec.volumeName`: the PersistentVolume it is bound to.
    pub volume_name: Option<String>,
}

/// The pod's claims, looked up in its namespace.
pub(super) fn volumes(ctx: &Ctx, pv: &Value) -> Volumes {
    let ns = s(pv, "/metadata/namespace");
    let mut out = Volumes {
        claims: Vec::new(),
        unbound: Vec::new(),
        missing: Vec::new(),
    };
    for v in arr(pv, "/spec/volumes") {
        let Some(name) = s(v, "/persistentVolumeClaim/claimName") else {
            continue;
        };
        let claim = match ctx.ix.find("PersistentVolumeClaim", ns, name) {
            Some(id) => {
                let c = ctx.ix.value(id);
                let phase = s(&c, "/status/phase").unwrap_or("Pending");
                if phase != "Bound" {
                    out.unbound.push(name.to_string());
                }
                VolumeClaim {
                    name: name.to_string(),
                    found: true,
                    phase: Some(phase.to_string()),
                    storage_class_name: s(&c, "/spec/storageClassName").map(str::to_string),
                    volume_name: s(&c, "/spec/volumeName").map(str::to_string),
                }
            }
            None => {
                out.missing.push(name.to_string());
                VolumeClaim {
                    name: name.to_string(),
                    found: false,
                    phase: None,
                    storage_class_name: None,
                    volume_name: None,
                }
            }
        };
        out.claims.push(claim);
    }
    out
}
