"""The built-in catalog (`ctxlint/physics/data/models.json`) as an index of exact names.

Every entry is reachable by its Hugging Face id and the aliases listed for it (other ids
whose config.json has the same architecture), with or without the organisation. Keys are
normalized only in spelling (case, '_' as '-'); nothing is stripped or guessed here. A
bare name that two different entries share is dropped from the bare index, so a name
without its organisation can never pick the wrong one. `derivatives` maps models whose
architecture is another's (a distill, a fine-tune) onto that entry, each with its source.
"""
from __future__ import annotations

import json
import os
import re
from functools import lru_cache
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from ctxlint.resolution.names import norm

from ..records import record

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "physics", "data", "models.json")


@record(frozen=True)
class Hit:
    entry: Mapping[str, Any]
    key: str  # the catalog name that matched (hf id or alias)
    by: str  # "id" (the whole id matched) or "name" (the bare name matched, another org or none)
    derived_from: Optional[str] = None  # a derivative's own id, when it resolved onto its base
    derived_source: str = ""
    derived_weights: Optional[str] = None  # the derivative's own weight format (not its base's)
    derived_mtp: Optional[int] = None  # the derivative's own num_mtp_modules, where its config differs from the base's


@lru_cache(maxsize=1)
def data() -> Mapping[str, Any]:
    # Read beside this package rather than through importlib.resources: that import alone
    # pulls tempfile, shutil and zipfile into every run.
    with open(DATA, encoding="utf-8") as handle:
        return json.load(handle)


def entries() -> Tuple[Mapping[str, Any], ...]:
    return tuple(data()["models"])


def _bare(name: str) -> str:
    return name.split("/", 1)[1] if "/" in name else name


@lru_cache(maxsize=1)
def _index() -> Tuple[Dict[str, Tuple[int, str]], Dict[str, Tuple[int, str]]]:
    full: Dict[str, Tuple[int, str]] = {}
    bare: Dict[str, Tuple[int, str]] = {}
    clashes = set()
    for i, entry in enumerate(entries()):
        for name in (entry["hf_id"], *entry.get("aliases", ())):
            full.setdefault(norm(name), (i, name))
            key = norm(_bare(name))
            if key in bare and bare[key][0] != i:
                clashes.add(key)
            bare.setdefault(key, (i, name))
    for key in clashes:
        del bare[key]
    return full, bare


def _respelled(respell: Callable[[str], Optional[str]]) -> Dict[str, Tuple[int, str]]:
    """Another spelling of each entry's names (`respell(name)`, None where it has none) -> entry; a spelling two
    entries share is dropped, and so is one that is already an entry's own bare name."""
    names = [(i, name) for i, entry in enumerate(entries()) for name in (entry["hf_id"], *entry.get("aliases", ()))]
    spelled = {norm(_bare(name)) for _, name in names}  # every bare name as written, shared ones too
    out: Dict[str, Tuple[int, str]] = {}
    clashes = set()
    for i, name in names:
        key = respell(name)
        if key is None:
            continue
        if key in out and out[key][0] != i or key in spelled:
            clashes.add(key)
        out.setdefault(key, (i, name))
    for key in clashes:
        out.pop(key, None)
    return out


def _dotless(name: str) -> Optional[str]:
    key = norm(_bare(name))
    return norm(key.replace(".", "-")) if "." in key else None


@lru_cache(maxsize=1)
def _dashed() -> Dict[str, Tuple[int, str]]:
    """bare names with '.' read as '-' (`mistral-7b-v0-3` for Mistral-7B-v0.3) -> entry, for names that cannot
    hold a dot (a Kubernetes volume or resource name)."""
    return _respelled(_dotless)


def find_dashed(name: str) -> Optional[Hit]:
    """The entry whose bare name, its dots written as '-', is `name`'s bare name (which has no dot of its own)."""
    if not isinstance(name, str) or "." in _bare(name):
        return None
    found = _dashed().get(norm(_bare(name)))
    return Hit(entries()[found[0]], found[1], "name") if found else None


# Meta publishes each Llama 2 and Code Llama network twice, `<name>` in its original format and `<name>-hf` in the
# transformers format (https://huggingface.co/collections/meta-llama/llama-2-family: "the transformers and original
# repos", each model "in HF transformers format" and "in original Llama format"; codellama/CodeLlama-70b-Instruct-hf's
# card: "in the Hugging Face Transformers format"), and re-uploads name the network without it (lmstudio-community's
# `codellama-7b-instruct.Q4_K_M.gguf`). Under these organisations '-hf' marks a format, not a network; elsewhere it
# is a publisher's own word (llava-hf's conversions of other projects' checkpoints) and is not read so.
_HF_FORMAT_ORGS = frozenset({"meta-llama", "codellama"})


