"""Model resolution: one order of trust, and every answer says how it was reached.

For a deployment's model reference, the architecture comes from the first of:
1. the user's `models:` in .ctxlint.yaml, by the id as written;
2. a config.json beside the deploy file (`<dir>/<model path>/config.json`, or the
   basename's folder), or the GGUF file itself when the path points at one;
3. the lock file `ctxlint models lock` wrote (architecture facts fetched from the Hub);
4. the built-in catalog, by the exact id or a listed alias or derivative;
5. the local Hugging Face cache (`$HF_HUB_CACHE/models--org--name/snapshots/*/config.json`);
6. the name normalized: quantizer suffixes and float dtypes removed (`-FP8-dynamic`, `-AWQ`, `-BF16`, GGUF
   tags), `hf://` and local paths reduced to their last segments, then an exact catalog match (or, for a
   name without a dot, one entry's name with its dots written as '-': `mistral-7b-v0-3`; or one of Meta's
   `<name>-hf` repositories, whose suffix marks the transformers format: `codellama-7b-instruct.Q4_K_M.gguf`);
7. a pod label that names the model (`model.aibrix.ai/name`, `llm-d.ai/model`,
   `ai.gke.io/model`), through 4 and 6, when the reference itself is a bare path;
8. the engine's --served-model-name, when the reference is a local path and the name is letter for letter one
   catalog repository's (served_name.py): the architecture only, its format a band.
The weight format is what the name says (`-AWQ`), else what the checkpoint's config declares;
the engine's own flag (`--quantization fp8`) quantizes an unquantized checkpoint, but a quantized one
loads as stored whatever vLLM or SGLang is told (ctxlint.resolution.quant_flag); weight_account.py says which.
What would resolve an unresolved reference is said by hints.py.
"""
from __future__ import annotations

import glob
import json
import os
import re
from functools import lru_cache
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

from ctxlint.resolution import catalog
from ctxlint.resolution.names import ModelRef, dashed_id, hub_uri, norm, parse_ref, strip_quant, unabliterated
from ctxlint.physics.models import arch_from_mapping
from ctxlint.physics.weights import WeightFormat

from ..records import field, record, replace

MODEL_LABELS = ("model.aibrix.ai/name", "llm-d.ai/model", "ai.gke.io/model", "app.kubernetes.io/model",
                "serving.kserve.io/model", "kubeai.org/model")


@record(frozen=True)
class Resolution:
    arch: Any  # ctxlint.physics.models.ModelArch, or None when unresolved
    via: str  # models | config.json | gguf | lock | catalog | hf-cache | name | label | served | "" (unresolved)
    how: str  # one line: "Qwen/Qwen3-32B-AWQ: architecture of Qwen/Qwen3-32B, matched by name; AWQ 4-bit weights"
    weights: Optional[WeightFormat] = None  # the format that applies, when known
    hint: str = ""  # unresolved: what would resolve it
    problem: str = ""  # a file that was found but could not be read
    # via "name" or "label": the match alone, before the weight format's account joins `how` (provenance.py; a
    # derivative's source may hold "; " itself)
    match: str = ""

    @property
    def resolved(self) -> bool:
        return self.arch is not None


@record(frozen=True)
class Context:
    """What a resolution may look at besides the name."""

    directory: str = ""  # the deploy file's directory ('' for stdin)
    user_models: Mapping[str, Mapping[str, Any]] = None  # type: ignore[assignment]
    lock: Mapping[str, Mapping[str, Any]] = None  # type: ignore[assignment]
    hf_cache: Sequence[str] = ()  # Hugging Face hub cache directories to look in
    labels: Sequence[Tuple[str, str]] = ()
    quantization: Optional[str] = None  # the engine's --quantization (or TGI --quantize) value
    engine: Optional[str] = None  # whose flag it is: vLLM and SGLang keep a quantized checkpoint's format
    served_name: Optional[str] = None  # vLLM's or SGLang's --served-model-name (its first name): served_name.py
    # Whether a path is a file, as found earlier in the same run (engine.lint_paths passes one dict for
    # the run): a tree's deployments ask for the same few `<dir>/<model>/config.json`, and the usual
    # answer is a failed stat (~0.7% of a run). None: ask the file system each time.
    known_files: Optional[Dict[str, bool]] = field(default=None, compare=False)


