"""Docker Compose services that run an engine.

`command`/`entrypoint` as a list (exec form) or a string (split like a
command line), `environment` as a list of `K=V` or a mapping, GPUs from
`deploy.resources.reservations.devices[].count` (`all` is unknown), and
`ctxlint.io/*` limits from the service's `labels` mapping. Compose
interpolates `${VAR}` from the host, then the project's `.env` file (beside the
compose file), before anything runs: a name `.env` sets takes its value there,
else `${VAR:-default}` and `${VAR-default}` take their default (the host is
unknown here), and a plain `${VAR}` stays unresolved and is reported, never
guessed. A service's `env_file:` files are its container's environment under
its `environment:` (adapters/dotenv.py reads both as Compose does, each value
at its place in its file). An entrypoint that runs a mounted script file
(`sh /app/start.sh`) runs it with the service's environment, image and GPUs
(compose_scripts.py). Which words of a service run as its program is read in
compose_words.py.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.config_files import compose_mounts, tree_reader
from ctxlint.adapters.kinds import compose_file
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import Container, EnvVar, Workload, limits_from_annotations, read_container
from ctxlint.adapters.workload_inputs import env_from_list, env_from_mapping
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.adapters.compose_words import given_to_engine, program_nodes, words as _words
from ctxlint.lazyre import lazy_compile
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.adapters.crd_common import clone
from ctxlint.nodes import MAP, SCALAR, SEQ, Node, Position

NAME = "compose"
_SHELL = "is the shell's value (not known here): the `environment` entry gives none and no project .env sets it"
_DEFAULT = lazy_compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:?-)([^}]*)\}")
_REF = lazy_compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}|\$([A-Za-z_][A-Za-z0-9_]*)")


matches = compose_file  # kinds.py: adapters.kinds.selected calls this adapter only for a file with such a document


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    project: Optional[Dict[str, Optional[str]]] = None
    written: Dict[str, Node] = {}
    for doc in loaded.documents:
        if not matches(doc.root):
            continue
        if project is None:  # once a file: only a file that interpolates reads the project's .env
            project = {}
            if "$" in loaded.text:
                from ctxlint.adapters.compose_env_files import project_env

                project, written = project_env(loaded.path, result)
        for key, service in doc.root.get("services").value.items():
            if service.kind == MAP:
                workload = _service(str(key), doc.root.get("services").keys[key], service, spans, result,
                                    project, written)
                if workload is not None:
                    workloads.append(workload)
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _defaults(nodes: List[Optional[Node]]) -> Dict[str, str]:
    """`${VAR:-default}` defaults written anywhere in the service's command and env."""
    found: Dict[str, str] = {}
    for node in nodes:
        for n in node.walk() if node is not None else ():
            if n.kind == SCALAR and isinstance(n.value, str):
                for m in _DEFAULT.finditer(n.value):
                    found.setdefault(m.group(1), m.group(3))
    return found


def _interpolate(text: str, project: Dict[str, Optional[str]]) -> Optional[str]:
    """A value after Compose's interpolation, or None when it needs the host: a name the project's `.env` sets
    takes its value there (None: not known), else `${VAR:-d}`/`${VAR-d}` their default."""
    if project:
        from ctxlint.adapters.dotenv import substitute

        return substitute(text, project)
    text = _DEFAULT.sub(lambda m: m.group(3), text.replace("$$", "\0"))
    if _REF.search(text):
        return None
    return text.replace("\0", "$")


def _image_text(image: Optional[Node], project: Dict[str, Optional[str]]) -> Optional[str]:
    """`image: ${VLLM_IMAGE:-kloudchat-vllm:local}` as Compose runs it without that variable: its default (as for
    every other field here); None when it is written without `$`, or needs a value of the host's."""
    if image is None or image.kind != SCALAR or not isinstance(image.value, str) or "$" not in image.value:
        return None
    return _interpolate(image.value, project)


