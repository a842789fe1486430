"""The one normalized deployment model that every input format is adapted into.

Rules see only these classes. Every value that came from a file is wrapped in a
`Val`, which remembers where it came from (file, line, column, logical path), so a
rule can point a finding at the exact scalar without knowing the input format.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Optional, Tuple

from .model_pool import Pool  # noqa: F401  (re-exported: rules and adapters import it from here)
from .records import field, record
from .vals import Source, Val, fmt, placed_later, value_of  # noqa: F401  (re-exported, as Pool)

UNIFIED, PREFILL, DECODE = "unified", "prefill", "decode"
ROLE_NAMES = (UNIFIED, PREFILL, DECODE)
_SPLIT = (PREFILL, DECODE)


@record(frozen=True)
class ModelFacts:
    id: Optional[Val[str]] = None
    max_position_embeddings: Optional[Val[int]] = None
    rope_scaling_factor: Optional[Val[float]] = None
    config_path: Optional[Val[str]] = None  # a Hugging Face config.json, relative to the manifest
    architecture: Tuple[Tuple[str, Val[Any]], ...] = ()  # inline architecture facts (override the rest)
    stated_format: Optional["StatedFormat"] = None  # a weight format the file states beside the model's name


@record(frozen=True)
class StatedFormat:
    """What a deployment file says of its checkpoint's weight format apart from the model's name (an srt-slurm
    recipe's `model.precision`), for the resolver (resolution/stated_format.py) to weigh against the model's own."""

    word: Optional[Val[str]]  # as written (`fp4`), None when the file does not say
    checkpoint_named: bool  # the model's id names the checkpoint itself (hf:<id>), not only its architecture
    field: str = "model.precision"
    quantization: Optional[str] = None  # the engine's --quantization, which quantizes a 16-bit checkpoint as it loads


@record(frozen=True)
class Advertised:
    """What clients are promised (API docs, model catalog)."""

    context_window: Optional[Val[int]] = None
    max_output_tokens: Optional[Val[int]] = None


@record(frozen=True)
class Gateway:
    """Limits enforced in front of the engine."""

    max_prompt_tokens: Optional[Val[int]] = None


@record(frozen=True)
class Engine:
    name: Optional[Val[str]] = None
    version: Optional[Val[str]] = None
    # With no version: why the release that runs need not be the engine's newest (release_unknown.why_unknown's
    # clause), or None when it is; what the deployment-level CTX301 checks (LMDeploy's) weigh a refusal by.
    release_unknown: Optional[str] = None
    # With no version: the commit the image's tag names (engines.nightly_build), where physics read that build
    build: Optional[Val[str]] = None


@record(frozen=True)
class Accelerators:
    type: Optional[Val[str]] = None
    count: Optional[Val[int]] = None
    # The device-plugin resource counted (`amd.com/gpu`) when the count no longer sits at that resource's key (a
    # Ray cluster's GPUs summed over its pods, or stated by `num-gpus`); else the count's own key says it.
    resource: Optional[str] = None


@record(frozen=True)
class Parallelism:
    tensor: Optional[Val[int]] = None
    pipeline: Optional[Val[int]] = None
    data: Optional[Val[int]] = None

    @property
    def tp(self) -> int:
        return _size(self.tensor)

    @property
    def pp(self) -> int:
        return _size(self.pipeline)

    @property
    def dp(self) -> int:
        return _size(self.data)

    @property
    def gpus(self) -> int:
        """GPUs one engine instance uses: tensor x pipeline x data (unset sizes are 1)."""
        return self.tp * self.pp * self.dp


def _size(val: Optional[Val[int]]) -> int:
    return val.value if val is not None and isinstance(val.value, int) and val.value > 0 else 1


@record(frozen=True)
class Role:
    """One serving role: unified, prefill or decode."""

    role: Val[str]
    replicas: Optional[Val[int]] = None
    context_length: Optional[Val[int]] = None
    kv_pool_tokens: Optional[Val[int]] = None
    kv_cache_dtype: Optional[Val[str]] = None
    accelerators: Accelerators = Accelerators()
    parallelism: Parallelism = Parallelism()
    source: Optional[Source] = None  # the role as a whole (its first line)
    name: str = ""  # how messages name this role, e.g. 'prefill' or 'prefill #2'
    engine_args: Tuple[Tuple[str, Val[Any]], ...] = ()  # the engine's own settings, its own names
    available_kv_gib: Optional[Val[float]] = None  # KV budget per GPU as the engine logged it
    draft_layers: Optional[Val[int]] = None  # speculative-decoding draft layers that hold KV
    # Filled by the capacity stage:
    pool: Optional[Pool] = None
    capacity: Any = None  # ctxlint.physics.capacity.CapacityResult when derivable
    # The engine's own default when the deployment sets no context length
    # (ctxlint.physics.context.DefaultContext); context_length then holds its value.
    context_default: Any = None
    # vLLM's and SGLang's derived maximum for a RoPE-scaled model when the context length is set: they refuse
    # to start above it (DefaultContext; the trained positions stand in for models without RoPE scaling).
    context_limit: Any = None
    accelerator_assumed: str = ""  # the accelerator type came from the config, not the file: where
    # An engine default the derivation takes although a wrapper may set its own (NIM 2.x over vLLM): said in the
    # pool's account, so a derived pool never hides what it assumed.
    defaults_assumed: str = ""
    # An engine settings file the manifest does not hold (vLLM --config, TRT-LLM extra_llm_api_options):
    # any setting the command line leaves out may be set there, so no engine default stands for it.
    settings_unread: Optional[Val[str]] = None
    # The device the file states, set aside because a parallel size is not known: the pool per
    # device, and whether the weights fit one, depend on it (CTX208 says so instead of guessing).
    accelerator_withheld: Optional[Val[str]] = None
    # Settings written with a value ctxlint cannot know (`--max-model-len $(LEN)`), by the engine's names:
    # the engine does not use its default for them, so neither do the checks.
    unresolved_settings: Tuple[str, ...] = ()
    # The container's image is a CPU build and it asks for no accelerator (the image, where it is written).
    cpu_build: Optional[Val[str]] = None
    # The engine runs on AWS Neuron: what says so (a Neuron resource, instance type, image or variable), where.
    # Its KV pool follows the Neuron platform's rules (ctxlint.neuron), not the GPU physics.
    neuron: Optional[Val[str]] = None
    # The engine runs on another vendor's devices than NVIDIA's, by its image, its container runtime or devices, or
    # a variable only that vendor's stack reads, or the engine's own `--device` ("amd", "gaudi", "tpu", "intel",
    # "ascend"), where: with no device resource to say so, which devices CTX208 gives verdicts for
    # (physics/needs.py _vendor_devices).
    vendor: Optional[Val[str]] = None
    # The GKE compute class the pod selects that names no device ctxlint can read, at the selector's value, with
    # why in `raw` (adapters/compute_classes.py): CTX208 says which class to state, or where.
    device_class: Optional[Val[str]] = None
    # The Karpenter NodePool the pod selects that names no device, as device_class (adapters/karpenter_pools.py)
    device_pool: Optional[Val[str]] = None
    # The cloud VM size the file runs the role on (a KAITO `resource.instanceType`) when ctxlint does not record its
    # GPUs, at its value: CTX208 names it rather than saying no device is given (adapters/kaito_plan.unknown_vm).
    device_vm: Optional[Val[str]] = None
    # The pod is placed by a chart's own template that ctxlint does not read (an engine command line in the values
    # of a chart it has no reader for: adapters/values_commands.py): CTX208 says where the device can be stated.
    device_by_template: bool = False
    # The device is named by a KubeAI resourceProfile (a Model, or an entry of KubeAI's models chart catalog, which
    # the chart writes as a Model): no node selector places it, so CTX208 advises one of KubeAI's default profiles.
    device_by_profile: bool = False

    def arg(self, name: str) -> Optional[Val[Any]]:
        """The role's setting `name` (the first of that name in engine_args), or None."""
        kept = self.__dict__.get("_by_name")
        args = self.engine_args
        if kept is None or kept[0] is not args:  # none yet, or engine_args set anew (object.__setattr__)
            kept = _arg_index(self, args)
        index = kept[1]
        if index is not None and type(name) is str:
            return index.get(name)
        for key, val in args:  # a list (it may change), a pair that is no (name, Val), a name that is no str
            if key == name:
                return val
        return None

    def __getstate__(self) -> dict:
        """What pickles and copies a Role: its fields, not the index `arg` built (_arg_index)."""
        state = self.__dict__
        return {k: v for k, v in state.items() if k != "_by_name"} if "_by_name" in state else state

    @property
    def kind(self) -> str:
        return self.role.value

    @property
    def label(self) -> str:
        return self.name or self.role.value


def _arg_index(role: Role, args: Any) -> tuple:
    """`Role.arg`'s index: (the engine_args it was built from, their settings by name, the first of a name), kept
    in the instance's own dict under `_by_name`. ~14 `arg` calls a file scanned ~4 pairs each; a Role is asked ~5
    times. Not a field: equality, hashing, repr and replace() (which copies the fields alone when the instance
    holds more) never see it, and Role.__getstate__ leaves it out of pickles and copies. Only a tuple of pairs is
    indexed (a list may change after; an unhashable name cannot be a key): anything else is scanned as before,
    and the index is rebuilt when engine_args is another object than the one it was built from."""
    index = None
    if type(args) is tuple:
        try:
            index = dict(reversed(args))
        except (TypeError, ValueError):  # an unhashable name, an item that is no pair
            index = None
    kept = role.__dict__["_by_name"] = (args, index)
    return kept


def _within(where: Source, span: Source) -> bool:
    """A place inside a span of the same file (a role's, from its first line to its end)."""
    return where.file == span.file and (span.line, span.col) <= (where.line, where.col) \
        and (where.line, where.col) < (span.end_line or span.line, span.end_col or 10 ** 9)


def role_list(roles: Iterable[Role], each: Optional[Callable[[Role], str]] = None) -> str:
    """Roles as messages list them: their labels (adapters name roles alike by where they start, 'unified
    (line 36)'), each followed by `each(role)` when given, and each text once: a script function's launch is
    a role per call, all starting at the body's line (sweep 27: vLLM's benchmarks/auto_tune/auto_tune.sh,
    start_server called in a loop and after it, listed "unified (line 100, column 13)" twice)."""
    return ", ".join(dict.fromkeys(f"{r.label} {each(r)}" if each is not None else r.label for r in roles))


@record(frozen=True)
class Deployment:
    """One deployment: a model served by one engine in one or more roles."""

    file: str
    source: Source
    input_format: str  # "native", "kubernetes", ...
    name: Optional[Val[str]] = None
    model: ModelFacts = ModelFacts()
    advertised: Advertised = Advertised()
    gateway: Gateway = Gateway()
    engine: Engine = Engine()
    disaggregation: Optional[Val[str]] = None
    roles: Tuple[Role, ...] = ()
    labels: Tuple[Tuple[str, str], ...] = field(default=())
    pod_labels: Tuple[Tuple[str, str], ...] = ()  # the pod template's labels: what Services and pools select
    # The Services its operator creates for it, which no file holds (llmaz's `<name>-lb`): routes reach it by them
    service_names: Tuple[str, ...] = ()
    custom_accelerators: Tuple[Tuple[str, Any], ...] = ()  # name -> {memory_gib: ...}
    arch: Any = None  # ctxlint.physics.models.ModelArch, filled by the capacity stage
    resolution: Any = None  # ctxlint.resolution.resolve.Resolution: how the model was resolved

    @property
    def display_name(self) -> Optional[str]:
        return None if self.name is None else str(self.name.value)

    @property
    def disaggregated(self) -> bool:
        for r in self.roles:  # a loop over role.value, not any() over a generator of `kind`: ~3 calls a file
            if r.role.value in _SPLIT:
                return True
        return False

    @property
    def files(self) -> Tuple[str, ...]:
        """The files its values are written in: its own first, then its roles' and its model's (a KServe
        runtime, an OME base model or the other half of a pair in a sibling file), then those of its roles'
        engine settings (a ConfigMap of a sibling file that sets them), then those naming its devices (a GKE
        ComputeClass, whose `gpu.type` a finding about the device points at)."""
        found = [self.file] + [r.source.file for r in self.roles if r.source is not None]
        if self.model.id is not None:
            found.append(self.model.id.source.file)
        found += [val.source.file for r in self.roles for _, val in r.engine_args]
        found += [r.accelerators.type.source.file for r in self.roles if r.accelerators.type is not None]
        return tuple(dict.fromkeys(found))

    def model_source(self, role: Optional[Role]) -> Source:
        """Where the model a role serves is named: its own model argument, else the deployment's model unless
        that is written in another role (two launches in a script, a prefill and a decode LeaderWorkerSet),
        else the role itself. A per-role finding placed at the first role's model lands on the wrong workload."""
        if role is not None:
            from ctxlint.engines.parse import model_keys  # the engines' model settings; imported when asked

            for key in model_keys(self.engine.name.value if self.engine.name is not None else None):
                own = role.arg(key)
                if own is not None:
                    return own.source
        fallback = (role.source if role is not None else None) or self.source
        if self.model.id is None:
            return fallback
        where = self.model.id.source
        if role is not None and any(r.source is not None and r.source != role.source and _within(where, r.source)
                                    for r in self.roles):
            return fallback
        return where

    def roles_of(self, *kinds: str) -> Tuple[Role, ...]:
        return tuple([r for r in self.roles if r.role.value in kinds])
