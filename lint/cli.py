"""The command line. click lives here only; everything else returns data.

Exit codes: 0 no finding at or above --fail-on; 1 findings at or above it;
2 usage or configuration error (bad option, missing path, unknown rule).
"""
from __future__ import annotations

import json
import sys
from typing import Optional, Tuple, Union

import click

from ctxlint import __version__

from ctxlint.cli_check import FORMATS, fallback_note, read_stdin
from ctxlint.cli_config import baseline_group, config_group, jobs_option, selection_options
from ctxlint.cli_fix import fix_options
from ctxlint.cli_settings import (EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, FAIL_ON, UsageError, config_error_exit,
                                  resolve_tree)
from ctxlint.cli_models import models_group
from ctxlint.cli_probe import probe


class _Command(click.Command):
    """A command whose click-free helpers' usage errors (cli_settings.UsageError) are click's: exit 2."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except UsageError as exc:
            raise click.UsageError(str(exc), ctx) from None


class _Group(click.Group):
    command_class = _Command


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="ctxlint")
def main() -> None:
    """ctxlint: refuse LLM deployments whose promises exceed their capacity."""


main.add_command(config_group)
main.add_command(baseline_group)
main.add_command(models_group)
main.add_command(probe)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "output_format", multiple=True,
              type=click.Choice(FORMATS),
              help="Output format; repeat for several in one run (default: text, or github under GitHub Actions). "
                   "concise: text cut to the terminal's width.")
@click.option("--output", "-o", "outputs", multiple=True, metavar="FILE",
              help="Write the format at the same position to FILE instead of stdout (atomically); "
                   "at most one format may go to stdout.")
@click.option("--fail-on", type=click.Choice(FAIL_ON), default=None,
              help="Lowest severity that makes the exit code 1 (default: the config's, else error).")
@click.option("--fail-if-empty/--no-fail-if-empty", default=None,
              help="Exit 1 when no file is checked (a mistyped path or an over-wide exclude); "
                   "default: the config's fail-if-empty, else only a warning.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings are at or above --fail-on "
              "(usage errors still exit 2).")
@click.option("--statistics", is_flag=True, help="Instead of the findings, print how many each rule reported "
              "(text, or JSON with --format json); reports written with --output are unchanged.")
@click.option("--quiet", "-q", is_flag=True, help="Print the findings only: no summary line on stderr.")
@click.option("--baseline", "baseline_file", metavar="FILE",
              help="Hide the findings accepted in this baseline (see `ctxlint baseline`).")
@click.option("--stdin-filename", default="-", metavar="NAME",
              help="File name to report for input read from '-' (stdin).")
@jobs_option
@click.option("--sarif-root", type=click.Path(file_okay=False), metavar="DIR",
              help="Make SARIF URIs (and github/gitlab paths) relative to DIR (default: the repository root "
                   "of the first path checked, as code scanning resolves them).")
@selection_options
@fix_options
def check(paths: Tuple[str, ...], output_format: Tuple[str, ...], outputs: Tuple[str, ...], fail_on: Optional[str],
          fail_if_empty: Optional[bool], exit_zero: bool, statistics: bool, quiet: bool,
          baseline_file: Optional[str], stdin_filename: str, jobs: Optional[Union[int, str]],
          sarif_root: Optional[str], **options) -> None:
    """Check deployment files and directories (default: the current directory; '-' reads stdin).

    A file named alone (as pre-commit passes staged files) that holds a prefill or decode half is
    paired with its directory's other files, which are read as context: their findings are reported only
    where they are about a deployment the named file holds a value of.
    """
    from ctxlint.cli_check import run_check

    run_check(paths, output_format, outputs, fail_on, fail_if_empty, exit_zero, statistics, quiet, baseline_file,
              stdin_filename, jobs, sarif_root, **options)


def _write_atomically(path: str, write) -> None:
    from ctxlint.cli_output import write_atomically

    write_atomically(path, write)


@main.command("rules")
@click.option("--format", "output_format", type=click.Choice(["text", "markdown", "json", "docs"]), default="text",
              show_default=True, help="docs: the full reference, every rule's page (docs/rules.md).")
def rules_command(output_format: str) -> None:
    """List every rule: ID, name, default severity, summary (or, with --format docs, the full reference)."""
    from ctxlint.registry import all_rules
    from ctxlint.reporters.catalog import write_table

    write_table(all_rules(), sys.stdout, output_format)


@main.command()
@click.argument("rule")
def explain(rule: str) -> None:
    """Print a rule's documentation (by ID or name; a mistyped one gets the closest rules)."""
    from ctxlint.registry import find, suggest
    from ctxlint.reporters.catalog import write_page

    spec = find(rule)
    if spec is None:
        close = " or ".join(f"{s.id} ({s.name})" for s in suggest(rule))
        raise click.UsageError(f"unknown rule '{rule}'" + (f"; did you mean {close}?" if close else "")
                               + " (`ctxlint rules` lists every rule)")
    write_page(spec, sys.stdout)


