"""The commands of a systemd unit (adapters/systemd_unit.py) as containers of the workload core: its ExecStart=
words as exec-form items at their places, its environment as the container's, a script it runs read with it.
Imported only for a unit whose text names an engine."""
from __future__ import annotations

import os
from typing import List, Optional

from ctxlint.adapters import systemd_syntax as syntax
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.config_files import tree_reader
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.shell_script import MAX_CHARS, _at_program, names_engine, script_node
from ctxlint.adapters.systemd_unit import _SPECIFIER, NAME, Env, beside, expand, prefixes, runs_script, \
    specifier_why
from ctxlint.adapters.workload import UNRESOLVED, Container, EnvVar, Workload, read_container
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile
from ctxlint.model import Source, Val
from ctxlint.nodes import SCALAR, SEQ, Marks, Node, Position, adopt
from ctxlint.yaml_problems import PARSE_ERROR

SCHEMA_VIOLATION = "schema-violation"


def _node(kind: str, value, spans: ScalarSpans, start: int, end: int, path: str) -> Node:
    """A node of the unit (or an EnvironmentFile) from file index `start` to `end`."""
    (line, col), (end_line, end_col) = spans.position(start), spans.position(max(start, end - 1))
    return Node(kind, value, Marks(Position(start, line - 1, col - 1), Position(end, end_line - 1, end_col), tag=None), path)


