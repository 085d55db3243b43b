//! What a failed read means, decided here only. The live reader records every read that
//! failed (forbidden, failing, too slow, not requested) under the bundle's
//! `kubectlLayer.unreadable`, and a `kubectl layer bundle` file keeps that record. Absence of
//! evidence from such a read is not evidence, so:
//!
//! - a layer whose judgement needs what it would have read is `unknown`, unless a finding
//!   already proves it from what was read ([`layer_unjudged`]);
//! - the read is named under the diagnosis's `missing` ([`as_missing`]);
//! - every answer resting on it carries an [`Incomplete`]: which reads failed, what each leaves
//!   unjudged, and whether anything could be judged at all ([`of_diagnosis`], [`of_scan`]).
//!   The CLI's exit status follows it (1 at least; 3 when nothing was judged), so a failed
//!   read is never an all-clear, in any output.

use crate::bundle::Missing;
use crate::diagnosis::{FailedRead, Incomplete, LayerReport};
use crate::index::Index;
use crate::lang::Words;
use crate::layer::LayerState;

/// The reads of `ix`'s bundle that failed.
fn unreadable(ix: &Index) -> &[Missing] {
    ix.bundle().meta().map_or(&[], |m| m.unreadable.as_slice())
}

/// The failed reads as a diagnosis's `missing` names them: each with its kind.
pub fn as_missing(ix: &Index) -> impl Iterator<Item = Missing> + '_ {
    unreadable(ix).iter().map(|u| {
        let mut m = u.clone();
        if m.kind.is_empty() {
            m.kind = crate::kinds::kind_of_plural(m.resource.as_deref().unwrap_or(""));
        }
        m
    })
}

/// A layer that found nothing wrong is `unknown`, not `ok`, when a read it needs failed: a
/// layer with a finding keeps it, since what was read already proves it.
pub fn layer_unjudged(mut report: LayerReport, ix: &Index) -> LayerReport {
    if matches!(report.state, LayerState::Blocked | LayerState::Warn) {
        return report;
    }
    let mut unread: Vec<String> = unreadable(ix)
        .iter()
        .filter(|u| {
            crate::kinds::layers_reading(u.resource.as_deref().unwrap_or(""))
                .contains(&report.layer)
        })
        .map(|u| format!("{} ({})", u.resource.as_deref().unwrap_or(&u.kind), u.why))
        .collect();
    if unread.is_empty() {
        return report;
    }
    unread.sort();
    unread.dedup();
    report.state = LayerState::Unknown;
    report.summary = format!("not judged: could not read {}", unread.join(", "));
    report
}

/// Whether a failed read of `m` left work unlisted: a list of pods, or of a kind that stands
/// for a whole piece of work.
fn work_unlisted(m: &Missing) -> bool {
    let resource = m.resource.as_deref().unwrap_or("");
    let (plural, group) = resource.split_once('.').unwrap_or((resource, ""));
    m.name.is_none()
        && crate::kinds::KINDS.iter().any(|k| {
            k.plural == plural
                && k.group == group
                && (k.work || (k.kind == "Pod" && group.is_empty()))
        })
}

/// One failed read and what it leaves unjudged, in `words`.
fn failed_read(read: Missing, words: Words) -> FailedRead {
    let resource = read.resource.as_deref().unwrap_or(&read.kind);
    let layers = crate::kinds::layers_reading(resource).to_vec();
    let work_unlisted = work_unlisted(&read);
    let mut unjudged = Vec::new();
    if work_unlisted {
        let place = match &read.namespace {
            Some(ns) => words.fill("incomplete.inNamespace", &[("namespace", ns)]),
            None => words.get("incomplete.inEveryNamespace").to_string(),
        };
        unjudged.push(words.fill(
            "incomplete.work",
            &[("resource", resource), ("where", &place)],
        ));
    }
    if !layers.is_empty() {
        let names: Vec<&str> = layers.iter().map(|&l| words.layer(l)).collect();
        unjudged.push(words.fill("incomplete.layers", &[("layers", &names.join(", "))]));
    }
    if unjudged.is_empty() {
        unjudged.push(words.get("incomplete.whatItShows").to_string());
    }
    FailedRead {
        read,
        layers,
        work_unlisted,
        unjudged: unjudged.join("; "),
    }
}

/// Every failed read of `ix`'s bundle with what it leaves unjudged, or `None` when every read
/// worked; `nothing_judged` is the caller's to say.
fn incomplete(
    ix: &Index,
    words: Words,
    nothing_judged: impl Fn(&[FailedRead]) -> bool,
) -> Option<Incomplete> {
    let reads: Vec<FailedRead> = as_missing(ix).map(|m| failed_read(m, words)).collect();
    if reads.is_empty() {
        return None;
    }
    let mut incomplete = Incomplete {
        nothing_judged: nothing_judged(&reads),
        reads,
    };
    // The reader's words quote the API server's, which can name its URL with a password.
    incomplete.without_credentials();
    Some(incomplete)
}

/// What the failed reads leave unjudged in one diagnosis: nothing was judged when its verdict
/// is unknown and no layer could say ok, blocked or warn.
pub fn of_diagnosis(
    ix: &Index,
    layers: &[LayerReport],
    verdict: LayerState,
    words: Words,
) -> Option<Incomplete> {
    let judged = layers.iter().any(|l| {
        matches!(
            l.state,
            LayerState::Ok | LayerState::Blocked | LayerState::Warn
        )
    });
    incomplete(ix, words, |_| verdict == LayerState::Unknown && !judged)
}

/// What the failed reads leave unjudged in a scan: nothing was judged when a list of work
/// failed and no work at all could be read (`any_work`: the scan found some, settled or not).
pub fn of_scan(ix: &Index, any_work: bool, words: Words) -> Option<Incomplete> {
    incomplete(ix, words, |reads| {
        !any_work && reads.iter().any(|r| r.work_unlisted)
    })
}
