//! Facts of the runtime layer, at `$.facts.runtime` (null when nothing applies).

use super::Ctx;
use serde_json::Value;

/// The runtime layer's facts for one view.
pub fn facts(_ctx: &Ctx) -> Value {
    Value::Null
}
