//! The core's one integration-test binary (ripgrep style): scenario expectations, every rule's
//! fixtures, the input forms, determinism and the published contract.

mod contract;
mod describe;
mod expectations;
mod fits;
mod gen_cluster;
mod groups;
mod input_forms;
mod korean;
mod lab_bundles;
mod picture;
mod practice;
mod properties;
mod provenance;
mod queue_order;
mod references;
mod rule_fixtures;
mod serving_paths;
mod support;
mod terminal;
mod verdicts;
mod view_paths;
mod waiting;
