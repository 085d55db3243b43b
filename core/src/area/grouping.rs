//! Facts of the grouping layer, at `$.facts.grouping` (null when nothing applies).

use super::Ctx;
use serde_json::Value;

/// The grouping layer's facts for one view.
pub fn facts(_ctx: &Ctx) -> Value {
    Value::Null
}
