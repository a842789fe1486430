"""A launcher's option-parsing loop (engines/arg_loops.py), and reserved words that open a compound command on the
line of a `do`/`then`/`else` (engines/shellwords.py).

Sweep 21b: huggingface/open-r1@1416fa0cf21595d2083b399a2a0bbddd7f6e9563:slurm/serve_r1.slurm (`MODEL_PATH=...`, then
`while getopts ...; m) MODEL_PATH="$OPTARG"`), crazyguitar/pysheeet@fbe35ba514d08ede114004716ead573fe99441a4:
src/llm/vllm/run.sh (`while (( "$#" )); do case "$1" in -m|--model) MODEL="$2"; shift 2`) and
coco-alen/sglang_assistance@8e279c00611efe8dcba325c55403259028746c83:wyze/wyze_start_server.sh
(`while [[ $# -gt 0 ]]`) each set the model before the loop and let the caller override it; all three read
"(no model id)". The scripts below are reduced ones written for these tests.
"""
from __future__ import annotations

from helpers import run

SERVE = "vllm serve \"$MODEL\" --max-model-len 200000\n"
CTX109 = ("CTX109 [error] 200,000 > 131,072: the unified context length 200,000 exceeds the maximum the engine "
          "derives for this model by 68,928 tokens (vLLM derives 131,072 from the model's max_position_embeddings "
          "131,072), and the engine refuses to start above it. Lower it to 131,072; the engine starts above it only "
          "with VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, which serves positions the model was not trained for unless RoPE "
          "scaling stretches them (context-exceeds-trained-positions)")


def check(tmp_path, text: str, name: str = "serve.sh") -> str:
    (tmp_path / name).write_text(text)
    return run(["check", "--isolated", "--select", "CTX008,CTX109", str(tmp_path / name)]).out


def test_getopts_override_leaves_the_scripts_default_model(tmp_path):
    # Run without options the loop never runs, as `${1:-default}` reads: the model set before it is the model.
    out = check(tmp_path, "#!/bin/bash\nMODEL=meta-llama/Llama-3.1-8B-Instruct\nwhile getopts \"m:h\" opt; do\n"
                "    case $opt in\n        m) MODEL=\"$OPTARG\" ;;\n        h) exit 1 ;;\n    esac\ndone\n" + SERVE)
    assert out == f"{tmp_path / 'serve.sh'}:9:37: {CTX109}\n"


def test_shift_loop_with_the_options_value_in_2_or_after_equals(tmp_path):
    out = check(tmp_path, "#!/bin/bash\nMODEL=meta-llama/Llama-3.1-8B-Instruct\nwhile [[ $# -gt 0 ]]; do\n"
                "  case $1 in\n    -m|--model) MODEL=\"$2\"; shift 2 ;;\n    --model=*) MODEL=\"${1#*=}\"; shift ;;\n"
                "    *) shift ;;\n  esac\ndone\n" + SERVE)
    assert out == f"{tmp_path / 'serve.sh'}:10:37: {CTX109}\n"


def test_arithmetic_condition_on_the_argument_count(tmp_path):
    # `(( "$#" ))` is lexed as operators around its words: the condition is read across them
    out = check(tmp_path, "#!/bin/bash\nMODEL=meta-llama/Llama-3.1-8B-Instruct\nwhile (( \"$#\" )); do\n"
                "  case \"$1\" in\n    -m) MODEL=\"$2\"; shift 2 ;;\n    *) shift ;;\n  esac\ndone\n" + SERVE)
    assert out == f"{tmp_path / 'serve.sh'}:9:37: {CTX109}\n"


def test_a_name_only_an_option_sets_says_so(tmp_path):
    out = check(tmp_path, "#!/bin/bash\nwhile (( \"$#\" )); do\n  case \"$1\" in\n    -m) MODEL=\"$2\"; shift 2 ;;\n"
                "    *) shift ;;\n  esac\ndone\n" + SERVE)
    assert out == (f"{tmp_path / 'serve.sh'}:8:13: CTX008 [info] values ctxlint cannot resolve: argument ${{MODEL}} "
                   "(MODEL is set only by an option the script's caller passes (its option-parsing loop)); the checks "
                   "that need them are skipped (set them literally) (unresolved-value)\n")


def test_an_option_that_sets_a_literal_value_stays_unknown(tmp_path):
    # `--big` gives the script a second reading (TP 8) that is not told apart here: the size stays unknown
    out = check(tmp_path, "#!/bin/bash\nMODEL=meta-llama/Llama-3.1-8B-Instruct\nTP=1\nwhile [[ $# -gt 0 ]]; do\n"
                "  case $1 in\n    --big) TP=8; shift ;;\n    -m) MODEL=\"$2\"; shift 2 ;;\n  esac\ndone\n"
                "vllm serve \"$MODEL\" --tensor-parallel-size $TP --max-model-len 200000\n")
    assert out == (f"{tmp_path / 'serve.sh'}:10:44: CTX008 [info] values ctxlint cannot resolve: "
                   "--tensor-parallel-size ${TP} (TP is set inside a branch or loop of the script); the checks that "
                   "need them are skipped (set them literally) (unresolved-value)\n"
                   f"{tmp_path / 'serve.sh'}:10:64: {CTX109}\n")


