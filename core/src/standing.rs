//! Where a piece of work stands in its scheduler's queue, and how long waiting may take: the
//! shape both the view's fact (`$.facts.admission.queue.standing`) and the diagnosis's `queue`
//! field carry, and the one sentence every renderer writes of it ([`line`]).
//!
//! The numbers are the bundle's (or the visibility API's, when a live read got its answer):
//! a count the bundle cannot vouch for says so (`reportedPending`, `partial`), and a wait is
//! given only from admissions the bundle proves, never from a guessed rate.

use serde::{Deserialize, Serialize};

/// A piece of work's place in its queue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QueueStanding {
    /// The scheduler whose queue it is: `kueue` (or `kai-scheduler`).
    pub by: String,
    /// Kueue's ClusterQueue the position counts in; null when the bundle does not name it (the
    /// position then counts in the LocalQueue alone).
    pub cluster_queue: Option<String>,
    /// The LocalQueue as `namespace/name`.
    #[serde(default)]
    pub local_queue: Option<String>,
    /// KAI's Queue the position counts in (`spec.queue` of the PodGroup); null for Kueue.
    #[serde(default)]
    pub queue: Option<String>,
    /// 1-based place in the ClusterQueue in the scheduler's order (the visibility API's
    /// `positionInClusterQueue` + 1); null without a ClusterQueue.
    #[serde(default)]
    pub position: Option<u64>,
    /// How many pending pieces of work that position counts among.
    #[serde(default)]
    pub of: Option<u64>,
    /// 1-based place among the pending work of the same LocalQueue, in the same order.
    #[serde(default)]
    pub position_in_local_queue: Option<u64>,
    /// How many pending pieces of work of that LocalQueue it counts among.
    #[serde(default)]
    pub of_local_queue: Option<u64>,
    /// Where the position comes from: `bundle` (ordered here, from the Workloads the bundle
    /// holds) or `visibilityApi` (Kueue's own `pendingworkloads` answer, read live).
    pub source: String,
    /// The ClusterQueue's `queueingStrategy` (Kueue's default `BestEffortFIFO` when the
    /// ClusterQueue is in the bundle without one); null when the bundle lacks the ClusterQueue.
    #[serde(default)]
    pub strategy: Option<String>,
    /// The priority the Workload carries (`spec.priority`; Kueue reads a missing one as 0).
    #[serde(default)]
    pub priority: Option<i64>,
    /// The priority class it came from (`spec.priorityClassRef.name` or
    /// `spec.priorityClassName`), as the Workload names it.
    #[serde(default)]
    pub priority_class: Option<String>,
    /// Which time orders it among work of equal priority: `creation`, or `eviction` (the last
    /// eviction by a PodsReady timeout or an admission check, as Kueue requeues such work).
    #[serde(default)]
    pub ordered_by: Option<String>,
    /// That time, RFC 3339.
    #[serde(default)]
    pub ordered_at: Option<String>,
    /// How many of the work ahead of it have a higher priority.
    #[serde(default)]
    pub ahead_by_priority: Option<u64>,
    /// The ClusterQueue's own count of its pending Workloads (`status.pendingWorkloads`), when
    /// the bundle holds it: more than `of` means the bundle lacks some of the queue's work.
    #[serde(default)]
    pub reported_pending: Option<u64>,
    /// Why `of` may not be all the queue's work (stable codes): `fewerThanReported` (the
    /// ClusterQueue reports more pending Workloads than the bundle holds), `noClusterQueue`
    /// (the bundle lacks the ClusterQueue, so nothing says how many it holds),
    /// `fairSharing` (admission fair sharing orders LocalQueues by their usage first, which
    /// this order does not model), `queuesByFairShare` (KAI's Queues take turns by fair
    /// share: the position counts within the Queue), `priorityClassMissing` (the PodGroup's
    /// PriorityClass is not in the bundle, so its priority is KAI's default).
    #[serde(default)]
    pub partial: Vec<String>,
    /// The wait outlook; null when no position is known.
    #[serde(default)]
    pub wait: Option<WaitOutlook>,
    /// What became of Kueue's visibility API (`pendingworkloads`) for this ClusterQueue, when
    /// the bundle says what a live read found: `used` (the position is Kueue's own answer),
    /// `notListed` (the answer does not list this Workload as pending), `failed` (the read
    /// failed: see `visibilityWhy`), `notServed` (the cluster does not serve the API) or
    /// `notRead` (no answer for this ClusterQueue was asked for); null for a bundle that does
    /// not say. Every value but `used` means the position is the bundle's own order.
    #[serde(default)]
    pub visibility: Option<String>,
    /// Why the visibility API's read failed, as the API server said it.
    #[serde(default)]
    pub visibility_why: Option<String>,
}

