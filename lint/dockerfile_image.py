"""The image a Dockerfile builds: what of it a container runs (compose_build.py reads it for a service that builds
its image).

Docker keeps, of the stage built (the last one unless a target names another): the image its stages start FROM
(through `FROM <stage>` to the first image that is no stage), whose tag names the engine's release as an `image:`
would; its ENTRYPOINT and CMD; its ENV, each value expanded at build time with the ARGs and ENVs before it
(dockerfile_values.py); the files COPY puts in it. An ENTRYPOINT drops a CMD the stage did not set itself
(moby/buildkit@73ed6825c4b7569379ef89df0aedcdbe64473d31:frontend/dockerfile/dockerfile2llb/convert.go
dispatchEntrypoint: `if !d.cmd.IsSet { d.image.Config.Cmd = nil }`), and a shell form is the stage's SHELL
(`/bin/sh -c` unless a SHELL instruction names another) given the text as one word (withShell there); a stage
FROM another starts from a copy of its image (`ds.image = clone(ds.base.image)` there).

What is not known stays unknown, said where it is typed (`unknown`): a FROM image made with a build argument from
the host, a target no stage has. A Dockerfile that is missing or unreadable gives nothing (`why`).
"""
from __future__ import annotations

import os
import posixpath
from typing import Dict, List, Optional, Tuple

from ctxlint.adapters.workload_inputs import EnvVar
from ctxlint.dockerfile import Dockerfile, Instruction, read_dockerfile
from ctxlint.dockerfile_values import PLATFORM_ARGS, UNKNOWN, expand, split_pairs
from ctxlint.nodes import SEQ, Marks, Node, adopt

from .records import field, record

_EXTERNAL = "image"  # an ENTRYPOINT or CMD the FROM image has, which the Dockerfile does not set


@record
class Build:
    dockerfile: Optional[str] = None  # its path; None when not read (`why`)
    why: Optional[str] = None  # why the Dockerfile is not read
    at: Optional[Node] = None  # the compose file's value that names it (its `build`, `dockerfile` or `context`)
    image: Optional[Node] = None  # the FROM word of the image the stages start from
    image_text: Optional[str] = None  # that word expanded; None when it needs a value not known
    entrypoint: Optional[Node] = None  # the ENTRYPOINT (a SEQ), None: the FROM image's own
    command: Optional[Node] = None  # the CMD (a SEQ), None: none (the FROM image's, or dropped by an ENTRYPOINT)
    env: List[EnvVar] = field(default_factory=list)
    copies: Dict[str, str] = field(default_factory=dict)  # a path in the image -> the file COPY put there
    runs: List[Node] = field(default_factory=list)  # the RUN lines of the stages built, in order
    reinstalled: Optional[str] = None  # why the FROM tag is not the engine's release (a RUN installs it anew)
    shell_words: bool = False  # the command holds the Dockerfile's words with a `$`: no Compose interpolation
    unknown: List[Tuple[str, Node]] = field(default_factory=list)  # (what is not known, where)
    # the Dockerfile is missing or not readable, or the `build` is of a type Compose refuses: said of any service
    unread: bool = False


class _Stage:
    __slots__ = ("name", "image", "image_text", "entrypoint", "cmd", "shell", "env", "env_values", "workdir",
                 "copies", "runs")

    def __init__(self, name: Optional[str]) -> None:
        self.name = name
        self.image: Optional[Node] = None
        self.image_text: Optional[str] = None
        self.entrypoint, self.cmd = _EXTERNAL, _EXTERNAL  # or a list of nodes
        self.shell: Optional[List[Node]] = None  # None: /bin/sh -c
        self.env: Dict[str, EnvVar] = {}
        self.env_values: Dict[str, object] = {}  # name -> str, or UNKNOWN
        self.workdir: Optional[str] = "/"  # None: not known
        self.copies: Dict[str, str] = {}
        self.runs: List[Node] = []


