"""What each custom-resource adapter reads, as data: its API groups and kinds.

Two readers: `adapters.adapt_file` imports a custom-resource adapter only for a file that holds
one of its objects (a one-file pre-commit run would otherwise import eleven adapters it never
uses: issue 15), and the pod-template fallback leaves these kinds to their adapters.
A group matches as the adapters' `is_kind` tests it: the apiVersion's group ends with it.
Formats without kinds that are rare in a tree (Akash SDL, Truss) are picked by the shape of a document, and the
adapters that read any kind of file by a gate of the file's outline (adapters/gates.py).
"""
from __future__ import annotations

from typing import Dict, FrozenSet, Iterable, Set, Tuple

from ctxlint.adapters.crd_common import objects, scalar
from ctxlint.adapters.gates import GATES, Outline
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

_KSERVE_RUNTIMES = ("ServingRuntime", "ClusterServingRuntime")

# adapter module -> ((API group, kinds), ...): every object kind its adapt() reads.
CRD_KINDS: Dict[str, Tuple[Tuple[str, Tuple[str, ...]], ...]] = {
    "crds_dynamo": (("nvidia.com", ("DynamoGraphDeployment",)),),
    "crds_kserve": (("serving.kserve.io", ("InferenceService", *_KSERVE_RUNTIMES, "LLMInferenceService",
                                           "LLMInferenceServiceConfig")),),
    "crds_kubeai": (("kubeai.org", ("Model",)),),
    "crds_llmaz": (("llmaz.io", ("Playground", "OpenModel")),),
    "crds_aibrix": (("orchestration.aibrix.ai", ("StormService", "RoleSet", "RayClusterFleet")),),
    "crds_kaito": (("kaito.sh", ("Workspace", "InferenceSet", "MultiRoleInference")),),
    "crds_kuberay": (("ray.io", ("RayService", "RayCluster", "RayJob")),),
    "crds_llmd": (("llm-d.ai", ("ModelService",)),),
    "crds_nim": (("apps.nvidia.com", ("NIMService",)), ("serving.kserve.io", ("InferenceService", *_KSERVE_RUNTIMES))),
    "crds_ome": (("ome.io", (*_KSERVE_RUNTIMES, "InferenceService", "ClusterBaseModel", "BaseModel")),),
    "crds_rbg": (("workloads.x-k8s.io", ("RoleBasedGroup",)),),
    "crds_vllm_runtime": (("production-stack.vllm.ai", ("VLLMRuntime",)),),
    "crds_hyperpod": (("inference.sagemaker.aws.amazon.com", ("InferenceEndpointConfig", "JumpStartModel")),),
    "crds_llmkube": (("inference.llmkube.dev", ("InferenceService", "Model")),),
    "gitops": (("helm.toolkit.fluxcd.io", ("HelmRelease",)), ("argoproj.io", ("Application",))),
}
# Adapters that also read a file of one mapping with neither apiVersion nor kind (Helm values).
READS_VALUES = frozenset({"crds_nim"})
# Adapters that read only files whose text holds this string.
TEXT_MARKERS: Dict[str, str] = {"triton_trtllm": "launch_triton_server.py"}
# The adapter of shell scripts (LoadedFile.shell): the only one a script reaches, and it reads nothing else.
SHELL = "shell_script"
UNIT = "systemd_unit"  # the adapter of systemd units (LoadedFile.unit, which is a LoadedFile.shell too)
PROPS = "lmi_properties"  # the adapter of serving.properties (LoadedFile.properties, a LoadedFile.shell too)
TEXTS = (SHELL, UNIT, PROPS)  # the adapters of files kept as text: each reads only its own kind of file


def text_adapter(loaded) -> str:
    """The one adapter a file kept as text (LoadedFile.shell) reaches."""
    return UNIT if loaded.unit else PROPS if loaded.properties else SHELL


SDL_VERSIONS = ("2.0", "2.1")  # akash-network/chain-sdk@55f1c683:go/sdl/sdl-input.schema.yaml `version`


def akash_sdl(root: Node) -> bool:
    """An Akash SDL document: `version` 2.0 or 2.1 and `services`, with `profiles` or `deployment` beside them
    (Akash requires all four: chain-sdk's sdl-input.schema.yaml). A Compose file has neither at its top level
    (compose-spec/compose-spec@b2835e8a:schema/compose-spec.json allows version, name, include, services,
    networks, volumes, secrets, configs and x-* only), so one with `version: "2.1"` is not taken for SDL."""
    version = root.get("version") if root.kind == MAP else None
    return version is not None and version.kind == SCALAR and str(version.value) in SDL_VERSIONS and \
        root.get("services") is not None and (root.get("profiles") is not None or root.get("deployment") is not None)


