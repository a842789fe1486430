"""The env files of a Compose project (adapters/dotenv.py reads them as Compose does):

- the project's `.env`, beside the compose file (the compose file's directory is the project's, and Compose
  reads `.env` there: compose-spec/compose-go@e70e961c3a3acebf0800b882f1afb3dbf1fb74a2:cli/options.go,
  `filepath.Join(wd, ".env")`), which Compose interpolates the compose file with after the shell's environment
  (not known here);
- a service's `env_file:` (a path, a list of paths, or of `{path, required, format}`, each relative to the
  compose file), its container's environment under its `environment:` (types/project.go
  WithServicesEnvironmentResolved: the files in order, a later one's key winning, `environment` over all of
  them; a file's values interpolated from the project's environment first, then the service's `environment`,
  then the file's own earlier keys). A file that is not there sets nothing (`required: false`; a required one
  may be the deploy host's own, kept out of the repository: its variables are not known). A file Compose cannot
  parse stops it: CTX002 at the place.
"""
from __future__ import annotations

import os
from typing import Dict, List, Optional, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.dotenv import EnvFile, read_env_file
from ctxlint.adapters.workload_inputs import EnvVar
from ctxlint.findings import Diagnostic
from ctxlint.model import Source
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

SCHEMA_VIOLATION = "schema-violation"


def project_env(path: str, result: AdaptResult) -> Tuple[Dict[str, Optional[str]], Dict[str, Node]]:
    """The project's `.env`: name -> value (None: set, not known here), and name -> where the value is written
    (a finding on a value that came whole from it points there); ({}, {}) without one."""
    if path in ("-", "") or path.startswith("<"):
        return {}, {}
    found = read_env_file(os.path.join(os.path.dirname(path), ".env"))
    if found is None:
        return {}, {}
    refused(found, result)
    return found.values(), {e.name: e.node for e in found.entries}


def value_nodes(env: List[EnvVar], project: Dict[str, Optional[str]], written: Dict[str, Node]) -> Dict[str, Node]:
    """Where each name's value is written, for findings: the container's variables, and a name the project's `.env`
    sets at its place there (a `${CTX}` Compose takes from it; a container variable of the same value, such as
    `CTX: ${CTX}`, passes it on)."""
    nodes = {var.name: var.node for var in env if var.node is not None}
    values = {var.name: var.value for var in env}
    for name, node in written.items():
        if name not in values or values[name] == project.get(name):
            nodes[name] = node
    return nodes


def refused(found: EnvFile, result: AdaptResult, deployment: Optional[str] = None) -> None:
    """CTX002 at the place Compose stops reading the env file (dotenv/parser.go's errors)."""
    if found.error is None:
        return
    message, at = found.error
    line, col = found.spans.position(at)
    name = os.path.basename(found.path)
    result.diagnostics.append(Diagnostic(SCHEMA_VIOLATION, (
        f"Compose refuses the env file {name}: {message} (a line is KEY=value; quote a value with spaces or ` #`); "
        "`docker compose up` stops here"), Source(found.path, line, col, name, line, col + 1), deployment))


def env_file_vars(node: Node, file: str, project: Dict[str, Optional[str]], environment: List[EnvVar],
                  result: AdaptResult, deployment: str) -> List[EnvVar]:
    """The variables a service's `env_file:` sets that its `environment:` does not override."""
    from collections import ChainMap

    from ctxlint.adapters.compose import _interpolate

    base = os.path.dirname(file)
    own = {var.name: var.value for var in environment}
    merged: Dict[str, EnvVar] = {}
    for item in node.value if node.kind == SEQ else [node]:
        path_node = item.get("path") if item.kind == MAP else item
        if path_node is None or path_node.kind != SCALAR or not isinstance(path_node.value, str):
            continue
        fmt = item.get("format") if item.kind == MAP else None
        if fmt is not None and fmt.value not in (None, "", "dotenv"):
            continue  # `raw` and the formats a Compose plugin reads: not read
        written = _interpolate(path_node.value, project) if "$" in path_node.value else path_node.value
        if not written:
            continue
        found = read_env_file(os.path.join(base, written),
                              ChainMap(project, own, {k: v.value for k, v in merged.items()}))
        if found is None:
            continue
        refused(found, result, deployment)
        for entry in found.entries:
            merged[entry.name] = EnvVar(entry.name, entry.value, entry.node, entry.why)
    return [var for name, var in merged.items() if name not in own]