def test_a_loop_that_does_not_test_the_arguments_keeps_its_assignments_unknown(tmp_path):
    out = check(tmp_path, "#!/bin/bash\nMODEL=meta-llama/Llama-3.1-8B-Instruct\nfor h in a b; do MODEL=$1; done\n"
                + SERVE)
    assert out == (f"{tmp_path / 'serve.sh'}:4:13: CTX008 [info] values ctxlint cannot resolve: argument ${{MODEL}} "
                   "(MODEL is set inside a branch or loop of the script); the checks that need them are skipped (set "
                   "them literally) (unresolved-value)\n")


def test_a_functions_own_option_loop_reads_its_calls_words(tmp_path):
    # in a function the positional parameters are the call's (engines/shellfuncs.py): not the script's caller's
    out = check(tmp_path, "#!/bin/bash\nMODEL=meta-llama/Llama-3.1-8B-Instruct\nstart() {\n"
                "  while [[ $# -gt 0 ]]; do case $1 in -m) MODEL=\"$2\"; shift 2 ;; *) shift ;; esac; done\n  "
                + SERVE + "}\nstart -m Qwen/Qwen2.5-7B-Instruct\n")
    assert out == (f"{tmp_path / 'serve.sh'}:5:15: CTX008 [info] values ctxlint cannot resolve: argument ${{MODEL}} "
                   "(MODEL is set inside a branch or loop of the script); the checks that need them are skipped (set "
                   "them literally) (unresolved-value)\n")


def test_case_opened_on_the_line_of_do_keeps_the_loops_later_assignment_unknown(tmp_path):
    # `do case ... in`: the `case` counted, its `esac` no longer ends the loop, so TP=8 after it is still in the
    # loop (may run or not). Before, TP read 8 for sure (a value the loop may never set).
    for opener in ("do case $x in\n  a) echo a ;;\nesac\n", "do if [ -n \"$x\" ]; then echo \"$x\"; fi\n"):
        out = check(tmp_path, "#!/bin/bash\nTP=1\nwhile read -r x; " + opener + "TP=8\ndone < hosts.txt\n"
                    "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size $TP\n")
        line = 8 if opener.startswith("do case") else 6
        assert out == (f"{tmp_path / 'serve.sh'}:{line}:68: CTX008 [info] values ctxlint cannot resolve: "
                       "--tensor-parallel-size ${TP} (TP is set inside a branch or loop of the script); the checks "
                       "that need them are skipped (set them literally) (unresolved-value)\n"), opener


def test_a_loop_whose_condition_runs_a_command_of_its_own_is_no_option_loop(tmp_path):
    # `until curl ... $1` runs its body when the server is not up, arguments or not; `while read ... <<< "$1"` reads
    # a line: neither is an option-parsing loop, so what it assigns stays unknown (the script's default is not sure)
    for loop in ("until curl -s \"localhost:$1/health\"; do MODEL=\"$2\"; sleep 1; done\n",
                 "while ! nc -z localhost \"$1\"; do MODEL=\"$2\"; sleep 1; done\n",
                 "while read -r a b <<< \"$1\"; do MODEL=\"$2\"; done\n"):
        out = check(tmp_path, "#!/bin/bash\nMODEL=meta-llama/Llama-3.1-8B-Instruct\n" + loop + SERVE)
        assert out == (f"{tmp_path / 'serve.sh'}:4:13: CTX008 [info] values ctxlint cannot resolve: argument "
                       "${MODEL} (MODEL is set inside a branch or loop of the script); the checks that need them are "
                       "skipped (set them literally) (unresolved-value)\n"), loop


def test_a_negated_or_test_builtin_condition_is_still_an_option_loop(tmp_path):
    for cond in ("while ! [ -z \"$1\" ]", "while test $# -gt 0", "until [ -z \"$1\" ]", "while (( $# ))"):
        out = check(tmp_path, "#!/bin/bash\nMODEL=meta-llama/Llama-3.1-8B-Instruct\n" + cond +
                    "; do\n  case $1 in\n    -m) MODEL=\"$2\"; shift 2 ;;\n    *) shift ;;\n  esac\ndone\n" + SERVE)
        assert out == f"{tmp_path / 'serve.sh'}:9:37: {CTX109}\n", cond