/// How long waiting may take, from the admissions the bundle proves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct WaitOutlook {
    /// The window the admissions are counted in, minutes before "now".
    pub window_minutes: u64,
    /// Workloads of the ClusterQueue whose quota reservation (`QuotaReserved=True`, else
    /// `Admitted=True`) began in the window, as the bundle holds them.
    pub admissions: u64,
    /// Admissions a minute over the window; null when there are too few to give a rate.
    #[serde(default)]
    pub per_minute: Option<f64>,
    /// Roughly how many minutes until this work's turn at that rate (its position over the
    /// rate, rounded up); null without a rate.
    #[serde(default)]
    pub minutes: Option<u64>,
    /// Why there is no number (a stable code): `noNow` (the bundle gives no "now"),
    /// `noClusterQueue`, `fewAdmissions` (fewer than [`MIN_ADMISSIONS`] in the window).
    #[serde(default)]
    pub missing: Option<String>,
}

/// The fewest admissions in the window that give a rate: one or two are a coincidence.
pub const MIN_ADMISSIONS: u64 = 3;

/// The window admissions are counted in.
pub const WINDOW_MINUTES: u64 = 60;

impl QueueStanding {
    /// Every string without the user information of a URL it may quote.
    pub fn without_credentials(&mut self) {
        use crate::credentials::in_string as s;
        [&mut self.by, &mut self.source].into_iter().for_each(s);
        [
            &mut self.cluster_queue,
            &mut self.local_queue,
            &mut self.queue,
            &mut self.strategy,
            &mut self.priority_class,
            &mut self.ordered_by,
            &mut self.ordered_at,
            &mut self.visibility,
            &mut self.visibility_why,
        ]
        .into_iter()
        .flatten()
        .for_each(s);
        self.partial.iter_mut().for_each(s);
        if let Some(w) = &mut self.wait {
            w.missing.iter_mut().for_each(s);
        }
    }
}

impl WaitOutlook {
    /// No number, for the reason `code`.
    pub fn missing(code: &str) -> WaitOutlook {
        WaitOutlook {
            window_minutes: WINDOW_MINUTES,
            admissions: 0,
            per_minute: None,
            minutes: None,
            missing: Some(code.to_string()),
        }
    }
}

/// The outlook from the admission times of the queue (epoch seconds, any order), "now", and the
/// work's 1-based position.
pub fn outlook(admitted: &[i64], now: Option<i64>, position: u64) -> WaitOutlook {
    let window = WINDOW_MINUTES as i64 * 60;
    let Some(now) = now else {
        return WaitOutlook::missing("noNow");
    };
    let mut w = WaitOutlook::missing("fewAdmissions");
    w.admissions = admitted
        .iter()
        .filter(|&&t| t <= now && t > now - window)
        .count() as u64;
    if w.admissions < MIN_ADMISSIONS {
        return w;
    }
    w.missing = None;
    let rate = w.admissions as f64 / WINDOW_MINUTES as f64;
    w.per_minute = Some((rate * 10.0).round() / 10.0);
    w.minutes = Some((position as f64 / rate).ceil() as u64);
    w
}

/// The words key saying where a place in a queue of `by` (`kueue`, `kai-scheduler`) was
/// counted from (`source`: `visibilityApi`, `mixed`, else the bundle).
pub(crate) fn source_key(by: &str, source: &str) -> &'static str {
    match (source, by) {
        ("visibilityApi", _) => "queue.fromVisibility",
        ("mixed", _) => "queue.fromMixed",
        (_, "kai-scheduler") => "queue.fromBundleKai",
        _ => "queue.fromBundle",
    }
}

