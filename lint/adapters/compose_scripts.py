"""A compose service whose entrypoint runs a script file: `entrypoint: ["/bin/sh", "/app/start.sh"]` with
`volumes: ["./start.sh:/app/start.sh"]`.

The container runs the script, not the image's entrypoint, with the service's `environment`, image and GPU
reservation; the file is found as a mounted `--config` file is (config_files.mounted_file: through the bind mount,
or beside the compose file), and read as a shell script is (shell_script.script_node), each value at its place
in the script. The script is then no deployment of its own (`runs`, for engine._lint_group): read alone it would
lack the service's model, GPUs and image release. A script that is not there is CTX008 at its word, never
guessed. Only a service whose words run a script (a shell and a path that is no option, or a `*.sh` program)
imports this module.
"""
from __future__ import annotations

import os
import re
from typing import List, Optional, Sequence, Tuple

from ctxlint.engines.tokens import SHELLS
from ctxlint.nodes import SCALAR, Node

_SCRIPT_SUFFIXES = (".sh", ".bash")


def script_word(words: Sequence[Node]) -> Optional[int]:
    """Index of the script of `sh [options] SCRIPT [args]` (a shell reads commands from the file named by its first
    operand when there is no `-c`: POSIX sh "OPERANDS") or of a `*.sh` program, among a service's command words;
    None otherwise."""
    texts = [w.value if w.kind == SCALAR and isinstance(w.value, str) else "" for w in words]
    if not texts or not texts[0]:
        return None
    program = texts[0].rsplit("/", 1)[-1]
    if program.endswith(_SCRIPT_SUFFIXES):
        return 0
    if program not in SHELLS:
        return None
    i = 1
    while i < len(texts) and texts[i].startswith(("-", "+")) and texts[i] != "--":
        if not texts[i].startswith("--") and "c" in texts[i][1:]:
            return None  # `sh -c STRING`, `sh -ec STRING`: a command string, read as one elsewhere
        i += 2 if texts[i] in ("-o", "+o") else 1
    i += 1 if i < len(texts) and texts[i] == "--" else 0
    return i if i < len(texts) and texts[i] and "$" not in texts[i] else None


def run_script(word: Node, name: str, container, mounts, result, params: Sequence[Node] = ()) -> None:
    """Make `container` (a compose service's) run the script file `word` names, when it is found and names an
    engine (`result.scripts` then lists it), with the words after it (`params`: the entrypoint's, then the
    `command`'s) as its positional parameters; a script not found on an engine's image is CTX008 at its word."""
    from ctxlint.adapters.workload import UNRESOLVED
    from ctxlint.engines.images import engine_from_image
    from ctxlint.findings import Diagnostic

    file = container.spans.file
    found, why = mounted_script(word, file, mounts)
    if found is not None:
        if script_container(found, container, params) is not None:
            result.scripts.append(found)
        return
    image = container.image_text or (container.image.value if container.image is not None else None)
    if engine_from_image(image)[0] is not None:  # a web server's or database's own script is none of ours
        result.diagnostics.append(Diagnostic(UNRESOLVED, f"the service {name} {why}, so the engine it starts is not "
                                             "checked (a script is read through the service's bind mount, or beside "
                                             "this file)", word.source(file), name))


def mounted_script(word: Node, compose: str, mounts) -> Tuple[Optional[str], Optional[str]]:
    """(the script's file on disk, why it is not read): the file behind the container path `word` names."""
    from ctxlint.adapters.config_files import mounted_file

    path = str(word.value)
    base = os.path.dirname(compose) if compose not in ("-", "") and not compose.startswith("<") else None
    found = mounted_file(path, base, mounts) if base is not None else None
    if found is not None:
        return found, None
    host = next((h for target, h in mounts.items() if os.path.normpath(target) == os.path.normpath(path)), None)
    return None, f"runs script {path} from {host}, not found" if host is not None else \
        f"runs script {path}, which no file checked holds (the image's own, or mounted from elsewhere)"


