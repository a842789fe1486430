"""What an overlay writes for kustomize_patches to apply, read as kustomize reads it: its patches (a file, or a string
in the kustomization whose positions are moved to where its characters are), a target's label selector, an
`images:` entry's name and what it makes of an image (kubernetes-sigs/kustomize@
12f9e6391464b3ad9dd3fe8182049dc1b1772990: api/internal/image/image.go IsImageMatched and Split,
api/filters/imagetag/updater.go SetImageValue; k8s.io/apimachinery labels.Parse for the selector's forms)."""
from __future__ import annotations

import os
import re
from typing import Any, Callable, List, Optional

from ctxlint.adapters.crd_common import scalar
from ctxlint.adapters.kustomize_merge import NotApplied
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.nodes import MAP, SEQ, ForeignNode, Node, Position, child_path

_SELECTOR = re.compile(r"^\s*(!?)([A-Za-z0-9./_-]+)\s*"
                       r"(?:(==|=|!=)\s*([A-Za-z0-9._-]*)|\s+(in|notin)\s*\(([^)]*)\))?\s*$")


def relabel(node: Node, spans: Optional[ScalarSpans], path: str,
            remap: Optional[Callable[[Any, bool], Any]] = None) -> Node:
    """A copy of `node`'s tree as ForeignNodes of `spans`' file (a ForeignNode keeps its own), the logical paths
    from `path` down; `remap(mark, is_end)` moves positions (an inline patch's into its kustomization)."""
    copy = ForeignNode.__new__(ForeignNode)
    for slot in Node.__slots__:
        setattr(copy, slot, getattr(node, slot))
    copy.spans = node.spans if type(node) is ForeignNode else spans
    copy.path = path
    if remap is not None:
        copy.start, copy.end = remap(node.start, False), remap(node.end, True)
    if node.kind == MAP:
        copy.value = {k: relabel(v, spans, child_path(path, k), remap) for k, v in node.value.items()}
        copy._keys = {k: relabel(v, spans, child_path(path, k), remap) for k, v in node.keys.items()}
    elif node.kind == SEQ:
        copy.value = [relabel(v, spans, child_path(path, n), remap) for n, v in enumerate(node.value)]
    return copy


class Patch:
    """One patch's documents (ForeignNodes of the file they are written in) and the label of their paths."""

    def __init__(self, docs: List[Node], label: str) -> None:
        self.docs, self.label = docs, label

    def place(self, node: Node, path: str) -> Node:
        return relabel(node, None, f"{self.label}:{path}" if path else self.label)


def file_patch(folder: str, text: Any, reader: Any) -> Patch:
    path = os.path.normpath(os.path.join(folder, text)) if isinstance(text, str) and text else ""
    found = reader.read(path) if path and "://" not in text else None
    if found is None or found.diagnostics or not found.documents:
        raise NotApplied(f"the patch file {text} was not read")
    spans = ScalarSpans(found.path, found.text)
    return Patch([relabel(d.root, spans, "") for d in found.documents], os.path.basename(found.path))


def inline_patch(item: Node, kust: Any, label: str) -> Patch:
    """A patch written in the kustomization as a string: parsed, its positions moved to where its characters are."""
    from ctxlint.loader import parse_text

    text = item.value
    found = parse_text(text, kust.file)
    if found.diagnostics or not found.documents:
        raise NotApplied(f"the inline patch at {label} does not parse")
    offsets = kust.offsets(item, text)

    def remap(mark: Any, end: bool) -> Position:
        index = mark.index - 1 if end else mark.index
        if offsets is None or not 0 <= index < len(offsets):
            return item.end if end else item.start
        at = offsets[index] + (1 if end else 0)
        line, col = kust.position(at - 1 if end else at)
        return Position(at, line - 1, col if end else col - 1)

    return Patch([relabel(d.root, kust, "", remap) for d in found.documents], label)


def image_matched(image: str, name: str) -> bool:
    try:
        return re.fullmatch(f"{name}(:[a-zA-Z0-9_.{{}}-]*)?(@[a-zA-Z0-9]+([.+_-][a-zA-Z0-9]+)*:[a-zA-Z0-9_.{{}}-]*)?",
                            image) is not None
    except re.error:
        return False


def retag(image: str, entry: dict) -> str:
    slash = image.find("/")
    search, shift = (image[slash:], slash) if slash > 0 else (image, 0)
    at, colon = search.find("@"), search.find(":")
    if colon < 0 and at < 0:
        name, tag, digest = image, "", ""
    elif at >= 0 and (at < colon or colon < 0):
        name, tag, digest = image[:at + shift], "", image[at + shift + 1:]
    elif at >= 0:
        name, tag, digest = image[:colon + shift], image[colon + shift + 1:at + shift], image[at + shift + 1:]
    else:
        name, tag, digest = image[:colon + shift], image[colon + shift + 1:], ""
    name = entry["newName"] or name
    if entry["newTag"] and entry["digest"]:
        tag, digest = entry["newTag"], entry["digest"]
    elif entry["newTag"]:
        tag, digest = entry["newTag"], ""
    elif entry["digest"]:
        tag, digest = "", entry["digest"]
    elif entry["tagSuffix"]:
        tag, digest = tag + entry["tagSuffix"], ""
    return name + (f":{tag}" if tag else "") + (f"@{digest}" if digest else "")


def selects(text: str, found: Optional[Node]) -> bool:
    """A Kubernetes label selector (`a=b,c!=d,e in (f,g),!h,i`) over a labels mapping."""
    have = {str(k): str(scalar(v)) for k, v in found.value.items()} if found is not None and found.kind == MAP else {}
    for part in re.split(r",(?![^(]*\))", text):
        match = _SELECTOR.match(part)
        if match is None:
            raise NotApplied(f"the selector `{text}` is not read here")
        bang, key, op, value, set_op, values = match.groups()
        if bang:
            ok = key not in have and not op and not set_op
        elif op:
            ok = (have.get(key) == value) if op != "!=" else have.get(key) != value
        elif set_op:
            options = {v.strip() for v in values.split(",")}
            ok = (key in have and have[key] in options) if set_op == "in" else have.get(key) not in options
        else:
            ok = key in have
        if not ok:
            return False
    return True


def labels_match(selector: Node, applied: Any) -> bool:
    """A patch target's or a replacement selector's labelSelector and annotationSelector over the workload's metadata
    (`applied`: its kustomize_patches.Applied); after a labels transformer they are not evaluated here."""
    for key, where in (("labelSelector", "labels"), ("annotationSelector", "annotations")):
        text = scalar(selector.get(key))
        if text:
            if applied.labelled:
                raise NotApplied(f"a {key} after a labels transformer is not evaluated here")
            if not selects(str(text), applied.obj.dig("metadata", where)):
                return False
    return True
