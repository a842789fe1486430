"""`ctxlint models lock|list|show`: the model catalog, and pinning models it lacks.

`lock` reads the tree like `check`, finds every model reference that resolves only by
name, through a label or the local cache, or not at all, fetches its config.json and
safetensors metadata from the Hugging Face Hub (the `hub` extra; `HF_ENDPOINT` and
`HF_TOKEN` as huggingface_hub reads them) and writes the architecture facts to the lock
file, which `check` then reads offline. click lives here and in cli.py only.
"""
from __future__ import annotations

import json
import os
import sys
from typing import Dict, List, Optional, Tuple

import click

from ctxlint.cli_config import selection_options
from ctxlint.cli_settings import EXIT_USAGE, resolve

EXIT_CLEAN, EXIT_FAILED = 0, 1
_NEEDS_LOCK = ("", "name", "label", "hf-cache")  # resolutions a lock entry would make exact


@click.group("models")
def models_group() -> None:
    """The built-in model catalog, and the lock file for models it lacks."""


def _references(paths: Tuple[str, ...], settings) -> Dict[Tuple[str, str], str]:
    """(model reference, served name) -> how it resolves now, for every deployment under `paths`, resolved as
    `check` resolves it. The served name is kept only where it named the model (`--model=/model
    --served-model-name=X`: resolution/served_name.py): one folder path served under two names is two models, and
    a deployment without the name does not hide the one that resolved by it."""
    from ctxlint.capacity_model import served_name
    from ctxlint.engine import lint_paths

    report = lint_paths(list(paths) or ["."], settings)
    refs: Dict[Tuple[str, str], str] = {}
    for dep in report.deployments:
        if dep.model.id is not None and isinstance(dep.model.id.value, str):
            via = dep.resolution.via if dep.resolution is not None else ""
            served = (served_name(dep) or "") if via == "served" else ""
            refs.setdefault((dep.model.id.value, served), via)
    return refs


@models_group.command("lock")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--add", "extra", multiple=True, metavar="ID", help="Also lock this Hub model id (repeatable).")
@click.option("--refresh", is_flag=True, help="Fetch again the models already in the lock file.")
@click.option("--output", metavar="FILE", help="Lock file to write (default: the config's models-lock, else "
                                               ".ctxlint-models.lock beside the config).")
