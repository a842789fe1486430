"""The one normalized deployment model that every input format is adapted into.

Rules see only these classes. Every value that came from a file is wrapped in a
`Val`, which remembers where it came from (file, line, column, logical path), so a
rule can point a finding at the exact scalar without knowing the input format.
"""
from __future__ import annotations

from typing import Any, Callable, Generic, Iterable, Optional, Tuple, TypeVar

from .records import field, record

T = TypeVar("T")

UNIFIED, PREFILL, DECODE = "unified", "prefill", "decode"
ROLE_NAMES = (UNIFIED, PREFILL, DECODE)
_SPLIT = (PREFILL, DECODE)


@record(frozen=True, order=True)
class Source:
    """Where a value sits: 1-based line and column of its first character."""

    file: str
    line: int
    col: int
    path: str = ""  # logical path, e.g. spec.serving.roles[0].kv_pool_tokens
    end_line: int = 0
    end_col: int = 0  # exclusive; 0 when unknown


@record(frozen=True)
class Val(Generic[T]):
    """A value together with the place it was read from."""

    value: T
    source: Source
    raw: str = ""  # the text as written, when it differs from str(value) (e.g. "1Mi")

    def show(self) -> str:
        """The value as a user wrote it, for messages."""
        if self.raw == "default":  # filled in from the engine's own default (ctxlint.capacity)
            return f"{fmt(self.value)} (the engine's default)"
        if self.raw and self.raw != str(self.value):
            return f"{self.raw} (= {fmt(self.value)})"
        return fmt(self.value)


class _PlacedOnRead:
    """`Val.source` of a Val made by `Val.later`: its place is found on the first read, then kept as a plain field.
    A run states ~7 engine settings a role and reports on few of them, and finding each one's place (aligning
    its characters in a list item or a script) was ~4% of a tree run. Non-data: a Val made by __init__ holds its
    source in its own dict, which Python reads first."""

    __slots__ = ()

    def __get__(self, val: Any, cls: Any = None) -> Any:
        if val is None:
            return self
        place = val.__dict__
        try:
            found = place.pop("_place")
        except KeyError:
            raise AttributeError("source") from None
        source = place["source"] = found()
        return source


Val.source = _PlacedOnRead()  # type: ignore[assignment,misc]  # after @record, which took the annotations


def placed_later(value: T, place: Callable[[], Source], raw: str = "") -> Val[T]:
    """Val(value, place(), raw), `place()` called only when the Val's source is first read (by a rule that
    reports the value, a comparison, a hash, a copy or a pickle). `place` must give the same Source whenever it
    is called: it may be called after its caller's state has moved on."""
    val = object.__new__(Val)
    fields_ = val.__dict__
    fields_["value"], fields_["_place"], fields_["raw"] = value, place, raw
    return val


def _state(val: Val) -> dict:
    """What pickles and copies a Val: its fields, its place found first (the function finding it may not pickle)."""
    return {"value": val.value, "source": val.source, "raw": val.raw}


Val.__getstate__ = _state  # type: ignore[attr-defined]


