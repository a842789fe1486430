"""srt-slurm recipes: the YAML `srtctl apply -f` turns into disaggregated (or aggregated) serving on Slurm.

Read from srtctl's own code, NVIDIA/srt-slurm@c88ef731636890ff6385a783e152c1790e15b194 (schema 1) and
SemiAnalysisAI/srt-slurm@a2b7ebc3a442da93901b6b3291e3fcc6c6199ac0 (schema 2, `roles:` and `engine:`):

* the engine is `backend.type` (schema 2: `engine:`, a name or a mapping with `type`), SGLang when absent
  (core/schema.py BackendConfigField); a mocker or another engine ctxlint does not model is no deployment;
* each role's engine flags are `backend.<engine>_config.{prefill,decode,aggregated}` (schema 2:
  `roles.<role>.args`). SGLang's and vLLM's become command-line flags, `--key value` with `_` read as `-`
  (backends/sglang.py and backends/vllm.py `_config_to_cli_args`; a switch as srt_args.py reads the words it
  gets: a string after it is refused); TRT-LLM's are written as the YAML of its
  LLM-API options (backends/trtllm.py build_worker_command) — all three read here as the engine's config keys.
  srtctl passes the model, `--served-model-name`, ports and multi-node flags itself: SGLang's
  `model-path`/`served-model-name`/`nccl-port` keys are dropped (sglang.py build_worker_command), as are
  vLLM's topology keys (docs/config-reference.md "Topology-managed vllm_config keys"). The role is the section:
  srtctl adds `--disaggregation-mode prefill|decode` itself. `backend.<mode>_environment` (schema 2:
  `roles.<role>.env`) is the role's environment;
* workers and GPUs per worker: srt_layout.py; the GPU is `resources.gpu_type`;
* the model: srt_model.py (`hf:<id>`, identity.model.repo, a path, or a cluster alias's served-model-name), with
  `model.precision` passed on as what the recipe says of the checkpoint's format (resolution/stated_format.py);
* the engine's release is `identity.frameworks.<package>` (the version srtctl checks the installed package
  against), else what `model.container` names when it is an image of the engine (a Dynamo runtime image names the
  release Dynamo lists for its tag, engines/dynamo_images.py; a container alias, a `.sqsh` file or an unlisted
  Dynamo tag names none: a value only some releases refuse is then a CTX301 warning that says so,
  release_unknown.py's policy).

A recipe with a `sweep:` (core/sweep.py generate_sweep_configs: one job per combination of its lists, each
`{name}` in a string replaced by that job's value) is one deployment a job that serves differently (srt_sweep.py);
past srt_sweep.MOST_JOBS it is read once: a setting holding a `{name}` of the sweep is not known (CTX008 lists it
with the sweep's values), and a parallel size so written withholds the GPU type, as a parallel size written as an
unset variable does elsewhere (CTX208 says so rather than guess a layout).
An override file (`base:` with `override_*` / `zip_override_*` variants: docs/overrides.md) is one deployment a
variant, as srtctl merges it (srt_overrides.py).
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.engine_roles import PARALLEL_SETTINGS, role_facts
from ctxlint.adapters.kinds import srt_recipe as recipe_shape
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.srt_args import stray_refused, switch_words
from ctxlint.adapters.srt_layout import RoleLayout, layouts, refused_count
from ctxlint.adapters.srt_model import model_of
from ctxlint.adapters.srt_overrides import expansion_refused, is_override_file, variants
from ctxlint.adapters.srt_sweep import sweep_jobs
from ctxlint.adapters.workload import ENGINE_REJECTS, EngineRole, Workload
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.adapters.workload_versions import image_release
from ctxlint.engines import apply_config, parse_invocation
from ctxlint.engines.config import config_key
from ctxlint.engines.nightly_build import sglang_build
from ctxlint.engines.specs import spec_for
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile
from ctxlint.model import DECODE, PREFILL, UNIFIED, Accelerators, Role, Source, Val
from ctxlint.nodes import MAP, SCALAR, Node, dotted_sources

NAME = "srt-slurm"
SCHEMA_VIOLATION = "schema-violation"  # CTX002: what srtctl refuses to run
_KIND = {"prefill": PREFILL, "decode": DECODE, "agg": UNIFIED}
# backend.type -> (ctxlint's engine, its config key); roles.py ENGINE_CONFIG_KEY
_ENGINES = {"sglang": ("sglang", "sglang_config"), "vllm": ("vllm", "vllm_config"),
            "trtllm": ("trtllm", "trtllm_config")}
# Keys srtctl sets itself or strips before the engine sees them (see the module's docstring).
_OWNED = {"sglang": {"model-path", "served-model-name", "nccl-port"},
          "vllm": {"headless", "host", "port", "master-addr", "nnodes", "node-rank", "model"},
          "trtllm": set()}
_FRAMEWORK_KEYS = {"sglang": "sglang", "vllm": "vllm", "trtllm": "tensorrt_llm"}
_RELEASE = re.compile(r"v?\d+(\.\d+)+((rc|a|b)\d+)?(\.post\d+)?$")  # a release as published, no .dev, no +local
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")  # core/sweep.py expand_template's `{name}`


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    workloads: List[Workload] = []
    spans = ScalarSpans(loaded.path, loaded.text)
    for doc in loaded.documents:
        refused = expansion_refused(doc.root) if is_override_file(doc.root) else None
        if refused is not None:  # `srtctl apply -f` raises before it submits any variant
            why, section = refused
            result.diagnostics.append(Diagnostic(
                SCHEMA_VIOLATION, f"srtctl refuses to expand this override file: {why} (core/config.py "
                "generate_override_configs), so `srtctl apply -f` submits none of its variants and none is checked",
                section.source(loaded.path), None))
        for root in variants(doc.root) if is_override_file(doc.root) else sweep_jobs(doc.root) or [doc.root]:
            if not recipe_shape(root):
                continue  # a variant missing `model` or `resources` is refused by srtctl's schema
            workload = _recipe(root, loaded.path, spans, result)
            if workload is not None:
                workloads.append(workload)
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _map(node: Optional[Node], key: str) -> Optional[Node]:
    child = node.get(key) if node is not None and node.kind == MAP else None
    return child if child is not None and child.kind == MAP else None


def _text(node: Optional[Node]) -> Optional[str]:
    value = node.value if node is not None and node.kind == SCALAR else None
    return value.strip() if isinstance(value, str) and value.strip() else None


def _engine(root: Node, file: str) -> Optional[Val[str]]:
    """srtctl's backend type, where it is written (SGLang by default, at the recipe's top)."""
    engine, backend = root.get("engine"), _map(root, "backend")
    node = engine.get("type") if engine is not None and engine.kind == MAP else engine
    if node is None and backend is not None:
        node = backend.get("type")
    if node is None:
        return Val("sglang", root.source(file), raw="srtctl's default backend")
    name = _text(node)
    return Val(name, node.source(file)) if name is not None else None


def _mode_config(root: Node, layout: RoleLayout, config_key_name: str) -> Optional[Node]:
    spec = _map(_map(root, "roles"), layout.role)
    if spec is not None:
        return _map(spec, "args")
    return _map(_map(_map(root, "backend"), config_key_name), layout.mode)


def _mode_env(root: Node, layout: RoleLayout) -> Optional[Node]:
    spec = _map(_map(root, "roles"), layout.role)
    if spec is not None:
        return _map(spec, "env")
    return _map(_map(root, "backend"), f"{layout.mode}_environment")


def _recipe(root: Node, file: str, spans: ScalarSpans, result: AdaptResult) -> Optional[Workload]:
    engine = _engine(root, file)
    if engine is None or engine.value not in _ENGINES:
        return None
    name, config_name = _ENGINES[engine.value]
    engine = Val(name, engine.source, raw=engine.raw)
    refused = refused_count(root, file)
    if refused is not None:  # marshmallow refuses the count: load_config raises and no worker starts
        result.diagnostics.append(Diagnostic(
            SCHEMA_VIOLATION, f"srtctl refuses this recipe: {refused[0]} (core/schema.py ResourceConfig reads its "
            "counts as marshmallow Integer: int(value), a bool refused), so `srtctl apply -f` runs nothing and "
            "nothing is checked", refused[1], None))
        return None
    model_node = _map(root, "model")
    precision = model_node.get("precision")
    if precision is None or precision.kind != SCALAR or not isinstance(precision.value, str):
        # core/schema.py ModelConfig `precision: str`, no default: marshmallow's String, required, not nullable
        why = ("is missing: Missing data for required field." if precision is None else
               "is null: Field may not be null." if precision.kind == SCALAR and precision.value is None else
               f"{precision.value if precision.kind == SCALAR else 'a ' + ('mapping' if precision.kind == MAP else 'list')!r}: "
               "Not a valid string.")
        result.diagnostics.append(Diagnostic(
            SCHEMA_VIOLATION, f"srtctl refuses this recipe: model.precision {why} (core/schema.py ModelConfig "
            "requires it as a string), so `srtctl apply -f` runs nothing and nothing is checked",
            (precision or model_node).source(file), None))
        return None
    container = model_node.get("container")
    image = _text(container)
    version = _framework(root, name, file)
    release = image_release(name, image) if image is not None and version is None else None
    version = Val(release, container.source(file), raw=image) if release is not None else version
    commit = sglang_build(image) if version is None and engine.value == "sglang" else None
    build = Val(commit, container.source(file), raw=image) if commit else None
    gpu = _text(_map(root, "resources").get("gpu_type")) if _map(root, "resources") is not None else None
    gpu_type = Val(gpu, _map(root, "resources").get("gpu_type").source(file)) if gpu is not None else None
    found = [(layout, _mode_config(root, layout, config_name)) for layout in layouts(root, file)]
    model, unresolved, stated = model_of(root, model_node, [cfg for _, cfg in found], file, spans, name, config_name)
    sweep, front = _sweep(root), _text(_map(root, "frontend").get("type")) if _map(root, "frontend") else None
    roles = []
    for layout, config in found:
        swept: List[Tuple[str, Source]] = []
        role = _role(engine.value, layout, config, _mode_env(root, layout), file, result, gpu_type, sweep, swept,
                     front or "dynamo", _release_of(engine.value, version, image))
        roles.append(EngineRole(role, engine, version, model, unresolved=list(unresolved) + swept,
                                stated_format=stated, build=build))
    if not roles:
        return None
    title = _text(root.get("name"))
    return Workload(name=Val(title, root.get("name").source(file)) if title is not None else None,
                    source=root.source(file), input_format=NAME, roles=roles)


def _framework(root: Node, engine: str, file: str) -> Optional[Val[str]]:
    """`identity.frameworks.<package>`: the engine's release the recipe expects, which srtctl checks against the
    installed package at run time (core/fingerprint.py FRAMEWORK_PACKAGES: vllm, sglang, tensorrt_llm)."""
    node = _map(_map(root, "identity"), "frameworks")
    node = node.get(_FRAMEWORK_KEYS[engine]) if node is not None else None
    text = str(node.value).strip() if node is not None and node.kind == SCALAR and node.value is not None else ""
    if not text or not _RELEASE.match(text):
        # a source build is no release: `0.1.dev17492+g454b47db8` is setuptools-scm's fallback for a checkout
        # without tags, `0.23.1rc1.dev424+g3f5a1e173` a commit between releases (NVIDIA/srt-slurm-recipes' MiniMax-M3
        # recipes): which release's defaults and models it has is not known
        return None
    return Val(text, node.source(file), raw=f"identity.frameworks.{_FRAMEWORK_KEYS[engine]}")


def _release_of(engine: str, version: Optional[Val[str]], image: Optional[str]) -> Tuple[Optional[str], Optional[str]]:
    """(the engine's release the recipe names, or None with why that unknown release need not be the newest), for
    CTX301's policy at an unknown release (engine_refusals.refusal, release_unknown.py). A bare `model.container` is an
    alias of the cluster's srtslurm.yaml `containers` (NVIDIA/srt-slurm@c88ef731:src/srtctl/core/config.py
    resolve_config_with_defaults), a `.sqsh` file a squashfs image: neither names a release."""
    if version is not None:
        return str(version.value), None
    if image is None:
        return None, None
    if image.endswith(".sqsh"):
        return None, f"model.container {image!r} is a squashfs image, whose file name numbers no {engine} release"
    if "/" not in image and "#" not in image:
        return None, (f"model.container {image!r} is an alias of the cluster's srtslurm.yaml `containers`, which "
                      "this file does not hold")
    from ctxlint.engines.release_unknown import why_unknown  # only an unknown release's refusal asks

    return None, why_unknown(engine, image.replace("#", "/", 1))  # enroot's `registry#image` is `registry/image`


def _sweep(root: Node) -> Dict[str, str]:
    """The sweep's parameters -> their values as written (`[1, 2, 4, 8]`)."""
    sweep = _map(root, "sweep")
    return {str(k): str(v.plain()) for k, v in sweep.value.items()} if sweep is not None else {}