def _without_hf(name: str) -> Optional[str]:
    key = norm(name)
    if "/" not in key or key.split("/", 1)[0] not in _HF_FORMAT_ORGS or not key.endswith("-hf"):
        return None
    return norm(_bare(name))[:-3]


@lru_cache(maxsize=1)
def _hf_marked() -> Dict[str, Tuple[int, str]]:
    """bare names of Meta's `<name>-hf` repositories without the suffix -> entry."""
    return _respelled(_without_hf)


def find_hf_marked(name: str) -> Optional[Hit]:
    """The entry whose Meta repository is `name`'s bare name with the '-hf' that marks the transformers format."""
    if not isinstance(name, str):
        return None
    found = _hf_marked().get(norm(_bare(name)))
    return Hit(entries()[found[0]], found[1], "name") if found else None


@lru_cache(maxsize=1)
def _derivatives() -> Dict[str, Mapping[str, Any]]:
    """normalized id or bare name -> the derivative's entry (id, base, weights, source)."""
    out: Dict[str, Mapping[str, Any]] = {}
    for item in data().get("derivatives", ()):
        for key in (norm(item["id"]), norm(_bare(item["id"]))):
            out.setdefault(key, item)
    return out


def find(name: str) -> Optional[Hit]:
    """The entry `name` names exactly: a full id first, then a bare name, then a derivative."""
    if not isinstance(name, str) or not name.strip():
        return None
    full, bare = _index()
    key = norm(name)
    if key in full:
        i, matched = full[key]
        return Hit(entries()[i], matched, "id")
    if norm(_bare(name)) in bare:
        i, matched = bare[norm(_bare(name))]
        return Hit(entries()[i], matched, "name")
    derived = _derivatives().get(key) or _derivatives().get(norm(_bare(name)))
    if derived is not None:
        base = find(derived["base"])
        if base is not None:
            return Hit(base.entry, base.key, "id" if key == norm(derived["id"]) else "name",
                       derived_from=derived["id"], derived_source=derived.get("source", ""),
                       derived_weights=derived.get("weights"), derived_mtp=derived.get("mtp_modules"))
    return None


def orgs() -> frozenset:
    """Organisations of catalog ids, lower case (for `Org_Name` GGUF file names)."""
    return frozenset(norm(e["hf_id"]).split("/", 1)[0] for e in entries() if "/" in e["hf_id"])


def repo_named(name: str) -> Optional[str]:
    """The catalog's Hugging Face repository whose name `name` is letter for letter (case and `_`/`-` aside), or
    whose `org/name` it is exactly; None otherwise. A name the file gives beside a checkpoint it does not name (an
    srt-slurm cluster alias, an engine's --served-model-name beside an opaque `/model`) names an architecture only
    so: a shorthand (`dsr1`), a format tag no repository carries (`Qwen3-8B-AWQ` where only Qwen/Qwen3-8B is held)
    or a bare name two organisations' repositories share (dropped from the bare index) names none."""
    if not isinstance(name, str) or ":" in name or name.count("/") > 1:
        return None
    hit = find(name.strip())
    matched = (hit.derived_from or hit.key) if hit is not None else None
    if matched is None:
        return None
    if "/" in name:  # `org/name`: that repository's own id, not its name under another organisation
        named = norm(matched) == norm(name)
    else:  # matched through a derivative's or an alias's other spelling (`_dashed` is never asked): not the name
        named = norm(matched.split("/")[-1]) == norm(name)
    return matched if named and ("/" in name or not _family(matched)) else None


_SIZE = re.compile(r"\d+(?:\.\d+)?[bm]\d*(?![a-z])")  # a parameter count in a name: 7b, 1.2b, 560m, 1b7


def _family(repo: str) -> bool:
    """`repo`'s name gives no size and its organisation's repositories in the catalog extend it with one
    (`bigscience/bloom`, 176B, beside bloom-560m, bloom-1b7 and bloom-7b1; deepseek-ai/DeepSeek-R1, 671B, beside
    DeepSeek-R1-Distill-Qwen-7B): the bare name alone names the family, not that size (`--served-model-name bloom`
    over a bloom-560m folder, `DeepSeek-R1` over a distill); its `org/name` still names the repository."""
    bare = norm(_bare(repo))
    if _SIZE.search(bare):
        return False
    org = norm(repo).split("/", 1)[0] + "/" if "/" in repo else ""
    return any(other.startswith(org + bare + "-") and _SIZE.search(other, len(org + bare) + 1) for other in _ids())


@lru_cache(maxsize=1)
def _ids() -> frozenset:
    """Every catalog id, alias and derivative id, normalized."""
    names = [n for e in entries() for n in (e["hf_id"], *e.get("aliases", ()))]
    names += [d["id"] for d in data().get("derivatives", ())]
    return frozenset(norm(n) for n in names)
