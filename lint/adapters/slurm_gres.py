"""The device a Slurm batch header's GPU type names (`--gres=gpu:nvidia_a100_80gb_pcie:2`), when the accelerator
catalog holds it.

A GPU type is the site's word in gres.conf, or, with `AutoDetect=nvml`, the NVML device name lower-cased with each
space made `_` (`_nvml_get_device_name` -> `gpu_common_underscorify_tolower`,
SchedMD/slurm@284c3b95f08a2dc2478499837b03355e1b9c5c75:src/plugins/gpu/nvml/gpu_nvml.c and
src/plugins/gpu/common/gpu_common.c): "NVIDIA A100 80GB PCIe" is `nvidia_a100_80gb_pcie`, "NVIDIA RTX 6000 Ada
Generation" `nvidia_rtx_6000_ada_generation`. A MIG slice is the card's name, `_`, and its profile, `<g>g.<mem>gb`
(with `<c>c.` before it when the compute slices differ; `_handle_mig`, the same file): `nvidia_h100_80gb_hbm3_3g.40gb`.
Those names are read by the same rules: NVIDIA's word order (memory before the form factor, a trailing
"Generation") is put as the catalog's, and a slice is the catalog's slice of its card. A family sold in two
memory sizes (`a100`, `nvidia_a100`, `v100`) is any of them, a memory band over its sizes (hardware.site_type),
unless a slice's profile settles the card.

Site names that follow no rule are listed with their site's own documentation: Mila's `a100l` is its A100 80GB and
`a100l.1` .. `a100l.3` its MIG slices 1g.10gb, 2g.20gb and 3g.40gb of that card, also written `a100l.3g.40gb`
(mila-iqia/mila-docs@12229ef44970bc65d1f878217e1953bcb946af6e:docs/technical_reference/clusters/mila/nodes.md,
"--gres=gpu:a100l:<number>" for the 80GB GPUs; the slices' table in an earlier docs/Information_nodes.rst).
"""
from __future__ import annotations

from typing import Iterator, Optional, Tuple

from ctxlint.lazyre import lazy_compile

from .slurm_header import ascii_digits

_MIG = lazy_compile(r"^(?P<card>.+?)[_.](?:\d+c\.)?(?P<profile>\d+g\.\d+gb)$")
_MEMORY_FIRST = lazy_compile(r"_(\d+gb)_(pcie|sxm\d?)(?=_|$)")  # NVML's "A100 80GB PCIe": the catalog's A100-PCIe-80GB
_GLUED = lazy_compile(r"(?<=\d)(?=[a-z]{2,}$)")  # `6000ada`: a model number and a word glued
_FAMILY = lazy_compile(r"(?:^|[_-])(a100|v100)(?=[_-]|$)")
_MILA = {"a100l": "A100-80GB"}
_MILA_SLICES = {"a100l.1": "1g.10gb", "a100l.2": "2g.20gb", "a100l.3": "3g.40gb"}


def gres_device(name: str) -> Optional[str]:
    """The catalog device a Slurm GPU type names (a family's any-of device for `a100`), or None (a site's word
    the catalog does not settle)."""
    from ctxlint.adapters.hardware import site_type

    low = name.strip().lower()
    if low in _MILA_SLICES:
        return _slice("a100l", _MILA_SLICES[low])
    mig = _MIG.match(low)
    if mig is not None:
        return _slice(mig.group("card"), mig.group("profile"))
    return _card(low, site_type)


def _card(low: str, site_type) -> Optional[str]:
    if low in _MILA:
        return _named(_MILA[low])
    for form in (low, _MEMORY_FIRST.sub(r"_\2_\1", low.removesuffix("_generation")), _GLUED.sub("-", low)):
        typed = site_type(form)
        if typed is not None:
            return typed[0]
    return None


def _named(name: str) -> Optional[str]:
    from ctxlint.physics.accelerators import lookup_accelerator

    acc = lookup_accelerator(name)
    return acc.name if acc is not None else None


def _slice(card: str, profile: str) -> Optional[str]:
    """The catalog's slice `profile` of the card named: of that card, or, for a family sold in two sizes, of
    either size when only one has it (`nvidia_a100_3g.20gb`: the 40GB card's); None otherwise."""
    from ctxlint.adapters.hardware import site_type
    from ctxlint.physics.accelerators import lookup_accelerator, mig_slices

    def parent(acc) -> str:
        top = lookup_accelerator(acc.parent) if acc.parent else acc
        return top.name if top is not None else ""

    named = _card(card, site_type)
    family = _FAMILY.search(card)
    if named is not None and lookup_accelerator(named).members:
        named = None  # a family's any-of device holds no slices: read as the family below
    if named is not None:
        whole = parent(lookup_accelerator(named))
        found = [s for s in mig_slices(profile) if parent(s) == whole]
    elif family is not None:
        found = [s for s in mig_slices(profile) if parent(s).lower().startswith(family.group(1))]
    else:
        return None
    return found[0].name if len(found) == 1 else None


# A `--constraint` (`-C`) expression ctxlint reads: one feature, or features all required (`&`, or `,`, which
# slurmctld reads as `&`). An OR (`|`), a matching OR (`[...]`), a node count (`*N`) or anything else lets the
# nodes differ, or is not read: no device.
_FEATURES = lazy_compile(r"^[\w.-]+(?:[&,][\w.-]+)*$")
_AND = lazy_compile(r"[&,]")


