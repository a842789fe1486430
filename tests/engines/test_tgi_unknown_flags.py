"""TGI's launcher (clap) exits on a flag it has not: its whole argument list per release is in engines/tgi_args.py
(huggingface/text-generation-inference launcher/src/main.rs `struct Args`, v0.2.0-v3.3.7)."""
from __future__ import annotations

import pytest

from ctxlint.engine import lint_text

from .test_parse import parse_shell

SAID = "text-generation-launcher exits with \"error: unexpected argument '{}' found\""


def _errors(line):
    inv, _, _ = parse_shell(line)
    return [(e.message, line[e.span[0]:e.span[1]], e.since, e.until) for e in inv.errors]


def test_a_flag_no_release_has_is_refused():
    assert _errors("text-generation-launcher --model-id m --max-concurrent-requests 8 --max-model-len=4096") == [
        (SAID.format("--max-model-len") + " (no release's launcher has --max-model-len, v0.2.0 to v3.3.7)",
         "--max-model-len=4096", None, None)]


def test_a_flag_of_some_releases_is_banded():
    assert _errors("text-generation-launcher --ngrok-domain x --api-key k") == [
        (SAID.format("--ngrok-domain") + " (the launcher has --ngrok-domain from 0.9.0 on)", "--ngrok-domain", None,
         "0.9.0"),
        (SAID.format("--ngrok-domain") + " (the launcher dropped --ngrok-domain in 0.9.4)", "--ngrok-domain", "0.9.4",
         None),
        (SAID.format("--api-key") + " (the launcher has --api-key from 2.3.0 on)", "--api-key", None, "2.3.0")]


def test_known_words_are_not_refused():
    # every release's flags, the TRT-LLM backend's (its image installs it as text-generation-launcher), clap's own,
    # and an attached short value, which clap reads
    assert _errors("text-generation-launcher --model-id m --shard-uds-path x --executor-worker w --json-output "
                   "-p8080 --help") == []
    inv, _, _ = parse_shell("text-generation-launcher --model-id m", env={"MAX_TOTAL_TOKENS": "8192", "ATTENTION": "paged"})
    assert list(inv.errors) == [] and inv.value("max_total_tokens") == 8192  # env-only settings are no flags


YAML = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: t}
spec:
  template:
    spec:
      containers:
      - name: s
        image: ghcr.io/huggingface/text-generation-inference:TAG
        args: ["--model-id", "meta-llama/Llama-3.1-8B-Instruct", "--api-key", "k", "--gpu-memory-utilization", "0.9"]
        resources: {limits: {nvidia.com/gpu: 1}}
