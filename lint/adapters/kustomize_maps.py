"""The ConfigMaps a kustomization's `configMapGenerator` makes, for the workloads of its directory.

    # kustomization.yaml                          # vllm-deployment.yaml
    configMapGenerator:                           args: ["--config", "/etc/vllm/config.yaml"]
      - name: vllm-config                         volumes:
        files: [config.yaml=vllm-config.yaml]       - {name: config, configMap: {name: vllm-config}}

kustomize's own words (KvPairSources, kubernetes-sigs/kustomize@9cf05d7294a0947dbeb418f90cce549797ec4191:
api/types/kvpairsources.go): a `files` source "takes the form: [{key}=]{path}. If the "key=" part is missing, the
key is the path's basename ... In either case, the value is the file contents", a `literals` source is
`key=value`, and an `envs` file holds `KEY=value` lines (env_pairs). The generated ConfigMap is named `<name>-<hash of its data>` (unless `disableNameSuffixHash`), and
kustomize rewrites the references of the kustomization's resources to it: a pod template's `volumes[].configMap
.name`, `configMapKeyRef` and `envFrom[].configMapRef` among them (nameReference, kubernetes-sigs/kustomize@
003a131fe77f397d06120eddc17afa1c5e9bb850:api/konfig/builtinpluginconsts/namereference.go). So the manifests name it
without the hash, as the generator does: config_map_refs.Maps reads the generated ConfigMap under that name, in
the kustomization's `namespace` (or the entry's own). A `files` value that is a YAML mapping keeps its file and
positions (an engine `--config` mounted from it is read with its keys where they are typed); such an input file
is data, not an engine config file that launches anything of its own (engine_files.py asks `generator_input`).
"""
from __future__ import annotations

import os
import re
import posixpath
from typing import Any, Dict, List, Optional, Tuple

from ctxlint.adapters.crd_common import objects, scalar, seq
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.loader import LoadedFile
from ctxlint.model import Source
from ctxlint.nodes import MAP, SCALAR, STR_TAG, Marks, Node, Position, adopt, dotted_sources

FILE_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
GENERATOR = "configMapGenerator"
_ENV_NAME = re.compile(r"[-._a-zA-Z][-._a-zA-Z0-9]*")  # validation.IsEnvVarName (k8s apimachinery)
_INPUTS = (GENERATOR, "secretGenerator")  # a Secret's input is data too, though no workload reads it here


def is_kustomization(loaded: LoadedFile) -> bool:
    return os.path.basename(loaded.path) in FILE_NAMES and not loaded.shell


class FileValue(Node):
    """A `files` entry's value: the file's text, and the file itself to read as an engine config file."""

    __slots__ = ("loaded", "at")

    def source(self, file: str) -> Source:
        return self.at

    def settings(self) -> Optional[Tuple[Any, Dict[str, Source]]]:
        """(plain data, {dotted key: Source in the input file}) when the file holds one YAML mapping."""
        docs = self.loaded.documents
        if self.loaded.diagnostics or len(docs) != 1 or docs[0].root.kind != MAP:
            return None
        root, file = docs[0].root, self.loaded.path
        return root.plain(), dotted_sources(root, lambda node: node.source(file))


class GeneratedMap(Node):
    """The `data` of a generated ConfigMap: key -> FileValue (files) or the literal's value, each in its own file."""

    __slots__ = ("at", "open")  # open: why it may hold keys not read here (a missing key is then unknown)

    def source(self, file: str) -> Source:
        return self.at


def generated(loaded: LoadedFile, read: Any) -> List[Tuple[str, Any, GeneratedMap]]:
    """(name, namespace, data) of each ConfigMap the kustomization `loaded` generates; `read(path)`: the LoadedFile
    of an input file (the group's, else read from disk), or None."""
    out: List[Tuple[str, Any, GeneratedMap]] = []
    base = os.path.dirname(loaded.path)
    spans: Optional[ScalarSpans] = None
    for root in objects(loaded):
        for entry in seq(root.get(GENERATOR)):
            name = scalar(entry.get("name")) if entry.kind == MAP else None
            if not isinstance(name, str) or not name:
                continue
            namespace = scalar(entry.get("namespace")) or scalar(root.get("namespace"))
            data: Dict[str, Node] = {}
            unread = _unread_sources(entry)
            for item in seq(entry.get("envs")):
                text = scalar(item)
                found = read(os.path.normpath(os.path.join(base, text))) if isinstance(text, str) and text else None
                pairs = env_pairs(found) if found is not None and not found.shell else None
                if pairs is None:
                    unread = unread or f"its `envs` input {text} was not read"
                else:
                    data.update(pairs[0])
                    unread = unread or pairs[1]
            for item in seq(entry.get("literals")):
                text = scalar(item)
                if isinstance(text, str) and "=" in text:
                    spans = spans or ScalarSpans(loaded.path, loaded.text)
                    data[text.split("=", 1)[0]] = _literal(item, text, spans)
            for item in seq(entry.get("files")):
                text = scalar(item)
                if not isinstance(text, str) or not text:
                    continue
                key, path = text.split("=", 1) if "=" in text else (posixpath.basename(text), text)
                found = read(os.path.normpath(os.path.join(base, path)))
                if found is not None and key:
                    data[key] = _file_value(found, item.source(loaded.path))
                elif found is None:
                    unread = unread or f"its `files` input {path} was not found"
            made = _synthetic(GeneratedMap, MAP, data, entry.source(loaded.path))
            made.open = unread
            out.append((name, namespace, made))
    return out


