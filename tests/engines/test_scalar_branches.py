"""Variables the branches of an `if` set differently, read after the `fi` (engines/scalar_branches.py): the command
is read once per branch, each reading marked with its branch; what all branches agree on is known once."""
from __future__ import annotations

from ctxlint.engines.shellwords import split_shell


def readings(text: str) -> list[tuple[list[str], str]]:
    """(words, branch) of each `vllm` command."""
    return [([t.text for t in c.tokens], getattr(c, "branch", "")) for c in split_shell(text, defaults=True).commands
            if c.argv[:1] == ["vllm"]]


def test_a_model_id_a_branch_sets_gives_one_reading_per_branch():
    # Before: one reading, `nvidia/m-$DTYPE` and `--config ${CFG}` unknown (vllm-project/recipes' Llama-3.3-70B)
    text = ('if [ "$CC" = "10.0" ]; then\n  DTYPE="FP4"\n  CFG="b.yaml"\nelse\n  DTYPE="FP8"\n  CFG="h.yaml"\nfi\n'
            'vllm serve nvidia/m-$DTYPE --config ${CFG} -tp 1 &\n')
    assert readings(text) == [
        (["vllm", "serve", "nvidia/m-FP4", "--config", "b.yaml", "-tp", "1"], "if [ $CC = 10.0 ]"),
        (["vllm", "serve", "nvidia/m-FP8", "--config", "h.yaml", "-tp", "1"], "else")]
    # a value that is the whole word is where its branch assigns it; one inside a word stays at the reference
    cmd = split_shell(text, defaults=True).commands[0]
    assert text[cmd.tokens[4].start:cmd.tokens[4].end] == "b.yaml" and cmd.tokens[4].start == text.index("b.yaml")
    assert text[cmd.tokens[2].start:cmd.tokens[2].end] == "nvidia/m-$DTYPE"
    assert not any(t.unresolved for t in cmd.tokens)


def test_a_later_assignment_that_reads_a_branch_value_joins_the_branches():
    text = ('if [ "$P" = fp8 ]; then DTYPE=FP8; else DTYPE=FP4; fi\nMODEL="org/m-$DTYPE"\nLEN=8192\n'
            'vllm serve "$MODEL" --max-model-len $LEN\n')
    assert readings(text) == [(["vllm", "serve", "org/m-FP8", "--max-model-len", "8192"], "if [ $P = fp8 ]"),
                              (["vllm", "serve", "org/m-FP4", "--max-model-len", "8192"], "else")]


def test_values_every_branch_agrees_on_are_read_once():
    assert readings("if [ -n \"$A\" ]; then TP=2; else TP=2; fi\nvllm serve m -tp $TP\n") == [
        (["vllm", "serve", "m", "-tp", "2"], "")]
    # the branches differ in M only: TP is the same in both readings
    assert readings("if a; then TP=2; M=x; else TP=2; M=y; fi\nvllm serve $M -tp $TP\n") == [
        (["vllm", "serve", "x", "-tp", "2"], "if a"), (["vllm", "serve", "y", "-tp", "2"], "else")]


def test_scalars_and_arrays_one_if_sets_go_together():
    # Before: the model unknown, and one reading per array value (the scalar unknown in both)
    text = ("if [ -n \"$BIG\" ]; then\n  M=org/big\n  A=(--max-model-len 4096)\nelse\n  M=org/small\n"
            "  A=(--max-model-len 8192)\nfi\nA+=(--seed 1)\nvllm serve $M \"${A[@]}\"\n")
    assert readings(text) == [
        (["vllm", "serve", "org/big", "--max-model-len", "4096", "--seed", "1"], "if [ -n $BIG ]"),
        (["vllm", "serve", "org/small", "--max-model-len", "8192", "--seed", "1"], "else")]


def test_a_branch_that_does_not_assign_keeps_the_value_from_before_or_leaves_it_unset():
    # no `else`: the empty branch; CTX unset there takes its default, as bash does
    assert readings("if [ -n \"$L\" ]; then CTX=32768; fi\nvllm serve m --max-model-len ${CTX:-4096}\n") == [
        (["vllm", "serve", "m", "--max-model-len", "32768"], "if [ -n $L ]"),
        (["vllm", "serve", "m", "--max-model-len", "4096"], "else")]
    unset = split_shell("if a; then CTX=32768; fi\nvllm serve m --max-model-len $CTX\n", defaults=True).commands
    assert [bool(c.tokens[-1].unresolved) for c in unset if c.argv[0] == "vllm"] == [False, True]
    assert readings("CTX=1024\nif a; then CTX=32768; elif b; then :; fi\nvllm serve m --max-model-len $CTX\n") == [
        (["vllm", "serve", "m", "--max-model-len", "32768"], "if a"),
        (["vllm", "serve", "m", "--max-model-len", "1024"], "elif b or else")]
    # inside another branch, before-values come back for the next branch
    assert readings("M=a\nif x; then M=b; else vllm serve $M; fi\n") == [(["vllm", "serve", "a"], "")]


def test_nested_ifs_are_branches_inside_branches():
    text = "if a; then\n  if b; then M=x; else M=y; fi\n  vllm serve $M --tag in\nelse\n  M=z\nfi\nvllm serve $M\n"
    assert readings(text) == [(["vllm", "serve", "x", "--tag", "in"], "if b"),
                              (["vllm", "serve", "y", "--tag", "in"], "else"),
                              (["vllm", "serve", "x"], "if a, if b"), (["vllm", "serve", "y"], "if a, else"),
                              (["vllm", "serve", "z"], "else")]
    # the last assignment in a branch wins over a nested `if`'s
    assert readings("if a; then\n  if b; then M=x; fi\n  M=w\nelse M=z; fi\nvllm serve $M\n") == [
        (["vllm", "serve", "w"], "if a"), (["vllm", "serve", "z"], "else")]


