"""`ctxlint audit`: exact output on samples/ (golden), row data, options and exit codes.

Regenerate the goldens with `python -m pytest tests/test_audit.py --update-golden`
(after rules or samples change) and review the diff.
"""
from __future__ import annotations

import csv
import io
import json

import pytest

from conftest import REPO, SHARED
from ctxlint.audit import NO_MODEL, build_audit
from ctxlint.engine import lint_paths
from helpers import run

GOLDEN = REPO / "tests" / "golden" / "audit"
# (golden file, arguments): the whole samples tree as the default table, and a small
# slice of it (the incident, its fix, a derived pool) in every other format.
CASES = [
    ("samples.table.txt", ["samples"]),
    ("slice.markdown.md", ["samples/incident", "samples/incident-fixed", "samples/derived-pool",
                           "--format", "markdown"]),
    ("slice.json", ["samples/incident", "samples/incident-fixed", "samples/derived-pool", "--format", "json"]),
    ("slice.csv", ["samples/incident", "samples/incident-fixed", "samples/derived-pool", "--format", "csv"]),
]


@pytest.mark.parametrize("name,args", CASES, ids=[c[0] for c in CASES])
def test_audit_output_is_golden(name, args, in_repo, update_golden):
    result = run(["audit", *args])
    assert result.code == 0, result.err
    golden = GOLDEN / name
    if update_golden:
        golden.write_text(result.out, encoding="utf-8")
    assert golden.exists(), f"{golden} missing: run with --update-golden"
    assert result.out == golden.read_text(encoding="utf-8"), \
        "audit output changed: python -m pytest tests/test_audit.py --update-golden, then review the diff"


def test_incident_row_has_the_numbers(in_repo):
    audit = build_audit(lint_paths(["samples/incident"]))
    (row,) = audit.rows
    assert (row.model, row.name, row.mode, row.window, row.engine_context) == \
        ("example/coder-moe-40b-active", "coder-moe-prod", "prefill-decode", 1048576, 1048576)
    assert (row.engine, row.engine_version) == ("sglang", "0.5.21")
    assert (row.prefill_pool.tokens, row.prefill_pool.origin) == (681280, "declared")
    assert (row.decode_pool.tokens, row.decode_pool.origin) == (2040000, "declared")
    assert row.headroom == pytest.approx(681280 / 1048576)
    assert (row.worst.rule, row.worst.severity, len(row.findings)) == ("CTX102", "error", 3)  # + CTX101, CTX401


def test_same_model_with_different_pools_is_marked_and_riskiest_first(in_repo):
    audit = build_audit(lint_paths(["samples/incident-fixed", "samples/incident", "samples/derived-pool"]))
    models = [g.model for g in audit.groups]
    assert models == ["meta-llama/Llama-3.1-8B-Instruct", "example/coder-moe-40b-active"]  # 0.17x before 0.65x
    incident = audit.groups[1]
    assert incident.pools_differ and all(r.pools_differ for r in incident.rows)
    assert [r.file for r in incident.rows] == ["samples/incident/deployment.yaml",
                                               "samples/incident-fixed/deployment.yaml"]
    result = run(["audit", "samples/incident", "samples/incident-fixed"])
    assert "example/coder-moe-40b-active *" in result.out
    assert ("* example/coder-moe-40b-active is served with 2 different pools: "
            "prefill 681,280 declared / decode 2,040,000 declared (coder-moe-prod at "
            "samples/incident/deployment.yaml:4)") in result.out


def test_same_pools_are_not_marked(in_repo):
    audit = build_audit(lint_paths(["samples/incident"]))
    assert not audit.groups[0].pools_differ and "*" not in run(["audit", "samples/incident"]).out


def test_deployments_without_model_id_never_count_as_one_model(in_repo):
    audit = build_audit(lint_paths(["samples/rules"]))
    unnamed = [g for g in audit.groups if g.model == NO_MODEL]
    assert unnamed and not unnamed[0].pools_differ
    assert audit.totals["without_model_id"] == len(unnamed[0].rows)


def test_unparsable_files_are_counted_outside_deployments(in_repo):
    audit = build_audit(lint_paths(["samples/rules/CTX001-parse-error"]))
    assert [f.rule for f in audit.outside] == ["CTX001"]
    assert "1 finding in files without a deployment" in run(["audit", "samples/rules/CTX001-parse-error"]).out


