//! The node side of the index: what it keeps of each node and its taints, whether a pod's
//! tolerations let it onto a node, and the node tables every view reads alike, built once per
//! index ([`Index::node_tables`]).

use super::*;

/// The nodes, in name order, looked up by name: one list the index and its node tables
/// ([`NodeTables::nodes`]) share, where the tables held a copy of every node (1.5 MB at 1,000
/// nodes).
#[derive(Debug, Default, Clone)]
pub struct Nodes(Arc<Vec<NodeInfo>>);

impl Nodes {
    /// From each node by name (one per name: the last read wins, as the bundle's order says).
    pub(super) fn of(by_name: BTreeMap<String, NodeInfo>) -> Nodes {
        Nodes(Arc::new(by_name.into_values().collect()))
    }

    pub fn get(&self, name: &str) -> Option<&NodeInfo> {
        let at = self
            .0
            .binary_search_by(|n| n.name.as_str().cmp(name))
            .ok()?;
        Some(&self.0[at])
    }

    /// In name order.
    pub fn values(&self) -> std::slice::Iter<'_, NodeInfo> {
        self.0.iter()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The pod count as kube-scheduler filters it: a pod takes one of its node's allocatable
/// `pods`, and [`crate::index::Index::requested_on`] counts the pods bound to each node under
/// this name.
pub const POD_SLOTS: &str = "pods";

/// What the index keeps of a node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeInfo {
    pub id: ObjId,
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub taints: Vec<Taint>,
    pub unschedulable: bool,
    pub ready: Option<bool>,
    pub capacity: BTreeMap<String, f64>,
    pub allocatable: BTreeMap<String, f64>,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Taint {
    #[serde(default)]
    pub key: String,
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub effect: String,
}

/// The taints of `taints` that no toleration of `tolerations` tolerates.
pub fn untolerated<'t>(
    tolerations: &[serde_json::Value],
    taints: impl IntoIterator<Item = &'t Taint>,
) -> impl Iterator<Item = &'t Taint> {
    taints
        .into_iter()
        .filter(move |t| !tolerations.iter().any(|tol| tolerates(tol, t)))
}

/// Does one toleration (as JSON) tolerate a taint?
pub fn tolerates(tol: &serde_json::Value, t: &Taint) -> bool {
    let key = tol["key"].as_str().unwrap_or("");
    let op = tol["operator"].as_str().unwrap_or("Equal");
    let effect = tol["effect"].as_str().unwrap_or("");
    if !effect.is_empty() && effect != t.effect {
        return false;
    }
    if key.is_empty() {
        return op == "Exists";
    }
    key == t.key
        && (op == "Exists"
            || tol["value"].as_str().unwrap_or("") == t.value.as_deref().unwrap_or(""))
}

/// The nodes as tables every view reads the same way, built once per index
/// ([`Index::node_tables`]). Positions index [`NodeTables::nodes`], which is in name order (the
/// order of [`Index::nodes`]).
#[derive(Debug, Default)]
pub struct NodeTables {
    pub nodes: Arc<Vec<NodeInfo>>,
    /// Label key → value → positions of the nodes carrying it (ascending).
    pub labels: HashMap<String, BTreeMap<String, Vec<usize>>>,
    /// Nodes with a NoSchedule or NoExecute taint.
    pub hard_tainted: Vec<usize>,
    /// Each node's NoSchedule/NoExecute taints as a position in `taint_sets` (None: it has
    /// none). Thousands of GPU nodes share one set, so a pod's tolerations are tested once per
    /// set rather than once per node ([`NodeTables::tolerated_sets`]).
    pub taint_set_of: Vec<Option<usize>>,
    /// The distinct sets of NoSchedule/NoExecute taints, in order of first node by name.
    pub taint_sets: Vec<Vec<Taint>>,
    /// Nodes with `spec.unschedulable: true`.
    pub unschedulable: Vec<usize>,
    /// Per resource any node advertises (allocatable or capacity).
    pub resources: BTreeMap<String, ResourceTable>,
    /// Nodes whose status shows any allocatable or capacity. A kubelet always reports cpu,
    /// memory and pods, so a node without them is a paste that cut its status: it says
    /// nothing about what the node advertises.
    pub showing_resources: usize,
}

/// What the nodes hold of one resource.
#[derive(Debug, Default)]
pub struct ResourceTable {
    /// Nodes with allocatable > 0, most free first, then by name.
    pub rows: Vec<ResourceRow>,
    /// Positions of the nodes with allocatable > 0, in name order.
    pub advertising: Vec<usize>,
    /// Nodes with capacity > 0 but no allocatable, in name order.
    pub capacity_without_allocatable: Vec<usize>,
    /// Nodes with capacity > 0 and allocatable below it, in name order.
    pub degraded: Vec<usize>,
    /// Every node's allocatable of the resource (zero or not), added in name order.
    pub allocatable_all: f64,
    /// Sums over the advertising nodes, added in name order.
    pub allocatable: f64,
    pub capacity: f64,
    pub requested: f64,
    pub max_free: f64,
    pub max_allocatable: f64,
    /// Advertising nodes without a NoSchedule/NoExecute taint: how many, and the most free.
    pub untainted: u64,
    pub untainted_max_free: f64,
}

/// One advertising node of a [`ResourceTable`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ResourceRow {
    pub pos: usize,
    pub allocatable: f64,
    pub capacity: f64,
    pub requested: f64,
    pub free: f64,
    pub hard_tainted: bool,
}

impl NodeInfo {
    /// Has a NoSchedule or NoExecute taint (what keeps pods off unless tolerated).
    pub fn hard_tainted(&self) -> bool {
        self.taints.iter().any(Taint::is_hard)
    }

