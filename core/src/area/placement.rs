//! Facts of the placement layer, at `$.facts.placement` (null when nothing applies).

use super::Ctx;
use serde_json::Value;

/// The placement layer's facts for one view.
pub fn facts(_ctx: &Ctx) -> Value {
    Value::Null
}