@main.command()
def schema() -> None:
    """Print the JSON Schema of the native manifest (for yaml-language-server)."""
    from ctxlint.schema import load_schema

    click.echo(json.dumps(load_schema("manifest.schema.json"), indent=2))


ENGINES = ("vllm", "sglang", "tgi", "trtllm", "llamacpp", "lmdeploy")
_KNOBS = {"vllm": "gpu_memory_utilization", "sglang": "mem_fraction_static", "tgi": "cuda_memory_fraction",
          "trtllm": "kv_cache_free_gpu_memory_fraction", "lmdeploy": "cache_max_entry_count"}


@main.command()
@click.option("--model", "model", required=True, help="Model id (built-in catalog) or path to a config.json.")
@click.option("--engine", type=click.Choice(ENGINES), required=True)
@click.option("--accelerator", help="Accelerator type (H100, H200, MI300X, nvidia-l4, ...; a100 without a size is "
              "40 or 80 GB, a band over both).")
@click.option("--count", type=click.IntRange(min=1), help="Accelerators per replica.")
@click.option("--tp", type=click.IntRange(min=1), default=1, show_default=True, help="Tensor parallel size.")
@click.option("--pp", type=click.IntRange(min=1), default=1, show_default=True, help="Pipeline parallel size.")
@click.option("--dp", type=click.IntRange(min=1), default=1, show_default=True, help="Data parallel size.")
@click.option("--memory-fraction", type=float, help="The engine's own memory knob (vLLM gpu_memory_utilization, "
              "SGLang mem_fraction_static, ...).")
@click.option("--kv-cache-dtype", default="auto", show_default=True)
@click.option("--context-length", help="Context length to hold (e.g. 131072, 128Ki).")
@click.option("--available-kv-gib", type=click.FloatRange(min=0, min_open=True),
              help="Known KV budget per GPU as the engine logs it; skips the memory estimate.")
@click.option("--draft-layers", type=click.IntRange(min=0), default=0, help="Speculative draft layers with KV.")
@click.option("--engine-version", help="The engine release (0.8.5, v0.11.0); vLLM without one is estimated under "
              "each release whose memory rules differ that can load the model, and the band spans them.")
@click.option("--set", "extra", multiple=True, metavar="KEY=VALUE",
              help="Other engine settings by the engine's own name (max_num_batched_tokens=8192).")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def capacity(model: str, engine: str, accelerator: Optional[str], count: Optional[int], tp: int, pp: int, dp: int,
             memory_fraction: Optional[float], kv_cache_dtype: str, context_length: Optional[str],
             available_kv_gib: Optional[float], draft_layers: int, engine_version: Optional[str],
             extra: Tuple[str, ...], output_format: str) -> None:
    """Derive the KV pool of one replica from the model, the accelerators and the engine settings.

    Exits 0 when --context-length fits (or none is given), 1 when it does not.
    """
    import os

    from ctxlint.physics.accelerators import written_device
    from ctxlint.physics.capacity import CapacityInput, estimate
    from ctxlint.physics.hf_config import arch_from_config_file
    from ctxlint.reporters.capacity import write_json, write_text
    from ctxlint.resolution.resolve import resolve
    from ctxlint.tokens import TokenCountError, parse_token_count
    from ctxlint.versions import parse_version

    if os.path.isfile(model):
        try:
            arch = arch_from_config_file(model)
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise click.UsageError(f"--model {model}: cannot read architecture facts: {exc}") from None
    weights = None
    if not os.path.isfile(model):
        found = resolve(model)
        if not found.resolved:
            raise click.UsageError(f"--model {model}: {found.how}; pass a path to its config.json"
                                   + (f" ({found.hint})" if found.hint else ""))
        arch, weights = found.arch, found.weights
    if engine_version is not None and parse_version(engine_version.lstrip("vV")) is None:
        raise click.UsageError(f"--engine-version {engine_version}: not a release number")
    device = written_device(accelerator) if accelerator else None  # `a100`: 40 or 80 GB, a band over both
    if accelerator and device is None and available_kv_gib is None:
        raise click.UsageError(f"--accelerator {accelerator}: unknown; pass --available-kv-gib instead")
    if not accelerator and available_kv_gib is None:
        raise click.UsageError("give --accelerator (with --count) or --available-kv-gib")
    try:
        ctx = parse_token_count(int(context_length) if context_length and context_length.isdigit()
                                else context_length) if context_length else None
    except TokenCountError as exc:
        raise click.UsageError(f"--context-length: {exc}") from None
    settings = {}
    for item in extra:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.UsageError(f"--set {item}: expected KEY=VALUE")
        settings[key.strip()] = _number(value.strip())
    if memory_fraction is not None:
        settings[_KNOBS.get(engine, "memory_fraction")] = memory_fraction
    result = estimate(CapacityInput(
        arch=arch, engine=engine, accelerator=device.name if device is not None else accelerator,
        accelerator_count=count or tp * pp * dp,
        tp=tp, pp=pp, dp=dp, kv_cache_dtype=kv_cache_dtype, settings=settings,
        available_kv_bytes=available_kv_gib * 2**30 if available_kv_gib else None,
        context_length=ctx, draft_layers=draft_layers, weights=weights,
        engine_version=engine_version.lstrip("vV") if engine_version else None))
    (write_json if output_format == "json" else write_text)(result, sys.stdout)
    sys.exit(EXIT_FINDINGS if result.fits is False else EXIT_CLEAN)