/// The standing in one line of the reader's words, for `why`'s text and Markdown (the caller
/// makes the values safe for its output first: they come from the bundle).
pub fn line(q: &QueueStanding, words: crate::lang::Words) -> String {
    let n = |v: Option<u64>| v.map_or_else(|| "?".to_string(), |v| v.to_string());
    let mut out = match (&q.cluster_queue, q.position) {
        (None, Some(_)) if q.queue.is_some() => words.fill(
            "queue.positionKai",
            &[
                ("position", &n(q.position)),
                ("of", &n(q.of)),
                ("queue", q.queue.as_deref().unwrap_or("?")),
            ],
        ),
        (Some(cq), Some(_)) => words.fill(
            "queue.position",
            &[
                ("position", &n(q.position)),
                ("of", &n(q.of)),
                ("queue", cq),
            ],
        ),
        _ => words.fill(
            "queue.positionLocal",
            &[
                ("position", &n(q.position_in_local_queue)),
                ("of", &n(q.of_local_queue)),
                ("queue", q.local_queue.as_deref().unwrap_or("?")),
            ],
        ),
    };
    if let (Some(_), Some(lq), Some(_)) = (&q.cluster_queue, &q.local_queue, q.position) {
        out.push_str(&words.fill(
            "queue.inLocal",
            &[
                ("position", &n(q.position_in_local_queue)),
                ("of", &n(q.of_local_queue)),
                ("queue", lq),
            ],
        ));
    }
    out.push_str(words.get(source_key(&q.by, &q.source)));
    out.push_str(&visibility_words(
        q.visibility.as_deref(),
        q.visibility_why.as_deref(),
        words,
    ));
    if let Some(reported) = q
        .reported_pending
        .filter(|&r| Some(r) > q.of && q.source != "visibilityApi")
    {
        out.push_str(&words.fill("queue.reported", &[("count", &reported.to_string())]));
    }
    match q.strategy.as_deref() {
        Some("StrictFIFO") => out.push_str(words.get("queue.strategy.StrictFIFO")),
        Some("BestEffortFIFO") => out.push_str(words.get("queue.strategy.BestEffortFIFO")),
        _ => {}
    }
    // The count the ClusterQueue reports is said above, with its number.
    out.push_str(&partial_words(&q.partial, &["fewerThanReported"], words));
    if let Some(w) = &q.wait {
        out.push_str("; ");
        out.push_str(&wait_words(w, words));
    }
    out
}

/// What each `partial` code a queue line says means, in words, in this order.
const PARTIAL_WORDS: &[(&str, &str)] = &[
    ("fewerThanReported", "queue.fewerThanReported"),
    ("fairSharing", "queue.fairSharing"),
    ("queuesByFairShare", "queue.queuesByFairShare"),
];

/// The words of the `partial` codes among `partial`, but those in `said` (already said).
pub(crate) fn partial_words(
    partial: &[String],
    said: &[&str],
    words: crate::lang::Words,
) -> String {
    PARTIAL_WORDS
        .iter()
        .filter(|(code, _)| !said.contains(code) && partial.iter().any(|p| p == code))
        .map(|(_, key)| words.get(key))
        .collect()
}

/// Why the position is the bundle's order although a live read could have asked Kueue, in
/// words (nothing for `used` or a bundle that does not say).
pub(crate) fn visibility_words(
    code: Option<&str>,
    why: Option<&str>,
    words: crate::lang::Words,
) -> String {
    match code {
        Some("failed") => words.fill("queue.visibility.failed", &[("why", why.unwrap_or("?"))]),
        Some("notServed") => words.get("queue.visibility.notServed").to_string(),
        Some("notListed") => words.get("queue.visibility.notListed").to_string(),
        Some("notRead") => words.get("queue.visibility.notRead").to_string(),
        _ => String::new(),
    }
}

/// The outlook in words: the rate and the minutes, or what is missing for them.
pub fn wait_words(w: &WaitOutlook, words: crate::lang::Words) -> String {
    match (w.per_minute, w.minutes) {
        (Some(rate), Some(minutes)) => words.fill(
            "queue.wait",
            &[
                ("window", &w.window_minutes.to_string()),
                ("rate", &crate::quantity::format(rate)),
                ("minutes", &minutes.to_string()),
            ],
        ),
        _ => {
            let key = match w.missing.as_deref() {
                Some("noNow") => "queue.noRate.noNow",
                Some("noClusterQueue") => "queue.noRate.noClusterQueue",
                _ => "queue.noRate.fewAdmissions",
            };
            words.fill(
                key,
                &[
                    ("window", &w.window_minutes.to_string()),
                    ("count", &w.admissions.to_string()),
                ],
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rate only from admissions inside the window and not after "now"; fewer than the
    /// minimum, or no "now", give no number and say why.
    #[test]
    fn the_rate_is_the_bundles_or_none() {
        let now = 10_000;
        // 12 admissions in the last hour, two older ones and one after "now" left out.
        let mut times: Vec<i64> = (0..12).map(|i| now - 60 - i * 250).collect();
        times.extend([now - 3_700, now - 9_000, now + 5]);
        let w = outlook(&times, Some(now), 14);
        assert_eq!(w.admissions, 12);
        assert_eq!(w.per_minute, Some(0.2));
        // 14 places at 0.2 a minute: 70 minutes.
        assert_eq!(w.minutes, Some(70));
        assert_eq!(w.missing, None);

        let few = outlook(&times[..2], Some(now), 14);
        assert_eq!(
            (few.admissions, few.per_minute, few.minutes),
            (2, None, None)
        );
        assert_eq!(few.missing.as_deref(), Some("fewAdmissions"));
        let no_now = outlook(&times, None, 14);
        assert_eq!(
            (no_now.per_minute, no_now.missing.as_deref()),
            (None, Some("noNow"))
        );
    }
}