def fmt(value: object) -> str:
    """Format token counts with thousands separators, everything else as is."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def value_of(val: Optional[Val[T]]) -> Optional[T]:
    return None if val is None else val.value


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
class Pool:
    """The KV-cache capacity of one replica of a role, in tokens.

    `origin` is "declared" when the deployment states it, "derived" when the
    capacity physics computed it; `explanation` carries the arithmetic.
    """

    tokens: int
    source: Source
    origin: str = "declared"
    explanation: str = ""  # for derived pools: the arithmetic, one line
    low: Optional[int] = None  # derived pools: the band of the estimate (None: exact)
    high: Optional[int] = None
    # What ONE request can hold: the pool less what the engine keeps back from every request (vLLM's
    # null block; for a derived pool also the window layers and per-request state the physics counts).
    # None: the whole pool. `held_low`/`held_high`: the same at the band's ends. Promises are held
    # against these; messages show the pool as the engine logs it and `reserve` says what is kept back.
    held: Optional[int] = None
    held_low: Optional[int] = None
    held_high: Optional[int] = None
    reserve: str = ""  # e.g. "one 16-token block is vLLM's null block"
    # A derived pool: the pool `reserve` is taken from (held + reserve), when it is not `tokens`: an unknown vLLM
    # release's fold takes its point pool and its longest request from different releases (physics/releases.py)
    reserve_of: Optional[int] = None
    # A logged vLLM figure of a model with window layers, read as its release logs it
    # (ctxlint.physics.logged.Reading): held/held_low/held_high come from it, and messages say how it was read.
    logged: Any = None

    @property
    def banded(self) -> bool:
        return self.low is not None and self.high is not None and self.low != self.high

    @property
    def ceiling(self) -> int:
        """The most this pool can plausibly be: an error needs a promise above it."""
        return self.high if self.high is not None else self.tokens

    @property
    def floor(self) -> int:
        """The least it can be: a promise at or below it fits whatever the estimate's error."""
        return self.low if self.low is not None else self.tokens

    @property
    def request(self) -> int:
        """The most one request can hold at the estimate's point (the pool less the engine's reserve)."""
        return self.tokens if self.held is None else self.held

    @property
    def request_ceiling(self) -> int:
        """The most one request can hold at the band's top: a promise above it is an error."""
        if self.held is None:
            return self.ceiling
        return self.held_high if (self.banded or self.logged is not None) and self.held_high is not None else self.held

    @property
    def request_floor(self) -> int:
        """The most one request can hold at the band's low end: a promise at or below it fits."""
        if self.held is None:
            return self.floor
        return self.held_low if (self.banded or self.logged is not None) and self.held_low is not None else self.held

    def request_band(self) -> str:
        low, high = self.request_floor, self.request_ceiling
        return f"{fmt(low)}-{fmt(high)}" if low != high else fmt(high)

    def holds(self) -> str:
        """', which holds at most N tokens for one request (why)' when the engine keeps part of the pool
        back, else '': said wherever a promise is held against the smaller figure."""
        if self.logged is not None:  # a logged figure one request may hold more of than it says
            held = self.request_band() if self.request_floor != self.request_ceiling else fmt(self.request_ceiling)
            return f", which holds {'at most ' if '-' not in held else ''}{held} tokens for one request " \
                   f"({self.logged.text})"
        if self.held is None or self.request_ceiling >= self.ceiling:
            return ""
        if self.request_floor != self.request_ceiling:  # `reserve` is what the point keeps back: its own sum
            why = f" ({self.reserve_text()})" if self.reserve else ""
            return f", which holds {fmt(self.request)} tokens for one request at the estimate's point{why} and " \
                   f"at most {fmt(self.request_ceiling)} at the top of its band"
        why = f" ({self.reserve})" if self.reserve else ""
        return f", which holds at most {fmt(self.request_ceiling)} tokens for one request{why}"

    def reserve_text(self) -> str:
        """`reserve` with the pool it is taken from, so that its figures add up to it with `request`."""
        base = self.tokens if self.reserve_of is None else self.reserve_of
        if self.request <= 0:  # a point that holds nothing: what is kept back exceeds it, no sum to state
            return self.reserve
        whose = "its " if base == self.tokens else ""
        other = "" if base == self.tokens else ", the pool of the release the longest request follows"
        return f"of {whose}{fmt(base)}{other}: {self.reserve}"

    @property
    def unsure(self) -> bool:
        """What one request holds is a band: a derived pool's estimate, or a logged figure whose reading
        depends on what is not known (the vLLM release, the device's default batch, rounding)."""
        return self.banded or (self.logged is not None and self.request_floor != self.request_ceiling)

    def band(self) -> str:
        return f"{fmt(self.floor)}-{fmt(self.ceiling)}" if self.banded else fmt(self.tokens)

    def describe(self) -> str:
        if self.origin == "derived" and self.explanation:
            band = f"; band {self.band()}" if self.banded else ""
            return f"{fmt(self.tokens)} ({self.explanation}{band})"
        return f"{fmt(self.tokens)} ({self.origin})"


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
    # a variable only that vendor's stack reads ("amd", "gaudi", "tpu", "intel"), where: with no device resource
    # to say so, which devices CTX208 gives verdicts for (physics/needs.py _vendor_devices).
    vendor: Optional[Val[str]] = None
    # The GKE compute class the pod selects that names no device ctxlint can read, at the selector's value, with
    # why in `raw` (adapters/compute_classes.py): CTX208 says which class to state, or where.
    device_class: Optional[Val[str]] = None

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
    """Roles as messages list them: their labels (distinct within a deployment: adapters name roles alike
    by where they start, 'unified (line 36)'), each followed by `each(role)` when given."""
    return ", ".join(f"{r.label} {each(r)}" if each is not None else r.label for r in roles)


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