def hf_cache_dirs(environ: Mapping[str, str] = os.environ) -> Tuple[str, ...]:
    """The hub cache as huggingface_hub finds it: HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache."""
    if environ.get("HF_HUB_CACHE"):
        return (environ["HF_HUB_CACHE"],)
    home = environ.get("HF_HOME") or os.path.join(environ.get("XDG_CACHE_HOME") or
                                                  os.path.join(os.path.expanduser("~"), ".cache"), "huggingface")
    return (os.path.join(home, "hub"),)


def resolve(model: Optional[str], ctx: Context = Context()) -> Resolution:
    """Resolve a model reference (never raises)."""
    ref = parse_ref(model) if isinstance(model, str) else None
    if ref is None:
        via_label = _from_labels(ctx, None)
        return via_label or Resolution(None, "", "no model id", hint="name the model (or add it under `models:`)")
    found = (_user(ref, ctx) or _beside(ref, ctx) or _locked(ref, ctx) or _catalog_exact(ref)
             or _cached(ref, ctx) or _normalized(ref) or _from_labels(ctx, ref))
    if found is None and ctx.served_name and ref.local:  # rare: an opaque `/model` beside a served name
        from ctxlint.resolution.served_name import by_served_name, with_band
        found = by_served_name(ref, ctx.served_name)
        if found is not None:
            from ctxlint.resolution.weight_account import with_weights
            return with_band(with_weights(found, ref, ctx))
    if found is None:
        from ctxlint.resolution.hints import unresolved_hint  # only an unresolved model needs its hint
        return Resolution(None, "", f"model '{ref.written}' is not in the built-in catalog",
                          hint=unresolved_hint(ref))
    from ctxlint.resolution.weight_account import with_weights  # only a found architecture has a weight account
    return with_weights(found, ref, ctx)


def _arch(mapping: Mapping[str, Any]):
    return arch_from_mapping(mapping)


def _user(ref: ModelRef, ctx: Context) -> Optional[Resolution]:
    models = ctx.user_models or {}
    for key, facts in models.items():
        if norm(str(key)) == norm(ref.written) and isinstance(facts, Mapping):
            try:
                arch = _arch({"name": str(key), "source": ".ctxlint.yaml models:", **facts})
            except (TypeError, ValueError, KeyError):
                return None  # incomplete facts: the catalog (or nothing) stands; CTX208 says so
            return Resolution(arch, "models", f"{ref.written}: architecture from `models:` in .ctxlint.yaml")
    return None


def _read_config(path: str):
    from ctxlint.physics.hf_config import arch_from_hf_config
    with open(path, encoding="utf-8") as handle:
        return arch_from_hf_config(json.load(handle), name=os.path.basename(os.path.dirname(path)) or path)


def _isfile(path: str, known: Optional[Dict[str, bool]]) -> bool:
    if known is None:
        return os.path.isfile(path)
    found = known.get(path)
    if found is None:
        found = known[path] = os.path.isfile(path)
    return found


def _beside(ref: ModelRef, ctx: Context) -> Optional[Resolution]:
    if not ctx.directory and not os.path.isabs(ref.written):
        return None
    stem = ref.written.rstrip("/")
    candidates = []
    if ref.local or ref.via == "gguf":
        candidates.append(stem if os.path.isabs(stem) else os.path.join(ctx.directory, stem))
    candidates.append(os.path.join(ctx.directory, os.path.basename(stem)))
    for path in dict.fromkeys(candidates):
        if path.lower().endswith(".gguf") and _isfile(path, ctx.known_files):
            from ctxlint.resolution.gguf_file import arch_from_gguf
            arch, why = arch_from_gguf(path)
            if arch is not None:
                return Resolution(arch, "gguf", f"{ref.written}: architecture from the GGUF header of {path}",
                                  weights=arch.weight_format)
            return Resolution(None, "", f"{ref.written}: {why}", problem=why)
        config = os.path.join(path, "config.json")
        if _isfile(config, ctx.known_files):
            try:
                arch = _read_config(config)
            except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError) as exc:
                why = f"cannot read {config}: {getattr(exc, 'strerror', None) or exc}"
                return Resolution(None, "", f"{ref.written}: {why}", problem=why)
            return Resolution(arch, "config.json", f"{ref.written}: architecture from {config}")
    return None


