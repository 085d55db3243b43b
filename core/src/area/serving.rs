//! Facts of the serving layer, at `$.facts.serving` (null when nothing applies).

use super::Ctx;
use serde_json::Value;

/// The serving layer's facts for one view.
pub fn facts(_ctx: &Ctx) -> Value {
    Value::Null
}
