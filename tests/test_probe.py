"""`ctxlint probe` against a real server process on loopback (tests/probe_server.py).

The server counts one token per word plus a 7-token chat template, enforces a
window and a pool, and is switched into the faulty modes the probe must catch.
Windows are small (2,048 tokens) so the probe tests run in a few seconds.
"""
from __future__ import annotations

import json
import re
import textwrap

import pytest

from conftest import REPO
from helpers import run
from probe_helpers import MARKER, URL, last_line, probe


def test_correct_server_passes(server):
    server.set()
    code, out, err = probe(server, "--window", "2048", "--pool", "4096")
    assert (code, out) == (0, "")
    assert last_line(err) == f"ctxlint probe: no findings in 11 requests to {URL}"
    assert "not run: pool: the pool (4,096) is above the window: window+1 is refused first" in err
    assert "template overhead: 7 tokens measured" in err
    assert server.requests() == 11


def test_correct_server_table_shows_every_case_at_its_boundary(server):
    server.set(window=2048, pool=2048)
    code, _, err = probe(server, "--window", "2048", "--pool", "2048")
    rows = {line.split()[1]: line.split() for line in err.splitlines() if re.match(r"\d+ ", line)}
    # name: (expected, prompt by the probe, prompt by the server, max_tokens, status, verdict)
    assert {name: (r[2], r[3], r[4], r[5], r[6], r[8]) for name, r in rows.items() if name != "canary"} == {
        "calibration": ("completion", "16", "23", "1", "200", "completion"),
        "window-1": ("completion", "2,046", "2,046", "1", "200", "completion"),
        "window": ("completion", "2,047", "2,047", "1", "200", "completion"),
        "pool": ("completion", "2,047", "2,047", "1", "200", "completion"),
        "output-at-window": ("completion", "23", "23", "2,025", "200", "completion"),
        "window+1": ("4xx", "2,048", "2,048", "1", "400", "refusal"),
        "pool+1": ("4xx", "2,048", "2,048", "1", "400", "refusal"),
        "output-past-window": ("4xx", "23", "23", "2,026", "400", "refusal"),
    }
    assert code == 0


def test_stale_pages_are_a_located_critical_finding_naming_the_marker(server, tmp_path):
    # The incident in small: the window (4,096) exceeds the prefill pool (2,048); over the pool
    # the server answers 200 with the start of the previous request: session A's prompt.
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text(textwrap.dedent("""\
        apiVersion: ctxlint/v1
        kind: ModelDeployment
        metadata: {name: small}
        spec:
          model: {id: meta-llama/Llama-3.1-8B-Instruct}
          advertised: {context_window: 4096}
          engine: {name: sglang, version: "0.5.21"}
          serving:
            disaggregation: prefill-decode
            roles:
              - {role: prefill, context_length: 4096, kv_pool_tokens: 2048}
              - {role: decode, context_length: 4096, kv_pool_tokens: 65536}
        """))
    server.set(mode="stale", window=4096, pool=2048)
    code, out, err = probe(server, "--manifest", str(manifest), "--case", "pool", "--case", "pool+1",
                           "--format", "json")
    findings = json.loads(out)["findings"]
    assert code == 1
    assert [(f["rule"], f["severity"], f["line"], f["column"], f["path"], f["tags"]) for f in findings] == [
        ("CTX501", "error", 11, 63, "probe.pool+1", ["security"]),
        ("CTX502", "error", 11, 63, "probe.pool+1", ["security"]),
    ]
    assert findings[0]["file"] == str(manifest)
    assert findings[0]["message"] == (
        "request #5 (case pool+1, 2,049 tokens) answered HTTP 200 with canary marker canary-X, which session A "
        "sent in request #4: the stack returned another session's data. Do not launch: cap prompts at or below "
        "the smallest KV pool in front of the engine and upgrade past the engine's isolation defects "
        "(see `ctxlint check`)")
    assert last_line(err) == f"ctxlint probe: 2 errors in 5 requests to {URL}"


def test_the_incident_replayed_fails_at_the_prefill_pool_line(server, in_repo):
    # samples/incident: window 1,048,576 over a prefill pool of 681,280; the server leaks above the pool.
    server.set(mode="stale", window=1048576, pool=681280)
    code, out, err = probe(server, "--manifest", "samples/incident/deployment.yaml", "--case", "pool+1")
    assert code == 1
    assert [line.split(" ", 2)[:2] for line in out.splitlines()] == [
        ["samples/incident/deployment.yaml:24:25:", "CTX501"], ["samples/incident/deployment.yaml:24:25:", "CTX502"]]
    assert "request #3 (case pool+1, 681,281 tokens) answered HTTP 200 with canary marker canary-X, which " \
           "session A sent in request #2" in out
    assert "limits: window 1,048,576, pool 681,280 from samples/incident/deployment.yaml (deployment " \
           "coder-moe-prod)" in err


