"""`ctxlint check` without click, and the console script's entry point.

Importing click costs a one-file run ~11 ms of its ~130 (issue 15); pre-commit and most CI jobs
pass only paths and a few plain options. `main` reads such an argument list itself, with
exactly the options, values and defaults the click command declares (tests compare the two
parsers on every option), and runs the same `run_check`. Anything else (help, another
command, an option spelling it does not know, a value click would have to judge, stdin) goes
to the click command line unchanged, and so does a usage error: click then prints it.
"""
from __future__ import annotations

import gc
import os
import sys
from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

from ctxlint.cli_settings import (EXIT_USAGE, FAIL_ON, JOBS_AUTO, UsageError, apply_baseline, config_error_exit,
                                  echo_err, resolve_tree, serial_for_sure)

FORMATS = ("text", "concise", "full", "json", "sarif", "github", "junit", "gitlab", "markdown")

# The check command's parameters and click's defaults for them (`check` in cli.py declares the same).
DEFAULTS: Dict[str, Any] = {
    "paths": (), "output_format": (), "outputs": (), "fail_on": None, "fail_if_empty": None, "exit_zero": False,
    "statistics": False, "quiet": False, "baseline_file": None, "stdin_filename": "-", "jobs": None,
    "sarif_root": None, "config_path": None, "isolated": False, "select": (), "extend_select": (), "ignore": (),
    "extend_exclude": (), "force_exclude": False, "no_suppressions": False, "max_file_size": None,
    "fix_write": False, "fix_diff": False}
# option -> (parameter, value): flags
_FLAGS = {"--exit-zero": ("exit_zero", True), "--statistics": ("statistics", True), "--quiet": ("quiet", True),
          "-q": ("quiet", True), "--isolated": ("isolated", True), "--force-exclude": ("force_exclude", True),
          "--no-suppressions": ("no_suppressions", True), "--fix": ("fix_write", True), "--diff": ("fix_diff", True),
          "--fail-if-empty": ("fail_if_empty", True), "--no-fail-if-empty": ("fail_if_empty", False)}
# option -> (parameter, kind): options with a value; "many" options repeat, the others keep the last value
_VALUED = {"--format": ("output_format", "many"), "--output": ("outputs", "many"), "-o": ("outputs", "many"),
           "--fail-on": ("fail_on", "one"), "--baseline": ("baseline_file", "one"),
           "--stdin-filename": ("stdin_filename", "one"), "--jobs": ("jobs", "count"), "-j": ("jobs", "count"),
           "--sarif-root": ("sarif_root", "dir"), "--config": ("config_path", "one"),
           "--select": ("select", "many"), "--extend-select": ("extend_select", "many"),
           "--ignore": ("ignore", "many"), "--extend-exclude": ("extend_exclude", "many"),
           "--max-file-size": ("max_file_size", "positive")}
_CHOICES = {"output_format": FORMATS, "fail_on": FAIL_ON}


def parse_plain_check(args: Sequence[str]) -> Optional[Dict[str, Any]]:
    """The check command's parameters for `args` (after `check`), or None when click should read them."""
    params = dict(DEFAULTS)
    paths, many = [], {}
    tokens = list(args)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if not token.startswith("-"):
            paths.append(token)
            continue
        name, eq, value = token.partition("=")
        if name in _FLAGS and not eq:
            key, flag = _FLAGS[name]
            params[key] = flag
            continue
        if name not in _VALUED or (eq and not name.startswith("--")):
            return None  # stdin ("-"), "--", help, short-option clusters, unknown options: click's job
        if not eq:
            if index >= len(tokens):
                return None
            value = tokens[index]
            index += 1
        if value == "" or value.startswith("-"):
            return None
        key, kind = _VALUED[name]
        parsed = _value(key, kind, value)
        if parsed is None:
            return None
        if kind == "many":
            many.setdefault(key, []).append(parsed)
        else:
            params[key] = parsed
    params.update({key: tuple(values) for key, values in many.items()})
    params["paths"] = tuple(paths)
    return params


def _value(key: str, kind: str, value: str) -> Any:
    if kind == "count" and value == JOBS_AUTO:
        return value
    if kind in ("count", "positive"):
        if not (value.isascii() and value.isdigit()):
            return None
        number = int(value)
        return number if number >= (1 if kind == "positive" else 0) else None
    if kind == "dir":
        try:
            if os.path.isfile(value):
                return None  # click.Path(file_okay=False) refuses a file
        except ValueError:  # NUL or an unencodable name: click says what is wrong with it
            return None
    choices = _CHOICES.get(key)
    return value if choices is None or value in choices else None