def _swept(value: Any, sweep: Dict[str, str]) -> Optional[str]:
    """The sweep parameter a value holds as `{name}`, if any."""
    if not sweep or not isinstance(value, str):
        return None
    return next((m.group(1) for m in _PLACEHOLDER.finditer(value) if m.group(1) in sweep), None)


def _role(engine: str, layout: RoleLayout, config: Optional[Node], env_node: Optional[Node], file: str,
          result: AdaptResult, gpu_type: Optional[Val[str]], sweep: Dict[str, str],
          swept: List[Tuple[str, Source]], front: str,
          release: Tuple[Optional[str], Optional[str]] = (None, None)) -> Role:
    sources: Dict[str, Source] = {}
    data: Dict[str, Any] = {}
    owned = _OWNED[engine]
    launcher = "trtllm-serve" if engine == "trtllm" else f"dynamo.{engine}"
    spec = spec_for(engine, launcher, "serve")
    unknown: List[str] = []
    for key, value in (config.value.items() if config is not None else ()):
        if str(key).replace("_", "-") in owned:
            continue
        param = _swept(value.value if value.kind == SCALAR else None, sweep)
        if param is not None:  # one value per job of the sweep: none of them is this recipe's
            swept.append((f"{key} {value.value!r} (sweep {param}: {sweep[param]})", value.source(file)))
            unknown.append(config_key(spec, str(key))[1] or str(key))
            continue
        data[key] = value.plain()
        sources[str(key)] = value.source(file)
        sources.update(dotted_sources(value, lambda n: n.source(file), f"{key}."))
    if engine == "trtllm" and front != "trtllm_serve" and "backend" not in data:
        # srtctl's default frontend starts `python3 -m dynamo.trtllm --extra-engine-args <config>` (NVIDIA/srt-slurm@
        # 02600fc43bd46abb3b69c68f2d13671533687eb0:src/srtctl/backends/trtllm.py build_worker_command), whose worker
        # builds the LLM with backend "pytorch" unless the config says otherwise (flags_trtllm.DYNAMO_SPEC): at a
        # release before 1.0 it is no TensorRT engine, as trtllm-serve's default would be (physics/trt_warmup.py)
        data["backend"] = "pytorch"
        sources["backend"] = config.source(file) if config is not None else layout.source
    kind = _KIND[layout.role]
    section = layout.mode
    if kind != UNIFIED and engine == "trtllm" and front == "trtllm_serve":
        # trtllm-serve workers have no role flag: the orchestrator's ser.yaml lists them (trtllm.py), as
        # context_servers (prefill) and generation_servers (decode) of `trtllm-serve disaggregated`
        section = "context_servers" if kind == PREFILL else "generation_servers"
    elif kind != UNIFIED and not any(k in data for k in ("disaggregation-mode", "disaggregation_mode")):
        # srtctl passes `--disaggregation-mode prefill|decode` to every non-aggregated worker itself
        # (sglang.py, vllm.py and trtllm.py build_worker_command); a value in the config comes after it and wins
        data["disaggregation-mode"] = layout.mode
        sources["disaggregation-mode"] = config.source(file) if config is not None else layout.source
    env: Dict[str, str] = {}
    for key, value in (env_node.value.items() if env_node is not None else ()):
        if value.kind == SCALAR and value.value is not None and not isinstance(value.value, (dict, list)):
            env[str(key)] = str(value.value).lower() if isinstance(value.value, bool) else str(value.value)
            sources[str(key)] = value.source(file)
    # SGLang's and vLLM's config become flags (srt_args.py): its switches are read as the words srtctl passes
    data, words, flag_keys = switch_words(spec, data) if engine != "trtllm" else (data, [], {})
    sources.update({word: sources[key] for word, key in flag_keys.items()})
    inv = stray_refused(parse_invocation(engine, words, env, launcher, "serve", 0), words, flag_keys)
    inv = apply_config(inv, data, file, by_release=False)
    fallback = config.source(file) if config is not None else layout.source

    def where(setting) -> Source:
        return sources.get(setting.flag_spelling or "", fallback)  # a config key, or an env var's name

    for problem in inv.errors:  # a value the engine refuses: it would not start
        from ctxlint.adapters.engine_refusals import refusal, unsure  # only a refused value asks

        key = next((k for k in sources if problem.flag and config_key(spec, k)[1] == problem.flag), "")
        text = refusal(engine, release[0], problem, unknown=release[1])
        if text is not None:  # a refusal of some releases only, at one that cannot be known: a warning
            result.diagnostics.append(Diagnostic(ENGINE_REJECTS, text, sources.get(key, fallback), None,
                                                 severity="warning" if unsure(release[0], problem, release[1])
                                                 else None))
    facts = role_facts(inv, where)
    # the engine's own variables set in the role's environment (SGLANG_OPT_USE_ONLINE_COMPRESS, ...), under their
    # names at the value, as workload_config.engine_env_args gives them for a container's env
    env_args = tuple((name, Val(value, sources[name], raw=value)) for name, value in inv.engine_env.items()
                     if name in sources)
    # a swept parallel size: how the worker's GPUs are used is not known, so neither is the pool per GPU
    withheld = gpu_type if any(name in PARALLEL_SETTINGS for name in unknown) else None
    return Role(role=Val(kind, fallback, raw=section), replicas=layout.workers,
                context_length=facts.context_length, kv_pool_tokens=facts.kv_pool_tokens,
                kv_cache_dtype=facts.kv_cache_dtype, parallelism=facts.parallelism,
                accelerators=Accelerators(type=None if withheld else gpu_type, count=None if withheld else layout.gpus),
                source=fallback,
                name=kind, engine_args=facts.engine_args + env_args, draft_layers=facts.draft_layers,
                accelerator_withheld=withheld, unresolved_settings=tuple(dict.fromkeys(unknown)))
