"""`ctxlint probe` stays within its bounds: request and time budgets, loopback only unless told,
the API key in no output, every bad setting a usage error (exit 2)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import run
from probe_helpers import URL, last_line, probe


def test_request_budget_is_never_exceeded(server):
    server.set()
    code, out, err = probe(server, "--window", "2048", "--max-requests", "4")
    assert server.requests() == 4
    assert last_line(err) == f"ctxlint probe: no findings in 4 requests to {URL}; stopped early: request budget " \
                             "(4) used"
    assert "not run: output-at-window: not sent: request budget (4) used" in err
    assert (code, out) == (0, "")


def test_wall_clock_budget_stops_the_run(server):
    server.set(mode="slow", hang_seconds=0.3)
    code, _, err = probe(server, "--window", "2048", "--time-budget", "0.5")
    sent = server.requests()
    assert 1 <= sent <= 3
    assert last_line(err).endswith(f"in {sent} requests to {URL}; stopped early: wall-clock budget (0.5 s) used")
    assert code == 0


SECRET = "sk-probe-test-3f9a1c77d2e04b"


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "gitlab", "markdown", "github"])
def test_api_key_never_appears_in_any_output(server, monkeypatch, fmt):
    # The server echoes the request headers (Authorization first) into an invalid 200 body.
    monkeypatch.setenv("PROBE_KEY", SECRET)
    server.set(mode="invalid-json", fault_on="all")
    result = run(["probe", server.url, "--model", "m", "--window", "2048", "--api-key-env", "PROBE_KEY",
                  "--case", "window+1", "--format", fmt])
    assert result.code == 1
    assert SECRET not in result.out and SECRET not in result.err
    if fmt == "text":
        assert "'<html>Bearer [redacted] reset" in result.out


def test_api_key_not_printed_in_errors(server, monkeypatch):
    monkeypatch.setenv("PROBE_KEY", SECRET)
    result = run(["probe", f"http://127.0.0.1:{server.port}/x?key={SECRET}", "--model", "m", "--window", "2048",
                  "--api-key-env", "PROBE_KEY", "--allow-remote", "--max-requests", "2", "--header", "bad"])
    assert result.code == 2 and SECRET not in result.out + result.err
    missing = run(["probe", server.url, "--model", "m", "--window", "2048", "--api-key-env", "NO_SUCH_KEY_VAR"])
    assert missing.code == 2
    assert "--api-key-env NO_SUCH_KEY_VAR: that environment variable is not set or empty" in missing.err


@pytest.mark.parametrize("url", ["http://10.1.2.3:8000", "http://192.0.2.7/v1", "http://[2001:db8::1]:8000",
                                 "https://0.0.0.0:8443"])
def test_non_loopback_targets_are_refused(url):
    result = run(["probe", url, "--model", "m", "--window", "2048"])
    assert result.code == 2 and result.out == ""
    assert "is not a loopback address: the probe sends over-long prompts and canary data, so it refuses other " \
           "hosts unless --allow-remote is given" in result.err


def test_allow_remote_lets_the_probe_try(server):
    result = run(["probe", "http://192.0.2.7:9", "--model", "m", "--window", "2048", "--allow-remote",
                  "--timeout", "0.3"])
    assert result.code == 2
    assert result.err.startswith("ctxlint probe: cannot reach http://192.0.2.7:9/v1/chat/completions: ")


def test_localhost_by_name_is_loopback(server):
    server.set()
    result = run(["probe", f"localhost:{server.port}", "--model", "m", "--window", "2048", "--case", "window"])
    assert result.code == 0 and result.out == ""


def test_every_resolved_loopback_address_is_tried(server):
    from ctxlint.probe.client import Endpoint, post

    server.set()
    # "localhost" often resolves to ::1 first; the server listens on 127.0.0.1 only.
    target = Endpoint("http", "localhost", server.port, "/v1/completions", ("::1", "127.0.0.1"))
    reply = post(target, {"model": "m", "prompt": "hello", "max_tokens": 1}, {}, 5.0)
    assert (reply.status, reply.error) == (200, "")


def test_unreachable_endpoint_is_a_usage_error(server):
    closed = subprocess.Popen([sys.executable, "-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0));"
                               " print(s.getsockname()[1])"], stdout=subprocess.PIPE, text=True)
    port = closed.communicate(timeout=10)[0].strip()
    result = run(["probe", f"http://127.0.0.1:{port}", "--model", "m", "--window", "2048"])
    assert result.code == 2
    assert result.err == f"ctxlint probe: cannot reach http://127.0.0.1:{port}/v1/chat/completions: connection " \
                         "refused\n"


@pytest.mark.parametrize("args,message", [
    ([], "give --manifest FILE, or at least one of --window, --pool, --prompt-cap"),
    (["--window", "12k5"], "--window: "),
    (["--window", "2048", "--header", "no-colon"], "--header: expected 'NAME: VALUE'"),
    (["--window", "2048", "--deployment", "x"], "--deployment needs --manifest"),
    (["--window", "2048", "--ignore", "CTX9"], "unknown rule selector 'CTX9'"),
])
def test_usage_errors_exit_2(server, args, message):
    result = run(["probe", server.url, "--model", "m", *args])
    assert result.code == 2 and message in result.err


def test_an_endpoint_that_answers_404_is_a_usage_error(server):
    server.set()
    result = run(["probe", f"{server.url}/nope", "--model", "m", "--window", "2048"])
    assert result.code == 2
    assert result.err == f"ctxlint probe: {server.url}/nope/v1/chat/completions answered HTTP 404 to a 16-word " \
                         "request (no route /nope/v1/chat/completions): check the URL, --model and --api-key-env\n"
