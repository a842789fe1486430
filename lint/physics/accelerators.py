"""Accelerator memory as the engines see it.

Engines size memory from CUDA's total (cudaMemGetInfo / torch), which is
nvidia-smi "Total" minus "Reserved" -- not the marketing number. The bundled
catalog holds that number per device (per GCD on MI250X, per MIG slice).
"""
from __future__ import annotations

import json
from functools import lru_cache
import os
from collections.abc import Mapping  # not typing's: its isinstance() goes through an alias, ~3x slower
from typing import Any

from ctxlint.lazyre import lazy_compile

from ..records import field, record

GIB = 1 << 30
MIB = 1 << 20


@record(frozen=True)
class Accelerator:
    name: str
    memory_bytes: int                  # CUDA-visible total per device
    exact: bool                        # True: observed CUDA total; False: estimate
    source: str
    vendor: str = "nvidia"
    nvidia_smi_total_mib: int | None = None
    nominal: str | None = None
    parent: str | None = None          # MIG parent card
    aliases: tuple[str, ...] = field(default_factory=tuple)
    note: str = ""
    devices_per_chip: int = 1          # engine devices per device-plugin unit: 2 on TPU7x (no megacore)
    memory_high_bytes: int | None = None  # the most CUDA can report for an estimated entry (vendor's total)
    memory_high_source: str = ""
    members: tuple[str, ...] = field(default_factory=tuple)  # a family's sizes, smallest first (family_device)

    @property
    def memory_high(self) -> int:
        """The band's top of the CUDA-visible memory: an exact entry's own figure; an estimate's stated top
        (the vendor's physical total, with its source), else its nvidia-smi Total (CUDA's total is that less
        the reserved memory, the module docstring), else its own figure."""
        if self.exact:
            return self.memory_bytes
        if self.memory_high_bytes is not None:
            return max(self.memory_high_bytes, self.memory_bytes)
        if self.nvidia_smi_total_mib:
            return max(int(self.nvidia_smi_total_mib) * MIB, self.memory_bytes)
        return self.memory_bytes

    @property
    def memory_gib(self) -> float:
        return self.memory_bytes / GIB

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "memory_bytes": self.memory_bytes, "memory_gib": round(self.memory_gib, 3),
                "exact": self.exact, "source": self.source, "vendor": self.vendor,
                "nvidia_smi_total_mib": self.nvidia_smi_total_mib, "nominal": self.nominal,
                "parent": self.parent, "note": self.note, "memory_high_bytes": self.memory_high,
                "memory_high_source": self.memory_high_source}


def _from_entry(e: Mapping[str, Any]) -> Accelerator:
    return Accelerator(
        name=str(e["name"]), memory_bytes=int(e["memory_bytes"]), exact=bool(e.get("exact", False)),
        source=str(e.get("source", "")), vendor=str(e.get("vendor", "nvidia")),
        nvidia_smi_total_mib=e.get("nvidia_smi_total_mib"), nominal=e.get("nominal"),
        parent=e.get("parent"), aliases=tuple(e.get("aliases", ())), note=str(e.get("note", "")),
        devices_per_chip=int(e.get("devices_per_chip", 1)),
        memory_high_bytes=None if e.get("memory_high_bytes") is None else int(e["memory_high_bytes"]),
        memory_high_source=str(e.get("memory_high_source", "")))


# Prefixes people (and Kubernetes node labels) put in front of the model name.
_PREFIXES = ("nvidia-", "tesla-", "amd-", "instinct-", "geforce-")
# Tokens that do not change which device it is (memory type, form factor). CoreWeave's classes say
# NVLINK for the SXM parts (H100_NVLINK_80GB, A100_NVLINK_80GB beside A100_PCIE_80GB); `nvl` (H100 NVL,
# a 94 GB part) is another token and stays.
_NOISE = {"hbm3", "hbm3e", "hbm2", "hbm2e", "gddr6", "gddr6x", "sxm", "sxm4", "sxm5", "gpu", "oam", "nvlink"}


_SEPARATORS = lazy_compile(r"[\s_/]+")
_MEMORY_END = lazy_compile(r"(\d+)\s*g(?:i)?b?$")
_MEMORY_PART = lazy_compile(r"-(\d+)g(?=-|$)")
_DASHES = lazy_compile(r"-+")
# `rtx4090` -> `rtx-4090`, `rtxa6000` -> `rtx-a6000`, `rtxpro6000` -> `rtx-pro-6000`: every catalog name and
# alias goes through the same step, so `RTX6000-Ada` still meets `RTX-6000-Ada`
_GLUED_RTX = lazy_compile(r"(?<![a-z0-9])rtx(?=[a-z]?\d|pro\d)")
_GLUED_PRO = lazy_compile(r"(?<=rtx-)pro(?=\d)")