def run_check(paths: Tuple[str, ...], output_format: Tuple[str, ...], outputs: Tuple[str, ...],
              fail_on: Optional[str], fail_if_empty: Optional[bool], exit_zero: bool, statistics: bool, quiet: bool,
              baseline_file: Optional[str], stdin_filename: str, jobs: Optional[Union[int, str]],
              sarif_root: Optional[str], **options: Any) -> None:
    """The check command (see `check` in cli.py); exits with the run's code, raises UsageError."""
    from ctxlint import cli_output
    from ctxlint.cli_fix import run_fixes, take_fix_mode
    from ctxlint.config_source import ConfigError
    from ctxlint.discover import PathError
    from ctxlint.engine import InternalError, lint_paths
    from ctxlint.registry import SelectorError

    targets = list(paths) or ["."]
    fix_mode = take_fix_mode(options, paths)
    # reporters print only the count of deployments
    config, settings, tree = resolve_tree(targets, fail_on=fail_on, fail_if_empty=fail_if_empty,
                                          stdin_filename=stdin_filename, keep_deployments=False, **options)
    formats = output_format or (("github",) if os.environ.get("GITHUB_ACTIONS") == "true" else ("text",))
    on_stdout = cli_output.stdout_format(formats, outputs)
    cli_output.check_statistics(statistics, on_stdout if output_format else None)
    cli_output.check_output_paths(outputs)
    stdin = read_stdin() if "-" in paths else None
    asked = jobs if jobs is not None else config.jobs  # the flag, else the run's config ("auto" by default)
    try:
        if serial_for_sure(asked, targets):
            report = lint_paths(targets, settings, stdin=stdin, stdin_filename=stdin_filename, settings_for=tree)
        else:
            from ctxlint.parallel import lint_paths_parallel

            report = lint_paths_parallel(targets, settings, jobs=asked, stdin=stdin, stdin_filename=stdin_filename,
                                         settings_for=tree, on_fallback=fallback_note(asked))
        if fix_mode:
            report = run_fixes(fix_mode, report, lambda: lint_paths(targets, settings, stdin_filename=stdin_filename,
                                                                    settings_for=tree))
    except (PathError, SelectorError) as exc:
        raise UsageError(str(exc)) from None
    except ConfigError as exc:  # the config closest to one of the files
        config_error_exit(exc)
    except InternalError as exc:
        echo_err(f"ctxlint: {exc}; please report this with the input file")
        sys.exit(EXIT_USAGE)
    baseline_line = apply_baseline(report, baseline_file) if baseline_file else None
    ctx = cli_output.report_context(report, settings, formats, sarif_root or cli_output.source_root(targets),
                                    config.fail_on)
    cli_output.write_reports(report, formats, outputs, ctx, statistics)
    cli_output.finish(report, config, targets, (baseline_line,) if baseline_line else (), quiet, exit_zero,
                      tree.fail_on if tree is not None else None)


def fallback_note(jobs: Any) -> Optional[Callable[[str], None]]:
    """What to do when no worker process can start: say so once when processes were asked for (`--jobs N`, the
    config's `jobs`); "auto" falls back to one process silently. The output is the same either way."""
    if jobs == JOBS_AUTO:
        return None
    return lambda why: echo_err(f"ctxlint: cannot start worker processes ({why}); checking in one process")


def read_stdin() -> bytes:
    stream = getattr(sys.stdin, "buffer", None)
    try:
        return stream.read() if stream is not None else b""
    except (OSError, ValueError):  # stdin closed
        return b""


def main() -> None:
    """The `ctxlint` console script and `python -m ctxlint`."""
    # A run allocates most of its objects importing modules and building one file's nodes, which
    # stay alive: collecting every 700 allocations (the default) scans them again and again
    # (~5 ms of a one-file run). Cyclic garbage is still collected, less often. lint_paths raises
    # the threshold too (for library callers); these figures already meet its floor.
    gc.set_threshold(200_000, 50, 100)
    args = sys.argv[1:]
    params = parse_plain_check(args[1:]) if args[:1] == ["check"] and os.name != "nt" else None
    if params is not None:
        try:
            run_check(**params)
        except UsageError:
            pass  # nothing is written before a usage error: click reads the arguments again and says it
        except KeyboardInterrupt:  # as click's standalone mode ends
            echo_err("\nAborted!")
            sys.exit(1)
        except BrokenPipeError:
            _quiet_stdout()
            sys.exit(1)
        except SystemExit as done:
            if "multiprocessing" in sys.modules or not isinstance(done.code, int):
                raise
            _exit_now(done.code)
        else:
            if "multiprocessing" in sys.modules:
                sys.exit(0)
            _exit_now(0)  # a command that returns exits 0 under click too
    from ctxlint.cli import main as click_main

    click_main()


def _exit_now(code: int) -> None:
    """Flush and end the process without the interpreter's teardown of ~300 modules (~10 ms of a
    one-file run). Only for a run that started no process (multiprocessing never imported): nothing is left for
    atexit handlers to do."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        code = 1
    except (OSError, ValueError):
        pass
    os._exit(code)


def _quiet_stdout() -> None:
    """After a closed pipe, stop the interpreter's final flush from raising again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
