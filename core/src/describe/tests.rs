//! A paste of several objects as kubectl 1.35 prints them, read back.

use super::*;

const PASTE: &str = "$ kubectl describe pod,node,workload -n ml
Name:             trainer-0
Namespace:        ml
Priority:         0
Service Account:  default
Node:             <none>
Labels:           app=trainer
                  batch.kubernetes.io/job-name=trainer
Annotations:      <none>
Status:           Pending
IP:               
IPs:              <none>
Controlled By:    Job/trainer
Containers:
  main:
    Image:      busybox
    Port:       <none>
    Host Port:  <none>
    Limits:
      nvidia.com/gpu:  16
    Requests:
      nvidia.com/gpu:  16
    Environment:       <none>
    Mounts:            <none>
Conditions:
  Type           Status
  PodScheduled   False 
Volumes:         <none>
QoS Class:       BestEffort
Node-Selectors:  <none>
Tolerations:     node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                 node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
Events:
  Type     Reason            Age                 From               Message
  ----     ------            ----                ----               -------
  Warning  FailedScheduling  2m (x3 over 12m)    default-scheduler  0/4 nodes are available: 4 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.


Name:               gpu-0
Roles:              <none>
Labels:             nvidia.com/gpu.present=true
Annotations:        node.alpha.kubernetes.io/ttl: 0
CreationTimestamp:  Sun, 06 Dec 2026 19:00:00 +0000
Taints:             <none>
Unschedulable:      false
Conditions:
  Type    Status  LastHeartbeatTime                 LastTransitionTime                Reason       Message
  ----    ------  -----------------                 ------------------                ------       -------
  Ready   True    Sun, 06 Dec 2026 19:20:00 +0000   Sun, 06 Dec 2026 19:00:00 +0000   KubeletReady kubelet is posting ready status
Capacity:
  cpu:             32
  nvidia.com/gpu:  8
Allocatable:
  cpu:             32
  nvidia.com/gpu:  8
System Info:
  Kubelet Version:  v1.35.4
Events:             <none>


Name:         job-trainer-1a2b3
Namespace:    ml
Labels:       <none>
Annotations:  <none>
API Version:  kueue.x-k8s.io/v1beta2
Kind:         Workload
Metadata:
  Creation Timestamp:  2026-12-06T19:10:00Z
  Generation:          1
  Owner References:
    API Version:           batch/v1
    Block Owner Deletion:  true
    Controller:            true
    Kind:                  Job
    Name:                  trainer
    UID:                   0c8f2d7e-1111-2222-3333-444455556666
  Resource Version:        812
  UID:                     9a9a9a9a-1111-2222-3333-444455556666
Spec:
  Pod Sets:
    Count:  1
    Name:   main
  Queue Name:  lq
Status:
  Conditions:
    Last Transition Time:  2026-12-06T19:10:01Z
    Message:               Quota reserved in ClusterQueue cq
    Reason:                QuotaReserved
    Status:                True
    Type:                  QuotaReserved
Events:  <none>
";

const NOW: i64 = 1_796_587_200; // 2026-12-06T19:20:00Z

fn read_paste() -> Read {
    read(PASTE, Some(NOW), 64).unwrap()
}

#[test]
fn the_paste_is_recognised_and_yaml_is_not() {
    assert!(looks_like(PASTE));
    assert!(!looks_like(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n"
    ));
    assert!(!looks_like("Name: only\n"));
}

#[test]
fn a_pending_pod_reads_back_with_its_requests_owner_and_scheduler_message() {
    let r = read_paste();
    let pod = &r.objects[0];
    assert_eq!(pod["kind"], "Pod");
    assert_eq!(
        pod["metadata"]["labels"]["batch.kubernetes.io/job-name"],
        "trainer"
    );
    assert_eq!(
        pod["metadata"]["ownerReferences"][0]["apiVersion"],
        "batch/v1"
    );
    assert_eq!(
        pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"],
        "16"
    );
    assert_eq!(pod["spec"]["tolerations"].as_array().unwrap().len(), 2);
    assert!(pod["spec"].get("nodeName").is_none());
    let c = &pod["status"]["conditions"][0];
    assert_eq!(
        (
            c["type"].as_str(),
            c["status"].as_str(),
            c["reason"].as_str()
        ),
        (Some("PodScheduled"), Some("False"), Some("Unschedulable"))
    );
    assert!(
        c["message"]
            .as_str()
            .unwrap()
            .starts_with("0/4 nodes are available")
    );
}

