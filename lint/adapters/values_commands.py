"""Engine command lines held in the values of a chart ctxlint has no reader for.

Many deployments ship a chart of their own: `templates/` that only Helm renders (CTX010) and values files that
say what runs. Where a values file holds the engine's whole command line, as a string
(`cli: "vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 1 --max-model-len 25000"`, which the chart's
template hands to `sh -c`) or as an exec-form list (vLLM's own example chart,
vllm-project/vllm@466716c2bb5f3d191eeaf25459ec6c3bb09f11d7:examples/online_serving/chart-helm/values.yaml,
`image.command: ["vllm", "serve", "/data/", ...]`), that line is what the engine runs, whatever the template
around it: its model and flags are read as a container's are, each value at its place in the values file.

What only the template knows is not guessed: how many GPUs the pod gets, on which device, how many replicas
(a values key such as `resources` or `gpus` means what the chart makes of it). The role's GPUs are therefore
what its own flags say (the tensor- and pipeline-parallel sizes), its device unknown, so the capacity checks
give the memory per GPU it needs rather than a verdict on a device.

A value counts only when it is a launch spelled by a program and its subcommand or module (`vllm serve`,
`python3 -m sglang.launch_server`, `text-generation-launcher`...: detect._strong) at the start of a shell
command, so a description that names an engine in a sentence starts nothing. Read only for files named as Helm
values (`values.yaml`, `values-*.yaml`, `*.values.yaml`) and inline release values (gitops.py), and only when no
chart ctxlint knows (helm_values.read_values) claims them, so a known chart's values are never read twice.
"""
from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import Container, Workload, read_container
from ctxlint.lazyre import lazy_compile
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node
from ctxlint.records import replace

# A container's fields whose commands run beside its process, never as its launch (a probe's or a hook's `exec`).
_BESIDE = ("livenessProbe", "readinessProbe", "startupProbe", "lifecycle")
_MAX_DEPTH = 6  # values nest a command a few keys deep (`image.command`, `vllm.server.cli`)
# A launch at the start of a shell command (the text's start, after `;`, `&`, `|` or a line break, or the
# string a `-c`, `exec` or `nohup` runs): a program and its subcommand or module, or an engine's own program.
# Each piece before the program stops at a separator, so every start is tried in time bounded by the text up to
# the next one: a long string of `;`, `&`, `|` or blank lines (a minified blob, a URL's query) is read in linear
# time, never rescanned from each separator to its end.
_LAUNCH = lazy_compile(
    r"(?:^\s*|[;&|\n][ \t]*|(?:^|\s)(?:-c|exec|nohup)[ \t]+)['\"]?(?:[\w.-]+=[^\s;&|]*[ \t]+)*(?:[\w.~${}-]*/)*"
    r"(?:vllm\s+serve|python[\d.]*\s+-m\s+(?:vllm\.entrypoints\.\S+|sglang\.launch_server|sglang_router\.launch_server"
    r"|dynamo\.(?:vllm|sglang|trtllm))|text-generation-launcher|llama-server|lmdeploy\s+serve|trtllm-serve)(?=\s|$)")


def read(root: Node, spans: ScalarSpans, result: AdaptResult, input_format: str) -> List[Workload]:
    """One workload per value that holds an engine's command line (its roles: the engines it starts)."""
    out: List[Workload] = []
    seen = set()
    for path, node, args in _candidates(root, (), 0):
        where = node.source(spans.file)
        if (where.line, where.col) in seen:  # an alias (`copy: *cli`) repeats the anchored value, at its place
            continue
        seen.add((where.line, where.col))
        container = Container(spans=spans, node=node, name=path, args=args,
                              **({"script": node} if node.kind == SCALAR else {"command": node}))
        reading = read_container(container)
        if not reading.roles:
            continue
        result.diagnostics.extend(reading.diagnostics)
        out.append(Workload(name=Val(path, where), source=where, input_format=input_format,
                            roles=[replace(r, role=replace(r.role, device_by_template=True))
                                   for r in reading.roles]))
    return out


def _candidates(node: Node, path: Tuple[str, ...], depth: int) -> Iterator[Tuple[str, Node, Optional[Node]]]:
    """Each string, or list of strings, under the values whose text launches an engine, with its dotted key path
    and the `args` list beside a `command` list (a container's exec form split in two, as Kubernetes runs it:
    `command: [vllm, serve]` + `args: [M, --max-model-len, ...]`, or `command: [sh, -c]` + `args: ["vllm ..."]`)."""
    if depth > _MAX_DEPTH:
        return
    if node.kind == MAP:
        command, args = node.value.get("command"), node.value.get("args")
        paired = command is not None and _words(command) is not None and args is not None and \
            _words(args) is not None and command.kind == SEQ
        if paired and _LAUNCH.search(f"{_words(command)} {_words(args)}"):
            yield ".".join(path + ("command",)), command, args
        for key, value in node.value.items():
            if not (paired and key in ("command", "args")) and key not in _BESIDE:
                yield from _candidates(value, path + (str(key),), depth + 1)
    elif node.kind == SEQ:
        words = _words(node)
        if words is not None:
            if _LAUNCH.search(words):
                yield ".".join(path), node, None
            return
        for index, item in enumerate(node.value):
            yield from _candidates(item, path[:-1] + (f"{path[-1] if path else ''}[{index}]",), depth + 1)
    elif node.kind == SCALAR and isinstance(node.value, str) and _LAUNCH.search(node.value):
        yield ".".join(path), node, None


def _words(node: Node) -> Optional[str]:
    """A list of scalars as the words it runs, joined by spaces; None for anything else."""
    if node.kind == SEQ and node.value and all(i.kind == SCALAR for i in node.value):
        return " ".join(str(i.value) for i in node.value)
    return None
