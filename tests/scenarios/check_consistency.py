#!/usr/bin/env python3
"""Consistency checks for the scenario bundles in this directory.

Usage: python3 tests/scenarios/check_consistency.py [SCENARIO_DIR ...]

With no arguments every sub-directory holding a bundle.json or bundle.yaml is checked.
Standard library + PyYAML only. Exit status 0 when every bundle passes, 1 otherwise.

Checks, per bundle:
  * every object has apiVersion, kind, metadata.name and a UUID-shaped metadata.uid; uids are unique;
    resourceVersions are integer strings; no managedFields;
  * every timestamp in the bundle lies on 2026-11-20 between 09:00 and 10:00 UTC;
  * every ownerReference resolves to an object in the bundle with that uid, kind, name and apiVersion
    (same namespace, or a cluster-scoped owner);
  * every Event (core/v1 involvedObject, events.k8s.io/v1 regarding) names an object in the bundle with
    the same uid, kind, name and namespace; legacy events have firstTimestamp <= lastTimestamp;
  * pods bound to a node name an existing Node; no node has more nvidia.com/gpu requested by
    non-terminated pods than it has allocatable;
  * for every Pending pod whose PodScheduled message mentions `Insufficient nvidia.com/gpu`: the
    scheduler's per-node verdict is recomputed from the bundle (taints/tolerations, nodeSelector and
    required node affinity, free = allocatable - requests of non-terminated pods bound to the node,
    and for the preemption part: unresolvable vs "no lower-priority victims") and must reproduce the
    message's counts exactly; entries must be sorted as strings; the FailedScheduling events for that
    pod must carry the same text;
  * Kueue: a Workload owned by a Job has the name Kueue derives (job-<name>-<sha1(Kind,Group,name,uid)[:5]>),
    carries kueue.x-k8s.io/job-uid, and each ClusterQueue's reserved nvidia.com/gpu equals the sum over
    the Workloads in the bundle that hold a reservation in it;
  * KAI: a PodGroup owned by a Pod is named pg-<pod name>-<pod uid>, and the pod's pod-group-name
    annotation points at it.
"""
import hashlib
import json
import os
import re
import sys

import yaml

UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")
WINDOW = ("2026-11-20T09:00:00", "2026-11-20T10:00:00.000001")
TERMINAL = ("Succeeded", "Failed")


# ---------------------------------------------------------------- loading

def flatten(doc):
    if doc is None:
        return []
    if isinstance(doc, list):
        out = []
        for d in doc:
            out += flatten(d)
        return out
    if isinstance(doc, dict) and doc.get("kind") == "List" or (isinstance(doc, dict) and "items" in doc
                                                               and str(doc.get("kind", "")).endswith("List")):
        return flatten(doc.get("items") or [])
    return [doc]


def load_bundle(path):
    with open(path) as f:
        text = f.read()
    if path.endswith(".json"):
        return flatten(json.loads(text))
    return flatten(list(yaml.safe_load_all(text)))


# ---------------------------------------------------------------- helpers

def group_of(api_version):
    return api_version.split("/")[0] if "/" in api_version else ""


def parse_qty(v):
    """Parse a Kubernetes quantity into a float (base units)."""
    s = str(v)
    m = re.match(r"^([0-9.]+)([a-zA-Z]*)$", s)
    if not m:
        raise ValueError(f"bad quantity {v!r}")
    num, suf = float(m.group(1)), m.group(2)
    mult = {"": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
            "Ki": 1024, "Mi": 1024 ** 2, "Gi": 1024 ** 3, "Ti": 1024 ** 4}[suf]
    return num * mult


def pod_requests(pod):
    """Effective pod requests: max(sum(containers), max(initContainers)) + overhead."""
    tot = {}
    for c in pod["spec"].get("containers", []):
        res = c.get("resources", {})
        req = dict(res.get("limits", {}))   # limits default requests for extended resources
        req.update(res.get("requests", {}))
        for k, v in req.items():
            tot[k] = tot.get(k, 0) + parse_qty(v)
    for c in pod["spec"].get("initContainers", []):
        res = c.get("resources", {})
        req = dict(res.get("limits", {}))
        req.update(res.get("requests", {}))
        for k, v in req.items():
            tot[k] = max(tot.get(k, 0), parse_qty(v))
    for k, v in (pod["spec"].get("overhead") or {}).items():
        tot[k] = tot.get(k, 0) + parse_qty(v)
    return tot