#[test]
fn events_are_timed_from_now_and_name_their_object() {
    let r = read_paste();
    let e = &r.objects[1];
    assert_eq!(e["kind"], "Event");
    assert_eq!(e["involvedObject"]["name"], "trainer-0");
    assert_eq!(e["count"], 3);
    assert_eq!(e["lastTimestamp"], crate::time::format_rfc3339(NOW - 120));
    assert_eq!(e["firstTimestamp"], crate::time::format_rfc3339(NOW - 720));
}

#[test]
fn a_node_reads_back_with_its_gpus_and_conditions() {
    let r = read_paste();
    let n = r.objects.iter().find(|o| o["kind"] == "Node").unwrap();
    assert_eq!(n["status"]["allocatable"]["nvidia.com/gpu"], "8");
    assert_eq!(n["metadata"]["creationTimestamp"], "2026-12-06T19:00:00Z");
    let c = &n["status"]["conditions"][0];
    assert_eq!(c["type"], "Ready");
    assert_eq!(c["lastTransitionTime"], "2026-12-06T19:00:00Z");
    assert_eq!(c["message"], "kubelet is posting ready status");
    assert_eq!(n["status"]["nodeInfo"]["kubeletVersion"], "v1.35.4");
}

#[test]
fn a_custom_resource_reads_back_with_its_uids_and_lists() {
    let r = read_paste();
    let w = r.objects.iter().find(|o| o["kind"] == "Workload").unwrap();
    assert_eq!(w["apiVersion"], "kueue.x-k8s.io/v1beta2");
    assert_eq!(w["metadata"]["name"], "job-trainer-1a2b3");
    assert_eq!(w["metadata"]["uid"], "9a9a9a9a-1111-2222-3333-444455556666");
    assert_eq!(w["metadata"]["resourceVersion"], "812");
    assert_eq!(
        w["metadata"]["ownerReferences"][0]["uid"],
        "0c8f2d7e-1111-2222-3333-444455556666"
    );
    assert_eq!(w["spec"]["podSets"][0]["count"], 1);
    assert_eq!(w["spec"]["queueName"], "lq");
    assert_eq!(w["status"]["conditions"][0]["type"], "QuotaReserved");
}

#[test]
fn notes_say_what_describe_cannot_show() {
    let r = read_paste();
    for k in ["Pod", "Node", "custom", "events"] {
        let note = NOT_SHOWN.iter().find(|(n, _)| *n == k).unwrap().1;
        assert!(r.notes.contains(&note.to_string()), "{k}");
    }
    let job = NOT_SHOWN.iter().find(|(n, _)| *n == "Job").unwrap().1;
    assert!(!r.notes.contains(&job.to_string()));
    let untimed = read(PASTE, None, 64).unwrap();
    assert!(untimed.notes.iter().any(|n| n.contains("--now")));
    assert!(untimed.objects[1].get("lastTimestamp").is_none());
}

#[test]
fn bad_input_names_the_line() {
    assert_eq!(
        read("hello\nName: x\nNamespace: y\n", None, 64)
            .unwrap_err()
            .0,
        1
    );
    let headless = "Name:  p\nNamespace:  ml\nContainers:\n  c:\n    Image: x\nQoS Class:  BestEffort\nEvents:\n  Warning  X  2m  y  z\n";
    assert_eq!(read(headless, None, 64).unwrap_err().0, 8);
    let nameless = "Name:\nNamespace:  ml\nKind:  W\nAPI Version:  v1\n";
    assert_eq!(
        read(nameless, None, 64).unwrap_err(),
        (1, "`Name:` without a name".to_string())
    );
    let unknown = "Name:  svc\nNamespace:  ml\nSelector:  app=x\n";
    assert!(read(unknown, None, 64).unwrap_err().1.contains("no object"));
}

#[test]
fn hostile_input_neither_panics_nor_recurses_without_bound() {
    let deep: String = (0..2000)
        .map(|i| format!("{}K:\n", " ".repeat(i)))
        .collect();
    let text = format!("Name: x\nNamespace: y\nKind: K\nAPI Version: v\nSpec:\n{deep}");
    assert!(read(&text, None, 64).is_err());
    for cut in [1, 7, 100, 500, 1000, 1500] {
        let s: String = PASTE.chars().take(cut).collect();
        let _ = read(&s, Some(NOW), 64);
    }
}