def test_csv_has_one_row_per_deployment(in_repo):
    out = run(["audit", "samples", "--format", "csv"]).out
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == len(lint_paths(["samples"]).deployments)
    assert rows[0]["headroom"] and rows[0]["worst_severity"] == "error"


def test_output_file_and_exit_codes(in_repo, tmp_path):
    target = tmp_path / "audit.json"
    result = run(["audit", "samples/incident", "--format", "json", "--output", str(target)])
    assert result.code == 0 and result.out == ""
    assert json.loads(target.read_text())["totals"]["with_errors"] == 1
    assert run(["audit", "samples/incident", "--fail-on", "error"]).code == 1
    assert run(["audit", "samples/incident-fixed", "--fail-on", "info"]).code == 0
    missing = run(["audit", "no/such/dir"])
    assert missing.code == 2 and "path does not exist: no/such/dir" in missing.err
    assert run(["audit", "samples", "--format", "xml"]).code == 2


def test_empty_tree(tmp_path):
    result = run(["audit", str(tmp_path)])
    assert result.code == 0
    assert result.out == ("total: 0 deployments of 0 models in 0 files; 0 with errors, 0 with warnings, "
                          "0 with infos only, 0 clean; 0 with a pool below what is promised, 0 not known; "
                          "0 models served with different pools\n")


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_jobs_2_gives_the_output_of_jobs_1(fmt, in_repo):
    paths = ["samples"] + ([str(SHARED / "corpus" / "real")] if (SHARED / "corpus" / "real").is_dir() else [])
    serial = run(["audit", *paths, "--format", fmt, "--jobs", "1"])
    parallel = run(["audit", *paths, "--format", fmt, "--jobs", "2"])
    assert serial.code == parallel.code == 0
    assert parallel.out == serial.out


SKY_ANY_OF = """\
name: llama
resources:
  accelerators: {L4:1, A100-80GB:1}
run: |
  vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192
"""
NO_DEVICE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: no-device
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.8.5
          args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"]