def _concise_audit_writer():
    import shutil

    from ctxlint.reporters.audit_concise import write

    width = shutil.get_terminal_size().columns  # $COLUMNS first, then the terminal, else 80
    return lambda audit, stream: write(audit, stream, width)


def _number(text: str):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


# --- ctxlint audit: the one-off fleet audit (self-contained block) -------------------------------

PROGRESS_MIN_FILES = 100  # below this a run takes about a second: no bar


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "output_format", type=click.Choice(["table", "concise", "markdown", "json", "csv"]),
              default="table", show_default=True,
              help="concise: the risk columns only, cut and wrapped to the terminal's width.")
@click.option("--output", "-o", metavar="FILE", help="Write the audit to FILE instead of stdout (atomically).")
@jobs_option
@click.option("--fail-on", type=click.Choice(FAIL_ON), default="never", show_default=True,
              help="Exit 1 when a finding at or above this severity exists (an audit reports by default).")
@selection_options
def audit(paths: Tuple[str, ...], output_format: str, output: Optional[str], jobs: Optional[Union[int, str]],
          fail_on: str, **options) -> None:
    """Audit every deployment under PATHS (default: the current directory): one row each, by model, riskiest first.

    Exits 0 (or 1 with --fail-on), 2 on usage errors.
    """
    from contextlib import nullcontext

    from ctxlint.audit import build_audit
    from ctxlint.config_source import ConfigError
    from ctxlint.discover import PathError, files_to_check
    from ctxlint.engine import InternalError
    from ctxlint.parallel import lint_paths_parallel
    from ctxlint.registry import SelectorError
    from ctxlint.reporters.audit import AUDIT_WRITERS

    config, settings, tree = resolve_tree(list(paths) or ["."], **options)
    from ctxlint.cli_output import check_output_paths

    check_output_paths([output] if output else [])
    try:
        files = files_to_check(list(paths) or ["."], settings, settings_for=tree)
        stdin = read_stdin() if "-" in files else None
        show_bar = sys.stderr.isatty() and len(files) >= PROGRESS_MIN_FILES
        bar_context = click.progressbar(length=len(files), label="ctxlint audit", file=sys.stderr) \
            if show_bar else nullcontext()
        with bar_context as bar:
            asked = jobs if jobs is not None else config.jobs
            report = lint_paths_parallel(files, settings, jobs=asked, stdin=stdin,
                                         progress=bar.update if bar is not None else None, settings_for=tree,
                                         on_fallback=fallback_note(asked))
    except (PathError, SelectorError) as exc:
        raise click.UsageError(str(exc)) from None
    except ConfigError as exc:  # the config closest to one of the files
        config_error_exit(exc)
    except InternalError as exc:
        click.echo(f"ctxlint: {exc}; please report this with the input file", err=True)
        sys.exit(EXIT_USAGE)
    result = build_audit(report)
    write = AUDIT_WRITERS.get(output_format) or _concise_audit_writer()
    if output and output != "-":
        _write_atomically(output, lambda stream: write(result, stream))
    else:
        write(result, sys.stdout)
    sys.exit(EXIT_FINDINGS if report.failed(fail_on) else EXIT_CLEAN)