def _locked(ref: ModelRef, ctx: Context) -> Optional[Resolution]:
    lock = ctx.lock or {}
    key = next((k for k in lock if norm(k) in (norm(ref.written), norm(ref.repo_id or ""))), None)
    if key is None:
        return None
    from ctxlint.resolution.lockfile import arch_from_entry
    arch = arch_from_entry(key, lock[key])
    if arch is None:
        return None
    revision = lock[key].get("revision") or "?"
    return Resolution(arch, "lock", f"{ref.written}: architecture from the lock file ({key}@{revision[:12]})")


def _hit_resolution(ref: ModelRef, hit, what: str) -> Resolution:
    entry = hit.entry
    arch = _arch(entry)
    if hit.derived_from:
        from ctxlint.physics.weights import format_by_key
        how = f"{ref.written}: architecture of {entry['hf_id']}, which it derives from ({hit.derived_source})"
        weights = format_by_key(hit.derived_weights) if hit.derived_weights else None
        if hit.derived_mtp is not None:  # its own config's draft modules (NVIDIA's MiniMax-M3 NVFP4: 1, the base 7)
            arch = replace(arch, mtp_modules=hit.derived_mtp)
        match = "" if what == "exact" else (f"{ref.written}: architecture of {entry['hf_id']}, the base of "
                                            f"{hit.derived_from}, matched by {what}")
        return Resolution(arch, "catalog" if what == "exact" else "name", how, weights=weights, match=match)
    if what == "exact":
        how = f"{ref.written}: built-in catalog"
    else:
        how = f"{ref.written}: architecture of {entry['hf_id']}, matched by {what}"
    return Resolution(arch, "catalog" if what == "exact" else "name", how, match="" if what == "exact" else how)


@lru_cache(maxsize=4096)  # the built-in catalog's answer for a (frozen) reference: the same all run
def _catalog_exact(ref: ModelRef) -> Optional[Resolution]:
    for name in dict.fromkeys(n for n in (ref.written, ref.repo_id) if n and (not ref.local or ref.via == "hf-cache")):
        hit = catalog.find(name)
        if hit is not None and hit.by == "id":  # a derivative's id too; its name under another org is a match
            return _hit_resolution(ref, hit, "exact")
    return None


def _cached(ref: ModelRef, ctx: Context) -> Optional[Resolution]:
    if not ref.repo_id or not ctx.hf_cache:
        return None
    org, name = ref.repo_id.split("/", 1)
    for root in ctx.hf_cache:
        pattern = os.path.join(root, f"models--{org}--{name}", "snapshots", "*", "config.json")
        for config in sorted(glob.glob(pattern)):
            try:
                arch = _read_config(config)
            except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError):
                continue
            from ctxlint.resolution.hints import LOCK_HINT
            return Resolution(arch, "hf-cache", f"{ref.written}: architecture from the local Hugging Face cache "
                                                f"({config}); {LOCK_HINT} to pin it for CI")
    return None


