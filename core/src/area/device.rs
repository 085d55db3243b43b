//! Facts of the device layer, at `$.facts.device` (null when nothing applies).

use super::Ctx;
use serde_json::Value;

/// The device layer's facts for one view.
pub fn facts(_ctx: &Ctx) -> Value {
    Value::Null
}