def test_beyond_the_bound_loops_and_and_chains_stay_unknown():
    chain = "".join(f"elif [ $N = {k} ]; then M=m{k}\n" for k in range(1, 5))
    for text in (f"if [ $N = 0 ]; then M=m0\n{chain}fi\nvllm serve $M\n",       # 5 branches and the empty one
                 "if a; then M=x; else M=y; fi\nif b; then L=1; else L=2; fi\nif c; then T=1; else T=2; fi\n"
                 "vllm serve $M --a $L --b $T\n",                                # 8 readings of three ifs
                 # (a plain `case`'s arms are followed now: test_case_arms.py; one in a loop is not)
                 "for i in 1; do case $P in\n  fp8) M=x ;;\n  *) M=y ;;\nesac; done\nvllm serve $M\n",
                 "for i in 1; do if a; then M=x; else M=y; fi; done\nvllm serve $M\n",
                 "[ -n \"$A\" ] && M=x || M=y\nvllm serve $M\n"):
        result = split_shell(text, defaults=True)
        [cmd] = [c for c in result.commands if c.argv[:1] == ["vllm"]]
        assert cmd.tokens[2].unresolved and "M" in result.unsure and getattr(cmd, "branch", "") == "", text


def test_a_command_string_with_unknown_parts_is_each_branch_s():
    # Before the partly known value was kept once, with the last branch's words (a headless worker: no launch)
    text = ('if [[ "$RANK" == 0 ]]; then H=""; else H="--headless"; fi\nCMD="vllm serve $MODEL $H"\n$CMD &\n'
            'if a; then C2="vllm serve $MODEL -tp 1"; else C2="vllm serve $MODEL -tp 2"; fi\n$C2\n')
    assert readings(text) == [(["vllm", "serve", "$MODEL"], "if [[ $RANK == 0 ]]"),
                              (["vllm", "serve", "$MODEL", "--headless"], "else"),
                              (["vllm", "serve", "$MODEL", "-tp", "1"], "if a"),
                              (["vllm", "serve", "$MODEL", "-tp", "2"], "else")]
    # set in one branch only: that branch's launch; unset in the other, which starts nothing
    assert readings('if [ -n "$X" ]; then CMD="vllm serve $MODEL"; fi\n$CMD\n') == [
        (["vllm", "serve", "$MODEL"], "if [ -n $X ]")]


def test_an_assignment_that_reads_itself_is_read_from_each_worlds_own_value():
    # `CMD="$PREFIX $CMD"` after an `if` (taco-project/FlexKV's launch_vllm_server.sh): each world reads the CMD
    # before it. Before, the second world read the first world's result, `nsys profile nsys profile vllm ...`, or
    # `$CMD` unknown once the first world's assignment had dropped CMD from every world.
    text = ('CMD="vllm serve org/m"\nif [ "$A" = 1 ]; then\n  CMD="$CMD --x"\nfi\nPP=""\n'
            'if [ "$B" = 1 ]; then\n  PP="nsys profile"\nfi\nCMD="$PP $CMD"\neval "$CMD > log 2>&1 &"\n')
    found = [([t.text for t in c.tokens], c.branch) for c in split_shell(text, defaults=True).commands]
    assert found == [
        (["nsys", "profile", "vllm", "serve", "org/m", "--x"], "if [ $A = 1 ], if [ $B = 1 ]"),
        (["vllm", "serve", "org/m", "--x"], "if [ $A = 1 ], else"),
        (["nsys", "profile", "vllm", "serve", "org/m"], "else, if [ $B = 1 ]"),
        (["vllm", "serve", "org/m"], "else, else")]
    one = 'CMD="vllm serve org/m"\nif [ "$A" = 1 ]; then\n  CMD="$CMD --x"\nfi\nCMD="timeout 9h $CMD"\n$CMD\n'
    assert readings(one) == []  # the program is `timeout`: its words are read as its command's
    assert [c.argv for c in split_shell(one, defaults=True).commands] == [
        ["timeout", "9h", "vllm", "serve", "org/m", "--x"], ["timeout", "9h", "vllm", "serve", "org/m"]]


def test_a_branch_before_the_first_that_assigns_keeps_the_value_from_before():
    # Before: `then :` (no assignment before the `else` set L) left no world, so L read 8192 only; bash 5.2 with
    # A=x runs `:` and L keeps 4096 (or stays unset)
    assert readings("L=4096\nif [ -n \"$A\" ]; then :; else L=8192; fi\nvllm serve m --max-model-len $L\n") == [
        (["vllm", "serve", "m", "--max-model-len", "4096"], "if [ -n $A ]"),
        (["vllm", "serve", "m", "--max-model-len", "8192"], "else")]
    unset = split_shell("if [ -n \"$A\" ]; then :; else L=8192; fi\nvllm serve m --max-model-len $L\n",
                        defaults=True).commands
    assert [bool(c.tokens[-1].unresolved) for c in unset if c.argv[0] == "vllm"] == [True, False]
    # an `elif` chain: every branch that may run is a world; one that exits is none
    assert readings("L=4096\nif a; then :; elif b; then exit 1; elif c; then L=8192; fi\n"
                    "vllm serve m --max-model-len $L\n") == [
        (["vllm", "serve", "m", "--max-model-len", "4096"], "if a or else"),
        (["vllm", "serve", "m", "--max-model-len", "8192"], "elif c")]
    # a branch the script's own values rule out leaves no world (decided_tests.py)
    assert readings("L=4096\nA=\"\"\nif [ -n \"$A\" ]; then :; else L=8192; fi\nvllm serve m --max-model-len $L\n") \
        == [(["vllm", "serve", "m", "--max-model-len", "8192"], "")]