def read_build(path: str, args: Dict[str, object], target: Optional[str], context: Optional[str] = None) -> Build:
    """What the image built from the Dockerfile at `path` with the build context `context` (a directory) runs, for
    the stage `target` (None: the last)."""
    if os.path.basename(path) == "Dockerfile" and not os.path.exists(path) \
            and os.path.isfile(os.path.join(os.path.dirname(path), "dockerfile")):
        # the default name is also read as `dockerfile` (moby/buildkit@73ed6825c4b7569379ef89df0aedcdbe64473d31:
        # frontend/dockerui/config.go, "dockerfile is also supported casing moby/moby#10858")
        path = os.path.join(os.path.dirname(path), "dockerfile")
    dockerfile, why = read_dockerfile(path)
    if dockerfile is None:
        return Build(why=f"its Dockerfile {path} is {why}", unread=True)
    out = Build(dockerfile=path)
    stages: List[_Stage] = []
    global_args: Dict[str, object] = {}
    stage: Optional[_Stage] = None
    stage_args: Dict[str, object] = {}
    cmd_set = False  # a CMD in the stage: an ENTRYPOINT after it keeps it
    for ins in dockerfile.instructions:
        if ins.keyword == "FROM":
            stage, stage_args, cmd_set = _from(dockerfile, ins, stages, global_args, out), {}, False
            stages.append(stage)
        elif ins.keyword == "ARG":
            scope = global_args if stage is None else stage_args
            _arg(ins, args, scope, global_args if stage is not None else None, stage, dockerfile.escape)
        elif stage is None:
            continue
        elif ins.keyword == "ENV":
            _env(dockerfile, ins, stage, stage_args)
        elif ins.keyword == "WORKDIR":
            _workdir(ins, stage, stage_args, dockerfile.escape)
        elif ins.keyword in ("COPY", "ADD") and context is not None:
            _copy(dockerfile, ins, stage, context)
        elif ins.keyword == "RUN" and ins.text.strip():  # an exec form's JSON text too: it installs as well
            lead = len(ins.text) - len(ins.text.lstrip())
            stage.runs.append(dockerfile.word(ins, lead, len(ins.text.rstrip()), path="RUN"))
        elif ins.keyword in ("CMD", "ENTRYPOINT", "SHELL"):
            words = dockerfile.exec_form(ins)
            if ins.keyword == "SHELL":
                stage.shell = words  # the exec form only (Docker refuses another)
                continue
            if words is None:
                shell = stage.shell or [dockerfile.at_keyword(ins, "/bin/sh", f"{ins.keyword}[0]"),
                                        dockerfile.at_keyword(ins, "-c", f"{ins.keyword}[1]")]
                text = ins.text.strip(" \t")
                lead = len(ins.text) - len(ins.text.lstrip(" \t"))
                words = list(shell) + [dockerfile.word(ins, lead, lead + len(text), path=ins.keyword)]
            if ins.keyword == "CMD":
                stage.cmd, cmd_set = words, True
            else:
                stage.entrypoint = words
                if not cmd_set:
                    stage.cmd = []
    built = _target(stages, target)
    if built is None:
        if stages and target:
            out.why = f"its build target {target!r} is no stage of {path}"
        elif not stages:
            out.why = f"its Dockerfile {path} has no FROM"
        return out
    out.image, out.image_text = built.image, built.image_text
    if built.entrypoint != _EXTERNAL:
        out.entrypoint = _seq(dockerfile, built.entrypoint, "ENTRYPOINT")
    if built.cmd != _EXTERNAL and built.cmd:
        out.command = _seq(dockerfile, built.cmd, "CMD")
    out.env = list(built.env.values())
    out.copies, out.runs = built.copies, built.runs
    return out


def _seq(dockerfile: Dockerfile, words: List[Node], path: str) -> Node:
    """The words as one exec-form list, placed from its first word to its last."""
    node = adopt(Node(SEQ, [], Marks(words[0].start, words[-1].end) if words else
                      Marks(dockerfile.position(0), dockerfile.position(0)), path), dockerfile.spans)
    node.value = list(words)  # the words themselves, not adopt's copies: the spans know each by its id
    return node


def _target(stages: List[_Stage], target: Optional[str]) -> Optional[_Stage]:
    if not target:
        return stages[-1] if stages else None
    return next((s for s in stages if s.name == target.lower()), None)


def _from(dockerfile: Dockerfile, ins: Instruction, stages: List[_Stage], global_args, out: Build) -> _Stage:
    """A stage: from an earlier stage (its image, entrypoint, CMD, SHELL and ENV) or from an image."""
    words = [(a, b) for a, b in split_pairs(ins.text, dockerfile.escape) if not ins.text.startswith("--", a)]
    name = ins.text[words[2][0]:words[2][1]].lower() if len(words) >= 3 and \
        ins.text[words[1][0]:words[1][1]].lower() == "as" else None
    stage = _Stage(name)
    if not words:
        return stage
    a, b = words[0]
    typed = ins.text[a:b]

    def lookup(ref: str):
        value = global_args.get(ref)
        return UNKNOWN if value is None and ref in PLATFORM_ARGS else value
    text = expand(typed, lookup, dockerfile.escape, quotes=False)
    base = next((s for s in reversed(stages) if text is not None and s.name == text.lower()), None)
    if base is not None:
        stage.image, stage.image_text = base.image, base.image_text
        stage.entrypoint, stage.cmd, stage.shell = base.entrypoint, base.cmd, base.shell
        stage.env, stage.env_values = dict(base.env), dict(base.env_values)
        stage.workdir, stage.copies, stage.runs = base.workdir, dict(base.copies), list(base.runs)
        return stage
    if text is not None and text.lower() == "scratch":
        return stage
    stage.image = dockerfile.word(ins, a, b, path="FROM")
    stage.image_text = text if text is not None else typed
    if text is None:
        out.unknown.append((f"the image its build starts FROM, {typed}, needs a build argument not known here",
                            stage.image))
    return stage