def tolerates(tols, taint):
    for t in tols or []:
        if t.get("effect") and t["effect"] != taint.get("effect"):
            continue
        op = t.get("operator", "Equal")
        if not t.get("key"):
            if op == "Exists":
                return True
            continue
        if t["key"] != taint.get("key"):
            continue
        if op == "Exists" or t.get("value", "") == taint.get("value", ""):
            return True
    return False


def match_expr(labels, fields, e, use_fields=False):
    src = fields if use_fields else labels
    key, op, vals = e["key"], e["operator"], e.get("values", [])
    if op == "In":
        return key in src and src[key] in vals
    if op == "NotIn":
        return key not in src or src[key] not in vals
    if op == "Exists":
        return key in src
    if op == "DoesNotExist":
        return key not in src
    if op in ("Gt", "Lt"):
        if key not in src:
            return False
        a, b = int(src[key]), int(vals[0])
        return a > b if op == "Gt" else a < b
    raise ValueError(op)


def node_matches(pod, node):
    labels = node["metadata"].get("labels", {})
    fields = {"metadata.name": node["metadata"]["name"]}
    for k, v in (pod["spec"].get("nodeSelector") or {}).items():
        if labels.get(k) != v:
            return False
    req = (((pod["spec"].get("affinity") or {}).get("nodeAffinity") or {})
           .get("requiredDuringSchedulingIgnoredDuringExecution"))
    if req:
        ok = False
        for term in req.get("nodeSelectorTerms", []):
            if all(match_expr(labels, fields, e) for e in term.get("matchExpressions", [])) and \
               all(match_expr(labels, fields, e, True) for e in term.get("matchFields", [])):
                ok = True
        if not ok:
            return False
    return True


def parse_histogram(part):
    """'1 node(s) had ..., 3 Insufficient nvidia.com/gpu' -> {reason: count}, list of entries"""
    entries = [e.strip() for e in re.split(r", (?=\d+ )", part.strip()) if e.strip()]
    hist = {}
    for e in entries:
        m = re.match(r"^(\d+) (.+)$", e)
        if not m:
            raise ValueError(f"bad histogram entry {e!r}")
        hist[m.group(2)] = hist.get(m.group(2), 0) + int(m.group(1))
    return hist, entries


def parse_fit_error(msg):
    m = re.match(r"^0/(\d+) nodes are available: (.*?)\. preemption: 0/(\d+) nodes are available: (.*?)\.$", msg)
    if not m:
        raise ValueError(f"unrecognised FailedScheduling message: {msg!r}")
    n1, main, n2, pre = int(m.group(1)), m.group(2), int(m.group(3)), m.group(4)
    h1, e1 = parse_histogram(main)
    h2, e2 = parse_histogram(pre)
    return n1, h1, e1, n2, h2, e2


# ---------------------------------------------------------------- checks