"""


def test_unknown_pools_and_any_of_options_are_not_different_pools(tmp_path, monkeypatch):
    # Issue 13 item 6: a deployment whose pool is unknown, and the options of one SkyPilot
    # any-of set, each counted as "a different pool" for the same model.
    (tmp_path / "sky.yaml").write_text(SKY_ANY_OF)
    (tmp_path / "unknown.yaml").write_text(NO_DEVICE)
    monkeypatch.chdir(tmp_path)
    audit = build_audit(lint_paths(["."]))
    assert [(r.name, r.prefill_pool and r.prefill_pool.tokens) for r in audit.rows] == [
        ("no-device", None), ("llama [L4:1]", 25440), ("llama [A100-80GB:1]", 438832)]
    assert not audit.groups[0].pools_differ and audit.totals["models_with_differing_pools"] == 0


def test_any_of_options_are_one_entry_against_another_deployment(tmp_path, monkeypatch):
    (tmp_path / "sky.yaml").write_text(SKY_ANY_OF)
    (tmp_path / "unknown.yaml").write_text(NO_DEVICE)
    (tmp_path / "l4.yaml").write_text(NO_DEVICE.replace("no-device", "on-l4").replace(
        "      containers:", "      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}\n"
        "      containers:").replace('"8192"]', '"8192"]\n          resources: {limits: {nvidia.com/gpu: 1}}'))
    monkeypatch.chdir(tmp_path)
    audit = build_audit(lint_paths(["."]))
    assert [(r.name, r.pools_differ) for r in audit.rows] == [
        ("no-device", False), ("llama [L4:1]", True), ("on-l4", True), ("llama [A100-80GB:1]", True)]
    notes = [line for line in run(["audit", "."]).out.splitlines() if " is served with " in line]
    assert notes == ["* meta-llama/Llama-3.1-8B-Instruct is served with 2 different pools: 25,440 derived or "
                     "438,832 derived (llama, one of 2 options, at sky.yaml:1); 29,264 derived (on-l4 at l4.yaml:1)"]


def test_concise_fits_the_terminal_width(in_repo, monkeypatch):
    # Issue 13: the audit table is hundreds of columns wide on a real fleet.
    monkeypatch.setenv("COLUMNS", "80")
    out = run(["audit", "samples/incident", "samples/incident-fixed", "samples/derived-pool", "--format",
               "concise"]).out
    assert out.splitlines() == [
        "model          deployment     file             headroom  verdict    worst",
        "-------------  -------------  -------------  ----------  ---------  ------------",
        "meta-llama/L…  llama-8b-l4    …small.yaml:4       0.25x  exceeds    CTX101 error",
        "*              llama-8b-l40s  …-fits.yaml:2       6.08x  fits       -",
        "example/code…  coder-moe-pr…  …yment.yaml:4       0.65x  exceeds    CTX102 error",
        "*              coder-moe-pr…  …yment.yaml:4       1.95x  fits       -",
        "",
        "* meta-llama/Llama-3.1-8B-Instruct is served with 2 different pools: 32,944",
        "  derived (llama-8b-l4 at samples/derived-pool/l4-too-small.yaml:4); 199,344",
        "  derived (llama-8b-l40s at samples/derived-pool/l40s-fits.yaml:2)",
        "* example/coder-moe-40b-active is served with 2 different pools: prefill 681,280",
        "  declared / decode 2,040,000 declared (coder-moe-prod at",
        "  samples/incident/deployment.yaml:4); prefill 2,040,000 declared / decode",
        "  2,040,000 declared (coder-moe-prod at",
        "  samples/incident-fixed/deployment.yaml:4)",
        "total: 4 deployments of 2 models in 4 files; 2 with errors, 0 with warnings, 0",
        "  with infos only, 2 clean; 2 with a pool below what is promised, 0 not known; 4",
        "  of the 4 that name a model have a capacity verdict (100%); 2 models served",
        "  with different pools",
    ]
    monkeypatch.setenv("COLUMNS", "300")  # wide enough: nothing is cut
    wide = run(["audit", "samples/incident", "--format", "concise"]).out.splitlines()
    assert wide[2].split()[:3] == ["example/coder-moe-40b-active", "coder-moe-prod",
                                   "samples/incident/deployment.yaml:4"]


def test_headroom_without_a_window_is_over_the_engine_context(tmp_path, monkeypatch):
    # Issue 13 item 6 (fixed before this branch; kept as a test): no advertised window means the
    # engine's context is the promise, so a pool below it counts as "below what is promised".
    (tmp_path / "l4.yaml").write_text(NO_DEVICE.replace('"8192"', '"65536"').replace(
        "      containers:", "      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}\n"
        "      containers:").replace('"65536"]', '"65536"]\n          resources: {limits: {nvidia.com/gpu: 1}}'))
    monkeypatch.chdir(tmp_path)
    audit = build_audit(lint_paths(["."]))
    (row,) = audit.rows
    assert (row.window, row.promise, row.promise_from) == (None, 65536, "engine context")
    # what one request can hold (the pool less vLLM's 16-token null block) over the promise
    assert row.headroom == pytest.approx((row.prefill_pool.tokens - 16) / 65536) and row.headroom < 1
    assert (audit.totals["below_window"], audit.totals["unknown_headroom"]) == (1, 0)


@pytest.mark.parametrize("fmt", ["table", "concise", "markdown"])
def test_a_model_id_with_control_characters_stays_on_its_row(fmt, tmp_path):
    text = (REPO / "samples/derived-pool/l4-too-small.yaml").read_text(encoding="utf-8")
    for name, pool in (("a", 1000), ("b", 2000)):  # two pools for one model: the notes line names it too
        (tmp_path / f"{name}.yaml").write_text(text.replace(
            "model: {id: meta-llama/Llama-3.1-8B-Instruct}", 'model: {id: "evil\\n::error::x\\x1b[31m"}').replace(
            "context_length: 131072", f"kv_pool_tokens: {pool}\n        context_length: 131072"), encoding="utf-8")
    out = run(["audit", str(tmp_path), "--format", fmt]).out
    assert "\x1b" not in out and "\n::error" not in out
    shown = "evil\\\\n::error::x\\\\x1b[31m" if fmt == "markdown" else "evil\\n::error::x\\x1b[31m"
    seen = sum(shown in line for line in out.splitlines())  # its row and the note (concise may cut the row's)
    assert seen == 2 or fmt == "concise" and seen >= 1


def test_a_route_name_with_control_characters_stays_on_its_stack_row():
    from ctxlint.audit_stacks import StackRow, StackTarget
    from ctxlint.reporters.audit_stacks import cells

    target = StackTarget("chat\n::error::x", "d.yaml", 3, "unified", 8192, False, 1000, "declared")
    row = StackRow("litellm", "route\x1b[31m", "g.yaml", 1, 8192, ("8,192 tokens",), (target,), "", (), ())
    (cells_of_row,) = cells([row])
    assert cells_of_row[0] == "litellm route\\x1b[31m" and cells_of_row[4] == "chat\\n::error::x unified"


@pytest.mark.skipif(not (SHARED / "corpus" / "real").is_dir(), reason="../shared/corpus/real is not beside the repo")
def test_no_kv_memory_is_the_audit_verdict_only_where_check_says_ctx209():
    # A band that straddles one KV block (its low end holds none) is a CTX210 warning in `check`, and
    # "within band" in the audit: "no KV memory" is for roles whose most generous estimate holds none.
    corpus = build_audit(lint_paths([str(SHARED / "corpus" / "real")]))
    samples = build_audit(lint_paths([str(REPO / "samples")]))
    rows = list(corpus.rows) + list(samples.rows)
    straddling = [r for r in rows if r.worst is not None and r.worst.rule == "CTX210"
                  and "estimated band 0-" in r.worst.message]
    assert len(straddling) >= 3  # the corpus's SkyPilot DeepSeek-R1-Distill on L4/A10G/A10, Kimi-K2 on H100s
    assert {r.verdict for r in straddling} == {"within band"}
    # and CTX210 does not advise "keep the promise at or below 0"
    assert all(r.worst.message.endswith("not one KV block fits and the engine would not start") for r in straddling)
    starved = [r for r in rows if r.verdict == "no KV memory"]
    assert starved and all(r.worst.rule == "CTX209" for r in starved)


def test_why_unknown_names_the_engine_before_the_device(tmp_path):
    # sweep 10: a NIM deployment without a device said "no accelerator type", but stating one only changed it to
    # "engine not supported for derivation": the reason given first is the one that blocks the verdict
    path = tmp_path / "nim.yaml"
    pod = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  template:
    spec:
      NODESELECTOR
      containers:
      - name: x
        image: IMAGE
        resources: {limits: {nvidia.com/gpu: 1}}
"""
    reasons = []
    for image, selector in (("nvcr.io/nim/meta/llama-3.1-8b-instruct:1.6.0", ""),
                            ("nvcr.io/nim/meta/llama-3.1-8b-instruct:1.6.0",
                             "nodeSelector: {nvidia.com/gpu.product: H100}"),
                            ("ghcr.io/huggingface/text-generation-inference:3.3.6", "")):
        path.write_text(pod.replace("IMAGE", image).replace("NODESELECTOR", selector).replace(
            "- name: x\n", "- name: x\n        env: [{name: MODEL_ID, value: meta-llama/Llama-3.1-8B-Instruct}]\n"))
        [row] = json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"]
        reasons.append(row["why_unknown"])
    # a NIM 1.x says which of its facts is missing (adapters/nim_backend.py), whatever the device
    assert reasons == ["NIM backend not stated"] * 2 + [None]  # TGI: "needs >= ... GiB/GPU"