def _environment(node: Optional[Node], project: Dict[str, Optional[str]]) -> List[EnvVar]:
    """The service's `environment`. A name with no value (`- HF_TOKEN`, `HF_TOKEN:`) is the project's: the shell's
    (not known here), else the `.env` value (compose-go@e70e961c:types/project.go WithServicesEnvironmentResolved,
    `service.Environment.Resolve(newProject.Environment.Resolve)`), and it overrides an `env_file:` all the same."""
    def resolve(value: str) -> Optional[str]:
        return _interpolate(value, project)
    out = env_from_mapping(node, resolve) + env_from_list(node, resolve)  # one of them is empty
    if node is not None and node.kind == MAP:
        out = [EnvVar(var.name, project.get(var.name), var.node, _why(var.name, project)) if var.node is not None
               and var.node.value is None else var for var in out]
    elif node is not None and node.kind == SEQ:
        named = {var.name for var in out}
        out += [EnvVar(item.value.strip(), project.get(item.value.strip()), item, _why(item.value.strip(), project))
                for item in node.value
                if item.kind == SCALAR and isinstance(item.value, str) and "=" not in item.value
                and item.value.strip() and item.value.strip() not in named]
    return out


def _why(name: str, project: Dict[str, Optional[str]]) -> str:
    return "is set by the project .env to a value not known here" if name in project else _SHELL


# The keys that may give a service GPUs (compose_gpus.py reads them together: two may add up or override)
_DEVICE_KEYS = ("runtime", "devices", "gpus", "deploy", "privileged")


def _service(name: str, key: Node, service: Node, spans: ScalarSpans, result: AdaptResult,
             project: Dict[str, Optional[str]], written: Dict[str, Node]) -> Optional[Workload]:
    file = spans.file
    command, entrypoint = service.get("command"), service.get("entrypoint")
    cleared = entrypoint is not None and entrypoint.value in ("", [], None)
    if cleared:  # `entrypoint: ""` or `[]` clears the image's entrypoint: the command runs as written
        entrypoint = None
    defaults = _defaults([command, entrypoint, service.get("environment"), service.get("deploy")])
    env = _environment(service.get("environment"), project)
    if service.get("env_file") is not None:
        from ctxlint.adapters.compose_env_files import env_file_vars

        env = env_file_vars(service.get("env_file"), file, project, env, result, name) + env

    def resolve(var: str) -> Optional[str]:
        # Compose interpolates from the host (unknown), then the project's `.env`, with the file's defaults.
        if var in project:
            return project[var] or None  # "" as unknown: the `${VAR:-d}` that reads it wants d
        return defaults.get(var)

    image = service.get("image")
    image_text, built = _image_text(image, project), None
    if service.get("build") is not None:  # the image its Dockerfile makes (compose_build.py)
        from ctxlint.adapters.compose_build import built_service
        built = built_service(service, file, lambda text: _interpolate(text, project),
                              image_text or (image.value if image is not None else None), entrypoint, command,
                              cleared)
    if built is not None and built.dockerfile is not None:
        image, image_text, entrypoint, command = built.image, built.image_text, built.entrypoint, built.command
        env = built.env + env  # the service's environment wins over the image's ENV
    if entrypoint is not None and entrypoint.kind == SCALAR and isinstance(entrypoint.value, str) \
            and command is not None:  # the command's words follow the entrypoint's: split both
        entrypoint = _words(entrypoint, spans, resolve)
    if entrypoint is not None and entrypoint.kind == SEQ and command is not None and command.kind == SCALAR \
            and isinstance(command.value, str):
        command = _words(command, spans, resolve)
    if entrypoint is None and not cleared and command is not None and command.kind == SCALAR \
            and isinstance(command.value, str) and given_to_engine(command.value, image_text or image):
        command = _words(command, spans, resolve)  # the engine's arguments, no shell's line (entry_words.py)
    lists = [n for n in (entrypoint, command) if n is not None and n.kind == SEQ]
    strings = [n for n in (entrypoint, command) if n is not None and n.kind == SCALAR and isinstance(n.value, str)]
    mounts = compose_mounts(service, lambda text: _interpolate(text, project))
    # the host's folders alone, before the files a build COPYs in, a target mounted twice naming none (mounted_model.py)
    bind = compose_mounts(service, lambda text: _interpolate(text, project), twice="")
    if built is not None and built.copies:  # the files COPY put in the image, under the service's bind mounts
        from ctxlint.adapters.compose_build import add_copies
        add_copies(mounts, built, file)
    count, uncounted, privileged = None, None, False
    if any(service.get(k) is not None for k in _DEVICE_KEYS):
        from ctxlint.adapters.compose_gpus import service_gpus  # a service that may get GPUs
        count, uncounted, privileged = service_gpus(service, file, env, lambda text: _interpolate(text, project))
    container = Container(spans=spans, node=service, name=name, env=env, image=image,
                          image_text=image_text, args_only=entrypoint is None and not cleared,
                          k8s_refs=False, compose_refs=True, resolver=resolve, accelerator_count=count,
                          gpus_uncounted=uncounted, privileged=privileged,
                          config_reader=tree_reader(file, mounts), mounts=bind)
    if built is not None and built.reinstalled is not None:  # a RUN installs the engine: its pin, not the FROM tag
        container.install_scripts, container.reinstalled = built.runs, built.reinstalled
    if built is not None and built.shell_words:  # the Dockerfile's words: no Compose interpolation, the env's values
        container.compose_refs, container.resolver = False, None
    elif written:  # a value the project's .env gives is said where it is written there
        from ctxlint.adapters.compose_env_files import value_nodes

        container.resolver_nodes = value_nodes(env, project, written)
    if strings and not lists:
        container.script = strings[0]
    else:
        container.command, container.args = (entrypoint, command) if entrypoint is not None and \
            entrypoint.kind == SEQ else (None, command)
    words = program_nodes(entrypoint, command, cleared, container.image_text or (image.value if image else None))
    if words:  # `sh /app/start.sh`: the script file is what runs
        from ctxlint.adapters.compose_scripts import run_script, script_word

        words = [w for n in (_words(n, spans) if n.kind == SCALAR else n for n in words) if n.kind == SEQ
                 for w in n.value]
        at = script_word(words)
        if at is not None:
            run_script(words[at], name, container, mounts, result, words[at + 1:])
    reading = read_container(container)
    result.diagnostics.extend(reading.diagnostics)
    roles = reading.roles or _nim(image, container, spans, result, words or lists or strings)
    if not roles:
        if built is not None and built.unread:  # a Dockerfile not read hides what the service runs: said
            from ctxlint.adapters.compose_build import unread_note
            unread_note(built, service, name, file, container.accelerator_count is not None, result)
        return None
    if built is not None:  # what of the build is not known, said once the service is known to run an engine
        from ctxlint.adapters.compose_build import build_notes
        build_notes(built, name, file, result)
    labels = _label_map(service.get("labels"))
    advertised, gateway, measured = limits_from_annotations(labels, file, result.diagnostics, name)
    return Workload(name=Val(name, key.source(file)), source=service.source(file), input_format=NAME,
                    roles=roles, advertised=advertised, gateway=gateway, measured=measured)