def script_container(found: str, container, params: Sequence[Node] = ()):
    """The service's container running the script file `found` instead of its command: the service's environment
    (read by the script's shell, not interpolated by Compose), image, GPUs and mounts, and `params` as its "$@".
    None when the file is not a script ctxlint reads (too large, unreadable, or it names no engine)."""
    from ctxlint.adapters.shell_script import MAX_CHARS, names_engine, script_node
    from ctxlint.file_reader import read_path
    from ctxlint.nodes import adopt

    loaded = read_path(found, max_bytes=MAX_CHARS)
    if loaded.diagnostics or not loaded.text or "\0" in loaded.text or not names_engine(loaded.text):
        return None
    spans, node = script_node(found, loaded.text)
    container.script, container.command, container.args = adopt(node, spans), None, None
    # Docker runs the entrypoint with the command after it (docs.docker.com/reference/dockerfile/#entrypoint:
    # "Command line arguments to docker run <image> will be appended after all elements in an exec form
    # ENTRYPOINT"; compose-spec's `command` "overrides the default command declared by the container image"): the
    # shell gives the words after the script's path to it as $1.. (bash manual, Invoking Bash: "the first
    # argument is assumed to be the name of a file containing shell commands ... remaining arguments are
    # assigned to the positional parameters"), each where the compose file types it
    container.script_args, container.script_resolver = tuple(params), container.resolver
    container.args_only = container.compose_refs = False
    container.resolver, container.shell_defaults = None, True
    return container


def parameters(nodes: Sequence[Node], first: int, resolver=None):
    """The script's positional parameters (shellfuncs.Positional) from the compose words `nodes`, the first of
    them the reader's item `first`. Compose interpolates the whole file before the container starts, so the
    script gets the words with `$$` as `$` and `${LEN:-65536}` (or `${LEN-65536}`) as its default, each where the
    `${...}` is typed (compose_pass.compose_interpolated, as for a service's own command), a name the project's
    `.env` sets its value there (`resolver`, the service's); a word with a plain `${LEN}` (the host's, not known
    here) is an unknown word, never guessed."""
    from ctxlint.engines.compose_pass import compose_interpolated
    from ctxlint.engines.shellfuncs import Positional
    from ctxlint.engines.tokens import Token, VarRef, typed

    words = []
    for k, node in enumerate(nodes, first):
        text = node.value if node.kind == SCALAR and isinstance(node.value, str) else str(node.value)
        token = typed(text, k)
        if "$" in text:
            value, spans, host = compose_interpolated(text, resolver or (lambda name: None), defaults=True)
            if not host:
                words.append(Token(value, 0, len(text), tuple(a for a, _ in spans), tuple(b for _, b in spans),
                                   (), k))
                continue
            name = re.search(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", text)
            ref = VarRef(name.group(1) if name else text, "compose", 0, len(text), None, None, k, "script")
            token = Token(text, 0, len(text), token.starts, token.ends, (ref,), k)
        words.append(token)
    return Positional(words, "script")


def runs(units) -> List[str]:
    """The script files that deployments of other files of the group run (their roles are written in them):
    engine._lint_group reads those scripts only through them."""
    scripts = {os.path.normpath(u.loaded.path) for u in units if u.loaded.shell and u.deployments}
    if not scripts:
        return []
    return [f for u in units if not u.loaded.shell for dep in u.deployments for f in dep.files[1:]
            if os.path.normpath(f) in scripts]


def without(units, ran: Sequence[str]) -> None:
    """Empty the units of the scripts in `ran`: no deployment of their own, nor the findings they gave read alone
    (their problems come again through the deployment that runs them); the loader's are kept."""
    ran_set = {os.path.normpath(f) for f in ran}
    for u in units:
        if u.loaded.shell and os.path.normpath(u.loaded.path) in ran_set:
            u.deployments = []
            u.diagnostics = list(u.loaded.diagnostics)