# The sections of a Truss config that start an engine, and the top-level keys only a Truss config has beside
# them (basetenlabs/truss@0bee989b9ec85ed9d29374ab4d7e2883e49de87e:truss/base/truss_config.py TrussConfig).
TRUSS_ENGINES = ("docker_server", "trt_llm")
TRUSS_KEYS = ("model_name", "base_image", "resources", "model_metadata", "model_cache", "weights", "secrets",
              "environment_variables", "python_version", "requirements", "build_commands", "system_packages",
              "runtime", "model_class_name", "external_package_dirs")
# Keys of the formats a Truss config must never be taken for (and that TrussConfig has no field for):
# Kubernetes objects, Compose and Akash `services`, a SkyPilot task's `run`.
_NOT_TRUSS = ("apiVersion", "kind", "services", "run")


def truss_config(root: Node) -> bool:
    """A Baseten Truss `config.yaml` that may start an engine: `docker_server` or `trt_llm` at its top level, one
    more key of TrussConfig's beside it, and none of the keys that mark the other formats."""
    if root.kind != MAP or all(root.get(k) is None for k in TRUSS_ENGINES):
        return False
    return any(root.get(k) is not None for k in TRUSS_KEYS) and all(root.get(k) is None for k in _NOT_TRUSS)


# dstack's run configurations that run commands (dstackai/dstack@511c318c8a7672fb2a925041bfc2d7301a26272e:
# src/dstack/_internal/core/models/configurations.py: `type` is the discriminator; a dev-environment is no
# deployment), with the keys that hold their commands (a service's `groups`, or its legacy list of `replicas`).
DSTACK_TYPES = ("service", "task")
_DSTACK_COMMANDS = ("commands", "groups", "replicas")


def dstack_config(root: Node) -> bool:
    """A dstack service or task: `type: service|task` and commands (or groups), and no Kubernetes keys."""
    kind = root.get("type") if root.kind == MAP else None
    if kind is None or kind.kind != SCALAR or kind.value not in DSTACK_TYPES or root.get("apiVersion") is not None:
        return False
    return any(root.get(k) is not None and root.get(k).kind == SEQ for k in _DSTACK_COMMANDS)


def compose_file(root: Node) -> bool:
    """A Compose file: a `services` mapping, no `apiVersion` (an Akash SDL has `services` too, but runs them the
    Kubernetes way: adapters/akash_sdl.py)."""
    services = root.get("services") if root.kind == MAP else None
    return services is not None and services.kind == MAP and root.get("apiVersion") is None and not akash_sdl(root)


def skypilot_task(root: Node) -> bool:
    """A SkyPilot task: a `run` string beside one of its other keys, and no `apiVersion` or `services`."""
    if root.kind != MAP or root.get("apiVersion") is not None or root.get("services") is not None:
        return False
    run = root.get("run")
    return run is not None and run.kind == SCALAR and isinstance(run.value, str) and \
        any(root.get(k) is not None for k in ("resources", "envs", "setup", "service", "num_nodes", "name"))


def unlabelled(root: Node) -> bool:
    """A mapping with neither `apiVersion` nor `kind`: the engine config files (adapters/engine_files.py) read only
    such documents."""
    return root.kind == MAP and root.get("apiVersion") is None and root.get("kind") is None


def engine_config(root: Node) -> bool:
    """An engine config file (`unlabelled`), or a ConfigMap that holds a llama-swap config in a data value
    (adapters/engine_config_maps.py): a string with `models:` and `cmd:` in it."""
    if unlabelled(root):
        return True
    if root.kind != MAP or scalar(root.get("kind")) != "ConfigMap":
        return False
    data = root.get("data")
    return data is not None and data.kind == MAP and any(
        v.kind == SCALAR and isinstance(v.value, str) and "models:" in v.value and "cmd:" in v.value
        for v in data.value.values())


def ray_serve_config(root: Node) -> bool:
    """A Ray Serve config (`applications`) or one LLMConfig (`model_loading_config`), with no `kind`."""
    if root.kind != MAP or root.get("kind") is not None:
        return False
    apps, loading = root.get("applications"), root.get("model_loading_config")
    return apps is not None and apps.kind == SEQ or loading is not None and loading.kind == MAP