def _nim(image: Optional[Node], container: Container, spans: ScalarSpans, result: AdaptResult, commanded) -> list:
    """A service on an LLM NIM image (`nvcr.io/nim/<org>/<model>`, as typed: one Compose interpolates names its
    image only once run), which starts its own server when the service gives it no command (the NIM's entrypoint
    reads its `NIM_*` environment, as in a pod: pod_specs.py _PodContext.nim); its GPUs are the service's device
    reservation. A NIM that serves no LLM (an embedding, a reranker) is no deployment (nim_names)."""
    text = image.value if image is not None and image.kind == SCALAR else None
    if commanded or not isinstance(text, str) or "$" in text or "nvcr.io/nim" not in text.lower():
        return []
    from ctxlint.adapters.crds_nim import nim_role  # only a NIM service pays for it

    role = nim_role(image, container.env, spans, result, container.accelerator_count, None)
    return [role] if role is not None else []


def _label_map(labels: Optional[Node]) -> Optional[Node]:
    """Compose `labels` as a mapping: the list form (`- "ctxlint.io/context-window=131072"`) too, each
    value placed at its own text after the `=`."""
    if labels is None or labels.kind != SEQ:
        return labels
    values: Dict[str, Node] = {}
    keys: Dict[str, Node] = {}
    for item in labels.value:
        if item.kind != SCALAR or not isinstance(item.value, str) or "=" not in item.value:
            continue
        key, _, text = item.value.partition("=")
        start, end = item.start, item.end
        if item.start.line == item.end.line:  # one line: the value is after `key=`, inside the quotes
            quoted = item.style in ('"', "'")
            skip = len(key) + 1 + quoted
            start = Position(item.start.index + skip, item.start.line, item.start.column + skip)
            end = Position(item.end.index - quoted, item.end.line, item.end.column - quoted)
        values[key], keys[key] = clone(item, value=text, start=start, end=end), clone(item, value=key)
    return clone(labels, kind=MAP, value=values, keys=keys)
