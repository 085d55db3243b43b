//! Facts of the admission layer, at `$.facts.admission` (null when nothing applies).

use super::Ctx;
use serde_json::Value;

/// The admission layer's facts for one view.
pub fn facts(_ctx: &Ctx) -> Value {
    Value::Null
}