def test_a_stated_device_with_an_unknown_tensor_parallel_size_gets_no_memory_need(tmp_path):
    # sweep 11 (opendatahub-io's multinode template): `check` said the device is stated but the TP is not known,
    # while the audit gave "needs >= 161 GiB/GPU", Llama-3.1-70B's need at TP 1 on a pod of 8 GPUs
    (tmp_path / "d.yaml").write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama-70b}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        command: [vllm, serve, meta-llama/Llama-3.1-70B-Instruct, --max-model-len=32768, --tensor-parallel-size=$(TP)]
        env:
        - name: TP
          valueFrom: {secretKeyRef: {name: cfg, key: tp}}
        resources: {limits: {nvidia.com/gpu: "8"}}
""")
    [row] = json.loads(run(["audit", str(tmp_path), "--format", "json"]).out)["deployments"]
    assert (row["verdict"], row["why_unknown"]) == ("unknown", "parallel size not known")


def test_totals_say_when_a_pool_is_below_the_promise_only_at_the_estimates_point(tmp_path):
    # sweep 28 (a gemma-2-9b Cloud Run service): a row "within band" (the band's top holds the promise) was
    # counted "with a pool below what is promised" without a word that its band reaches the promise
    (tmp_path / "d.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: g2}\nspec:\n  template:\n    spec:\n"
        "      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}\n      containers:\n      - name: main\n"
        "        image: vllm/vllm-openai:latest\n"
        "        args: [\"--model\", \"google/gemma-2-9b-it\", \"--max-model-len\", \"3968\"]\n"
        "        resources: {limits: {nvidia.com/gpu: \"1\"}}\n")
    out = run(["audit", str(tmp_path), "--isolated"]).out
    assert " within band " in out
    assert ("; 1 with a pool below what is promised (1 of them only at the estimate's point, within its band), "
            "0 not known;") in out


PD_CONTEXTS = """apiVersion: ctxlint/v1
kind: ModelDeployment
metadata: {name: pd}
spec:
  model: {id: example/m}
  serving:
    disaggregation: prefill-decode
    roles:
      - {role: prefill, context_length: 8192, kv_pool_tokens: %d}
      - {role: decode, context_length: 16384, kv_pool_tokens: %d}