def _norm(name: str) -> str:
    s = name.strip().lower()
    s = _SEPARATORS.sub("-", s)
    s = _MEMORY_END.sub(r"\1gb", s)       # 80G / 80GiB -> 80gb
    s = _MEMORY_PART.sub(r"-\1gb", s)
    s = _DASHES.sub("-", s).strip("-")
    if "rtx" in s:  # SkyPilot writes RTX4090, RTXA6000, RTXPRO6000 (no hyphen, on purpose)
        s = _GLUED_PRO.sub("pro-", _GLUED_RTX.sub("rtx-", s))
    changed = True
    while changed:
        changed = False
        for p in _PREFIXES:
            if s.startswith(p) and len(s) > len(p):
                s, changed = s[len(p):], True
    return s


# A tree names the same few devices over and over (node selectors, the CTX208 verdicts' nine common
# devices per role): ~45,000 lookups on 10,000 files, each three regex passes. A pure function of
# the name; a tuple, so no caller can change what the cache holds. Bounded: names come from files.
@lru_cache(maxsize=1024)
def _keys(name: str) -> tuple[str, ...]:
    n = _norm(name)
    stripped = "-".join(t for t in n.split("-") if t not in _NOISE)
    return (n, stripped) if stripped and stripped != n else (n,)


@lru_cache(maxsize=1)
def _data() -> Mapping[str, Any]:
    # A plain file read beside this module: importlib.resources pulls tempfile, shutil, zipfile,
    # bz2 and lzma into every run that names an accelerator (~5-14 ms of imports).
    with open(os.path.join(os.path.dirname(__file__), "data", "accelerators.json"), encoding="utf-8") as handle:
        return json.loads(handle.read())


@lru_cache(maxsize=1)
def _catalog() -> tuple[Accelerator, ...]:
    return tuple(_from_entry(e) for e in _data()["accelerators"])


def _family(entry: Mapping[str, Any], by_name: Mapping[str, Accelerator]) -> Accelerator:
    """A family sold in several memory sizes, as a site's label that names no size is: any one of its members.
    Its memory is a band from the smallest member's figure to the largest's top (Accelerator.memory_high), so
    the capacity stage's band (capacity._memory_band) spans every size and a verdict stands only where all
    sizes agree; the smallest's nvidia-smi Total sizes the band's low end, as it would on that card."""
    members = sorted((by_name[m] for m in entry["members"]), key=lambda a: a.memory_bytes)
    small, large = members[0], members[-1]
    high_source = large.memory_high_source or (f"nvidia-smi Total {large.nvidia_smi_total_mib} MiB"
                                               if not large.exact and large.nvidia_smi_total_mib else large.source)
    return Accelerator(
        name=f"{entry['family']} ({entry['sizes']}: the label names no size)", memory_bytes=small.memory_bytes,
        exact=False, source=f"any of {', '.join(a.name for a in members)} ({entry['source']}); the smallest: "
                            f"{small.source}",
        vendor=small.vendor, nvidia_smi_total_mib=small.nvidia_smi_total_mib, nominal=entry["sizes"],
        memory_high_bytes=large.memory_high, memory_high_source=f"{large.name}: {high_source}",
        members=tuple(a.name for a in members))


@lru_cache(maxsize=1)
def _families() -> dict[str, Accelerator]:
    by_name = {a.name: a for a in _catalog()}
    return {str(e["family"]).lower(): _family(e, by_name) for e in _data().get("families", ())}


def top_smi_total_mib(acc: Accelerator) -> int | None:
    """The nvidia-smi Total at the top of the device's memory band: a family's largest size's (SGLang sizes its
    defaults by it), else the device's own."""
    if acc.members:
        largest = lookup_accelerator(acc.members[-1])
        return largest.nvidia_smi_total_mib if largest is not None else None
    return acc.nvidia_smi_total_mib


def family_device(family: str) -> Accelerator | None:
    """The any-of device of a family the catalog lists in several memory sizes (`a100`: 40 or 80 GB), or None."""
    return _families().get(family.strip().lower()) if isinstance(family, str) else None


