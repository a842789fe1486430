"""LMDeploy parses with a copy of vLLM's FlexibleArgumentParser from 0.9.2 (InternLM/lmdeploy@9098ae8:
lmdeploy/cli/cli.py, lmdeploy/cli/utils.py): `--a_b` is `--a-b` and `--hf-overrides.k v` a JSON key there, and
plain argparse before it exits on both."""
from __future__ import annotations

import pytest

from ctxlint.engine import lint_text

from .test_parse import parse_shell

LINE = "lmdeploy serve api_server Qwen/Qwen2.5-7B"


def test_underscore_read_from_0_9_2_refused_before():
    inv, _, line = parse_shell(f"{LINE} --session_len 8192 --cache_max_entry_count=0.5")
    assert (inv.value("session_len"), inv.value("cache_max_entry_count")) == (8192, 0.5)
    assert [(e.message, line[e.span[0]:e.span[1]], e.since, e.until) for e in inv.errors] == [
        ("unrecognized arguments: --session_len (a `_` in a flag's name is read as `-` from 0.9.2 on; earlier "
         "releases take --session-len)", "--session_len", None, "0.9.2"),
        ("unrecognized arguments: --cache_max_entry_count (a `_` in a flag's name is read as `-` from 0.9.2 on; "
         "earlier releases take --cache-max-entry-count)", "--cache_max_entry_count=0.5", None, "0.9.2")]
    assert [inv.errors[0].refused_by(r) for r in ("0.9.1", "0.9.2", "0.16.0", None)] == [True, False, False, None]
    inv, _, _ = parse_shell(f"{LINE} --session-len 8192")
    assert list(inv.errors) == [] and inv.value("session_len") == 8192


def test_dotted_hf_overrides_from_0_9_2():
    inv, _, line = parse_shell(f"{LINE} --hf-overrides.rope_scaling.factor 4.0 --hf_overrides.max_position_embeddings 128k")
    # LMDeploy's copy reads the value as JSON, else keeps the string (no human-readable 128k as vLLM's)
    assert inv.value("hf_overrides") == {"rope_scaling": {"factor": 4.0}, "max_position_embeddings": "128k"}
    # --hf-overrides itself is from 0.9.2 (absent from v0.9.1's lmdeploy/cli): one refusal, by late_spellings
    assert [(e.message, e.until) for e in inv.errors] == [
        ("unrecognized arguments: --hf_overrides.max_position_embeddings (a spelling from 0.9.2 on: earlier releases "
         "have no such flag)", "0.9.2")]


YAML = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: l}
spec:
  template:
    spec:
      containers:
      - name: s
        image: openmmlab/lmdeploy:TAG
        command: ["lmdeploy", "serve", "api_server", "Qwen/Qwen2.5-7B-Instruct", "--session_len 8192"]
        resources: {limits: {nvidia.com/gpu: 1}}
"""


@pytest.mark.parametrize("tag,said", [("v0.9.1-cu12", "0.9.1"), ("v0.9.2-cu12", "0.9.2")])
def test_joined_item_quotes_the_word_as_each_release_reads_it(tag, said):
    report = lint_text(YAML.replace("TAG", tag), "d.yaml")
    [f] = [f for f in report.findings if f.rule == "CTX301"]
    word = "--session_len 8192" if said == "0.9.1" else "--session-len 8192"
    assert (f.line, f.column) == (10, 83)
    assert f.message == (
        f'lmdeploy {said} would refuse to start: command[4] is one argument: "--session_len 8192": lmdeploy serve '
        f'api_server exits with "error: unrecognized arguments: {word}" (argparse reads a word that holds a blank and '
        "names no flag as a positional argument, and `lmdeploy serve api_server` takes one, its model path); write "
        'each flag and value as its own list item (["--session_len", "8192"])')
