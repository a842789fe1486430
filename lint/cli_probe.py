"""`ctxlint probe`: the live half of the pre-launch gate (click lives here; the work in ctxlint.probe)."""
from __future__ import annotations

import os
import sys
from typing import Optional, Tuple

import click

from ctxlint.cli_settings import FAIL_ON, UsageError, split_list
from ctxlint.probe.cases import CASE_NAMES

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
FORMATS = ("text", "json", "sarif", "github", "junit", "gitlab", "markdown")


@click.command("probe")
@click.argument("url")
@click.option("--model", required=True, help="The model name the endpoint serves (sent as \"model\"; also "
              "finds its tokenizer in the Hugging Face cache).")
@click.option("--manifest", type=click.Path(dir_okay=False), metavar="FILE",
              help="Take the window, the smallest prompt-holding KV pool and the gateway prompt cap from this "
                   "deployment file (any input `check` reads), as `check` derives them.")
@click.option("--deployment", metavar="NAME", help="The deployment to use when --manifest holds several.")
@click.option("--window", metavar="TOKENS", help="Advertised context window (prompt + output), e.g. 131072 or "
              "128Ki; overrides the manifest's.")
@click.option("--pool", metavar="TOKENS", help="Smallest KV pool of a role that holds prompts; overrides the "
              "manifest's.")
@click.option("--prompt-cap", metavar="TOKENS", help="The gateway's cap on prompt tokens; overrides the manifest's "
              "gateway.max_prompt_tokens.")
@click.option("--api", type=click.Choice(["chat", "completions"]), default="chat", show_default=True,
              help="/v1/chat/completions or /v1/completions (appended unless URL already ends with it).")
@click.option("--api-key-env", metavar="NAME", help="Environment variable holding the API key (sent as a bearer "
              "token; never printed, and scrubbed from everything the server sends back).")
@click.option("--header", "headers", multiple=True, metavar="'NAME: VALUE'",
              help="Extra header on every request (repeatable); an x-session-affinity given here pins both "
                   "sessions, otherwise the probe sends one of its own.")
@click.option("--case", "cases", multiple=True, type=click.Choice(CASE_NAMES),
              help="Run only these boundary cases (repeatable; default: all).")
@click.option("--tokenizer", metavar="PATH", help="The model's tokenizer.json (or its folder); needs "
              "`pip install \"ctxlint[probe]\"`. Default: the model's in the local Hugging Face cache, else word "
              "counts.")
@click.option("--margin", type=click.IntRange(min=0), default=64, show_default=True,
              help="Tokens by which cases that must be served are built smaller when the server reports no usage.")
@click.option("--max-requests", type=click.IntRange(min=2), default=32, show_default=True,
              help="Request budget: the probe never sends more.")
@click.option("--time-budget", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True,
              metavar="SECONDS", help="Wall-clock budget: no request starts after it.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              metavar="SECONDS", help="Per-request timeout; a request past it is a finding (CTX505).")
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True,
              help="Requests in flight at once (canary and boundary requests overlap above 1).")
@click.option("--canary-tokens", type=click.IntRange(min=64), default=2048, show_default=True,
              help="Size of each canary prompt of session A (at most half the smallest limit).")
@click.option("--allow-remote", is_flag=True, help="Allow a non-loopback host. Only for a staging stack you own: "
              "the probe sends over-long prompts on purpose.")
@click.option("--format", "output_format", multiple=True, type=click.Choice(FORMATS),
              help="Output format of the findings; repeat for several (default: text).")
@click.option("--output", "outputs", multiple=True, metavar="FILE",
              help="Write the format at the same position to FILE instead of stdout (atomically).")
@click.option("--fail-on", type=click.Choice(FAIL_ON), default="error", show_default=True,
              help="Lowest severity that makes the exit code 1.")
