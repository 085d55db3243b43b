//! The six layers and the states a layer (or a verdict) can be in.
//!
//! The names and their order are part of the public contract (design: "Layer and state names"):
//! every front end prints them, and the layer order decides how findings and scan rows sort.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A layer of the GPU stack, in the contract's fixed order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum Layer {
    Device,
    Admission,
    Grouping,
    Placement,
    Runtime,
    Serving,
}

impl Layer {
    /// Every layer, in contract order.
    pub const ALL: [Layer; 6] = [
        Layer::Device,
        Layer::Admission,
        Layer::Grouping,
        Layer::Placement,
        Layer::Runtime,
        Layer::Serving,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Device => "device",
            Layer::Admission => "admission",
            Layer::Grouping => "grouping",
            Layer::Placement => "placement",
            Layer::Runtime => "runtime",
            Layer::Serving => "serving",
        }
    }

    pub fn parse(s: &str) -> Option<Layer> {
        Layer::ALL.into_iter().find(|l| l.as_str() == s)
    }

    /// Position on a pod's path (admission → grouping → placement → runtime → serving).
    /// The device layer is the floor under placement and runtime, not a step on the path.
    pub fn path_position(self) -> Option<usize> {
        match self {
            Layer::Device => None,
            Layer::Admission => Some(0),
            Layer::Grouping => Some(1),
            Layer::Placement => Some(2),
            Layer::Runtime => Some(3),
            Layer::Serving => Some(4),
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a layer decided, as observed in the bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum LayerState {
    Ok,
    Blocked,
    Warn,
    /// The bundle lacks what is needed to judge this layer.
    Unknown,
    /// The layer plays no part in this work (e.g. no serving stack for a batch job).
    NotInvolved,
}

impl LayerState {
    pub fn as_str(self) -> &'static str {
        match self {
            LayerState::Ok => "ok",
            LayerState::Blocked => "blocked",
            LayerState::Warn => "warn",
            LayerState::Unknown => "unknown",
            LayerState::NotInvolved => "notInvolved",
        }
    }

    pub fn parse(s: &str) -> Option<LayerState> {
        [
            LayerState::Ok,
            LayerState::Blocked,
            LayerState::Warn,
            LayerState::Unknown,
            LayerState::NotInvolved,
        ]
        .into_iter()
        .find(|st| st.as_str() == s)
    }
}

impl fmt::Display for LayerState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How bad a finding is. Findings sort in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    /// The work cannot run now.
    Block,
    /// It runs, or will, but something will bite.
    Warn,
    /// Worth knowing; changes no state.
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Block => "block",
            Severity::Warn => "warn",
            Severity::Info => "info",
        }
    }
}