def test_the_fixed_incident_passes_with_its_gateway_cap(server, in_repo):
    # samples/incident-fixed: pool 2,040,000 above the window, prompts capped at 917,504 by the gateway.
    server.set(window=1048576, pool=2040000, prompt_cap=917504)
    code, out, err = probe(server, "--manifest", "samples/incident-fixed/deployment.yaml", "--case", "window-1",
                           "--case", "cap", "--case", "cap+1")
    assert (code, out) == (0, "")
    rows = [line.split() for line in err.splitlines() if re.match(r"\d+ ", line)]
    assert [(r[1], r[2], r[6]) for r in rows if r[1] != "canary"] == [
        ("calibration", "completion", "200"), ("window-1", "4xx", "400"), ("cap", "completion", "200"),
        ("cap+1", "4xx", "400")]
    assert "not run: pool: the pool (2,040,000) is above the window: window+1 is refused first" not in err


def test_a_gateway_that_does_not_cap_prompts(server):
    server.set(window=2048, pool=4096)
    code, out, _ = probe(server, "--window", "2048", "--prompt-cap", "1024", "--case", "cap", "--case", "cap+1")
    assert code == 0
    assert out == (f"{URL}:1:1: CTX504 [warning] request #5 (case cap+1, 1,026 tokens) answered HTTP 200 past "
                   "the gateway's prompt cap 1,024 with 1,025 prompt tokens: the stack truncates or serves a longer "
                   "context than it advertises. Make the engine's context length (or the gateway cap) match the "
                   "advertised limits (limit-not-enforced)\n")


def test_cases_are_planned_from_the_limits():
    from ctxlint.probe.cases import Boundaries, plan_cases

    cases, skipped = plan_cases(Boundaries(window=2048, pool=1024, pool_high=1100, prompt_cap=512), 16)
    assert [(c.name, c.total, c.max_tokens, c.expect) for c in cases] == [
        ("window-1", 2047, 1, "4xx"), ("window", 2048, 1, "4xx"), ("pool", 1024, 1, "4xx"),
        ("cap", 513, 1, "completion"), ("output-at-window", 2048, 2032, "4xx"), ("window+1", 2049, 1, "4xx"),
        ("pool+1", 1101, 1, "4xx"), ("cap+1", 514, 1, "4xx"), ("output-past-window", 2049, 2033, "4xx")]
    assert skipped == []
    cases, skipped = plan_cases(Boundaries(window=10**9, prompt_cap=2**20), 16)
    assert [c.name for c in cases] == ["cap", "output-at-window", "cap+1", "output-past-window"]
    assert skipped[0] == ("window-1", "a prompt of 999,999,998 tokens is over the probe's largest, 16,777,216")
    cases, skipped = plan_cases(Boundaries(pool=1024), 16, ("window", "pool", "cap+1"))
    assert [c.name for c in cases] == ["pool"]
    assert skipped == [("window", "no window given"), ("cap+1", "no prompt cap given")]


def test_the_leaked_marker_is_the_one_session_a_sent(server):
    server.set(mode="stale", window=2048, pool=1024)
    result = run(["probe", server.url, "--model", "m", "--window", "2048", "--pool", "1024", "--case", "pool+1",
                  "--format", "json"])
    leak = next(f for f in json.loads(result.out)["findings"] if f["rule"] == "CTX501")
    log = server.log()
    assert result.code == 1 and "which session A sent in request #2" in leak["message"]
    assert [entry["user"] for entry in log] == ["ctxlint-probe-calibration", "ctxlint-probe-a", "ctxlint-probe-b"]
    assert MARKER.findall(leak["message"]) == log[1]["markers"][:1]  # the first of the four A sent
    assert len(log[1]["markers"]) == 4 and log[2]["markers"] == []


def test_sessions_share_one_affinity_and_pass_user_headers(server):
    server.set()
    run(["probe", server.url, "--model", "m", "--window", "2048", "--case", "window", "--header", "x-tenant: t1"])
    log = server.log()
    assert len({entry["affinity"] for entry in log}) == 1 and log[0]["affinity"].startswith("ctxlint-probe-")
    assert {entry["tenant"] for entry in log} == {"t1"}
    server.set()
    run(["probe", server.url, "--model", "m", "--window", "2048", "--case", "window",
         "--header", "X-Session-Affinity: replica-3"])
    assert {entry["affinity"] for entry in server.log()} == {"replica-3"}