@selection_options
def lock(paths: Tuple[str, ...], extra: Tuple[str, ...], refresh: bool, output: Optional[str], **options) -> None:
    """Record the architecture of every model under PATHS that the catalog lacks.

    Exits 0 when every such model is locked, 1 when some could not be fetched, 2 on usage errors.
    """
    from ctxlint.discover import PathError
    from ctxlint.resolution import hub
    from ctxlint.resolution.lockfile import read_lock, write_lock
    from ctxlint.resolution.names import parse_ref
    from ctxlint.resolution.hints import gguf_hint

    config, settings = resolve(list(paths) or ["."], **options)
    target = output or config.lock_path()
    existing, problem = read_lock(target) if os.path.isfile(target) else ({}, None)
    if problem:
        click.echo(f"ctxlint: {problem}", err=True)
        sys.exit(EXIT_USAGE)
    try:
        refs = _references(paths, settings)
    except PathError as exc:
        raise click.UsageError(str(exc)) from None
    wanted: List[str] = []
    lines: List[str] = []
    for (ref_text, served), via in sorted(refs.items(), key=lambda kv: (kv[0][0].lower(), kv[0][1])):
        ref = parse_ref(ref_text)
        repo = ref.repo_id if ref is not None and (not ref.local or ref.via == "hf-cache") else None
        if served:  # the architecture of the repository the served name is; the folder's checkpoint is not fetchable
            lines.append(f"  {ref_text}: resolved, matched by its served name {served!r} (--served-model-name), "
                         "nothing to lock")
        elif via not in _NEEDS_LOCK and via != "lock":
            lines.append(f"  {ref_text}: resolved ({via}), nothing to lock")
        elif ref is not None and ref.via == "gguf":  # a file: no config.json to put beside it, no Hub id
            lines.append(f"  {ref_text}: {gguf_hint(ref)}, or add it under `models:`")
        elif repo is None:
            lines.append(f"  {ref_text}: a local path, not a Hub id: put its config.json beside the deploy file "
                         "or add it under `models:`")
        elif repo in existing and not refresh:
            lines.append(f"  {ref_text}: already locked ({repo}@{str(existing[repo].get('revision', ''))[:12]})")
        else:
            wanted.append(repo)
    wanted.extend(e for e in extra if e not in wanted)
    failed = 0
    if wanted and not hub.available():
        click.echo(f"ctxlint: {len(wanted)} model(s) to fetch need huggingface_hub: {hub.INSTALL}", err=True)
        sys.exit(EXIT_USAGE)
    models = dict(existing)
    for repo in dict.fromkeys(wanted):
        try:
            entry = hub.fetch_entry(repo, token=os.environ.get("HF_TOKEN") or None)
        except hub.HubError as exc:
            failed += 1
            lines.append(f"  {repo}: NOT locked: {exc}")
            continue
        models[repo] = entry
        size = _params(entry)
        lines.append(f"  {repo}: locked at {entry['revision'][:12] or '?'}{size}")
    for line in lines:
        click.echo(line)
    if models != existing:
        from ctxlint.cli_output import write_atomically as _write_atomically
        text = write_lock(target, models)
        _write_atomically(target, lambda stream: stream.write(text))
        click.echo(f"ctxlint: wrote {target} ({len(models)} model(s))", err=True)
    else:
        click.echo(f"ctxlint: {target} unchanged", err=True)
    sys.exit(EXIT_FAILED if failed else EXIT_CLEAN)


def _params(entry: dict) -> str:
    counts = entry.get("safetensors") or {}
    total = sum(v for v in counts.values() if isinstance(v, int))
    return f" ({total / 1e9:.2f}B parameters in safetensors)" if total else ""


@models_group.command("list")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--config", "config_path", metavar="FILE", help="Use this config file (for its lock file).")
def list_models(output_format: str, config_path: Optional[str]) -> None:
    """Every model the built-in catalog and the lock file know, with its source."""
    from ctxlint.config import ConfigError, load_config
    from ctxlint.reporters.models import catalog_rows, write_list

    try:
        lock = load_config(".", config_path).lock_models()
    except ConfigError as exc:
        click.echo(f"ctxlint: config error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    rows = catalog_rows(lock)
    if output_format == "json":
        click.echo(json.dumps({"version": 1, "models": rows}, indent=2))
    else:
        write_list(rows, sys.stdout)


@models_group.command("show")
@click.argument("model")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--config", "config_path", metavar="FILE", help="Use this config file (models:, lock file).")
@click.option("--served-name", metavar="NAME", help="The engine's --served-model-name, which names an opaque local "
                                                    "path (`/model`) as `check` reads it.")
def show_model(model: str, output_format: str, config_path: Optional[str], served_name: Optional[str]) -> None:
    """How MODEL resolves (an id, a quantized re-upload, a path, a GGUF file) and its architecture.

    Exits 0 when it resolves, 1 when it does not (with what would resolve it).
    """
    from ctxlint.config import ConfigError, load_config
    from ctxlint.reporters.models import show_json, write_show
    from ctxlint.resolution.resolve import Context, hf_cache_dirs, resolve as resolve_model

    try:
        config = load_config(".", config_path)
        ctx = Context(directory=os.getcwd(), user_models=config.models, lock=config.lock_models(),
                      hf_cache=hf_cache_dirs(), served_name=served_name)
    except ConfigError as exc:
        click.echo(f"ctxlint: config error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    found = resolve_model(model, ctx)
    if output_format == "json":
        click.echo(json.dumps(show_json(model, found), indent=2))
    else:
        write_show(model, found, sys.stdout)
    sys.exit(EXIT_CLEAN if found.resolved else EXIT_FAILED)
