"""Engine commands a launcher script builds as text: a `${VAR:-default}` holding a quoted `}` or a `$(...)` before
the command, a quote left open before it, `eval` strings, and `$CMD` / `bash -c "$CMD"` strings with unknown
parts. Each either gives its role (unknown parts as CTX008) or says why not; none vanishes silently."""
from __future__ import annotations

import json

from helpers import run

QWEN = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192"
CTX208 = ("CTX208 [info] KV pool of unified not declared and not derivable: no accelerator type (or available_kv_gib) "
          "is given; holding one request of 8,192 tokens needs >= 18.5 (band 16.9-20.2) GiB per GPU at TP 1 (L4 yes, "
          "A10G yes, L40S yes, A100-40GB yes, A100-SXM4-80GB yes, H100-SXM-80GB yes, H200 yes, B200 yes, MI300X yes); "
          "state the device (`default-accelerator:` in .ctxlint.yaml, or a Slurm header naming a type such as "
          "`#SBATCH --gres=gpu:h100:4` for a batch script; a site's `a100` or `v100` comes in two memory sizes and "
          "is checked over both); capacity checks skip these roles (capacity-not-derivable)")


def check(tmp_path, name: str, text: str, *args: str):
    path = tmp_path / name
    path.write_text(text)
    result = run(["check", "--isolated", *args, str(path)])
    return result, path


def never_ends(what: str, line: int, launcher: str = "vllm serve") -> str:
    return (f"CTX001 [error] {what} that never ends: the shell reads on to the end of the script for its match, then "
            f"stops with a syntax error and runs nothing from here on, so the engine command at line {line} "
            f"({launcher}) never starts, and ctxlint reads none of it; close it, or escape the character if it is "
            "meant literally (parse-error)")


def test_a_default_with_a_quoted_or_substituted_brace_hides_no_engine(tmp_path):
    # sweep 29's repro: before, 0 deployments and no finding
    for first in ("IP=${IP:-$(hostname -I | awk '{print $1}')}", "G=${G:-'}'}"):
        result, path = check(tmp_path, "serve.sh", f"#!/bin/bash\n{first}\n{QWEN}\n")
        assert (result.out, result.err) == (f"{path}:3:1: {CTX208}\n", "ctxlint: 1 info in 1 file, 1 deployment\n")


def test_a_quote_left_open_before_the_engine_is_a_parse_error_where_it_opens(tmp_path):
    result, path = check(tmp_path, "serve.sh", f"#!/bin/bash\necho \"it's starting\n{QWEN}\n")
    assert (result.code, result.out) == (1, f"{path}:2:6: {never_ends('a double quote', 3)}\n")
    assert "0 deployments" in result.err
    # in a container's `sh -c` string, at the quote inside the list item
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
           "    image: vllm/vllm-openai:v0.8.5\n"
           "    command: [\"sh\", \"-c\", \"echo 'hi; python3 -m sglang.launch_server --model-path m\"]\n")
    result, path = check(tmp_path, "pod.yaml", pod)
    assert result.out == f"{path}:8:33: {never_ends('a single quote', 8, 'sglang.launch_server')}\n"
    # a `${` that never closes
    result, path = check(tmp_path, "serve.sh", f"#!/bin/bash\nM=${{M:-'x}}\n{QWEN}\n")
    assert result.out == f"{path}:2:3: {never_ends('a `${`', 3)}\n"


def test_a_quote_left_open_with_no_engine_after_it_is_not_reported(tmp_path):
    # the engine before it starts (bash runs the script line by line); nothing after it is lost
    result, path = check(tmp_path, "serve.sh", f"#!/bin/bash\n{QWEN} &\necho \"done, don't wait\n")
    assert (result.out, result.err) == (f"{path}:2:1: {CTX208}\n", "ctxlint: 1 info in 1 file, 1 deployment\n")
    # a model's name after it is no engine command (`llama` is a marker, not a program)
    result, _ = check(tmp_path, "serve.sh", "#!/bin/bash\necho 'fetching\nhuggingface-cli download meta-llama/x\n")
    assert (result.out, result.err) == ("", "ctxlint: no findings in 1 file, 0 deployments\n")


def test_an_eval_string_is_a_role_at_its_typed_program_or_at_the_variable_it_expands(tmp_path):
    # before: 0 deployments for both (sweep 27's probes i.sh and c.sh)
    result, path = check(tmp_path, "serve.sh", f'#!/bin/bash\neval "{QWEN}" &\n')
    assert (result.out, result.err) == (f"{path}:2:7: {CTX208}\n", "ctxlint: 1 info in 1 file, 1 deployment\n")
    result, path = check(tmp_path, "serve.sh", f'#!/bin/bash\nCMD="{QWEN}"\neval "$CMD" > log 2>&1 &\n')
    assert (result.out, result.err) == (f"{path}:3:7: {CTX208}\n", "ctxlint: 1 info in 1 file, 1 deployment\n")
    # a caller's value inside the string is CTX008 where it is typed, as in `bash -c "..."`
    result, path = check(tmp_path, "serve.sh", '#!/bin/bash\neval "vllm serve $MODEL --max-model-len 8192" &\n',
                         "--select", "CTX008")
    assert result.out == (f"{path}:2:18: CTX008 [info] values ctxlint cannot resolve: argument ${{MODEL}} (MODEL is "
                          "not set in the file); the checks that need them are skipped (set them literally) "
                          "(unresolved-value)\n")


