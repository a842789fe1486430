"""srt-slurm override files: a `base` recipe and its `override_<name>` / `zip_override_<name>` variants.

As srtctl expands them (NVIDIA/srt-slurm@c88ef731636890ff6385a783e152c1790e15b194:src/srtctl/core/config.py
generate_override_configs, docs/overrides.md): `srtctl apply -f FILE` submits every variant, the base alone
not at all (cli/submit.py is_override_config: a file with a top-level `base` key is one). An `override_<name>`
is deep-merged over the base (deep_merge: mappings merged key by key, a list or scalar replaces, a null deletes
the key); a `zip_override_<name>` is N variants, the i-th taking the i-th item of each list leaf (a list of one
item is that item for all; a list of lists gives the inner list) before the same merge. A variant without its
own `name` is `<base name>_<name>` (`<base name>_<name>_<i>` for a zip; the base's name is "unnamed" when it has
none). What srtctl submits is resolve_override_yaml's recipe, not generate_override_configs' (cli/submit.py
submit_override dumps and loads `config_cm`): an override is merged over the base by yaml_utils.comment_aware_merge
(the same rules: a null deletes), but a zip variant is the merged dict merged again over the base, so a key the
zip item set to null, absent from that dict, takes the base's value again: in a zip, a null deletes nothing.
srtctl expands every group before it submits any (generate_override_configs raises out of submit_override), so
a file with one group it refuses (a section that is no mapping, a zip group with no list leaf, an empty list,
lists of other lengths than 1 and N) submits nothing: no variant here either, and `expansion_refused` says why
(CTX002). Every value keeps the place where it is written, in the base or in the variant.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ctxlint.adapters.crd_common import clone
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

OVERRIDE, ZIP = "override_", "zip_override_"


def is_override_file(root: Node) -> bool:
    """A top-level `base` mapping with at least one variant (a base alone submits nothing)."""
    if root.kind != MAP or root.get("apiVersion") is not None or root.get("kind") is not None:
        return False
    base = root.get("base")
    return base is not None and base.kind == MAP and any(
        isinstance(k, str) and k.startswith((OVERRIDE, ZIP)) and v.kind == MAP for k, v in root.value.items())


def expansion_refused(root: Node) -> Optional[Tuple[str, Node]]:
    """(why srtctl refuses to expand the override file, the section it fails on), or None."""
    for key in sorted(k for k in root.value if isinstance(k, str) and k.startswith((OVERRIDE, ZIP))):
        section = root.value[key]
        if section.kind != MAP:  # deep_merge and _collect_list_lengths call .items() on it
            return f"`{key}` is not a mapping", section
        if key.startswith(ZIP) and _zip_length(section) is None:
            lengths = _lengths(section)
            why = "holds no list" if not lengths else "holds an empty list" if 0 in lengths else \
                f"holds lists of lengths {sorted(set(lengths))}: each must have one item or the same number"
            return f"`{key}` {why}", section
    return None


def variants(root: Node) -> List[Node]:
    """Each variant as the recipe srtctl submits, in its order: override_* sorted, then zip_override_* sorted;
    none when srtctl refuses the file (`expansion_refused`)."""
    if expansion_refused(root) is not None:
        return []
    base = root.get("base")
    keys = [k for k in root.value if isinstance(k, str) and root.value[k].kind == MAP]
    out: List[Node] = []
    for key in sorted(k for k in keys if k.startswith(OVERRIDE)):
        section = root.value[key]
        merged = _placed(deep_merge(base, section), section)
        out.append(_named(merged, base, section, root.keys[key], key[len(OVERRIDE):], None))
    for key in sorted(k for k in keys if k.startswith(ZIP)):
        section, group = root.value[key], key[len(ZIP):]
        count = _zip_length(section) or 0
        named = section.get("name") is not None and section.get("name").kind == SEQ
        for i in range(count):
            merged = _placed(deep_merge(base, _slice(section, i), deletes=False), section)
            out.append(merged if named else _named(merged, base, None, root.keys[key], group, i))
    return out


def deep_merge(base: Node, override: Node, deletes: bool = True) -> Node:
    """core/config.py deep_merge over nodes: each value the node where it is written. `deletes`: whether a null
    deletes the key (an override's), or leaves the base's value (a zip item's, as submitted: see above)."""
    value, keys = dict(base.value), dict(base.keys)
    for k, v in override.value.items():
        if v.kind == SCALAR and v.value is None:
            if deletes:
                value.pop(k, None)
                keys.pop(k, None)
        elif v.kind == MAP and value.get(k) is not None and value[k].kind == MAP:
            value[k] = deep_merge(value[k], v, deletes)
        else:
            value[k], keys[k] = v, override.keys.get(k, keys.get(k))
    return clone(base, value=value, keys=keys)


def _placed(merged: Node, section: Node) -> Node:
    """The variant's recipe placed at its section: each variant a deployment where it is written."""
    return clone(merged, start=section.start, end=section.end, path=section.path)


def _named(merged: Node, base: Node, section: Optional[Node], key: Node, suffix: str, index: Optional[int]) -> Node:
    """The variant's name when its section gives none: srtctl's `<base name>_<suffix>[_<i>]`, placed at the
    section's key."""
    if section is not None and section.get("name") is not None:
        return merged
    written = base.get("name")  # srtctl's f"{base.get('name', 'unnamed')}_...": a null name is "None"
    stem = "unnamed" if written is None else written.value if written.kind == SCALAR else "unnamed"
    name = f"{stem}_{suffix}" + (f"_{index}" if index is not None else "")
    value, keys = dict(merged.value), dict(merged.keys)
    value["name"] = clone(key, value=name)
    keys.setdefault("name", key)
    return clone(merged, value=value, keys=keys)


def _lengths(node: Node) -> List[int]:
    out: List[int] = []
    for v in node.value.values():
        if v.kind == SEQ:
            out.append(len(v.value))
        elif v.kind == MAP:
            out.extend(_lengths(v))
    return out


def _zip_length(section: Node) -> Optional[int]:
    """core/config.py _determine_zip_length; None where srtctl raises."""
    lengths = _lengths(section)
    if not lengths or 0 in lengths:
        return None
    longer = {n for n in lengths if n != 1}
    return 1 if not longer else (longer.pop() if len(longer) == 1 else None)


def _slice(node: Node, index: int) -> Node:
    """core/config.py _apply_zip_slice: each list leaf its index-th item (its only one when it has one)."""
    value = {}
    for k, v in node.value.items():
        if v.kind == SEQ:
            value[k] = v.value[0 if len(v.value) == 1 else index]
        elif v.kind == MAP:
            value[k] = _slice(v, index)
        else:
            value[k] = v
    return clone(node, value=value)


def recipes(root: Node) -> List[Tuple[Node, bool]]:
    """The recipes a document holds: (root, False) for a plain recipe, each variant (True) of an override file."""
    return [(v, True) for v in variants(root)] if is_override_file(root) else [(root, False)]
