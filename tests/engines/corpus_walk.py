"""Find command lines in the real-config corpus (test helper, not shipped)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import yaml

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "real"


def _docs(path: Path) -> list[Any]:
    try:
        return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d is not None]
    except Exception:  # templated Helm files are not always valid YAML
        return []


def _env_of(node: dict) -> dict[str, str]:
    env = {}
    raw = node.get("env")
    if isinstance(raw, list):
        for e in raw:
            if isinstance(e, dict) and isinstance(e.get("name"), str) and isinstance(e.get("value"), str):
                env[e["name"]] = e["value"]
            elif isinstance(e, str) and "=" in e:  # compose list style
                env[e.split("=", 1)[0]] = e.split("=", 1)[1]
    elif isinstance(raw, dict):  # compose `environment:` mapping style
        env.update({k: v for k, v in raw.items() if isinstance(v, str)})
    # Compose interpolates `${X}` inside env values from the host: unknown here.
    return {k: v for k, v in env.items() if "$" not in v}


def walk(node: Any, path: str = "") -> Iterator[tuple[str, str, Any, dict, Any, bool]]:
    """Yield (where, form, payload, env, image, args_only) for every command found.

    form is "list" (payload: list of items) or "shell" (payload: string).
    args_only: the payload goes to the image's entrypoint.
    """
    if isinstance(node, dict):
        cmd, args = node.get("command"), node.get("args")
        entry = node.get("entrypoint")
        if isinstance(entry, list) and isinstance(cmd, list):  # compose: entrypoint + command
            cmd = entry + cmd
        elif isinstance(entry, str) and isinstance(cmd, str):
            cmd = entry + " " + cmd
        k8s_args_only = "args" in node and "command" not in node
        compose_args_only = "command" in node and "entrypoint" not in node and "args" not in node \
            and "image" in node and "containers" not in path
        image = node.get("image") if isinstance(node.get("image"), str) else None
        env = _env_of(node) or (_env_of({"env": node.get("environment")}) if "environment" in node else {})
        if isinstance(cmd, list) or isinstance(args, list):
            items = (cmd if isinstance(cmd, list) else []) + (args if isinstance(args, list) else [])
            if items:
                yield path, "list", items, env, image, k8s_args_only or (compose_args_only and ".services." in path)
        elif isinstance(cmd, str):
            yield path, "shell", cmd, env, image, compose_args_only and ".services." in path
        elif isinstance(args, str):
            yield path, "shell", args, env, image, True
        for key in ("run", "cmd"):  # SkyPilot `run:` scripts, llama-swap `cmd:`
            if isinstance(node.get(key), str):
                yield f"{path}.{key}", "shell", node[key], {}, None, False
        for k, v in node.items():
            if k not in ("command", "args"):
                yield from walk(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, f"{path}[{i}]")


def corpus_commands() -> Iterator[tuple[str, str, Any, dict, Any, bool]]:
    for p in sorted(CORPUS.rglob("*")):
        if p.suffix in (".yaml", ".yml"):
            for d in _docs(p):
                for where, form, payload, env, image, args_only in walk(d):
                    yield f"{p.relative_to(CORPUS)}:{where}", form, payload, env, image, args_only