def constraint_device(opts) -> Optional[Tuple[str, str, int]]:
    """(catalog device, the feature as written, its offset) a header's `--constraint` names, or None.

    Node features are the site's own words (sbatch.1 -C, --constraint: "Nodes can have features assigned to them by
    the Slurm administrator ... Only nodes having features matching the job constraints will be used"; AND: "Only
    nodes with all of specified features will be used. The ampersand is used for an AND operator",
    SchedMD/slurm@284c3b95f08a2dc2478499837b03355e1b9c5c75:doc/man/man1/sbatch.1). Sites name their GPU nodes by the
    card (`--constraint=h100`, `-C a100`, `-C a100-80gb`): a feature is read as a GPU type is (gres_device), so only
    a word the catalog settles names a device (`intel`, `ib`, `hbm40g` name none, and are passed over); features
    that name two different devices, or an expression other than one feature or an AND of them, name none. A comma
    is an AND too: slurmctld replaces each `,` of the expression with `&` before it parses it ("Use of commas
    separator is a common error", SchedMD/slurm@284c3b95f08a2dc2478499837b03355e1b9c5c75:
    src/slurmctld/job_scheduler.c _feature_string2list), so `-C a100,ib` runs only on nodes with both."""
    value, at = opts.get("constraint", ("", 0))
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":  # `--constraint="h100"`: sbatch unquotes
        value, at = value[1:-1], at + 1
    if not _FEATURES.match(value):
        return None
    found = {}
    for feature in _AND.split(value):
        device = gres_device(feature)
        if device is not None:
            found.setdefault(device, (device, feature, at))
        at += len(feature) + 1
    # every node has all the features: one that another narrows says less (`a100&a100-80gb`: the 80 GB card)
    kept = [one for one in found.values() if not any(other is not one and _narrows(other, one)
                                                     for other in found.values())]
    return kept[0] if len(kept) == 1 else None


# A card's form factor or link, which `h100` (the catalog's H100 SXM) leaves open: `h100_pcie` narrows it
_FORM = {"pcie", "sxm", "sxm2", "sxm4", "sxm5", "nvlink"}
_SEPARATOR = lazy_compile(r"[_-]")


def _form_free(word: str) -> Optional[str]:
    """`word` without its form-factor words, or None when it has none."""
    parts = _SEPARATOR.split(word.lower())
    kept = [p for p in parts if p not in _FORM]
    return "_".join(kept) if kept and len(kept) < len(parts) else None


def _narrows(narrow: Tuple[str, str, int], broad: Tuple[str, str, int]) -> bool:
    """Does the (device, word, offset) `narrow` say which card of `broad` it is: a size of its family
    (`a100-80gb` of `a100`), a MIG slice of it or of its family (`a100_3g.20gb` of `a100`), or its form factor
    (`h100_pcie` of `h100`, which names no form factor itself)?"""
    from ctxlint.physics.accelerators import lookup_accelerator

    wide, near = lookup_accelerator(broad[0]), lookup_accelerator(narrow[0])
    if wide is None or near is None:
        return False
    whole = lookup_accelerator(near.parent) if near.parent else None  # a slice's card (its parent may be an alias)
    if near.name in wide.members or whole is not None and (whole.name == wide.name or whole.name in wide.members):
        return True
    stripped = _form_free(narrow[1])
    return stripped is not None and _form_free(broad[1]) is None and gres_device(stripped) == wide.name


def header_device(opts) -> Optional[Tuple[str, str, int]]:
    """(catalog device, its word, its offset) the GPU type of a header's options (or an srun's) names: by `--gres`
    / `--gpus*` type, by `--constraint` feature, or both. Both naming it agree, or one narrows the other (`--gres=
    gpu:a100:1 --constraint=a100-80gb`: the A100 80GB, of the family's two sizes; `--gres=gpu:a100_3g.20gb:1 -C
    a100`: the slice; `--gres=gpu:h100:4 -C h100_pcie`: the PCIe card, _narrows); two different devices name none.
    Several GPU types (`--gres=gpu:l4:4,gpu:h100:4`) name none either (review 18)."""
    named = list(gpu_types(opts))
    if len({name.lower() for name, _ in named}) > 1:
        return None
    typed = None
    for name, start in named[:1]:
        device = gres_device(name)
        typed = (device, name, start) if device is not None else None
    feature = constraint_device(opts)
    if typed is None or feature is None or typed[0] == feature[0]:
        return typed or feature
    if _narrows(feature, typed):
        return feature
    if _narrows(typed, feature):
        return typed
    return None


# Where a header names a GPU type: `--gres=gpu:TYPE[:N]` entries, `--gpus*=TYPE:N` (slurm_header.options).
_TYPE_OPTIONS = ("gres", "gpus-per-node", "gpus-per-task", "gpus")


def gpu_types(opts) -> Iterator[Tuple[str, int]]:
    """(type as written, its offset) of each GPU type the header's options name."""
    for option in _TYPE_OPTIONS:
        value, at = opts.get(option, ("", 0))
        for part in value.split(","):
            fields = part.split(":")
            if option == "gres" and fields[0] == "gpu" and len(fields) >= 2 \
                    and not ascii_digits(fields[1]):
                yield fields[1], at + 4
            elif option != "gres" and len(fields) == 2 and fields[0] and ascii_digits(fields[1]):
                yield fields[0], at
            at += len(part) + 1