def srt_recipe(root: Node) -> bool:
    """An srt-slurm recipe (adapters/srt_recipe.py): `model` with `path` and `container` (srtctl's ModelConfig
    requires both: NVIDIA/srt-slurm@c88ef731636890ff6385a783e152c1790e15b194:src/srtctl/core/schema.py) and a
    `resources` or schema 2 `roles` mapping, no Kubernetes keys. A Helm chart's `model:` has no `container`."""
    if root.kind != MAP or root.get("apiVersion") is not None or root.get("kind") is not None:
        return False
    base = root.get("base")  # an override file: `base` and its override_* / zip_override_* variants
    if base is not None and base.kind == MAP and any(isinstance(k, str) and k.startswith(("override_", "zip_override_"))
                                                     for k in root.value):
        return True
    model = root.get("model")
    if model is None or model.kind != MAP or model.get("path") is None or model.get("container") is None:
        return False
    return any(root.get(k) is not None and root.get(k).kind == MAP for k in ("resources", "roles"))


# CloudFormation's resource types whose templates adapters/cloudformation.py reads: a template holds one of them
CFN_SAGEMAKER = ("AWS::SageMaker::Model", "AWS::SageMaker::InferenceComponent")


def cloudformation_template(root: Node) -> bool:
    """A CloudFormation template with a SageMaker model: `Resources`, a mapping of resources, one of whose `Type`
    is CFN_SAGEMAKER, and no Kubernetes keys (a template's top level has none of them: Resources, Parameters,
    Mappings, Conditions, Outputs, ...)."""
    resources = root.get("Resources") if root.kind == MAP else None
    if resources is None or resources.kind != MAP or root.get("apiVersion") is not None or root.get("kind") is not None:
        return False
    return any(r.kind == MAP and scalar(r.get("Type")) in CFN_SAGEMAKER for r in resources.value.values())


# Adapters that read only files with a document of this shape (a test of its top-level keys). Most files are of
# none of them: testing the shape here spares each adapter's call, its result and its ScalarSpans.
SHAPES = {"akash_sdl": akash_sdl, "truss": truss_config, "dstack": dstack_config, "compose": compose_file,
          "skypilot": skypilot_task, "engine_files": engine_config, "ray_serve": ray_serve_config,
          "srt_recipe": srt_recipe, "cloudformation": cloudformation_template}
# The shapes a document with both `apiVersion` and `kind` never has (each refuses one of them), and no shape is a
# document that is no mapping: a file of Kubernetes objects alone is not tested for them (Akash SDL has no such rule,
# nor engine_config, which takes a ConfigMap holding a llama-swap config; tests/adapters/test_kinds_shapes.py checks
# each function on generated documents).
UNLABELLED_SHAPES = frozenset({truss_config, dstack_config, compose_file, skypilot_task, ray_serve_config, srt_recipe,
                               cloudformation_template})


def handled_kinds() -> Dict[str, Tuple[str, ...]]:
    """API group -> kinds some custom-resource adapter reads (plus ctxlint's own manifest)."""
    out: Dict[str, Tuple[str, ...]] = {}
    for reads in CRD_KINDS.values():
        for group, kinds in reads:
            out[group] = tuple(dict.fromkeys(out.get(group, ()) + kinds))
    out["ctxlint"] = ("ModelDeployment",)
    return out


def present(loaded) -> Set[Tuple[str, str]]:
    """(API group, kind) of every Kubernetes-style object in the file."""
    found = set()
    for obj in objects(loaded):
        kind, api = scalar(obj.get("kind")), scalar(obj.get("apiVersion"))
        if isinstance(kind, str) and isinstance(api, str):
            found.add((api.split("/")[0], kind))
    return found


def reads_file(adapter: str, loaded, kinds_present: Iterable[Tuple[str, str]]) -> bool:
    """Whether `adapter` could find anything in the file; True for adapters not listed here."""
    if loaded.shell or adapter in TEXTS:
        return loaded.shell and adapter == text_adapter(loaded)
    marker = TEXT_MARKERS.get(adapter)
    if marker is not None:
        return marker in loaded.text
    shape = SHAPES.get(adapter)
    if shape is not None:
        return _has_shape(loaded, shape)
    reads = CRD_KINDS.get(adapter)
    if reads is None:
        gate = GATES.get(adapter)
        return gate is None or gate(Outline(loaded))
    if any(kind in kinds and group.endswith(suffix)
           for group, kind in kinds_present for suffix, kinds in reads):
        return True
    return adapter in READS_VALUES and _values_file(loaded)