class Checker:
    def __init__(self, name, items):
        self.name = name
        self.items = items
        self.errors = []
        self.notes = []

    def err(self, msg):
        self.errors.append(msg)

    def ident(self, o):
        md = o.get("metadata", {})
        ns = md.get("namespace")
        return f"{o.get('kind')}/{ns + '/' if ns else ''}{md.get('name')}"

    def run(self):
        self.check_basics()
        if self.errors:
            return
        self.by_uid = {o["metadata"]["uid"]: o for o in self.items}
        self.nodes = {o["metadata"]["name"]: o for o in self.items if o["kind"] == "Node"}
        self.pods = [o for o in self.items if o["kind"] == "Pod"]
        self.check_timestamps()
        self.check_owners()
        self.check_events()
        self.check_node_accounting()
        self.check_pending_pods()
        self.check_kueue()
        self.check_kai()

    def check_basics(self):
        seen = {}
        for o in self.items:
            if not isinstance(o, dict) or not o.get("apiVersion") or not o.get("kind"):
                self.err(f"object without apiVersion/kind: {str(o)[:80]}")
                continue
            md = o.get("metadata") or {}
            if not md.get("name"):
                self.err(f"{o['kind']} without metadata.name")
            uid = md.get("uid")
            if not uid or not UUID_RE.match(uid):
                self.err(f"{self.ident(o)}: uid {uid!r} is not UUID-shaped")
            elif uid in seen:
                self.err(f"duplicate uid {uid}: {self.ident(o)} and {self.ident(seen[uid])}")
            else:
                seen[uid] = o
            rv = md.get("resourceVersion")
            if rv is None or not str(rv).isdigit():
                self.err(f"{self.ident(o)}: resourceVersion {rv!r} is not an integer string")
            if "managedFields" in md:
                self.err(f"{self.ident(o)}: has managedFields")
            if not md.get("creationTimestamp"):
                self.err(f"{self.ident(o)}: no creationTimestamp")

    def check_timestamps(self):
        def walk(o, path, owner):
            if isinstance(o, dict):
                for k, v in o.items():
                    walk(v, f"{path}.{k}", owner)
            elif isinstance(o, list):
                for i, v in enumerate(o):
                    walk(v, f"{path}[{i}]", owner)
            elif isinstance(o, str) and TS_RE.match(o):
                if not (WINDOW[0] <= o.rstrip("Z") < WINDOW[1]):
                    self.err(f"{self.ident(owner)}: timestamp {o} at {path} outside 2026-11-20 09:00-10:00Z")
        for o in self.items:
            walk(o, "", o)
            if o["kind"] == "Pod":
                st = o.get("status", {})
                start = st.get("startTime")
                mirror = "kubernetes.io/config.mirror" in (o["metadata"].get("annotations") or {})
                # a static pod starts before its mirror pod exists in the API; others cannot
                if start and start < o["metadata"]["creationTimestamp"] and not mirror:
                    self.err(f"{self.ident(o)}: startTime before creationTimestamp")

    def check_owners(self):
        for o in self.items:
            for r in o["metadata"].get("ownerReferences", []) or []:
                tgt = self.by_uid.get(r.get("uid"))
                if tgt is None:
                    self.err(f"{self.ident(o)}: ownerReference {r.get('kind')}/{r.get('name')} uid {r.get('uid')} not in bundle")
                    continue
                for f in ("kind", "apiVersion"):
                    if tgt.get(f) != r.get(f):
                        self.err(f"{self.ident(o)}: ownerReference {f} {r.get(f)} != {tgt.get(f)}")
                if tgt["metadata"]["name"] != r.get("name"):
                    self.err(f"{self.ident(o)}: ownerReference name {r.get('name')} != {tgt['metadata']['name']}")
                tns = tgt["metadata"].get("namespace")
                if tns and tns != o["metadata"].get("namespace"):
                    self.err(f"{self.ident(o)}: owner {self.ident(tgt)} is in another namespace")
                if tgt["metadata"]["creationTimestamp"] > o["metadata"]["creationTimestamp"]:
                    self.err(f"{self.ident(o)}: created before its owner {self.ident(tgt)}")

    def check_events(self):
        for o in self.items:
            if o["kind"] != "Event":
                continue
            ref = o.get("involvedObject") if o["apiVersion"] == "v1" else o.get("regarding")
            if not ref:
                self.err(f"{self.ident(o)}: event without involvedObject/regarding")
                continue
            tgt = self.by_uid.get(ref.get("uid"))
            if tgt is None:
                self.err(f"{self.ident(o)}: involved object {ref.get('kind')}/{ref.get('name')} uid {ref.get('uid')} not in bundle")
                continue
            for f in ("kind", "apiVersion"):
                if ref.get(f) != tgt.get(f):
                    self.err(f"{self.ident(o)}: involved {f} {ref.get(f)} != {tgt.get(f)}")
            if ref.get("name") != tgt["metadata"]["name"]:
                self.err(f"{self.ident(o)}: involved name mismatch")
            if ref.get("namespace") != tgt["metadata"].get("namespace"):
                self.err(f"{self.ident(o)}: involved namespace mismatch")
            if o["apiVersion"] == "v1":
                if not o.get("reason") or "message" not in o:
                    self.err(f"{self.ident(o)}: core event without reason/message")
                ft, lt = o.get("firstTimestamp"), o.get("lastTimestamp")
                if ft and lt and ft > lt:
                    self.err(f"{self.ident(o)}: firstTimestamp after lastTimestamp")
                if not ft and not o.get("eventTime"):
                    self.err(f"{self.ident(o)}: neither firstTimestamp nor eventTime")
                if not (o.get("source") or {}).get("component") and not o.get("reportingComponent"):
                    self.err(f"{self.ident(o)}: no source.component and no reportingComponent")
            else:
                for f in ("reason", "note", "type", "reportingController", "reportingInstance", "action", "eventTime"):
                    if not o.get(f):
                        self.err(f"{self.ident(o)}: events.k8s.io event without {f}")

    def gpu_used(self, node_name, resource="nvidia.com/gpu"):
        used = 0.0
        for p in self.pods:
            if p["spec"].get("nodeName") != node_name:
                continue
            if p.get("status", {}).get("phase") in TERMINAL:
                continue
            used += pod_requests(p).get(resource, 0)
        return used

    def check_node_accounting(self):
        for p in self.pods:
            nn = p["spec"].get("nodeName")
            if nn and self.nodes and nn not in self.nodes:
                self.err(f"{self.ident(p)}: bound to unknown node {nn}")
        for n, node in self.nodes.items():
            alloc = node.get("status", {}).get("allocatable", {})
            for res in ("nvidia.com/gpu", "cpu", "memory", "pods"):
                if res == "pods":
                    used = sum(1 for p in self.pods if p["spec"].get("nodeName") == n
                               and p.get("status", {}).get("phase") not in TERMINAL)
                    cap = int(alloc.get("pods", "110"))
                else:
                    used = self.gpu_used(n, res)
                    cap = parse_qty(alloc.get(res, "0"))
                if used > cap + 1e-9:
                    self.err(f"Node/{n}: {res} over-committed ({used} requested > {cap} allocatable)")
            g = parse_qty(alloc.get("nvidia.com/gpu", "0"))
            self.notes.append(f"node {n}: nvidia.com/gpu allocatable {g:g}, used {self.gpu_used(n):g}, free {g - self.gpu_used(n):g}")

    def simulate(self, pod):
        """Return (main_hist, preemption_hist) as kube-scheduler >= 1.34 would render them."""
        main, pre = {}, {}
        req = pod_requests(pod)
        prio = pod["spec"].get("priority", 0)
        for n, node in sorted(self.nodes.items()):
            taints = [t for t in node["spec"].get("taints", []) or [] if t.get("effect") in ("NoSchedule", "NoExecute")]
            if node["spec"].get("unschedulable"):
                reason, unresolvable = "node(s) were unschedulable", True
            elif any(not tolerates(pod["spec"].get("tolerations"), t) for t in taints):
                reason, unresolvable = "node(s) had untolerated taint(s)", True
            elif not node_matches(pod, node):
                reason, unresolvable = "node(s) didn't match Pod's node affinity/selector", True
            else:
                alloc = node.get("status", {}).get("allocatable", {})
                insufficient = []
                unresolvable = False
                for r, v in sorted(req.items()):
                    a = parse_qty(alloc.get(r, "0"))
                    if v > a - self.gpu_used(n, r) + 1e-9:
                        insufficient.append(f"Insufficient {r}")
                        if v > a + 1e-9:
                            unresolvable = True
                if not insufficient:
                    self.err(f"{self.ident(pod)}: node {n} would fit the pod, yet the pod is Unschedulable")
                    continue
                reason = insufficient  # NodeResourcesFit reports every insufficient resource
            for r in (reason if isinstance(reason, list) else [reason]):
                main[r] = main.get(r, 0) + 1
            if unresolvable:
                pr = "Preemption is not helpful for scheduling"
            else:
                victims = [p for p in self.pods if p["spec"].get("nodeName") == n
                           and p.get("status", {}).get("phase") not in TERMINAL
                           and p["spec"].get("priority", 0) < prio]
                if victims:
                    self.err(f"{self.ident(pod)}: node {n} has lower-priority pods; preemption could help there")
                    continue
                pr = "No preemption victims found for incoming pod"
            pre[pr] = pre.get(pr, 0) + 1
        return main, pre

    def check_pending_pods(self):
        for p in self.pods:
            st = p.get("status", {})
            if st.get("phase") != "Pending":
                continue
            cond = next((c for c in st.get("conditions", []) if c.get("type") == "PodScheduled"), None)
            if not cond or cond.get("status") != "False":
                continue
            msg = cond.get("message", "")
            if "Insufficient nvidia.com/gpu" not in msg:
                continue
            try:
                n1, h1, e1, n2, h2, e2 = parse_fit_error(msg)
            except ValueError as e:
                self.err(f"{self.ident(p)}: {e}")
                continue
            if cond.get("reason") != "Unschedulable":
                self.err(f"{self.ident(p)}: PodScheduled reason {cond.get('reason')} != Unschedulable")
            if p["spec"].get("nodeName"):
                self.err(f"{self.ident(p)}: Unschedulable pod has spec.nodeName")
            for entries, label in ((e1, "filter"), (e2, "preemption")):
                if entries != sorted(entries):
                    self.err(f"{self.ident(p)}: {label} entries not sorted as strings: {entries}")
            n = len(self.nodes)
            if n1 != n or n2 != n:
                self.err(f"{self.ident(p)}: message says 0/{n1} and 0/{n2} nodes but the bundle has {n} nodes")
            main, pre = self.simulate(p)
            if main != h1:
                self.err(f"{self.ident(p)}: filter counts {h1} but the bundle implies {main}")
            if pre != h2:
                self.err(f"{self.ident(p)}: preemption counts {h2} but the bundle implies {pre}")
            evs = [e for e in self.items if e["kind"] == "Event"
                   and ((e.get("involvedObject") or e.get("regarding") or {}).get("uid") == p["metadata"]["uid"])
                   and e.get("reason") == "FailedScheduling"]
            if not evs:
                self.err(f"{self.ident(p)}: no FailedScheduling event")
            for e in evs:
                text = e.get("message") if e["apiVersion"] == "v1" else e.get("note")
                if text != msg:
                    self.err(f"{self.ident(p)}: FailedScheduling event text differs from the PodScheduled message")
            self.notes.append(f"{self.ident(p)}: message counts reproduced from node state ({sum(h1.values())} nodes)")

    def check_kueue(self):
        wls = [o for o in self.items if o["kind"] == "Workload" and o["apiVersion"].startswith("kueue.x-k8s.io/")]
        for wl in wls:
            for r in wl["metadata"].get("ownerReferences", []) or []:
                if r.get("kind") == "Job" and r.get("controller"):
                    h = hashlib.sha1(f"Job\nbatch\n{r['name']}\n{r['uid']}".encode()).hexdigest()[:5]
                    want = f"job-{r['name']}-{h}"
                    if wl["metadata"]["name"] != want:
                        self.err(f"{self.ident(wl)}: Kueue would name it {want}")
                    if wl["metadata"].get("labels", {}).get("kueue.x-k8s.io/job-uid") != r["uid"]:
                        self.err(f"{self.ident(wl)}: kueue.x-k8s.io/job-uid label does not match the Job uid")
        for cq in (o for o in self.items if o["kind"] == "ClusterQueue"):
            cqn = cq["metadata"]["name"]
            total = 0.0
            for wl in wls:
                conds = {c["type"]: c["status"] for c in wl.get("status", {}).get("conditions", [])}
                adm = wl.get("status", {}).get("admission")
                if conds.get("QuotaReserved") == "True" and adm and adm.get("clusterQueue") == cqn:
                    for psa in adm.get("podSetAssignments", []):
                        total += parse_qty(psa.get("resourceUsage", {}).get("nvidia.com/gpu", "0"))
            reserved = 0.0
            for fl in cq.get("status", {}).get("flavorsReservation", []) or []:
                for r in fl.get("resources", []):
                    if r["name"] == "nvidia.com/gpu":
                        reserved += parse_qty(r.get("total", "0"))
            if abs(total - reserved) > 1e-9:
                self.err(f"{self.ident(cq)}: flavorsReservation nvidia.com/gpu {reserved:g} != {total:g} reserved by Workloads in the bundle")
            else:
                self.notes.append(f"{self.ident(cq)}: {reserved:g} nvidia.com/gpu reserved, matches its Workloads")

    def check_kai(self):
        for pg in (o for o in self.items if o["kind"] == "PodGroup"):
            for r in pg["metadata"].get("ownerReferences", []) or []:
                if r.get("kind") == "Pod":
                    want = f"pg-{r['name']}-{r['uid']}"
                    if pg["metadata"]["name"] != want:
                        self.err(f"{self.ident(pg)}: KAI's deployment grouper would name it {want}")
                    pod = self.by_uid.get(r["uid"])
                    if pod and pod["metadata"].get("annotations", {}).get("pod-group-name") != pg["metadata"]["name"]:
                        self.err(f"{self.ident(pod)}: pod-group-name annotation does not name {pg['metadata']['name']}")


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = argv[1:] or sorted(os.path.join(here, d) for d in os.listdir(here)
                              if os.path.isdir(os.path.join(here, d)))
    failed = 0
    checked = 0
    for d in dirs:
        for fname in ("bundle.json", "bundle.yaml"):
            path = os.path.join(d, fname)
            if not os.path.exists(path):
                continue
            checked += 1
            name = f"{os.path.basename(os.path.normpath(d))}/{fname}"
            try:
                items = load_bundle(path)
            except Exception as e:  # noqa: BLE001
                print(f"FAIL {name}: cannot parse: {e}")
                failed += 1
                continue
            c = Checker(name, items)
            c.run()
            if c.errors:
                failed += 1
                print(f"FAIL {name} ({len(items)} objects)")
                for e in c.errors:
                    print(f"  - {e}")
            else:
                print(f"ok   {name} ({len(items)} objects)")
                for n in c.notes:
                    if "message counts" in n or "ClusterQueue" in n:
                        print(f"       {n}")
    if checked == 0:
        print("no bundles found")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
