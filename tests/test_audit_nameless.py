"""A finding the reader makes before a script's launches become deployments names none (a refused flag or word,
CTX301). The audit gives it to the launch it sits in, not to every deployment of the file. The shape of sweep c29's
haskoe/beancount-ledger@HEAD:start-llm.sh: three llama-servers of three models, the second with a stray word."""
from __future__ import annotations

from ctxlint.audit import build_audit
from ctxlint.engine import lint_paths


def _rows(path):
    return {row.name: [f.rule for f in row.findings if f.severity == "error"]
            for row in build_audit(lint_paths([str(path)])).rows}


def test_a_refusal_in_one_launch_is_that_launchs_alone(tmp_path):
    path = tmp_path / "two.sh"
    path.write_text("#!/bin/bash\nvllm serve Qwen/Qwen2.5-7B-Instruct --swap-space 4 &\n"
                    "vllm serve Qwen/Qwen2.5-1.5B-Instruct --port 8001\n")
    assert _rows(path) == {"two (Qwen/Qwen2.5-7B-Instruct)": ["CTX301"], "two (Qwen/Qwen2.5-1.5B-Instruct)": []}


def test_a_stray_word_of_the_second_of_three_llama_servers(tmp_path):
    path = tmp_path / "start-llm.sh"
    path.write_text("#!/bin/bash\nllama-server \\\n  -m /m/a-Q8_0.gguf \\\n  --ctx-size 8192 &\n\n"
                    "llama-server \\\n  -m /m/b-Q8_0 c-q8_0.gguf \\\n  --ctx-size 4096 &\n\n"
                    "llama-server --ctx-size 16384 --model /m/d-Q4_K_M.gguf\n")
    assert _rows(path) == {"start-llm (/m/a-Q8_0.gguf)": [], "start-llm (/m/b-Q8_0)": ["CTX301"],
                           "start-llm (/m/d-Q4_K_M.gguf)": []}


def test_a_nameless_finding_outside_every_launch_stays_with_all(tmp_path):
    # a duplicate key of the file's header, in no workload's lines: any deployment of the file may be changed by it
    path = tmp_path / "compose.yaml"
    path.write_text("name: x\nname: y\nservices:\n  a:\n    image: vllm/vllm-openai:v0.8.5\n"
                    "    command: --model Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n"
                    "  b:\n    image: vllm/vllm-openai:v0.8.5\n"
                    "    command: --model Qwen/Qwen2.5-1.5B-Instruct --max-model-len 8192\n")
    rows = _rows(path)
    assert len(rows) == 2 and all(r == ["CTX003"] for r in rows.values())


def test_a_stray_word_after_a_launchs_values_stays_with_that_launch(tmp_path):
    # the first launch's values are all on its first line, its stray word on the next; the second launch's span
    # reaches back over both to the array it expands: the error is the first launch's (it stops that server)
    path = tmp_path / "run.sh"
    path.write_text('#!/bin/bash\nARGS=(-c 8192 --port 8081)\nllama-server -m /m/a.gguf -c 4096 \\\n'
                    '  extra.gguf &\nllama-server -m /m/b.gguf "${ARGS[@]}"\n')
    assert _rows(path)["run (/m/a.gguf)"] == ["CTX301"]
