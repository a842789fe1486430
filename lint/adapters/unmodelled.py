"""Serving engines ctxlint recognises but does not model: said once where each starts (CTX008, info), so a
fleet run learns these servers were not checked instead of counting 0 deployments without a word.

Ollama: the `ollama/ollama` image (any registry), whose entrypoint is `/bin/ollama` and whose CMD is `serve`
(ollama/ollama@fb30760996871fa9460115c753afd2c60d4ab0f7:Dockerfile ENTRYPOINT ["/bin/ollama"], CMD ["serve"]),
run with no command of its own or with `serve` as its arguments; an `ollama serve` command in a container's
script or a launch script (after `nohup`, `exec`, `NAME=value` prefixes); a `docker run` of that image; and
the values of the otwld/ollama-helm chart (`image.repository` that image beside an `ollama:` section). Its
context setting OLLAMA_CONTEXT_LENGTH and OLLAMA_NUM_PARALLEL (envconfig/config.go at the same commit:
ContextLength, NumParallel) are named when the file states them, never checked: ctxlint has no model of
how Ollama sizes its KV cache.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ctxlint.engines.docker_run import parse_run
from ctxlint.adapters.workload import UNRESOLVED
from ctxlint.findings import Diagnostic
from ctxlint.lazyre import lazy_compile
from ctxlint.model import Source

OLLAMA_IMAGE = lazy_compile(r"(?:^|/)ollama/ollama(?::|@|$)")
SETTINGS = ("OLLAMA_CONTEXT_LENGTH", "OLLAMA_NUM_PARALLEL")
_PREFIXES = frozenset(("nohup", "exec", "sudo", "env", "setsid", "nice", "stdbuf", "time"))


def is_ollama_image(image: Optional[str]) -> bool:
    return isinstance(image, str) and OLLAMA_IMAGE.search(image.strip().lower()) is not None


def said(what: str, env: Dict[str, Optional[str]], where: Source) -> Diagnostic:
    """The note for one Ollama server: `what` starts it, `env` its environment (None: a value not in the file)."""
    stated = [f"{name}={env[name]}" if env[name] is not None else f"{name} (a value not in the file)"
              for name in SETTINGS if name in env]
    nor = f", nor its {' and '.join(stated)}" if stated else ""
    return Diagnostic(UNRESOLVED, (
        f"Ollama serves here ({what}), an engine ctxlint does not model: this server is not checked{nor} "
        "(ctxlint checks vLLM, SGLang, TGI, TensorRT-LLM, llama.cpp and LMDeploy)"), where)


def ollama_commands(commands: Sequence, image: Optional[str], args_only: bool, env: Dict[str, Optional[str]],
                    image_source: Callable[[], Source], token_source: Callable) -> List[Diagnostic]:
    """The note for a container or script that starts Ollama's server: its image's own entrypoint (`args_only`:
    the container's words go to it, and are none or `serve`), an `ollama serve` command or a `docker run` of the
    image. One per server; `env`: the container's environment."""
    out: List[Diagnostic] = []
    if args_only and [t.text for cmd in commands for t in cmd.tokens] in ([], ["serve"]) and is_ollama_image(image):
        out.append(said(f"the image {image.strip()}", env, image_source()))
    for cmd in commands:
        found = _serve(cmd.tokens)
        if found is None:
            continue
        tok, container = found
        if container is None:  # the shell's own command: the environment, its exports and its prefixes
            container = dict(env)
            container.update({a.name: (None if a.token.unresolved else a.value) for a in (*cmd.exported, *cmd.env)})
        what = f"the image {tok.text}" if is_ollama_image(tok.text) else "`ollama serve`"
        out.append(said(what, container, token_source(tok)))
    return out


def _serve(tokens: Sequence) -> Optional[Tuple[object, Optional[Dict[str, Optional[str]]]]]:
    """(the word that starts Ollama's server, the environment a `docker run` gives its container, which is only
    its `-e` variables; None for a command the shell runs itself) or None."""
    texts = [t.text for t in tokens]
    run = parse_run(texts) if texts and texts[0].rsplit("/", 1)[-1] in ("docker", "podman", "nerdctl") else None
    if run is not None:
        rest = texts[run.image + 1:]
        if run.entrypoint is None and is_ollama_image(texts[run.image]) and rest in ([], ["serve"]):
            return tokens[run.image], _docker_env(texts[:run.image])
        return None
    i = 0
    while i < len(texts) and (texts[i] in _PREFIXES or "=" in texts[i] and not texts[i].startswith("-")):
        i += 1
    if i + 1 < len(texts) and texts[i].rsplit("/", 1)[-1] == "ollama" and texts[i + 1] == "serve":
        return tokens[i], None
    return None


def read(root, spans, result, input_format: str) -> list:
    """otwld/ollama-helm's values (values_shapes.is_ollama_chart): the note at `image.repository`, with the
    settings its `extraEnv` (a container's env list) states. No workload: nothing in it is checked."""
    from ctxlint.adapters.workload import env_from_k8s

    repo = root.get("image").get("repository")
    tag = root.get("image").get("tag")
    image = f"{repo.value}:{tag.value}" if tag is not None and tag.value not in (None, "") else str(repo.value)
    if is_ollama_image(image):
        env = {v.name: v.value for v in env_from_k8s(root.get("extraEnv")) if v.name in SETTINGS}
        result.diagnostics.append(said(f"the image {image}, chart ollama-helm", env, repo.source(spans.file)))
    return []


def _docker_env(texts: Sequence[str]) -> Dict[str, Optional[str]]:
    out: Dict[str, Optional[str]] = {}
    for i, text in enumerate(texts):
        pair = texts[i + 1] if text in ("-e", "--env") and i + 1 < len(texts) else \
            text[len("--env="):] if text.startswith("--env=") else None
        if pair is not None and "=" in pair:
            name, _, value = pair.partition("=")
            out[name] = None if "$" in value else value
    return out