@pytest.mark.parametrize("mode,rules", [
    ("empty", ["CTX503", "CTX503"]),
    ("zero-tokens", ["CTX503", "CTX503"]),
    ("server-error", ["CTX505", "CTX505"]),
])
def test_faulty_answers_past_the_window_exit_1(server, mode, rules):
    server.set(mode=mode, fault_on="window")
    code, out, err = probe(server, "--window", "2048", "--pool", "4096")
    assert code == 1
    assert [line.split()[1] for line in out.splitlines()] == rules
    assert "case window+1, 2,049 tokens" in out and "case output-past-window, 2,049 tokens" in out


def test_empty_content_message(server):
    server.set(mode="empty", fault_on="window")
    _, out, _ = probe(server, "--window", "2048", "--pool", "4096", "--case", "window+1")
    assert out == (f"{URL}:1:1: CTX503 [error] request #3 (case window+1, 2,049 tokens) answered HTTP 200 with "
                   "empty content: a success status on an answer that is not one. Check the engine's logs for "
                   "aborted or preempted requests (invalid-success)\n")


def test_zero_tokens_message(server):
    server.set(mode="zero-tokens", fault_on="all")
    code, out, _ = probe(server, "--window", "2048", "--case", "window")
    assert code == 1
    assert 'request #3 (case window, 2,048 tokens) answered HTTP 200 with finish_reason "length" at 0 ' \
           "completion tokens" in out
    assert out.count("CTX503") == 3  # calibration, canary and case: every answer was empty of tokens


def test_a_proxy_page_is_no_clean_refusal(server):
    server.set(mode="proxy-413", fault_on="window")
    code, out, _ = probe(server, "--window", "2048", "--case", "window+1")
    assert code == 1
    assert out == (f"{URL}:1:1: CTX505 [error] request #3 (case window+1, 2,049 tokens) got HTTP 413 without an "
                   "error body ('<html><body>413 Request Entity Too Large</body></html>'): neither a completion nor "
                   "a 4xx with an error body, so a client cannot tell what went wrong (unclean-refusal)\n")


def test_a_leak_is_critical_in_sarif_and_reports_go_to_files(server, tmp_path):
    server.set(mode="stale", window=2048, pool=1024)
    sarif, junit = tmp_path / "probe.sarif", tmp_path / "probe.xml"
    code, out, _ = probe(server, "--window", "2048", "--pool", "1024", "--case", "pool+1", "--format", "sarif",
                         "--output", str(sarif), "--format", "junit", "--output", str(junit), "--format", "text")
    log = json.loads(sarif.read_text())["runs"][0]
    rules = {r["id"]: r["properties"].get("security-severity") for r in log["tool"]["driver"]["rules"]}
    assert (rules["CTX501"], rules["CTX502"], rules["CTX503"]) == ("9.5", "8.0", None)
    assert [r["ruleId"] for r in log["results"]] == ["CTX501", "CTX502"]
    assert junit.read_text().count("<failure") == 2
    assert code == 1 and [line.split()[1] for line in out.splitlines()] == ["CTX501", "CTX502"]


def test_hang_past_the_timeout(server):
    server.set(mode="hang", fault_on="window", hang_seconds=3)
    code, out, _ = probe(server, "--window", "2048", "--pool", "4096", "--case", "window+1", "--timeout", "0.5")
    assert code == 1
    assert out == (f"{URL}:1:1: CTX505 [error] request #3 (case window+1, 2,049 tokens) got no answer within the "
                   "0.5 s timeout: neither a completion nor a 4xx with an error body, so a client cannot tell what "
                   "went wrong (unclean-refusal)\n")


def test_window_not_enforced_is_a_warning(server):
    server.set(mode="open")
    code, out, _ = probe(server, "--window", "2048", "--pool", "4096", "--case", "window+1")
    assert code == 0
    assert out == (f"{URL}:1:1: CTX504 [warning] request #3 (case window+1, 2,049 tokens) answered HTTP 200 past "
                   "the advertised window 2,048: the stack truncates or serves a longer context than it "
                   "advertises. Make the engine's context length (or the gateway cap) match the advertised limits "
                   "(limit-not-enforced)\n")
    assert probe(server, "--window", "2048", "--case", "window+1", "--fail-on", "warning")[0] == 1


def test_refusal_inside_the_window(server):
    server.set(mode="strict", strict_limit=1024)
    code, out, _ = probe(server, "--window", "2048", "--case", "window-1", "--case", "window+1")
    assert code == 0
    assert out == (f"{URL}:1:1: CTX506 [warning] request #3 (case window-1, 2,047 tokens) was refused (HTTP 400: "
                   "'maximum context length is 1024 tokens') although it is within the advertised limits: the stack "
                   "serves less than it promises (window-refused)\n")


