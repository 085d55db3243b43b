//! kwok stages of the lab's own, for runtime failures kwok's shipped stages do not play: each
//! makes the fake kubelet fail the way the real one does, in the real kubelet's and
//! containerd's words, so the runtime layer is tested on what a node really reports.

use std::path::{Path, PathBuf};

/// The handler the lab's nodes lack: the fake nodes have only `runc`, as a node without the
/// NVIDIA container toolkit (k3s's RuntimeClass `nvidia` on such a node; KAI-Scheduler's
/// injected `runtimeClassName: nvidia`).
pub const MISSING_HANDLER: &str = "nvidia";

/// A pod whose RuntimeClass is [`MISSING_HANDLER`] stays Pending in ContainerCreating, and the
/// node reports `FailedCreatePodSandBox` with containerd 1.x's text, as the kubelet relays it.
/// kwok cannot look up the RuntimeClass, so the stage matches the class by name: the lab's
/// classes name their handler after themselves, as k3s's do. Weight 1 against the shipped
/// `pod-ready` stage's 0: kwok then always picks this one for such a pod. The times are the
/// pod's own start time once set, so a second pass writes nothing and the stage settles.
const RUNTIME_HANDLER_MISSING: &str = r#"apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-runtime-handler-missing
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  weight: 1
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values: ['Pending']
    - key: '.spec.runtimeClassName'
      operator: 'In'
      values: ['HANDLER']
  next:
    event:
      type: Warning
      reason: FailedCreatePodSandBox
      message: 'Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "HANDLER" is configured'
    statusTemplate: |
      {{ $t := or .status.startTime Now }}
      conditions:
      - lastTransitionTime: {{ $t | Quote }}
        status: "False"
        type: PodReadyToStartContainers
      - lastTransitionTime: {{ $t | Quote }}
        status: "True"
        type: Initialized
      - lastTransitionTime: {{ $t | Quote }}
        message: 'containers with unready status: [{{ range $i, $c := .spec.containers }}{{ if $i }} {{ end }}{{ $c.name }}{{ end }}]'
        reason: ContainersNotReady
        status: "False"
        type: Ready
      - lastTransitionTime: {{ $t | Quote }}
        message: 'containers with unready status: [{{ range $i, $c := .spec.containers }}{{ if $i }} {{ end }}{{ $c.name }}{{ end }}]'
        reason: ContainersNotReady
        status: "False"
        type: ContainersReady
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        imageID: ""
        name: {{ .name | Quote }}
        ready: false
        restartCount: 0
        started: false
        state:
          waiting:
            reason: ContainerCreating
      {{ end }}
      {{ with NodeIPsWith .spec.nodeName }}
      hostIP: {{ index . 0 | Quote }}
      hostIPs:
      {{ range . }}
      - ip: {{ . | Quote }}
      {{ end }}
      {{ end }}
      phase: Pending
      startTime: {{ $t | Quote }}
"#;

/// Write the lab's stages into `dir`; their paths, for kwok's `--config`.
pub fn write(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let path = dir.join("stage-runtime-handler-missing.yaml");
    let text = RUNTIME_HANDLER_MISSING.replace("HANDLER", MISSING_HANDLER);
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(vec![path])
}