def _arg(ins: Instruction, given: Dict[str, object], scope: Dict[str, object], global_args, stage,
         escape: str) -> None:
    """ARG NAME[=default] ...: a build argument given, else the default, else (in a stage) the global ARG's value."""
    for a, b in split_pairs(ins.text, escape):
        name, eq, default = ins.text[a:b].partition("=")
        if name in given:
            value = given[name]
        elif eq:
            env_values = stage.env_values if stage is not None else {}
            value = expand(default, lambda ref: env_values.get(ref, scope.get(ref)), escape)
            value = UNKNOWN if value is None else value
        elif global_args is not None and name in global_args:
            value = global_args[name]
        else:
            value = UNKNOWN if name in PLATFORM_ARGS else None
        scope[name] = value


def _env(dockerfile: Dockerfile, ins: Instruction, stage: _Stage, stage_args: Dict[str, object]) -> None:
    """ENV name=value ... (or the old `ENV name value`), each value expanded with the ENVs and ARGs before the
    instruction, at its place in the Dockerfile."""
    words = split_pairs(ins.text, dockerfile.escape)
    if not words:
        return
    before = dict(stage.env_values)

    def lookup(ref: str):
        return before[ref] if ref in before else stage_args.get(ref)
    first = ins.text[words[0][0]:words[0][1]]
    if "=" not in first:  # the old form: one name, the rest of the line its value
        pairs = [(first, words[1][0], words[-1][1])] if len(words) > 1 else []
    else:
        pairs = []
        for a, b in words:
            name, _, _ = ins.text[a:b].partition("=")
            pairs.append((name, a + len(name) + 1, b))
    for name, a, b in pairs:
        value = expand(ins.text[a:b], lookup, dockerfile.escape)
        node = dockerfile.word(ins, a, b, value if value is not None else ins.text[a:b], path=f"ENV.{name}")
        stage.env_values[name] = UNKNOWN if value is None else value
        stage.env.pop(name, None)  # a name set again moves to the end, as the image's Env list keeps it
        stage.env[name] = EnvVar(name, value, node, None if value is not None else
                                 "is set by the Dockerfile's ENV from a build argument not known here")


def _workdir(ins: Instruction, stage: _Stage, stage_args: Dict[str, object], escape: str) -> None:
    """WORKDIR: a relative path is below the one before (docs "WORKDIR"); one that needs a value not known leaves
    the directory unknown."""
    before = stage.env_values
    text = expand(ins.text.strip(), lambda ref: before[ref] if ref in before else stage_args.get(ref), escape)
    if not text or stage.workdir is None and not text.startswith("/"):
        stage.workdir = None
        return
    stage.workdir = posixpath.normpath(posixpath.join(stage.workdir or "/", text))


def _copy(dockerfile: Dockerfile, ins: Instruction, stage: _Stage, context: str) -> None:
    """COPY/ADD of files of the build context (not `--from` another stage or image, no wildcard, URL or `$`): the
    file at its place in the image, where an ENTRYPOINT or CMD may run it (docs "COPY": a destination ending in `/`,
    or one of several sources, is a directory; one that exists in the image is one too, which the Dockerfile does
    not say: a single file is kept at both places). A here-document's file (`COPY <<EOF /start.sh`) is not kept."""
    words = dockerfile.exec_form(ins)
    texts = [str(w.value) for w in words] if words is not None else \
        [ins.text[a:b] for a, b in split_pairs(ins.text, dockerfile.escape)]
    if any(t.startswith("--from") for t in texts):
        return
    texts = [t for t in texts if not t.startswith("--")]
    if len(texts) < 2 or any("$" in t or "://" in t or t.startswith("<<") or any(c in t for c in "*?[")
                             for t in texts):  # a `<<EOF` source is a here-document, no file of the context
        return
    *sources, dest = texts
    if not dest.startswith("/"):
        if stage.workdir is None:
            return
        dest = posixpath.join(stage.workdir, dest)
    for source in sources:
        host = os.path.normpath(os.path.join(context, source))
        if os.path.isdir(host) or dest.endswith("/") or len(sources) > 1:
            places = [dest if os.path.isdir(host) else posixpath.join(dest, posixpath.basename(source))]
        else:
            places = [dest, posixpath.join(dest, posixpath.basename(source))]
        for place in places:
            stage.copies[posixpath.normpath(place)] = host