def test_a_server_that_counts_differently_is_reported(server):
    # The server counts two tokens per word: the probe's window-1 prompt is over the window by its count.
    server.set(tokens_per_word=2)
    code, out, _ = probe(server, "--window", "2048", "--case", "window-1")
    assert code == 0
    assert out == (f"{URL}:1:1: CTX507 [warning] case window-1 was sized at 2,046 prompt tokens, the server "
                   "counted 4,053 (off by 2,007): meant to be within the limits, it was not, so it did not test "
                   "its boundary. Give --tokenizer or a larger --margin (boundary-missed)\n")


def test_without_usage_the_served_cases_keep_a_margin(server):
    server.set(usage=False)
    code, out, err = probe(server, "--window", "2048", "--case", "window", "--case", "window+1")
    assert (code, out) == (0, "")
    assert "template overhead: unknown (no usage reported); cases that must be served were built 64 tokens " \
           "smaller" in err
    rows = [line.split() for line in err.splitlines() if re.match(r"\d+ ", line)]
    assert [(r[1], r[3], r[6]) for r in rows if r[1].startswith("window")] == [
        ("window", "1,983", "200"), ("window+1", "2,048", "400")]  # 2,048 words (+ 7 template tokens unseen)


def test_concurrency_sends_the_same_requests(server):
    server.set()
    code, out, err = probe(server, "--window", "2048", "--concurrency", "2")
    assert (code, out) == (0, "")
    assert last_line(err) == f"ctxlint probe: no findings in 11 requests to {URL}"


def test_completions_api(server):
    server.set()
    code, out, err = probe(server, "--window", "2048", "--api", "completions")
    assert (code, out) == (0, "")
    assert "template overhead: 1 tokens measured" in err
    assert last_line(err) == "ctxlint probe: no findings in 11 requests to http://127.0.0.1:PORT/v1/completions"


def test_incident_manifest_gives_its_limits():
    from ctxlint.probe.limits import boundaries_from_manifest

    limits = boundaries_from_manifest(str(REPO / "samples" / "incident" / "deployment.yaml"))
    assert (limits.window, limits.pool, limits.pool_ceiling) == (1048576, 681280, 681280)
    assert (limits.window_source.line, limits.window_source.col) == (13, 21)
    assert (limits.pool_source.line, limits.pool_source.col) == (24, 25)
    assert limits.describe() == f"window 1,048,576, pool 681,280 from {REPO / 'samples/incident/deployment.yaml'} " \
                                "(deployment coder-moe-prod)"


def test_manifest_errors_are_usage_errors(server, tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("spec: [unclosed\n")
    result = run(["probe", server.url, "--model", "m", "--manifest", str(broken)])
    assert result.code == 2 and result.err.startswith(f"ctxlint probe: {broken}:")


def test_tokenizer_from_a_path_and_from_the_hub_cache(server, tmp_path, monkeypatch):
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace

    tokenizer = tokenizers.Tokenizer(WordLevel({"the": 0, "[UNK]": 1}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = Whitespace()
    path = tmp_path / "tokenizer.json"
    tokenizer.save(str(path))
    server.set()
    code, out, err = probe(server, "--window", "2048", "--tokenizer", str(tmp_path))
    assert (code, out) == (0, "")
    assert f"sizing: tokenizer {path};" in err
    snapshot = tmp_path / "hub" / "models--org--tiny" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    tokenizer.save(str(snapshot / "tokenizer.json"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    result = run(["probe", server.url, "--model", "org/tiny", "--window", "2048", "--case", "window"])
    assert result.code == 0 and f"sizing: tokenizer {snapshot / 'tokenizer.json'};" in result.err


@pytest.mark.parametrize("status,body,kind,problem,text", [
    (200, {"choices": [{"message": {"content": [{"type": "text", "text": "Hi"}]}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 9, "completion_tokens": 1}}, "completion", "", "Hi"),
    (200, {"choices": [{"text": "Hi", "finish_reason": "stop"}]}, "completion", "", "Hi"),
    (200, {"choices": []}, "invalid", "a JSON body with no choices", '{"choices": []}'),
    (200, [1, 2], "invalid", "a JSON body with no choices", "[1, 2]"),
    (400, {"object": "error", "message": "too long"}, "refusal", "", "too long"),
    (422, {"detail": "bad"}, "refusal", "", "bad"),
    (400, "", "failed", "HTTP 400 without an error body (empty body)", ""),
    (302, "", "failed", "HTTP 302 (empty body)", ""),
])
def test_what_a_reply_amounts_to(status, body, kind, problem, text):
    from ctxlint.probe.answers import read_answer
    from ctxlint.probe.client import Reply

    raw = json.dumps(body).encode() if body != "" else b""
    answer = read_answer(Reply(status, raw, 0.0), "chat")
    assert (answer.kind, answer.problem, answer.text) == (kind, problem, text)