def _unread_sources(entry: Node) -> Optional[str]:
    """Why a generator's ConfigMap may hold more keys than its `literals` and `files` give: `envs` files of
    KEY=VALUE lines (KvPairSources' EnvSources), or `behavior: merge|replace` over a base's ConfigMap of the same
    name (kubernetes-sigs/kustomize@9cf05d7294a0947dbeb418f90cce549797ec4191:api/types/generatorargs.go)."""
    if entry.get("env") is not None:
        return "its `env` file is not read"
    envs = entry.get("envs")
    if envs is not None and (envs.kind != "seq" or any(not isinstance(scalar(i), str) for i in envs.value)):
        return "its `envs` are not a list of files"
    behavior = scalar(entry.get("behavior"))
    if behavior in ("merge", "replace"):
        return f"it is `behavior: {behavior}` over another kustomization's ConfigMap"
    return None


def env_pairs(found: LoadedFile) -> Optional[Tuple[Dict[str, Node], Optional[str]]]:
    """The `KEY=value` pairs of an `envs` file as kustomize reads them (keyValuesFromLine,
    kubernetes-sigs/kustomize api/kv/kv.go): each line with its leading whitespace trimmed, empty and `#` lines
    skipped, split at the first `=`, the value kept as typed (no quotes dropped, nothing substituted). A line with
    no `=` takes its value from kustomize's environment (or "", by version): that key is left out, and the map said
    open. None when kustomize refuses the file (a key that is no environment variable name)."""
    spans = ScalarSpans(found.path, found.text)
    data: Dict[str, Node] = {}
    unknown: Optional[str] = None
    offset = 0
    for number, line in enumerate(found.text.split("\n")):
        start = offset
        offset += len(line) + 1
        line = line[:-1] if line.endswith("\r") else line
        if number == 0 and line.startswith("\ufeff"):
            line, start = line[1:], start + 1
        stripped = line.lstrip()
        start += len(line) - len(stripped)
        if not stripped or stripped.startswith("#"):
            continue
        key, eq, value = stripped.partition("=")
        if not _ENV_NAME.fullmatch(key):
            return None
        if not eq:
            unknown = unknown or f"its `envs` line {key} takes its value from kustomize's environment"
            continue
        at = start + len(key) + 1
        (sl, sc), (el, ec) = spans.position(at), spans.position(max(at, at + len(value) - 1))
        node = Node(SCALAR, value, Marks(Position(at, sl - 1, sc - 1), Position(at + len(value), el - 1, ec)),
                    f"{os.path.basename(found.path)}:{key}")
        data[key] = adopt(node, spans)
    return data, unknown


def _literal(item: Node, text: str, spans: ScalarSpans) -> Node:
    """A `key=value` literal's value. kustomize drops one pair of matching quotes around it (removeQuotes in
    parseLiteralSource, kubernetes-sigs/kustomize@9cf05d7294a0947dbeb418f90cce549797ec4191:api/kv/kv.go):
    `LEN="8192"` is 8192."""
    from ctxlint.adapters.crd_common import clone, tail_node

    start = text.index("=") + 1
    value = text[start:]
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        node = tail_node(item, start + 1, text, spans)
        end = node.end
        node = clone(node, value=value[1:-1], end=Position(end.index - 1, end.line, end.column - 1)
                     if isinstance(end, Position) else end)
        return adopt(node, spans)
    return adopt(tail_node(item, start, text, spans), spans)


def _file_value(found: LoadedFile, at: Source) -> FileValue:
    value = _synthetic(FileValue, SCALAR, found.text, at)
    value.loaded = found
    return value


def _synthetic(cls: Any, kind: str, value: Any, at: Source) -> Any:
    node = cls.__new__(cls)
    node.kind, node.value, node._keys, node.path, node.style, node.tag = kind, value, None, at.path, None, STR_TAG
    node.start = Position(0, at.line - 1, at.col - 1)
    node.end = Position(0, (at.end_line or at.line) - 1, (at.end_col or at.col) - 1)
    node.at = at
    return node


def generator_input(path: str) -> bool:
    """Whether the file at `path` is a `files` input of a configMapGenerator (or secretGenerator) of the
    kustomization in its directory or the one above: a ConfigMap's data, not a file of its own to check."""
    if not path or path == "-":
        return False
    target = os.path.normpath(os.path.abspath(path))
    folder = os.path.dirname(target)
    for where in (folder, os.path.dirname(folder)):
        for name in FILE_NAMES:
            kustomization = os.path.join(where, name)
            if os.path.isfile(kustomization) and target in _inputs(kustomization):
                return True
    return False


def _inputs(kustomization: str) -> frozenset:
    from ctxlint.file_reader import read_path  # only for a file that looks like an engine's config

    loaded = read_path(kustomization)
    base = os.path.dirname(kustomization)
    out = set()
    for root in objects(loaded):
        for generator in _INPUTS:
            for entry in seq(root.get(generator)):
                for item in seq(entry.get("files") if entry.kind == MAP else None):
                    text = scalar(item)
                    if isinstance(text, str) and text:
                        out.add(os.path.normpath(os.path.join(base, text.split("=", 1)[-1])))
    return frozenset(out)
