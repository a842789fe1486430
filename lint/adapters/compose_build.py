"""A compose service that builds its image runs what its Dockerfile says (dockerfile_image.py).

`build: ./dir` is that directory's `Dockerfile`; `build: {context, dockerfile, args, target}` the `dockerfile`
relative to the `context`, itself relative to the compose file, built with `args` to the `target` stage
(compose-spec/compose-spec@170098ba07d9f53c383a41bfd4c5166b0a4529a6:build.md "context", "dockerfile", "args",
"target"). The service's `entrypoint:`, `command:` and `environment:` override the image's as Docker does; what of
the build is not known is CTX008 where it is typed, said of a service that runs an engine.
"""
from __future__ import annotations

import os
import re
from typing import Dict, List, Optional, Tuple

from ctxlint.dockerfile_image import Build, read_build
from ctxlint.lazyre import lazy_compile
from ctxlint.dockerfile_values import UNKNOWN
from ctxlint.nodes import MAP, SCALAR, SEQ, Node


# Compose's schema takes `build` as a string (the context) or a mapping of strings (compose-spec/compose-spec@
# 00655e2222608fa6eaecdf12ac5195889ca2244a:schema/compose-spec.json, service "build": oneOf string, object)
WRONG_TYPE = "its `build` is no path or mapping"


def _wrong_type(why: Optional[str]) -> bool:
    return why is not None and (why == WRONG_TYPE or why.endswith(" is no string"))


def build_paths(build: Node, compose: str, interpolate) -> Tuple[Optional[str], Optional[str], Optional[Node]]:
    """(the Dockerfile's path, why it is not known, the node that names it) of a service's `build`."""
    base = os.path.dirname(compose) if compose not in ("-", "") and not compose.startswith("<") else None
    if build.kind == SCALAR and build.value is not None and not isinstance(build.value, str):
        return None, WRONG_TYPE, build  # `build: 42`: the schema takes a string or a mapping
    if build.kind == SCALAR:
        context, dockerfile, at = build, None, build
    elif build.kind == MAP:
        context, dockerfile = build.get("context"), build.get("dockerfile")
        at = dockerfile if dockerfile is not None else context if context is not None else build
    else:
        return None, WRONG_TYPE, build
    if base is None:
        return None, "the compose file is read from stdin: its build context is not known", at
    if build.kind == MAP and build.get("dockerfile_inline") is not None:
        return None, "its Dockerfile is `dockerfile_inline`, which is not read", build.get("dockerfile_inline")
    texts = []
    for node, default in ((context, "."), (dockerfile, "Dockerfile")):
        if node is None:
            texts.append(default)
            continue
        if node.kind != SCALAR or node.value is not None and not isinstance(node.value, str):
            return None, f"its build {'context' if node is context else 'dockerfile'} is no string", node
        text = interpolate(node.value) if isinstance(node.value, str) else None
        if text is None:
            return None, f"its build {'context' if node is context else 'dockerfile'} {node.value!r} needs a " \
                         "value of the host's", node
        texts.append(text)
    # a remote context as compose-go reads one (compose-spec/compose-go@6fbbbd15b4a7e223dcd14e65dea4831afe3cfa5c:
    # paths/context.go isRemoteContext: `://`, or the prefixes `github.com/`, `git@`), and `~` the host's home
    # (compose-go@12e2dddda67d9e76d0a64c33985fe6adaf48632e:paths/resolve.go absPath), not a folder beside the file
    if "://" in texts[0] or texts[0].startswith(("git@", "github.com/")):
        return None, f"it builds from {texts[0]}, which is not read", context
    if texts[0].startswith("~"):
        return None, f"its build context {texts[0]!r} is in the host's home folder", context
    directory = os.path.normpath(os.path.join(base, texts[0]))
    return os.path.normpath(os.path.join(directory, texts[1])), None, at