"""


@pytest.mark.parametrize("prefill,decode,headroom,verdict", [
    (9840, 9840, 9840 / 16384, "exceeds"),    # the decode role's 16,384 is what does not fit
    (9840, 100000, 9840 / 8192, "fits"),      # each role holds its own context: the prefill pool is not held to 16,384
])
def test_prefill_and_decode_contexts_that_differ_show_as_a_range(tmp_path, prefill, decode, headroom, verdict):
    # Sweep 33: a row read `engine ctx 8,192 | pools 9,840 | headroom 0.60x`, the smaller context beside a
    # headroom held against the larger one. The row shows both ends, and the headroom is each role's pool over
    # its own context, as the verdict judges it.
    (tmp_path / "pd.yaml").write_text(PD_CONTEXTS % (prefill, decode), encoding="utf-8")
    (row,) = build_audit(lint_paths([str(tmp_path)])).rows
    assert (row.engine_context, row.engine_context_max, row.promise) == (8192, 16384, 16384)
    assert row.headroom == pytest.approx(headroom) and row.verdict == verdict
    table = run(["audit", str(tmp_path)]).out.splitlines()[2].split()
    assert table[table.index("prefill-decode") + 2] == "8,192-16,384"
    (data,) = json.loads(run(["audit", str(tmp_path), "--format", "json"]).out)["deployments"]
    assert (data["engine_context"], data["engine_context_max"]) == (8192, 16384)
    (_, values) = list(csv.reader(io.StringIO(run(["audit", str(tmp_path), "--format", "csv"]).out)))
    assert values[21] == "16384" and values[8] == "8192"  # engine_context_max, model_from after it


# sweep 37 (llm-jp/FastChat2's inf2-24xlarge.sh): two engines of different models in one script were two rows,
# both at the first engine's line; each deployment a file splits by model starts at its own engine
TWO_MODELS = {
    "two.sh": ("vllm serve Qwen/Qwen3-8B \\\n  --max-model-len 8192 --port 8000 &\n\n"
               "vllm serve Qwen/Qwen3-0.6B \\\n  --max-model-len 8192 --port 8001\n", 4),
    "two.yaml": ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: two}\nspec:\n  template:\n    spec:\n"
                 "      containers:\n      - name: a\n        image: vllm/vllm-openai:v0.9.0\n"
                 "        args: [--model, Qwen/Qwen3-8B, --max-model-len, '8192']\n      - name: b\n"
                 "        image: vllm/vllm-openai:v0.9.0\n"
                 "        args: [--model, Qwen/Qwen3-0.6B, --max-model-len, '8192']\n", 11),
    "compose.yaml": ("services:\n  e:\n    image: vllm/vllm-openai:v0.9.0\n    entrypoint:\n    - /bin/sh\n    - -c\n"
                     "    - |\n      vllm serve Qwen/Qwen3-8B --max-model-len 8192 &\n"
                     "      vllm serve Qwen/Qwen3-0.6B --max-model-len 8192 --port 8001\n", 9),
}


@pytest.mark.parametrize("name", sorted(TWO_MODELS))
def test_each_model_of_a_file_is_at_its_own_engine(tmp_path, name):
    text, second = TWO_MODELS[name]
    (tmp_path / name).write_text(text)
    rows = json.loads(run(["audit", str(tmp_path / name), "--format", "json"]).out)["deployments"]
    first = {"two.sh": 1, "two.yaml": 1, "compose.yaml": 3}[name]  # the workload's own line stays the first's
    assert {(r["model"], r["line"]) for r in rows} == {("Qwen/Qwen3-8B", first), ("Qwen/Qwen3-0.6B", second)}
