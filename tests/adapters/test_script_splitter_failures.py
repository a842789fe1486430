"""A launch script the shell splitter failed on: never a silent, clean-looking run.

Sweep 21b: SemiAnalysisAI/InferenceX@843c6254ff69b567f772f6a5fd97675af3d04431:
benchmarks/multi_node/amd_utils/server_sglang.sh (a 1,400-line SGLang prefill/decode launcher) gave no deployment
and no finding: scalar_branches._close raised KeyError('PREFILL_SDMA_ENV') on a variable forked by an `if` before
the one being closed, and split_shell's guard turned that into a problem nobody reported. The script below is a
reduced one written for this test.
"""
from __future__ import annotations

from helpers import run

MERGED = ("#!/bin/bash\nif [[ \"$T\" == \"true\" ]]; then\n    SDMA=\"S=1\"\nfi\nif [ \"$R\" -eq 0 ]; then\n"
          "    if [[ \"$O\" != \"none\" ]]; then\n        MC=\"mc\"\n    fi\n    if [[ -n \"$M\" ]]; then\n"
          "        MOE=\"X=1\"\n    fi\n    CMD=\"${SDMA} ${MOE} python3 -m sglang.launch_server --model-path "
          "Qwen/Qwen2.5-7B-Instruct --context-length 65536\"\n    eval \"$CMD\"\nfi\n")


def test_a_fork_from_before_an_if_merged_inside_it_keeps_the_scripts_commands(tmp_path):
    # SDMA's `if` came before; the branch reads it into CMD beside MOE, whose nested `if` is inside: the merged
    # fork holds a name the outer `if` never assigned. Before: KeyError, no command, no finding.
    (tmp_path / "serve.sh").write_text(MERGED)
    out = run(["check", "--isolated", "--select", "CTX109", str(tmp_path / "serve.sh")]).out
    tail = ("context length 65,536 exceeds the model's trained positions times its RoPE scaling factor by 32,768 "
            "tokens. Lower it to 32,768, or declare the RoPE scaling the model is actually served with "
            "(--json-model-override-args '{\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": F, "
            "\"original_max_position_embeddings\": N}, \"max_position_embeddings\": 65536}' with F >= 2.00) "
            "(context-exceeds-trained-positions)\n")
    assert out == "".join(
        f"{tmp_path / 'serve.sh'}:12:112: CTX109 [error] 65,536 > 32,768 x 1 = 32,768: the unified ({reading}) {tail}"
        for reading in ("if [[ $T == true ]], if [[ -n $M ]]", "if [[ $T == true ]], else",
                        "else, if [[ -n $M ]]", "else, else"))


def test_a_splitter_error_on_an_engine_script_is_said(tmp_path, monkeypatch):
    # Whatever the splitter's next bug is, a script that names an engine and reads as nothing says so (CTX011).
    import ctxlint.engines.shellwords as shellwords

    def broken(*args, **kwargs):
        raise KeyError("X")

    monkeypatch.setattr(shellwords, "_build_commands", broken)
    (tmp_path / "serve.sh").write_text("#!/bin/bash\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n")
    (tmp_path / "other.sh").write_text("#!/bin/bash\necho hello\n")
    result = run(["check", "--isolated", str(tmp_path)])
    assert result.out == (
        f"{tmp_path / 'serve.sh'}:1:1: CTX011 [info] ctxlint failed reading this script (KeyError('X'), an error of "
        "ctxlint's own), so none of its engine commands is checked; please report it with the script "
        "(unsupported-file)\n")
