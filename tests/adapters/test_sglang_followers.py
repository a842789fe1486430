"""SGLang's other nodes in a launcher's `if`: `then` node 0 (`--node-rank 0`), `else` the rest (`--node-rank $RANK`).

A node other than 0 runs its share of the TP ranks and waits, with no tokenizer or API of its own
(Engine._launch_subprocesses, sgl-project/sglang@001067fffe33427bee0ed2f007fb7551a1d76b44:
python/sglang/srt/entrypoints/engine.py): node 0's launch is the engine. Sweep 33's S-GRPO serving.sh was read as
two engines ("unified (line 27), unified (line 37)"). A known rank >= 1 was one already (test_cli_kubernetes.py).
"""
from __future__ import annotations

import pytest

from ctxlint.engines import split_shell
from helpers import run
from tests.adapters.test_shell_script import roles

SERVER = "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --tp 16 " \
         "--dist-init-addr 10.0.0.1:5000 --nnodes 2"
NODE0 = SERVER + " --node-rank 0 --host 0.0.0.0 --port 30000"
OTHERS = SERVER + " --node-rank $RANK"


def _script(then: str, other: str, between: str = "else") -> str:
    return f"#!/bin/bash\nif [ \"$RANK\" -eq 0 ]; then\n    {then}\n{between}\n    {other}\nfi\n"


def _lines(text: str) -> list:
    result, found = roles(text)
    assert not [d for d in result.diagnostics if "could not read" in d.message]
    return [role.role.source.line for role in found]


def test_the_other_branch_of_node_0_s_if_is_node_0_s_engine():
    assert _lines(_script(NODE0, OTHERS)) == [3]
    assert _lines(_script(NODE0, OTHERS, between="elif [ \"$RANK\" -lt 4 ]; then")) == [3]


def test_the_s_grpo_launcher_is_one_engine(tmp_path):
    # sweep 33, shenpeijun0212/S-GRPO deploy_dpsk/serving.sh (model, TP and node count from the caller)
    path = tmp_path / "serving.sh"
    path.write_text("model_name=$1\nnnodes=$2\ntp=$((8*$nnodes))\nrank_id=$RANK\n" + _script(
        "python3 -m sglang.launch_server --model-path $model_name --tp $tp --dist-init-addr $MASTER_ADDR:$MASTER_PORT "
        "--nnodes $nnodes --node-rank 0 --trust-remote-code --host 0.0.0.0 --port 30000",
        "python3 -m sglang.launch_server --model-path $model_name --tp $tp --dist-init-addr $MASTER_ADDR:$MASTER_PORT "
        "--nnodes $nnodes --trust-remote-code --node-rank $rank_id").replace("#!/bin/bash\n", ""))
    assert run(["check", "--isolated", "--select", "CTX208", str(path)]).out == (
        f"{path}:6:5: CTX208 [info] KV pool of unified not declared and not derivable: no model id: name the model "
        "(or add it under `models:`); capacity checks skip these roles (capacity-not-derivable)\n")


@pytest.mark.parametrize("then, other, between", [
    (NODE0, OTHERS.replace("70B", "8B"), "else"),  # another model: an engine of its own
    (NODE0, OTHERS.replace("--nnodes 2", "--nnodes 4"), "else"),  # another cluster
    (NODE0, OTHERS.replace(" --node-rank $RANK", ""), "else"),  # node 0 of its own (a one-node fallback)
    (NODE0.replace("--node-rank 0", "--node-rank $RANK"), OTHERS, "else"),  # no node 0 to follow
    (NODE0.replace("--nnodes 2", "--nnodes 1"), OTHERS.replace("--nnodes 2", "--nnodes 1"), "else"),  # one node
    (OTHERS, NODE0, "else"),  # node 0 second: the `then` is not it
    (NODE0, OTHERS, "fi\nif [ \"$RANK\" -ne 0 ]; then"),  # two `if`s: nothing says the second is not node 0
    (NODE0, OTHERS, "else\n  for i in 1; do"),  # inside a loop in the `else`: not directly in the branch
])
def test_an_unknown_rank_not_tied_to_node_0_stays_an_engine(then, other, between):
    text = _script(then, other, between)
    if "for i" in between:
        text = text.replace("\nfi\n", "\n  done\nfi\n")
    assert len(_lines(text)) == 2


def test_a_lone_launch_with_an_unknown_rank_stays_an_engine():
    assert _lines("#!/bin/bash\n" + OTHERS + "\n") == [2]


def test_commands_know_the_part_of_the_if_they_are_in():
    text = "if a; then\n  x 1\n  for i in 1; do y; done\nelif b; then\n  z\nelse\n  w\nfi\nv\n"
    arms = {c.argv[0]: c.arm for c in split_shell(text, lambda name: None).commands}
    assert arms["x"][1:] == (1, True) and arms["z"][1:] == (3, True) and arms["w"][1:] == (4, True)
    assert arms["x"][0] == arms["z"][0] == arms["w"][0]
    assert arms["y"] is None and arms["v"] is None


def test_a_statefulset_s_script_is_one_engine_over_its_nodes():
    # the pod's `bash -c` script branches on its ordinal: one engine, at the container, 8 GPUs a pod x 2 nodes
    script = _script(NODE0, OTHERS.replace("$RANK", "$POD_INDEX")).replace("$RANK", "$POD_INDEX")
    body = "".join(f"\n          {line}" for line in script.splitlines()[1:])
    text = ("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: sglang}\nspec:\n  replicas: 2\n  template:\n"
            "    spec:\n      containers:\n      - name: sglang\n        image: lmsysorg/sglang:v0.4.6\n"
            "        command: [/bin/bash, -c]\n        args:\n        - |" + body +
            "\n        resources: {limits: {nvidia.com/gpu: 8}}\n")
    _, found = roles(text, "sts.yaml")
    assert [(r.role.source.line, r.accelerators.count.value) for r in found] == [(9, 16)]
