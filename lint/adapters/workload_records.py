"""The records of the workload core: what an adapter hands it (`Container`, `Workload`) and what it gives back
(`Reading`, one `EngineRole` per engine invocation).

They are plain records, apart from workload.py (which reads a container's command line into roles) so that
their fields and the reasons for them read in one place; adapters import them from ctxlint.adapters.workload,
which re-exports them, as they import the rest of the core's API.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload_inputs import NOT_MEASURED, EnvVar, Measured
from ctxlint.findings import Diagnostic
from ctxlint.model import Advertised, Gateway, Role, Source, Val
from ctxlint.nodes import Node

from ..records import field, record


@record
class Container:
    spans: ScalarSpans
    node: Node  # the container as a whole (role source)
    name: str = ""
    command: Optional[Node] = None  # SEQ (or one string item) of the exec form
    args: Optional[Node] = None
    script: Optional[Node] = None  # a string scalar run by a shell (compose string, SkyPilot run:)
    script_text: Optional[str] = None  # what to split instead of script.value (same length, for positions)
    script_args: Sequence[Node] = ()  # the words a script file runs with, its "$@" (compose_scripts.py)
    script_resolver: Optional[Callable[[str], Optional[str]]] = None  # Compose's values for those words' `${...}`
    env: Sequence[EnvVar] = ()
    image: Optional[Node] = None
    image_text: Optional[str] = None  # the image once interpolated (compose `${VAR:-default}`), when it differs
    # Shell scripts that install the engine (SkyPilot `setup:`): `pip install vllm==0.6.6` there
    # (or in `script`) names the version when no image tag does.
    install_scripts: Sequence[Node] = ()
    # A built image's Dockerfile RUN installs the engine over its FROM image (compose_build.py): its release is the
    # one pinned there (install_scripts), not the FROM tag's, else not known, for this reason.
    reinstalled: Optional[str] = None
    args_only: bool = False  # the tokens go to the image's entrypoint
    k8s_refs: bool = True  # `$(NAME)` is a Kubernetes reference (False for compose/SkyPilot)
    compose_refs: bool = False  # exec-form items are interpolated the compose way (`${NAME:-default}`)
    # The operator renders Go template actions in the container before it runs (KServe): they are references,
    # whose values are these (by gotemplate.lookup_key: the InferenceService's `{{ .Name }}`), else unknown.
    go_values: Optional[Dict[str, str]] = None
    # A launcher script run as written: `${NAME:-default}` of a variable nothing in it sets is the default.
    shell_defaults: bool = False
    shell_run: bool = False  # a shell runs `script` itself (SkyPilot's `run:`), though its defaults are not taken
    resolver: Optional[Callable[[str], Optional[str]]] = None  # overrides the env lookup
    resolver_nodes: Optional[Dict[str, Node]] = None  # with a resolver: where each name's value is written
    # with compose_refs: every resolver value is text put into the string before it is split, written at its
    # resolver_nodes node (llama-swap's macros); Compose's own are only those of the project's .env
    text_macros: bool = False
    accelerator_count: Optional[Val[int]] = None  # per pod / container
    accelerator_type: Optional[Val[str]] = None
    group_pods: int = 1  # pods/nodes that together run one engine instance (LeaderWorkerSet size)
    group_label: str = "pods (LeaderWorkerSet size)"  # how messages name them
    # A LeaderWorkerSet starts `size` pods and injects only LWS_* variables: whether they run one engine is the
    # engine's to say (workload_spans.spans_group). None: the adapter's group is one engine; False: a leader
    # template's engine with its workers; True: every pod of the group runs this container (no leader template).
    group_alike: Optional[bool] = None
    ray_counted: bool = False  # the adapter counts the Ray cluster's GPUs itself (a KubeRay head)
    # `securityContext.privileged: true`: the container has every device node of its node, so every GPU there,
    # whatever its `nvidia.com/gpu` limit (NVIDIA/k8s-device-plugin#161, #336): the engine's count is not known
    privileged: bool = False
    # A script's `docker run` whose options give its container GPUs not counted (`--gpus all`, `--gpus $N`,
    # `--privileged --gpus 1`: docker_run.GpuRequest.uncounted), as written: every GPU of the host, or a number the
    # file does not give, so the engine's count is not known, and not one (launcher_devices.docker_container)
    gpus_uncounted: Optional[str] = None
    # A Slurm batch script's job (slurm_header.BatchJob): its nodes and GPUs in all, for an engine that spans the
    # job's nodes (workload_devices.Devices.count); accelerator_count is then the GPUs of one node, the batch node's.
    batch_job: Optional[Any] = None
    # A CRD or chart that names its engine (KubeAI `engine: VLLM`): args-only tokens are that
    # engine's arguments even without a program or a known image; the Val is where it is named.
    engine: Optional[Val[str]] = None
    # The engine's release where the image names it beside the engine's own tag (AWS LMI's `lmiN`: lmi_env.py).
    engine_release: Optional[Val[str]] = None
    # The operator that picks the engine's image when the file names none (KubeAI: its resource profile's image in
    # the operator's chart): the release is then unknown, and not the newest (release_unknown.by_operator).
    image_by: Optional[str] = None
    # Reads an engine config file the command names (`--config`, `--extra-engine-args`) when the
    # file itself holds it (a ConfigMap): path -> (parsed data, {dotted key: Source}) or None.
    config_reader: Optional[Callable[[str], Optional[Tuple[Any, Dict[str, Source]]]]] = None
    # Engine settings an operator passes beside the command line (KAITO's inference_config `vllm:`
    # section): (data as a config file, {key: Source}, label), merged as a config file would be.
    settings: Optional[Tuple[Any, Dict[str, Source], str]] = None
    # A launcher script's `source FILE`: that file's text by its path (beside the script), for its functions
    sourcer: Optional[Callable[[str], Optional[str]]] = None
    # A platform preset runs `engine` with its own model argument and appends `script` (its variable's string)
    # and the strings of `args` to that command line, re-split by its shell (KServe's LLMInferenceService
    # without a `command`: preset_args.py): how messages name that command. Words that are no flag are refused.
    preset: Optional[str] = None
    # How the file spells a reference the adapter wrote as `${NAME}` (a systemd unit's `%h` specifier): messages
    # name it as written.
    ref_spelling: Optional[Dict[str, str]] = None
    # A Compose service's bind mounts, container path -> host path as written: a model path that is a mount's
    # target is named by the host folder (engines/mounted_model.py). A `docker run` line's own are read from it.
    mounts: Optional[Dict[str, str]] = None


@record
class EngineRole:
    role: Role
    engine: Val[str]
    version: Optional[Val[str]]
    model: Optional[Val[str]]
    unresolved: List[Tuple[str, Source]] = field(default_factory=list)
    command: Optional[Source] = None  # its program's token: a container's roles share the container's line
    stated_format: Any = None  # ctxlint.model.StatedFormat: a weight format the file states (srt-slurm precision)
    release_unknown: Optional[str] = None  # ctxlint.model.Engine.release_unknown, for the deployment-level checks
    build: Optional[Val[str]] = None  # ctxlint.model.Engine.build: the commit a nightly image names


@record
class Reading:
    roles: List[EngineRole] = field(default_factory=list)
    diagnostics: List[Diagnostic] = field(default_factory=list)


@record
class Workload:
    name: Optional[Val[str]]
    source: Source
    input_format: str
    roles: List[EngineRole] = field(default_factory=list)
    replicas: Optional[Val[int]] = None
    advertised: Advertised = Advertised()
    gateway: Gateway = Gateway()
    labels: Tuple[Tuple[str, str], ...] = ()
    pod_labels: Tuple[Tuple[str, str], ...] = ()  # the pod template's labels (Service selectors match these)
    service_names: Tuple[str, ...] = ()  # Services the operator creates for it (model.Deployment.service_names)
    measured: Measured = NOT_MEASURED  # the pool the engine logged, from annotations: each role's without its own