@click.option("--ignore", multiple=True, metavar="RULES", help="Probe rules not to report (IDs, prefixes, names).")
def probe(url: str, model: str, manifest: Optional[str], deployment: Optional[str], window: Optional[str],
          pool: Optional[str], prompt_cap: Optional[str], api: str, api_key_env: Optional[str], headers: Tuple[str, ...],
          cases: Tuple[str, ...], tokenizer: Optional[str], margin: int, max_requests: int, time_budget: float,
          timeout: float, concurrency: int, canary_tokens: int, allow_remote: bool,
          output_format: Tuple[str, ...], outputs: Tuple[str, ...], fail_on: str, ignore: Tuple[str, ...]) -> None:
    """Send boundary requests to a running OpenAI-compatible endpoint at URL and report how it answers.

    Cases: window-1, window, pool, cap, output-at-window (served when within every limit) and
    window+1, pool+1, cap+1, output-past-window (must get a 4xx with an error body), each after
    a canary request of another session whose markers must never come back. Findings (CTX501-CTX507) go through the
    same reporters as `check`; a table of every request goes to stderr. Exits 0 when clean, 1 on
    findings at or above --fail-on, 2 on usage errors, an unreachable endpoint or a 401/403/404
    to the first request.
    """
    from ctxlint import cli_output
    from ctxlint.engine import Settings as CheckSettings
    from ctxlint.probe.errors import ProbeError
    from ctxlint.probe.findings import judge
    from ctxlint.probe.run import Settings, run_probe
    from ctxlint.registry import SelectorError
    from ctxlint.reporters.probe import write_summary

    try:  # usage errors before any request
        cli_output.stdout_format(output_format or ("text",), outputs)
        cli_output.check_output_paths(outputs)
    except UsageError as exc:
        raise click.UsageError(str(exc)) from None
    secret = _secret(api_key_env)
    try:
        limits = _limits(manifest, deployment, window, pool, prompt_cap)
        from ctxlint.probe.client import endpoint
        from ctxlint.probe.sizing import load_counter

        target = endpoint(url, api, allow_remote)
        counter = load_counter(tokenizer, model)
        run = run_probe(target, limits, counter, Settings(
            api=api, model=model, headers=_headers(headers), secret=secret, timeout=timeout,
            max_requests=max_requests, time_budget=time_budget, concurrency=concurrency, margin=margin,
            canary_tokens=canary_tokens, cases=cases or CASE_NAMES))
        report = judge(run, ignore=split_list(ignore))
    except ProbeError as exc:
        click.echo(f"ctxlint probe: {_scrubbed(str(exc), secret)}", err=True)
        sys.exit(EXIT_USAGE)
    except SelectorError as exc:
        raise click.UsageError(str(exc)) from None
    formats = output_format or ("text",)
    ctx = cli_output.report_context(report, CheckSettings(), formats, None, fail_on)
    cli_output.write_reports(report, formats, outputs, ctx, statistics=False)
    write_summary(run, report.findings, sys.stderr)
    counts = ", ".join(f"{report.count(s)} {s}{'s' if report.count(s) != 1 else ''}"
                       for s in ("error", "warning", "info") if report.count(s)) or "no findings"
    stop = f"; stopped early: {run.stopped}" if run.stopped else ""
    click.echo(f"ctxlint probe: {counts} in {len(run.exchanges)} requests to {run.url}{stop}", err=True)
    sys.exit(EXIT_FINDINGS if report.failed(fail_on) else EXIT_CLEAN)


def _secret(name: Optional[str]) -> str:
    if name is None:
        return ""
    value = os.environ.get(name, "")
    if not value:
        raise click.UsageError(f"--api-key-env {name}: that environment variable is not set or empty")
    return value


def _scrubbed(text: str, secret: str) -> str:
    return text.replace(secret, "[redacted]") if secret else text


def _headers(pairs: Tuple[str, ...]) -> dict:
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition(":")
        if not sep or not name.strip() or any(c in pair for c in "\r\n"):
            raise click.UsageError(f"--header: expected 'NAME: VALUE', got {pair.split(':', 1)[0]!r}...")
        out[name.strip()] = value.strip()
    return out


def _limits(manifest: Optional[str], deployment: Optional[str], window: Optional[str], pool: Optional[str],
            cap: Optional[str]):
    from ctxlint.records import replace

    from ctxlint.probe.cases import Boundaries
    from ctxlint.probe.limits import boundaries_from_manifest

    if manifest is None and window is None and pool is None and cap is None:
        raise click.UsageError("give --manifest FILE, or at least one of --window, --pool, --prompt-cap")
    if deployment is not None and manifest is None:
        raise click.UsageError("--deployment needs --manifest")
    limits = boundaries_from_manifest(manifest, deployment) if manifest else Boundaries()
    if window is not None:
        limits = replace(limits, window=_tokens("--window", window), window_source=None)
    if pool is not None:
        limits = replace(limits, pool=_tokens("--pool", pool), pool_high=None, pool_source=None)
    if cap is not None:
        limits = replace(limits, prompt_cap=_tokens("--prompt-cap", cap), cap_source=None)
    return limits


def _tokens(option: str, text: str) -> int:
    from ctxlint.tokens import TokenCountError, parse_token_count

    try:
        return parse_token_count(int(text) if text.strip().isdigit() else text)
    except TokenCountError as exc:
        raise click.UsageError(f"{option}: {exc}") from None
