"""A kustomization's `replacements` that set a container's image from a generated ConfigMap's key, applied to the
workload as kustomize applies them (kubernetes-sigs/kustomize@12f9e6391464b3ad9dd3fe8182049dc1b1772990:
api/filters/replacement/replacement.go, api/types/replacement.go, api/internal/utils/makeResIds.go):
- the source is the one resource its kind, name (exact, not a pattern) and namespace select (IsSelectedBy); here a
  ConfigMap the chain generated so far, its `data.<key>`; a key path with more parts (`data.a.b` is data, a, b),
  a group or version, source or target `options` (delimiter, index, create) are not applied here;
- a target selects the workload when its `select` matches one of the ids it had (its current one and each previous
  one: MakeResIds), the group, version, kind, name and namespace as anchored regular expressions
  (TargetSelectorRegex.Selects) and its label and annotation selectors its labels;
  a `reject` rejects it by any id (RejectsAny skips one without group, version, kind, name and namespace) or by
  its label or annotation selector when it has one (selectByAnnoAndLabel).
Any other replacement that touches the containers leaves the overlay unread (kustomize_overlays._unapplied)."""
from __future__ import annotations

import re
from typing import Any, Tuple

from ctxlint.adapters.crd_common import clone, scalar, seq
from ctxlint.adapters.kustomize_merge import NotApplied
from ctxlint.adapters.kustomize_overlays import IMAGE_PATH
from ctxlint.adapters.kustomize_patch_inputs import labels_match, relabel
from ctxlint.nodes import MAP, SCALAR, ForeignNode, Node

_ID_KEYS = ("group", "version", "kind", "name", "namespace")


def _matches(selector: Node, applied: Any, ident: Tuple[str, str]) -> bool:
    have = {"group": applied.group, "version": applied.version, "kind": applied.kind, "name": ident[0],
            "namespace": ident[1]}
    for key in _ID_KEYS:
        want = scalar(selector.get(key))
        if want in (None, ""):
            continue
        try:
            if key == "namespace" and not have[key]:
                # an unset namespace: `kubectl kustomize` 5.5.0 selects it by `default` but not by `def.*`, which
                # the code does not explain (the current id's is "", a previous one's `default`): not applied
                if want == "default":
                    continue
                if re.fullmatch(f"(?:{want})", "default") is not None:
                    raise NotApplied(f"a replacement selects the namespace `{want}`: whether an unset one matches "
                                     "is not known")
            if re.fullmatch(f"(?:{want})", have[key]) is None:
                return False
        except (re.error, TypeError):
            raise NotApplied(f"the replacement's {key} `{want}` is not a regular expression read here")
    return True


def targets_workload(target: Node, applied: Any) -> bool:
    select = target.get("select")
    rejects = list(seq(target.get("reject")))
    if select is None or select.kind != MAP or any(r.kind != MAP for r in rejects):
        raise NotApplied("a replacement target's select or reject is not a mapping")
    if not labels_match(select, applied):
        return False
    if any((scalar(r.get("labelSelector")) or scalar(r.get("annotationSelector"))) and labels_match(r, applied)
           for r in rejects):
        return False
    if any(any(scalar(r.get(k)) not in (None, "") for k in _ID_KEYS) and _matches(r, applied, ident)
           for r in rejects for ident in applied.history):
        return False
    return any(_matches(select, applied, ident) for ident in applied.history)


def replace_image(applied: Any, item: Node, n: int, kust: Any, label: str) -> None:
    """A replacement that sets a container's image from a generated ConfigMap's key. The value is the key's, at its
    place in the env file or literal; where the generator's input was not read the image is unknown (a null: no
    engine release is taken from it), not the base's."""
    source = item.get("source") if item.kind == MAP else None
    for t, target in enumerate(seq(item.get("targets") if item.kind == MAP else None)):
        paths = [p for p in (scalar(f) for f in seq(target.get("fieldPaths") if target.kind == MAP else None))
                 if isinstance(p, str) and IMAGE_PATH.match(p)]
        if not paths or target.kind != MAP or not targets_workload(target, applied):
            continue
        if target.get("options") is not None or source is None or source.kind != MAP or \
                source.get("options") is not None or scalar(source.get("kind")) != "ConfigMap" or \
                any(scalar(source.get(k)) not in (None, "", "v1") for k in ("group", "version")):
            raise NotApplied(f"replacements[{n}] sets an image with options or from other than a ConfigMap")
        field = str(scalar(source.get("fieldPath")) or "")
        name = scalar(source.get("name"))
        key = field[5:] if field.startswith("data.") else ""
        if not key or any(c in key for c in ".[]"):  # SmarterPathSplitter: `data.a.b` is data, a, b
            raise NotApplied(f"replacements[{n}] takes an image from {name} {field}, not one key of its data")
        data = applied.made.get(name)
        found = data.value.get(key) if data is not None else None
        if found is not None and type(found) is not ForeignNode:  # a `files` input: the file's text
            raise NotApplied(f"replacements[{n}] takes an image from a file of {name}")
        if data is None or found is None and not data.open:
            raise NotApplied(f"replacements[{n}] takes an image from {name} {field}, which is not generated here")
        where = f"{label}:replacements[{n}].targets[{t}]"
        for text in paths:
            kind, want = IMAGE_PATH.match(text).groups()
            hits = [c for c, at in applied._containers() if scalar(c.get("name")) == want
                    and at.startswith(f"{applied._pod_path()}.{kind}[")]
            if len(hits) != 1 or hits[0].get("image") is None:
                raise NotApplied(f"replacements[{n}] targets {text}, which is not one container's image")
            value = relabel(found, None, where) if found is not None else \
                relabel(clone(source, kind=SCALAR, value=None), kust, where)
            hits[0].value["image"] = value