def read_unit(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    path, text = loaded.path, loaded.text
    spans, whole = script_node(path, text)
    unit_name = os.path.basename(path)
    stem = unit_name[:-len(".service")] if unit_name.endswith(".service") else unit_name
    service = [d for d in syntax.directives(text) if d.section == "Service"]
    env = _environment(service, path, spans, text)
    commands, kind = [], "simple"
    for d in service:
        if d.key == "Type":
            kind = d.value
        elif d.key == "ExecStart":
            commands = [] if not d.value else commands + [d]  # an empty assignment resets the list
    if len(commands) > 1 and kind != "oneshot":
        second = commands[1]
        result.diagnostics.append(Diagnostic(SCHEMA_VIOLATION, (
            f"ExecStart: {len(commands)} commands, but only a Type=oneshot service may have more than one "
            f"(this one is Type={kind}): systemd refuses to start the unit"), _at(spans, second.at, path), stem))
        return result
    containers = []
    for d in commands:
        words, open_at = syntax.split_words(d.value, d.offsets, text)
        if open_at is not None:
            if names_engine(d.value):
                result.diagnostics.append(Diagnostic(PARSE_ERROR, (
                    "ExecStart: a quote opened here is never closed: systemd refuses the command line, so the "
                    "engine it names does not start"), _at(spans, open_at, path), stem))
            continue
        for argv in _commands(words):
            container = _container(argv, env, unit_name, stem, loaded, spans, whole, result)
            if container is not None:
                containers.append(container)
    roles = []
    for container in containers:
        reading = read_container(container)
        result.diagnostics.extend(reading.diagnostics)
        roles.extend(_at_program(r, whole.source(path)) for r in reading.roles)
    if roles:
        workload = Workload(name=Val(stem, roles[0].role.source), source=roles[0].role.source, input_format=NAME,
                            roles=roles)
        result.extend(deployments_from(path, [workload]))
    return result


def _at(spans: ScalarSpans, index: int, path: str) -> Source:
    line, col = spans.position(index)
    return Source(path, line, col)


def _commands(words: List[syntax.Word]) -> List[List[syntax.Word]]:
    """The commands of one ExecStart= line: a lone unquoted `;` separates them (`\\;` is a `;` argument)."""
    out, current = [], []
    for word in words:
        if word.raw == ";":
            out.append(current)
            current = []
        else:
            current.append(word)
    return [c for c in out + [current] if c]


def _environment(service, path: str, spans: ScalarSpans, text: str) -> Env:
    env = Env()
    assigned, files = {}, []
    for d in service:
        if d.key == "Environment":
            if not d.value:
                assigned = {}
                continue
            words, _ = syntax.split_words(d.value, d.offsets, text)
            for word in words:
                name, eq, value = word.text.partition("=")
                if eq and syntax_name(name):
                    at = len(name) + 1
                    start = word.offsets[at] if at < len(word.text) else word.end
                    end = word.offsets[-1] + 1 if at < len(word.text) else word.end
                    chars, unknown = syntax.specifiers(syntax.Word(value, word.offsets[at:], "", start, end),
                                                       os.path.basename(path))
                    known = None if unknown else "".join(c for c, _, _ in chars)
                    why = specifier_why(unknown[0]) if unknown else None
                    node = _node(SCALAR, known if known is not None else value, spans, start, end,
                                 f"Service.Environment.{name}")
                    assigned[name] = (known, node, why and f"is set from %{unknown[0]}, which {why[3:]}")
        elif d.key == "EnvironmentFile":
            files = [] if not d.value else files + [d.value]
    env.values.update(assigned)
    for raw in files:
        host = raw[1:] if raw.startswith("-") else raw
        found = beside(path, host) if "%" not in host else None
        read = _env_file(found) if found is not None else None
        if read is None:
            env.unread.append(host)
            continue
        file_text, values = read
        file_spans = ScalarSpans(found, file_text)
        for name, (value, offsets) in values.items():
            start = offsets[0] if offsets else 0
            end = offsets[-1] + 1 if offsets else 0
            node = adopt(_node(SCALAR, value, file_spans, start, end, name), file_spans)
            env.values[name] = (value, node, None)
    return env


def syntax_name(name: str) -> bool:
    return bool(name) and not name[0].isdigit() and all(c.isalnum() and c.isascii() or c == "_" for c in name)


def _env_file(found: str):
    try:
        if os.path.getsize(found) > MAX_CHARS:
            return None
        with open(found, encoding="utf-8", errors="replace") as handle:
            file_text = handle.read()
    except OSError:
        return None
    return file_text, syntax.env_file(file_text)


def _container(argv: List[syntax.Word], env: Env, unit_name: str, stem: str, loaded: LoadedFile,
               spans: ScalarSpans, whole: Node, result: AdaptResult) -> Optional[Container]:
    path = loaded.path
    marks, program = prefixes(argv[0].text)
    head = syntax.Word(program, argv[0].offsets[len(marks):], argv[0].raw, argv[0].start, argv[0].end)
    # `@`: the word after the program is its argv[0], not an argument (config_parse_exec separate_argv0)
    argv = [head] + argv[2 if "@" in marks else 1:]
    items: List[Node] = []
    spelled = {}
    for k, word in enumerate(argv):
        chars, unknown = syntax.specifiers(word, unit_name)
        spelled.update((_SPECIFIER + letter, "%" + letter) for letter in unknown)
        pieces = expand(chars, env, ":" in marks) if k else [(("".join(c for c, _, _ in chars)), False)]
        for piece, alone in pieces or ():
            items.extend(_split_value(piece, env, spans, word) if alone else
                         [_node(SCALAR, piece, spans, word.start, word.end, f"Service.ExecStart[{len(items)}]")])
    if not items:
        return None
    vars_ = [EnvVar(name, value, node, why) for name, (value, node, why) in env.values.items()]
    for name in {m.group(1) for item in items for m in _refs(str(item.value))} - set(env.values):
        why = specifier_why(name[len(_SPECIFIER):]) if name.startswith(_SPECIFIER) else env.unset(name)
        if why is not None:
            vars_.append(EnvVar(name, None, None, why))
    command = _node(SEQ, items, spans, argv[0].start, argv[-1].end, "Service.ExecStart")
    container = Container(spans=spans, node=whole, name=stem, command=command, env=vars_, k8s_refs=False,
                          compose_refs=True, config_reader=tree_reader(path), ref_spelling=spelled or None)
    words, _ = runs_script(items)
    from ctxlint.adapters.compose_scripts import script_container, script_word

    at = script_word(words)
    if at is None:
        return container
    found = beside(path, str(words[at].value))
    if found is None:
        result.diagnostics.append(Diagnostic(UNRESOLVED, (
            f"the unit {stem} runs script {words[at].value}, which no file beside it holds (a script is read beside "
            "the unit, by its file name), so the engine it starts is not checked"), words[at].source(path), stem))
        return None
    if script_container(found, container, words[at + 1:]) is None:
        return None
    result.scripts.append(found)
    return container


def _refs(text: str):
    import re

    return re.finditer(r"(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)\}", text)


def _split_value(name: str, env: Env, spans: ScalarSpans, word: syntax.Word) -> List[Node]:
    """`$NAME` standing alone: its value split at whitespace, quotes removed (replace_env_argv,
    EXTRACT_RELAX|EXTRACT_UNQUOTE), each word where the value writes it; an unknown value one unknown word."""
    value, node, _ = env.values.get(name, (None, None, None))
    if value is None:
        if name not in env.values and env.unset(name) is None:
            return []  # set by nothing: no word at all
        return [_node(SCALAR, "${" + name + "}", spans, word.start, word.end, "Service.ExecStart")]
    own = getattr(node, "spans", spans)
    start = node.start_index
    text = own.text
    words, _ = syntax.split_words(value, list(range(start, start + len(value))) if text[start:start + len(value)]
                                  == value else [start] * len(value), text)
    out = []
    for w in words:
        item = _node(SCALAR, w.text.replace("$", "$$"), own, w.start, w.end, node.path)
        out.append(adopt(item, own) if own is not spans else item)
    return out
