//! Facts by area, each in its own file so rule families can grow independently: every function
//! gets the same context (the index, the target, the representative pod, and the subjects the
//! view linked) and returns a JSON value placed at `$.facts.<area>` (null when nothing applies).
//! Document each fact's shape in the file's `//!` and in `docs/view.md`.

use crate::index::{Index, ObjId};
use serde_json::{Map, Value};

pub mod admission;
pub mod device;
pub mod grouping;
pub mod placement;
pub mod runtime;
pub mod serving;

/// What an area's facts may look at.
pub struct Ctx<'a> {
    pub ix: &'a Index,
    pub target: ObjId,
    pub pod: Option<ObjId>,
    /// The view's subjects so far (`pod`, `workload`, `node`, `events`, …), as rules see them.
    pub subjects: &'a Map<String, Value>,
    /// "Now", epoch seconds, when known.
    pub now: Option<i64>,
    /// Large cluster-wide facts lent to the view rather than copied (see [`crate::view::Lender`]).
    pub loans: &'a crate::view::Loans,
}

/// Every area's facts: (key under `$.facts`, value).
pub fn all(ctx: &Ctx) -> Vec<(&'static str, Value)> {
    vec![
        ("device", device::facts(ctx)),
        ("admission", admission::facts(ctx)),
        ("grouping", grouping::facts(ctx)),
        ("placement", placement::facts(ctx)),
        ("runtime", runtime::facts(ctx)),
        ("serving", serving::facts(ctx)),
    ]
}