/// What describe prints only in one place, taken back: a KAI pod's refusal (its event, whose
/// source is the scheduler's name), a container's environment and the message of its
/// CreateContainerConfigError (its kubelet `Failed` event), and a claim among nodes (an
/// unbound claim prints an empty `Capacity:`, as a node prints a full one).
const SPREAD: &str = "Name:             ddp-2
Namespace:        ml
Node:             <none>
Labels:           <none>
Annotations:      <none>
Status:           Pending
Containers:
  main:
    Image:      pytorch
    Environment:
      RESERVATION_NAMESPACE:  runai-reservation
      NODE_NAME:               (v1:spec.nodeName)
      HF_TOKEN:               <set to the key 'token' in secret 'hf-token'>  Optional: false
Conditions:
  Type           Status
  PodScheduled   False 
Volumes:
  ckpt:
    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)
    ClaimName:  ckpt-store
    ReadOnly:   false
QoS Class:       BestEffort
Events:
  Type     Reason         Age   From           Message
  ----     ------         ----  ----           -------
  Warning  Unschedulable  2m    kai-scheduler  PodSchedulingErrors: no nodes with enough resources were found


Name:             tgi-0
Namespace:        ml
Node:             gpu-3/10.0.0.3
Labels:           <none>
Annotations:      <none>
Status:           Pending
Containers:
  server:
    Image:          tgi
    State:          Waiting
      Reason:       CreateContainerConfigError
    Ready:          False
    Restart Count:  0
    Environment:    <none>
QoS Class:          BestEffort
Events:
  Type     Reason   Age                From     Message
  ----     ------   ----               ----     -------
  Warning  Failed   1m (x9 over 16m)   kubelet  spec.containers{server}: Error: secret \"hf-token\" not found


Name:          ckpt-store
Namespace:     ml
StorageClass:  nfs-csi
Status:        Pending
Volume:        
Labels:        <none>
Annotations:   <none>
Finalizers:    [kubernetes.io/pvc-protection]
Capacity:      
Access Modes:  
VolumeMode:    Filesystem
Used By:       ddp-2
Events:        <none>
";

#[test]
fn what_describe_prints_in_one_place_is_taken_back() {
    let r = read(SPREAD, Some(NOW), 64).unwrap();
    let kinds: Vec<&str> = r
        .objects
        .iter()
        .filter_map(|o| o["kind"].as_str())
        .collect();
    assert_eq!(
        kinds,
        ["Pod", "Event", "Pod", "Event", "PersistentVolumeClaim"]
    );
    let kai = &r.objects[0];
    assert_eq!(kai["spec"]["schedulerName"], "kai-scheduler");
    let c = &kai["status"]["conditions"][0];
    assert_eq!(c["reason"], "Unschedulable");
    assert!(
        c["message"]
            .as_str()
            .unwrap()
            .contains("no nodes with enough")
    );
    // Only the variable with a value of its own: the others come from elsewhere.
    assert_eq!(
        kai["spec"]["containers"][0]["env"],
        json!([{"name": "RESERVATION_NAMESPACE", "value": "runai-reservation"}])
    );
    let tgi = &r.objects[2];
    assert_eq!(
        tgi["status"]["containerStatuses"][0]["state"]["waiting"],
        json!({"reason": "CreateContainerConfigError", "message": "secret \"hf-token\" not found"})
    );
    // Reading them back adds no key the paste did not give (an indexed write would).
    assert!(tgi["status"].get("initContainerStatuses").is_none());
    assert_eq!(r.objects[4]["status"]["phase"], "Pending");
    assert_eq!(r.objects[4]["spec"]["storageClassName"], "nfs-csi");
}

/// A container's ports (one or several), command and arguments as kubectl prints them: an
/// argument holding `: ` stays one argument, and a line of a multi-line argument indented
/// deeper is still read (each printed line one argument, since kubectl splits them).
const PORTS_AND_ARGS: &str = "Name:             epp-0
Namespace:        ml
Node:             cpu-1/10.0.0.9
Status:           Running
Init Containers:
  auth-proxy:
    Image:         oauth2-proxy
    Port:          4180/TCP (http)
    Host Port:     0/TCP (http)
    Args:
      --http-address=0.0.0.0:4180