@lru_cache(maxsize=4096)  # the built-in catalog's answer for a (frozen) reference: the same all run
def _normalized(ref: ModelRef) -> Optional[Resolution]:
    names = []
    if ref.repo_id and not ref.local:
        names.append(f"{norm(ref.repo_id.split('/', 1)[0])}/{ref.base}")
    names += [norm(ref.name), ref.base]
    # bartowski-style GGUF files (`Qwen_QwQ-32B-Q4_K_M`), and a folder named for a repository id the way the Hub's
    # cache joins one (`meta-llama--Llama-3.1-8B-Instruct`, huggingface_hub's repo_folder_name without `models--`)
    spelled = None  # the `org--name` of an organisation the catalog does not hold (names.dashed_id), said if matched
    for sep in ("_", "--"):
        org, found, rest = ref.name.partition(sep)
        if found and (norm(org) in catalog.orgs() or sep == "--" and dashed_id(ref.name)):
            spelled = None if norm(org) in catalog.orgs() else f"{org}/{rest}"
            names.append(f"{norm(org)}/{strip_quant(norm(rest), ref.via == 'gguf')[0]}")
    # a GGUF file named `<publisher>.<name>-<quant>` (unsloth.Devstral-..., DevQuasar's ruliad.deepthought-...): a
    # prefix of letters only, so a version's dot (`Qwen2.5-7B`, `Llama-3.1-8B`) is never read as one
    org, found, rest = ref.name.partition(".")
    published = strip_quant(norm(rest), True)[0] if found and ref.via == "gguf" and \
        re.fullmatch(r"[A-Za-z][A-Za-z_-]*", org) else None
    for name in dict.fromkeys(n for n in (*names, published) if n):
        hit = catalog.find(name)
        if hit is not None:
            # the prefix dropped is said: it is read as a publisher's, not checked as one
            how = f"{_by_name(ref)} without the prefix '{org}.' (read as its publisher's)" \
                if name == published and name not in names else _by_name(ref)
            if spelled and name == names[-1] and name not in names[:-1]:
                how += f" read as {spelled} (a repository id with its '/' written '--', as the Hugging Face cache " \
                       "names a repository's folder)"
            return _hit_resolution(ref, hit, how)
    plain, dropped = unabliterated(ref.base)
    hit = catalog.find(plain) if plain else None
    dtype = None
    if hit is None and plain:
        # the float width the abliteration was saved in, before its tag (huihui-ai's
        # `Huihui-gpt-oss-20b-BF16-abliterated`): a format, as after a name; only a float one is read so
        inner, dtype = strip_quant(plain, False)
        float_tag = dtype is not None and dtype.exact and dtype.bits >= 16 and inner and \
            plain.rsplit("-", 1)[0] == inner
        hit = catalog.find(inner) if float_tag else None
        if hit is not None:
            dropped += f", its '-{plain[len(inner) + 1:]}' before the tag read as the weights' width"
        else:
            dtype = None
    if hit is not None:
        from ctxlint.resolution.name_variants import abliterated  # only a name that drops an abliteration tag
        return abliterated(ref, _hit_resolution(ref, hit, f"{_by_name(ref)} without {dropped}"), dtype)
    for name in dict.fromkeys(n for n in (norm(ref.name), ref.base) if n):
        hit = catalog.find_dashed(name)  # `mistral-7b-v0-3`: a Kubernetes name cannot hold the '.' of v0.3
        if hit is not None:
            from ctxlint.resolution.name_variants import for_dots  # only a name with dots written as '-' or '_'
            return _hit_resolution(ref, hit, f"{_by_name(ref)} with {for_dots(ref.name, hit.key)} read as '.'")
    from ctxlint.resolution.name_variants import bf16_release, hf_marked  # only a name no catalog entry matched
    return hf_marked(ref, names) or bf16_release(ref, names)


def _by_name(ref: ModelRef) -> str:
    """How a normalized name matched: a local path's or a storage URI's folder name (what the folder holds is
    not known: a guess), or a repository id's name."""
    if ref.via == "uri" and not hub_uri(ref):
        return "the storage URI's folder name"
    if ref.read_as:
        return f"its file name, read as {ref.read_as}"
    return "its folder name" if ref.local else "name"


def by_folder_name(resolution: Resolution, written: Optional[str]) -> bool:
    """The model was only inferred from the name of the folder `written` points at (_by_name): a rule whose
    verdict turns on which model it is says so as a condition."""
    ref = parse_ref(written) if resolution.via == "name" and written else None
    return ref is not None and _by_name(ref) != "name"


def _from_labels(ctx: Context, ref: Optional[ModelRef]) -> Optional[Resolution]:
    if ref is not None and not ref.local:
        return None  # a repository id that is not known: a label must not overrule it
    labels = dict(ctx.labels or ())
    for key in MODEL_LABELS:
        value = labels.get(key)
        if not value:
            continue
        label_ref = parse_ref(value)
        found = label_ref and (_catalog_exact(label_ref) or _normalized(label_ref))
        if found:
            written = ref.written if ref is not None else "(no model argument)"
            how = f"{written}: the pod label {key}={value} names {found.arch.name}"
            return replace(found, via="label", how=how, weights=label_ref.weights, match=how)
    return None