def selected(names: Iterable[str], loaded) -> Tuple[str, ...]:
    """The adapters of `names` that `reads_file` accepts for this file, in order: each (group,
    kind) present is matched against every adapter's groups once per run, not once per adapter
    per file (reads_file, the oracle of the tests, scans them for each of the 23 adapters). Each kind of test
    is asked only of the adapters it decides (the plan's lists), then the chosen ones are put in order: a chain of
    tests for every one of 30 adapters was ~1.4% of a run's bytecodes."""
    if loaded.shell:
        which = text_adapter(loaded)
        return (which,) if which in names else ()
    plan = _plan(names if type(names) is tuple else tuple(names))
    outline = Outline(loaded)
    chosen: Set[str] = set(plan.always)
    for pair in outline.pairs:
        chosen |= _pair_readers(pair)
    if plan.values and _values_file(loaded):
        chosen.update(plan.values)
    for name, marker in plan.markers:
        if marker in loaded.text:
            chosen.add(name)
    # Kubernetes objects alone (most files): only the shapes such a document may have
    for name, shape in plan.labelled_shapes if outline.labelled else plan.shapes:
        if _has_shape(loaded, shape):
            chosen.add(name)
    for name, gate in plan.gates:
        if gate(outline):
            chosen.add(name)
    if len(plan.index) < len(plan.order):  # a name given twice is chosen twice
        return tuple(name for name in plan.order if name in chosen)
    if len(chosen) == 1:  # most files: one adapter (or none, below)
        name = next(iter(chosen))
        return (name,) if name in plan.index else ()
    found = [name for name in chosen if name in plan.index]  # a custom-resource adapter may be none of `names`
    found.sort(key=plan.index.__getitem__)
    return tuple(found)


class _Plan:
    """How `selected` tests the adapters of a tuple of names: `order`, the names it may choose, in order (shell
    and unit adapters left out), `index` each one's place; the custom-resource adapters among them are chosen by the kinds present (those
    not among `names` never reach the result), those of `values` by a values file too; (name, marker) a text
    marker, (name, shape) a shape (`labelled_shapes`: those a file of labelled documents alone is tested for),
    (name, gate) a gate of the file's outline; `always` taken."""
    __slots__ = ("order", "index", "values", "markers", "shapes", "labelled_shapes", "gates", "always")

    def __init__(self, names: Tuple[str, ...]) -> None:
        self.order = tuple(name for name in names if name not in TEXTS)
        self.index = {name: k for k, name in enumerate(self.order)}
        self.values = tuple(name for name in self.order if name in CRD_KINDS and name in READS_VALUES)
        self.markers = tuple((name, TEXT_MARKERS[name]) for name in self.order if name in TEXT_MARKERS)
        self.shapes = tuple((name, SHAPES[name]) for name in self.order
                            if name in SHAPES and name not in TEXT_MARKERS)
        self.labelled_shapes = tuple((name, shape) for name, shape in self.shapes if shape not in UNLABELLED_SHAPES)
        self.gates = tuple((name, GATES[name]) for name in self.order
                           if name in GATES and name not in TEXT_MARKERS and name not in SHAPES
                           and name not in CRD_KINDS)
        self.always = tuple(name for name in self.order if not (
            name in TEXT_MARKERS or name in SHAPES or name in CRD_KINDS or name in GATES))


_PLANS: Dict[Tuple[str, ...], _Plan] = {}


def _plan(names: Tuple[str, ...]) -> _Plan:
    """The plan of `selected` for a tuple of names, worked out once per tuple (a run has one, ADAPTERS): asking
    the tables of each of 30 adapters for every file was most of the selection."""
    plan = _PLANS.get(names)
    if plan is None:
        plan = _Plan(names)
        if len(_PLANS) < 64:  # bounded: a caller may pass any selection of names
            _PLANS[names] = plan
    return plan


_PAIR_READERS: Dict[Tuple[str, str], FrozenSet[str]] = {}


def _pair_readers(pair: Tuple[str, str]) -> FrozenSet[str]:
    """The custom-resource adapters that read objects of this (API group, kind)."""
    found = _PAIR_READERS.get(pair)
    if found is None:
        group, kind = pair
        found = frozenset(adapter for adapter, reads in CRD_KINDS.items()
                          if any(kind in kinds and group.endswith(suffix) for suffix, kinds in reads))
        if len(_PAIR_READERS) < 4096:  # a file of made-up kinds must not grow it without bound
            _PAIR_READERS[pair] = found
    return found


def _has_shape(loaded, shape) -> bool:
    return any(shape(doc.root) for doc in loaded.documents)


def _labelled(root: Node) -> bool:
    """A document no shape of UNLABELLED_SHAPES matches: one with `apiVersion` and `kind`, or no mapping."""
    return root.kind != MAP or root.get("apiVersion") is not None and root.get("kind") is not None


def _values_file(loaded) -> bool:
    if len(loaded.documents) != 1 or loaded.documents[0].root.kind != MAP:
        return False
    root = loaded.documents[0].root
    return root.get("apiVersion") is None and root.get("kind") is None