def build_args(build: Node, interpolate) -> Dict[str, object]:
    """`build.args` (a mapping or `NAME=value` items) after Compose's interpolation: a value of the host's, or a
    name with no value (Compose takes it from the environment), is UNKNOWN."""
    args = build.get("args") if build.kind == MAP else None
    found: Dict[str, object] = {}
    if args is not None and args.kind == MAP:
        for key, node in args.value.items():
            text = node.value if node.kind == SCALAR else None
            value = interpolate(text) if isinstance(text, str) else (str(text).lower() if isinstance(text, bool)
                                                                   else None if text is None else str(text))
            found[str(key)] = UNKNOWN if value is None else value
    elif args is not None and args.kind == SEQ:
        for item in args.value:
            if item.kind == SCALAR and isinstance(item.value, str):
                name, eq, text = item.value.partition("=")
                value = interpolate(text) if eq else None
                found[name.strip()] = UNKNOWN if value is None else value
    return found


def built_service(service: Node, compose: str, interpolate, image: Optional[str], entrypoint: Optional[Node],
                  command: Optional[Node], cleared: bool) -> Optional[Build]:
    """The build a service runs (service_build), its ENTRYPOINT and CMD overridden as Compose does: an `entrypoint:`
    replaces the ENTRYPOINT and drops the CMD ("If `entrypoint` is non-null, Compose ignores any default command
    from the image"), a `command:` replaces the CMD (compose-spec@170098ba:05-services.md "entrypoint",
    "command")."""
    out = service_build(service, compose, interpolate, image)
    if out is None or out.dockerfile is None:
        return out
    out.reinstalled = reinstalled(out)
    if entrypoint is not None or cleared:
        out.entrypoint, out.command = entrypoint, command
        return out
    ours = [n for n in (out.entrypoint, out.command if command is None else None) if n is not None]
    if command is not None:
        out.command = command
    # exec-form words reach the program as typed and a shell form's `$NAME` is its shell's (the container's env),
    # where Compose would interpolate a `$` of its own command: read apart, so both at once are not read
    dollar = any(isinstance(w.value, str) and "$" in w.value for n in ours for w in n.value)
    if dollar and command is not None and any("$" in str(n.value) for n in command.walk() if n.kind == SCALAR):
        out.unknown.append(("its `command:` and the Dockerfile's ENTRYPOINT both hold a `$`, which Compose and "
                            "the container read apart: the command is not read", command))
        out.command = None
    out.shell_words = dollar
    return out


def build_notes(built: Build, name: str, compose: str, result) -> None:
    """CTX008 for what of a service's build is not known (said only of a service that runs an engine)."""
    from ctxlint.adapters.workload import UNRESOLVED
    from ctxlint.findings import Diagnostic

    if built.why is not None and built.at is not None:
        result.diagnostics.append(Diagnostic(UNRESOLVED, (
            f"the service {name} builds its image, but {built.why}: the image's engine release, ENTRYPOINT, CMD and "
            "ENV are not known"), built.at.source(compose), name))
    for why, node in built.unknown:
        result.diagnostics.append(Diagnostic(UNRESOLVED, f"the service {name}: {why}", node.source(compose), name))
    if built.dockerfile is not None:
        result.dockerfiles.append(built.dockerfile)


# A word of an engine ctxlint reads (or a model's, `llama`), in a service's name or any of its values; not
# Ollama's (`ollama`, an Open WebUI's OLLAMA_BASE_URL), which is no engine ctxlint reads
_ENGINE_WORD = lazy_compile(r"vllm|sglang|text-generation|\btgi|(?<!o)llama|trt-?llm|tensorrt|lmdeploy|nim\b",
                            re.IGNORECASE)


def unread_note(built: Build, service: Node, name: str, compose: str, gpus: bool, result) -> None:
    """CTX008 for a service that runs no engine ctxlint sees because its `build` is of a type Compose refuses, or
    its Dockerfile is missing or not readable where the service may run an engine (it reserves GPUs, or its name or
    a value names an engine: av__harbor's `vllm` service, whose Dockerfile a copy of the compose file lacks): what
    it runs is not known, said where the build is named rather than nothing. A web app's build stays quiet."""
    from ctxlint.adapters.workload import UNRESOLVED
    from ctxlint.findings import Diagnostic

    if not built.unread or built.at is None:
        return
    if _wrong_type(built.why) or gpus or _ENGINE_WORD.search(name) or any(
            n.kind == SCALAR and isinstance(n.value, str) and _ENGINE_WORD.search(n.value) for n in service.walk()):
        result.diagnostics.append(Diagnostic(UNRESOLVED, (
            f"the service {name} builds its image, but {built.why}: what it runs (its engine, ENTRYPOINT, CMD and "
            "ENV) is not known, and it is not checked"), built.at.source(compose), None))