    /// Its status shows some allocatable or capacity. A kubelet always reports cpu, memory and
    /// pods, so a node without any is a paste that cut its status: what it advertises is
    /// unknown, not nothing.
    pub fn shows_resources(&self) -> bool {
        !(self.allocatable.is_empty() && self.capacity.is_empty())
    }
}

impl Taint {
    /// A taint that keeps pods off the node (NoSchedule or NoExecute), not a preference.
    pub fn is_hard(&self) -> bool {
        self.effect == "NoSchedule" || self.effect == "NoExecute"
    }
}

impl NodeTables {
    fn build(ix: &Index) -> NodeTables {
        let nodes = ix.nodes.0.clone();
        let mut labels: HashMap<String, BTreeMap<String, Vec<usize>>> = HashMap::new();
        let mut hard_tainted = Vec::new();
        let mut taint_set_of = Vec::with_capacity(nodes.len());
        let mut taint_set_at: HashMap<Vec<Taint>, usize> = HashMap::new();
        let mut unschedulable = Vec::new();
        let mut names: std::collections::BTreeSet<&String> = std::collections::BTreeSet::new();
        let mut showing_resources = 0;
        for (pos, n) in nodes.iter().enumerate() {
            for (k, v) in &n.labels {
                labels
                    .entry(k.clone())
                    .or_default()
                    .entry(v.clone())
                    .or_default()
                    .push(pos);
            }
            if n.hard_tainted() {
                hard_tainted.push(pos);
            }
            let hard: Vec<Taint> = n.taints.iter().filter(|t| t.is_hard()).cloned().collect();
            taint_set_of.push((!hard.is_empty()).then(|| {
                let next = taint_set_at.len();
                *taint_set_at.entry(hard).or_insert(next)
            }));
            if n.unschedulable {
                unschedulable.push(pos);
            }
            names.extend(n.allocatable.keys());
            names.extend(n.capacity.keys());
            if n.shows_resources() {
                showing_resources += 1;
            }
        }
        let empty = BTreeMap::new();
        let mut resources = BTreeMap::new();
        for name in names {
            let mut t = ResourceTable {
                allocatable_all: nodes.iter().filter_map(|n| n.allocatable.get(name)).sum(),
                ..ResourceTable::default()
            };
            for (pos, n) in nodes.iter().enumerate() {
                let alloc = n.allocatable.get(name).copied().unwrap_or(0.0);
                let cap = n.capacity.get(name).copied().unwrap_or(0.0);
                if cap > 0.0 && alloc <= 0.0 {
                    t.capacity_without_allocatable.push(pos);
                }
                if cap > 0.0 && alloc < cap {
                    t.degraded.push(pos);
                }
                if alloc <= 0.0 {
                    continue;
                }
                let used = ix
                    .requested_on(&n.name)
                    .unwrap_or(&empty)
                    .get(name)
                    .copied()
                    .unwrap_or(0.0);
                let free = (alloc - used).max(0.0);
                t.allocatable += alloc;
                t.capacity += cap;
                t.requested += used;
                t.max_free = t.max_free.max(free);
                t.max_allocatable = t.max_allocatable.max(alloc);
                let tainted = n.hard_tainted();
                if !tainted {
                    t.untainted += 1;
                    t.untainted_max_free = t.untainted_max_free.max(free);
                }
                t.advertising.push(pos);
                t.rows.push(ResourceRow {
                    pos,
                    allocatable: alloc,
                    capacity: cap,
                    requested: used,
                    free,
                    hard_tainted: tainted,
                });
            }
            t.rows.sort_by(|a, b| {
                b.free
                    .total_cmp(&a.free)
                    .then_with(|| nodes[a.pos].name.cmp(&nodes[b.pos].name))
            });
            resources.insert(name.clone(), t);
        }
        let mut taint_sets = vec![Vec::new(); taint_set_at.len()];
        #[allow(clippy::iter_over_hash_type)] // each set goes to its own numbered place
        for (set, at) in taint_set_at {
            taint_sets[at] = set;
        }
        NodeTables {
            nodes,
            labels,
            hard_tainted,
            taint_set_of,
            taint_sets,
            unschedulable,
            resources,
            showing_resources,
        }
    }

    /// For each of [`NodeTables::taint_sets`], whether `tolerations` tolerate every taint in it.
    pub fn tolerated_sets(&self, tolerations: &[serde_json::Value]) -> Vec<bool> {
        self.taint_sets
            .iter()
            .map(|set| untolerated(tolerations, set).next().is_none())
            .collect()
    }

    /// The distinct values nodes carry for label `key`, sorted.
    pub fn label_values(&self, key: &str) -> Vec<&String> {
        self.labels
            .get(key)
            .map(|vals| vals.keys().collect())
            .unwrap_or_default()
    }

    /// How many nodes carry label `key` (any value).
    pub fn count_with_label(&self, key: &str) -> usize {
        self.labels
            .get(key)
            .map_or(0, |vals| vals.values().map(Vec::len).sum())
    }

    /// Positions of the nodes whose label `key` has one of `values`, ascending.
    pub fn with_label_in<'a>(
        &self,
        key: &str,
        values: impl IntoIterator<Item = &'a String>,
    ) -> Vec<usize> {
        let Some(vals) = self.labels.get(key) else {
            return Vec::new();
        };
        let mut out: Vec<usize> = values
            .into_iter()
            .filter_map(|v| vals.get(v))
            .flatten()
            .copied()
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

impl Index {
    /// The nodes as tables (by position in name order, by label, by resource).
    pub fn node_tables(&self) -> Arc<NodeTables> {
        self.once("index.nodeTables", || NodeTables::build(self))
    }
}