def unknown_model(path, line: int, col: int, why: str = "MODEL is not set in the file", name: str = "MODEL") -> str:
    return (f"{path}:{line}:{col}: CTX008 [info] values ctxlint cannot resolve: argument ${{{name}}} ({why}); the "
            "checks that need them are skipped (set them literally) (unresolved-value)\n")


def test_a_command_string_with_an_unknown_part_is_a_role_with_ctx008_where_the_part_is_typed(tmp_path):
    # sweep 27's probes k.sh, e.sh: before, 0 deployments and no finding, where the inline form gave both
    assign = '#!/bin/bash\nCMD="vllm serve $MODEL --tensor-parallel-size 2 --max-model-len 8192"\n'
    for run_it in ("$CMD &", 'bash -c "$CMD" &', 'eval "$CMD" &'):
        result, path = check(tmp_path, "serve.sh", assign + run_it + "\n", "--select", "CTX008")
        assert (result.out, result.err) == (unknown_model(path, 2, 17), "ctxlint: 1 info in 1 file, 1 deployment\n")
    # sweep 27's a.sh: the model from `jq`, LMDeploy's positional model
    text = ('#!/bin/bash\nmodel=$(echo "$1" | jq -r .model)\n'
            'server_command="lmdeploy serve api_server $model --tp 2 --session-len 8192"\n'
            'bash -c "$server_command" &\n')
    result, path = check(tmp_path, "serve.sh", text, "--select", "CTX008")
    assert result.out == unknown_model(path, 3, 43, "model is set by the script to a value it does not hold", "model")


def test_a_variable_that_only_mentions_an_engine_starts_nothing(tmp_path):
    text = ('#!/bin/bash\nUSAGE="usage: vllm serve $MODEL --max-model-len 8192"\necho $USAGE\nlog "$USAGE"\n'
            '"$USAGE"\nfor i in 1; do if [ -n "$X" ]; then CMD="vllm serve $MODEL"; fi; done\n$CMD\n')
    # (an `if` outside a loop that sets CMD is a launch in that branch: engines/scalar_branches.py)
    result, _ = check(tmp_path, "serve.sh", text)
    assert (result.out, result.err) == ("", "ctxlint: no findings in 1 file, 0 deployments\n")


PD = r"""#!/bin/bash
MODEL=Qwen/Qwen2.5-7B-Instruct
if [ "$NODE_RANK" -eq 0 ]; then
    PREFILL_CMD="vllm serve $MODEL --max-model-len 8192 \
        --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\",\"kv_ip\":\"$NODE0\"}'"
    if [[ "$DRY_RUN" -eq 1 ]]; then
        echo "DRY RUN: $PREFILL_CMD"
    else
        eval "$PREFILL_CMD" > prefill.log 2>&1 &
    fi
else
    DECODE_CMD="vllm serve $MODEL --max-model-len 8192 \
        --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_consumer\"}'"
    eval "$DECODE_CMD" > decode.log 2>&1 &
fi
"""


def test_command_strings_built_and_evaluated_in_one_branch_are_the_prefill_and_decode_halves(tmp_path):
    # the shape of SemiAnalysisAI/InferenceX's amd_utils/server_vllm.sh (sweep 27): before, 0 deployments; a
    # variable set in a branch was unknown even to the branch's own later commands, and the JSON's quotes inside
    # the string were kept (a false CTX301 once read)
    path = tmp_path / "pd.sh"
    path.write_text(PD)
    audit = json.loads(run(["audit", "--isolated", "--format", "json", str(path)]).out)
    (deployment,) = audit["deployments"]
    assert (deployment["mode"], deployment["model"], deployment["line"]) == ("prefill-decode",
                                                                          "Qwen/Qwen2.5-7B-Instruct", 4)
    result = run(["check", "--isolated", "--select", "CTX0,CTX3", str(path)])
    assert result.out == (f"{path}:5:107: CTX008 [info] values ctxlint cannot resolve: --kv-transfer-config ${{NODE0}} "
                          "(NODE0 is not set in the file); the checks that need them are skipped (set them literally) "
                          "(unresolved-value)\n")


def test_a_json_value_quoted_inside_a_command_string_is_no_refusal_when_a_shell_reads_it_again(tmp_path):
    # before: `bash -c "$CMD"` kept the single quotes around the JSON: "vllm would refuse to start ... invalid JSON"
    assign = ("#!/bin/bash\nCMD=\"vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --kv-transfer-config "
              "'{\\\"kv_connector\\\":\\\"NixlConnector\\\",\\\"kv_role\\\":\\\"kv_both\\\"}'\"\n")
    for run_it in ('bash -c "$CMD" &', 'eval "$CMD" &'):
        result, path = check(tmp_path, "serve.sh", assign + run_it + "\n", "--select", "CTX0,CTX3")
        assert (result.out, result.err) == ("", "ctxlint: no findings in 1 file, 1 deployment\n"), run_it