"""


API = ("tgi 2.2.0 would refuse to start: " + SAID.format("--api-key") + " (the launcher has --api-key from 2.3.0 on)")
GMU = ("tgi would refuse to start: " + SAID.format("--gpu-memory-utilization")
       + " (no release's launcher has --gpu-memory-utilization, v0.2.0 to v3.3.7)")


@pytest.mark.parametrize("tag,refused", [
    ("2.2.0", [(10, 67, API), (10, 85, GMU)]),
    ("3.0.1", [(10, 85, GMU)]),  # --api-key is 2.3.0's
])
def test_refusals_follow_the_image_release(tag, refused):
    found = [f for f in lint_text(YAML.replace("TAG", tag), "d.yaml").findings if f.rule == "CTX301"]
    assert [(f.line, f.column, f.message) for f in found] == refused


def test_llamacpp_router_image_not_judged():
    text = YAML.replace("TAG", "3.3.7-llamacpp")
    assert [f for f in lint_text(text, "d.yaml").findings if "unexpected argument" in f.message] == []


def test_table_flags_banded_by_the_release_that_added_them():
    # v1.4.5's launcher has --max-input-length only, v1.0.0's no --max-batch-size (back in v1.4.1)
    assert _errors("text-generation-launcher --max-input-tokens 4096 --max-batch-size 8") == [
        ("unrecognized arguments: --max-batch-size (dropped in 0.9.0, back in 1.4.1: releases 0.9.0-1.4.0 have no "
         "--max-batch-size: leave it out)", "--max-batch-size", "0.9.0", "1.4.1"),
        ("unrecognized arguments: --max-input-tokens (a spelling from 2.0.0 on: earlier releases have no such flag)",
         "--max-input-tokens", None, "2.0.0")]
    # the same settings by environment variable: an older launcher ignores a variable it has no argument for
    inv, _, _ = parse_shell("text-generation-launcher --model-id m", env={"MAX_INPUT_TOKENS": "4096",
                                                                        "MAX_BATCH_SIZE": "8"})
    assert list(inv.errors) == [] and inv.value("max_input_tokens") == 4096


def test_every_flag_of_ctxlints_table_is_a_launcher_argument():
    from ctxlint.engines import flags_tgi, tgi_args

    listed = {s for f in flags_tgi.SPEC_.flags for s in f.spellings + f.negatives}
    assert listed - tgi_args._KNOWN - set(tgi_args._BANDED) == set()


def test_payload_limit_and_prometheus_port_banded():
    # neither the launcher nor the TRT-LLM backend has --payload-limit before v2.4.1 or --prometheus-port before v3.3.0
    errs = _errors("text-generation-launcher --model-id m --payload-limit 8000000 --prometheus-port 9001")
    assert sorted((span, since, until) for _, span, since, until in errs) == [
        ("--payload-limit", None, "2.4.1"), ("--prometheus-port", None, "3.3.0")]
    text = YAML.replace("TAG", "2.0.4").replace('"--api-key", "k", "--gpu-memory-utilization", "0.9"',
                                                '"--payload-limit", "8000000"')
    assert [f.rule for f in lint_text(text, "d.yaml").findings if f.rule == "CTX301"] == ["CTX301"]
    assert [f for f in lint_text(YAML.replace("TAG", "3.3.0").replace(
        '"--api-key", "k", "--gpu-memory-utilization", "0.9"', '"--payload-limit", "1", "--prometheus-port", "9"'),
        "d.yaml").findings if f.rule == "CTX301"] == []


TRT = YAML.replace('"--api-key", "k", "--gpu-memory-utilization", "0.9"', '"--auth-token", "k", "--messages-api-enabled"')
TRT_ONLY = ("tgi would refuse to start: " + SAID.format("{0}") + " (only the TensorRT-LLM backend has {0}, in TGI's "
            "`-trtllm` images; this image's launcher has none of its flags)")


@pytest.mark.parametrize("tag,command,refused", [
    # a TGI image's launcher has none of the TRT-LLM backend's flags (huggingface/text-generation-inference
    # backends/trtllm/src/main.rs, v2.3.0 on), with the image's entrypoint or text-generation-launcher named
    ("3.0.1", "", [(10, 67, TRT_ONLY.format("--auth-token")), (10, 88, TRT_ONLY.format("--messages-api-enabled"))]),
    ("3.0.1", "command: [text-generation-launcher]",
     [(11, 67, TRT_ONLY.format("--auth-token")), (11, 88, TRT_ONLY.format("--messages-api-enabled"))]),
    # the TRT-LLM image's backend has them by release: --messages-api-enabled in v2.3.x only
    ("2.3.1-trtllm", "", []),
    ("3.0.1-trtllm", "command: [text-generation-launcher]",
     [(11, 88, "tgi 3.0.1 would refuse to start: " + SAID.format("--messages-api-enabled")
       + " (the TensorRT-LLM backend dropped --messages-api-enabled in 2.4.0)")]),
])
def test_trtllm_backend_flags_follow_the_image(tag, command, refused):
    text = TRT.replace("TAG", tag)
    if command:
        text = text.replace("        args:", f"        {command}\n        args:")
    found = [f for f in lint_text(text, "d.yaml").findings if f.rule == "CTX301"]
    assert [(f.line, f.column, f.message) for f in found] == refused


def test_trtllm_backend_flags_unjudged_where_the_image_is_not_known():
    text = TRT.replace("ghcr.io/huggingface/text-generation-inference:TAG", "mycorp/llm:1").replace(
        "        args:", "        command: [text-generation-launcher]\n        args:")
    assert [f for f in lint_text(text, "d.yaml").findings if "unexpected argument" in f.message] == []
    assert _errors("text-generation-launcher --model-id m --auth-token k --max-image-fetch-size 9") == []