def service_build(service: Node, compose: str, interpolate, image: Optional[str]) -> Optional[Build]:
    """The build a service runs, or None when it runs another image. With `image:` beside `build:` any name but an
    engine's own release image (`vllm/vllm-openai:v0.8.5`) is the tag the build gets; such an image is what `docker
    compose up` runs where the host lacks it (it pulls it, and builds only when the pull fails), unless `pull_policy:
    build` or `never` says to build (docker/compose@f72979427042620a94dd52ce78b39c68cb02c085:pkg/compose/pull.go
    mustPull, pkg/compose/build.go build: no build where the image is present); but `up --build` (which makes every
    policy `build`, cmd/compose/create.go) and `docker compose build` build it under that name. Where the two
    would run different releases (the Dockerfile's FROM names another, or a RUN installs the engine anew), the
    release is not known: a Build of no Dockerfile whose `reinstalled` says why."""
    from ctxlint.engines.images import engine_from_image, is_release_image

    build = service.get("build")
    policy = service.get("pull_policy")
    builds = policy is not None and policy.kind == SCALAR and policy.value in ("build", "never")
    pulled = image is not None and not builds and is_release_image(image)
    path, why, at = build_paths(build, compose, interpolate)
    if path is None:
        return None if pulled else Build(why=why, at=at, unread=_wrong_type(why))
    target = build.get("target") if build.kind == MAP else None
    target_text = interpolate(target.value) if target is not None and isinstance(target.value, str) else None
    if target is not None and not target_text:  # never the last stage in its place: which one is not known
        return None if pulled else Build(why=f"its build target {target.value!r} needs a value of the host's",
                                         at=target)
    context = build if build.kind == SCALAR else build.get("context")
    out = read_build(path, build_args(build, interpolate), target_text,
                     _context_dir(context, compose, interpolate))
    out.at = at
    if not pulled:
        return out
    if out.dockerfile is None or out.image_text is None:
        return None
    why = reinstalled(out)
    if why is None and engine_from_image(out.image_text) == engine_from_image(image):
        return None  # the same release either way: the image as named
    return Build(reinstalled=f"`docker compose up` pulls {image} where the host lacks it, and `up --build` runs the "
                             f"image its build makes ({why or 'FROM ' + out.image_text})")


def read_through(units, built: List[str]) -> None:
    """Drop the CTX011 ("not read") of the Dockerfiles in `built`, named in the run beside the compose file whose
    service builds from them: they are read, through that service (a directory's scan never names a Dockerfile)."""
    from ctxlint.unsupported import UNSUPPORTED_FILE

    paths = {os.path.normpath(f) for f in built}
    for u in units:
        if os.path.normpath(u.loaded.path) in paths:
            u.diagnostics = [d for d in u.diagnostics if d.kind != UNSUPPORTED_FILE]


def _context_dir(context: Optional[Node], compose: str, interpolate) -> Optional[str]:
    text = "." if context is None else interpolate(context.value) if isinstance(context.value, str) else None
    return None if text is None else os.path.normpath(os.path.join(os.path.dirname(compose), text))


def add_copies(mounts: Dict[str, str], built: Build, compose: str) -> None:
    """The files COPY put in the image, as bind mounts are kept (a container path -> a host path from the compose
    file's directory), where no bind mount of the service covers them: a mount hides the image's file."""
    for inside, host in built.copies.items():
        mounts.setdefault(inside, os.path.relpath(host, os.path.dirname(compose) or "."))


def reinstalled(built: Build) -> Optional[str]:
    """Why the FROM image's tag is not the release the built image runs: a RUN that installs the engine's package
    anew (`pip install vllm==0.9.1` over vllm/vllm-openai:v0.7.3, `pip install -U git+...vllm.git`), whatever it
    pins; the release is then the one a RUN pins (workload_versions reads the RUN lines), else not known (an
    unpinned `pip install -U vllm` installed the newest of the day the image was built, which the layer cache keeps,
    not today's)."""
    from ctxlint.adapters.workload_versions import installs_over

    return installs_over(built.image_text, built.runs, "the Dockerfile's RUN")