Containers:
  epp:
    Image:         epp
    Ports:         9002/TCP (grpc), 9090/TCP
    Host Ports:    0/TCP (grpc), 0/TCP
    Command:
      /epp
    Args:
      --pool-name
      qwen-pool
      --config-text
      plugins: [queue]
        - type: max-score
  sidecar:
    Image:         proxy
    Port:          <none>
    Host Port:     <none>
";

#[test]
fn ports_command_and_args_are_taken_back() {
    let r = read(PORTS_AND_ARGS, Some(NOW), 64).unwrap();
    let spec = &r.objects[0]["spec"];
    assert_eq!(
        spec["initContainers"][0]["ports"],
        json!([{"containerPort": 4180, "protocol": "TCP", "name": "http"}])
    );
    assert_eq!(
        spec["initContainers"][0]["args"],
        json!(["--http-address=0.0.0.0:4180"])
    );
    let epp = &spec["containers"][0];
    assert_eq!(
        epp["ports"],
        json!([
            {"containerPort": 9002, "protocol": "TCP", "name": "grpc"},
            {"containerPort": 9090, "protocol": "TCP"}
        ])
    );
    assert_eq!(epp["command"], json!(["/epp"]));
    assert_eq!(
        epp["args"],
        json!([
            "--pool-name",
            "qwen-pool",
            "--config-text",
            "plugins: [queue]",
            "- type: max-score"
        ])
    );
    // `<none>` is no port, and no list is made up for a container without them.
    assert!(spec["containers"][1].get("ports").is_none());
    assert!(spec["containers"][1].get("args").is_none());
}

/// A pod and the claim made from its template, as describe prints them: the pod shows no
/// claim and no UID, the claim shows both its owner and its name in the pod.
const CLAIMED: &str = "Name:         pod0-gpu-vh7p4
Namespace:    gpu-test1
Labels:       <none>
Annotations:  resource.kubernetes.io/pod-claim-name: gpu
API Version:  resource.k8s.io/v1
Kind:         ResourceClaim
Metadata:
  Creation Timestamp:  2026-12-07T00:00:36Z
  Generate Name:       pod0-gpu-
  Owner References:
    API Version:           v1
    Block Owner Deletion:  true
    Controller:            true
    Kind:                  Pod
    Name:                  pod0
    UID:                   c1419ea6-9f9c-4967-8e49-b363b9acfc3b
  Resource Version:        3570
  UID:                     4fe7c35a-b6ef-4e81-8b77-f68b92aa012f
Spec:
  Devices:
    Requests:
      Exactly:
        Allocation Mode:    ExactCount
        Count:              1
        Device Class Name:  gpu.example.com
      Name:                 gpu
Status:
Events:  <none>


Name:             pod0
Namespace:        gpu-test1
Node:             <none>
Labels:           <none>
Annotations:      <none>
Status:           Pending
Containers:
  ctr0:
    Image:      ubuntu:22.04
Conditions:
  Type           Status
  PodScheduled   False 
Events:  <none>


Name:             pod0
Namespace:        other
Node:             <none>
Status:           Pending
Containers:
  ctr0:
    Image:      ubuntu:22.04
";

#[test]
fn a_claim_made_for_a_pod_is_given_back_to_it() {
    let r = read(CLAIMED, Some(NOW), 64).unwrap();
    let pod = r
        .objects
        .iter()
        .find(|o| o["kind"] == "Pod" && o["metadata"]["namespace"] == "gpu-test1")
        .unwrap();
    // The claim's devices read back as the API has them: a map holding a list of requests.
    assert_eq!(
        r.objects[0]["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"],
        "gpu.example.com"
    );
    assert_eq!(
        pod["metadata"]["uid"],
        "c1419ea6-9f9c-4967-8e49-b363b9acfc3b"
    );
    assert_eq!(pod["spec"]["resourceClaims"], json!([{"name": "gpu"}]));
    assert_eq!(
        pod["status"]["resourceClaimStatuses"],
        json!([{"name": "gpu", "resourceClaimName": "pod0-gpu-vh7p4"}])
    );
    // The pod of the same name in another namespace is not the claim's.
    let other = r
        .objects
        .iter()
        .find(|o| o["kind"] == "Pod" && o["metadata"]["namespace"] == "other")
        .unwrap();
    assert!(other["spec"].get("resourceClaims").is_none());
    assert!(other["metadata"]["uid"].as_str().is_none_or(str::is_empty));
}