# Words beside a family's name that say nothing of its memory size: the maker's prefixes (_norm drops `nvidia-`),
# the form factor and the link (`Tesla-V100-SXM2`, `a100_pcie`, CoreWeave's A100_NVLINK: its table fixes that one)
_NO_SIZE = {"tesla", "gpu", "pcie", "sxm", "sxm2", "sxm4", "nvlink"}  # `gpu_a100`, a site word, names no size
# GKE's accelerator names fix one card each, whoever writes them (a flag, a default-accelerator, a label): the catalog
# holds nvidia-tesla-a100 as the 40 GB card and nvidia-tesla-v100 and nvidia-tesla-p100 as the 16 GB ones
_GKE_NAME = lazy_compile(r"^nvidia-tesla-[avp]100$")


@lru_cache(maxsize=256)
def family_word(name: str) -> Accelerator | None:
    """The family's any-of device when `name` names a family sold in several memory sizes and no size
    (`a100`, `Tesla-V100`, `nvidia_a100_sxm4`, `p100-pcie`), else None (`a100-80gb` is that card, and so is GKE's
    `nvidia-tesla-a100`, the 40 GB one)."""
    if not isinstance(name, str) or _GKE_NAME.match(name.strip().lower()):
        return None
    words = [w for w in _norm(name).split("-") if w and w not in _NO_SIZE]
    return family_device(words[0]) if len(words) == 1 else None


def written_device(name: str, extra: Mapping[str, Any] | None = None) -> Accelerator | None:
    """The device a person's own word names (a command-line flag, a config's default-accelerator): a device the
    config defines first (`extra`), then a family word that names no size as the family's any-of device, never
    the catalog's bare `A100` (SkyPilot's word for the 40 GB card), then the catalog's device."""
    if not isinstance(name, str) or not name.strip():
        return None
    return (_defined(name, extra) if extra else None) or family_word(name) or lookup_accelerator(name)


@lru_cache(maxsize=1)
def _index() -> dict[str, Accelerator]:
    idx: dict[str, Accelerator] = {}
    for acc in _catalog():
        for nm in (acc.name, *acc.aliases):
            for k in _keys(nm):
                idx.setdefault(k, acc)
    # a family's device by its own name only (its members keep the bare word: SkyPilot's `A100` is the 40 GB card)
    for acc in _families().values():
        for k in _keys(acc.name):
            idx.setdefault(k, acc)
    return idx


def accelerator_from_mapping(name: str, spec: Mapping[str, Any] | int | float) -> Accelerator | None:
    """A user-defined accelerator. Accepts memory_bytes, memory_gib (2^30) or
    memory_gb (10^9: marketing numbers are decimal), or a bare number of GiB."""
    try:
        if isinstance(spec, (int, float)) and not isinstance(spec, bool):
            spec = {"memory_gib": spec}
        if not isinstance(spec, Mapping):
            return None
        if spec.get("memory_bytes") is not None:
            mem = int(spec["memory_bytes"])
        elif spec.get("memory_gib") is not None:
            mem = int(float(spec["memory_gib"]) * GIB)
        elif spec.get("memory_gb") is not None:
            mem = int(float(spec["memory_gb"]) * 10**9)
        else:
            return None
        if mem <= 0:
            return None
        return Accelerator(name=name, memory_bytes=mem, exact=bool(spec.get("exact", False)),
                           source=str(spec.get("source", "user-defined")), vendor=str(spec.get("vendor", "unknown")),
                           note=str(spec.get("note", "")))
    except (TypeError, ValueError):
        return None


def lookup_accelerator(name: str, extra: Mapping[str, Any] | None = None) -> Accelerator | None:
    """Find an accelerator by the names people write (case, spaces, 'nvidia-'
    prefixes, memory-type suffixes ignored). `extra` entries win over the
    catalog so a user can correct a number."""
    if not isinstance(name, str) or not name.strip():
        return None
    defined = _defined(name, extra) if extra else None
    if defined is not None:
        return defined
    idx = _index()
    for k in _keys(name):
        if k in idx:
            return idx[k]
    return None


def _defined(name: str, extra: Mapping[str, Any]) -> Accelerator | None:
    """The device of that name the user's config defines (`accelerators:`), or None."""
    for ename, spec in extra.items():
        if isinstance(ename, str) and set(_keys(ename)) & set(_keys(name)):
            if isinstance(spec, Accelerator):
                return spec
            acc = accelerator_from_mapping(ename, spec)
            if acc is not None:
                return acc
    return None


def mig_slices(profile: str) -> tuple[Accelerator, ...]:
    """The catalog's MIG slices of a profile (`3g.40gb`), one per card that has it."""
    end = "-mig-" + profile.strip().lower() if isinstance(profile, str) else ""
    return tuple(a for a in _catalog() if a.parent is not None and end and a.name.lower().endswith(end))


def catalog_names() -> list[str]:
    return [a.name for a in _catalog()]
