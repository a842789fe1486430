"""`exit` ends the shell that runs it (engines/script_exits.py). Each expected value is what bash 5.2.15 prints for
the script with `vllm() { echo "${@: -1}"; }` in front (checked; `[]`: no vllm ran); where the test depends on the
caller's environment (`$X`), the value is bash's with X set, the one launch the script makes there."""
from __future__ import annotations

import pytest

from ctxlint.engines.shellwords import split_shell

RUN = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len"


def last_words(text: str) -> list[str]:
    commands = split_shell(f"#!/bin/bash\nL=4096\n{text}\n{RUN} $L\n", defaults=True).commands
    return [c.argv[-1] for c in commands if c.argv[0] == "vllm" and c.argv[2] == "Qwen/Qwen2.5-7B-Instruct"]


@pytest.mark.parametrize("text", [
    # an exit that surely runs: nothing after it starts (before: each launch below was read, and checked)
    "exit 0", "exit", "L=200000; exit 3", "true && exit 0", "false || exit 1", "if true; then exit 0; fi",
    "if [ -n \"$X\" ]; then exit 0; else exit 1; fi", "if false; then :; else exit 1; fi",
    "f() { L=200000; exit 0; }\nf", "eval 'exit 0'", "if true; then\n  if true; then exit 0; fi\nfi",
])
def test_nothing_after_a_sure_exit_runs(text):
    assert last_words(text) == []


@pytest.mark.parametrize("text, last", [
    # a branch that exits leaves no world: the launch after the `fi` runs only where it did not (before: a second
    # reading with L=200000, a false CTX109 for a value bash never launches with)
    ("if [ -z \"$X\" ]; then L=200000; exit 1; fi", ["4096"]),
    ("if [ -z \"$X\" ]; then L=200000; echo no; exit 1; else L=8192; fi", ["8192"]),
    ("if [ -z \"$X\" ]; then exit 1; L=2; else L=8192; fi", ["8192"]),
    ("if [ -z \"$X\" ]; then L=200000; exit 1; elif [ -n \"$Y\" ]; then L=8192; fi", ["8192", "4096"]),
    ("usage() { echo usage; exit 1; }\nif [ -z \"$X\" ]; then L=200000; usage; fi", ["4096"]),
])
def test_a_branch_that_exits_leaves_no_world(text, last):
    assert last_words(text) == last


@pytest.mark.parametrize("text, last", [
    # an exit in a subshell, a job, a pipeline or another shell ends that one only (bash 5.2.15: 4096 each)
    ("( exit 0 )", ["4096"]), ("exit 0 &", ["4096"]), ("exit 0 | cat", ["4096"]), ("bash -c 'exit 0'", ["4096"]),
    ("bash <<'EOT'\nexit 0\nEOT", ["4096"]), ("true || exit 0", ["4096"]),
    ("( if true; then exit 0; fi )", ["4096"]),
    # one that may run is not followed: the launch is kept (bash runs it where the test or loop says so)
    ("[ -n \"$X\" ] && exit 0", ["4096"]), ("[ -n \"$X\" ] || { L=5; exit 1; }", ["$L"]),
    ("for i in $LIST; do exit 0; done", ["4096"]), ("case \"$X\" in a) exit 0;; esac", ["4096"]),
    ("usage() { exit 1; }\n[ -z \"$X\" ] && usage", ["4096"]),
    # a function named exit is no exit
    ("exit() { :; }\nexit 0", ["4096"]),
])
def test_an_exit_elsewhere_or_that_may_not_run(text, last):
    assert last_words(text) == last


def test_a_script_that_exits_before_its_launch_has_no_deployment(tmp_path):
    from helpers import run

    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\nexit 0\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 200000\n")
    assert run(["check", "--isolated", "-q", str(path)]).out == ""
    path.write_text("#!/bin/bash\nL=4096\nif [ -z \"$HF_TOKEN\" ]; then L=200000; exit 1; fi\n"
                    "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len $L\n")
    assert "CTX109" not in run(["check", "--isolated", "-q", str(path)]).out


@pytest.mark.parametrize("text", [
    # a redirection that fails: bash runs nothing of the command, and goes on (bash 5.2.15: 4096 each); one to a
    # file not known here may fail so
    "exit 0 2>/nonexistent/x", "exit 0 < /missing/file", "exit 1 >> /nonexistent/dir/x.log",
    "exit 1 > \"$LOGDIR/x.log\"", "f() { exit 0; }\nf 2>/nonexistent/x",
])
def test_an_exit_whose_redirection_may_fail_is_not_followed(text):
    assert last_words(text) == ["4096"]


@pytest.mark.parametrize("text, last", [
    # a `return` that may run before a function's `exit` ends the call first: the `exit` may never run, so what
    # comes after the call is read (bash 5.2.15 with X set: 4096 each; before: no launch was read at all)
    ("check() { if [ -n \"$X\" ]; then return 0; fi; echo need X; exit 1; }\ncheck", ["4096"]),
    ("check() { [ -n \"$X\" ] && return 0; exit 1; }\ncheck", ["4096"]),
    ("check() { return; exit 1; }\ncheck", ["4096"]),
    ("f() { for i in 1 2; do return 0; done; exit 1; }\nf", ["4096"]),
    # a return in another function's call ends that call only: the caller's exit still ends the script
    ("g() { return 0; }\nf() { g; exit 1; }\nf", []),
])
def test_an_exit_after_a_return_in_a_function(text, last):
    assert last_words(text) == last


@pytest.mark.parametrize("text, last", [
    # a `return` that surely runs ends the call: nothing after it in the function runs, a call of another function
    # that exits included (bash 5.2.15: 4096 each; before: L=5 read as the only value, or no launch at all)
    ("f() { return 0; L=5; }\nf", ["4096"]), ("f() { false || return 0; L=5; }\nf", ["4096"]),
    ("g() { exit 0; }\nf() { return 0; g; }\nf", ["4096"]),
    # one that may run: what comes after it in the function may not run (unknown), and its exits are not followed
    ("g() { exit 0; }\nf() { [ -n \"$X\" ] && return 0; g; }\nf", ["4096"]),
    ("f() { [ -n \"$X\" ] && return 0; L=5; }\nf", ["$L"]),
])
def test_what_follows_a_return_in_a_function(text, last):
    assert last_words(text) == last


@pytest.mark.parametrize("text, expected", [
    # `exec CMD` replaces the shell (bash manual, exec): CMD is read, nothing after it runs (before: the launch after
    # it was read too, and checked)
    (f"exec {RUN} 8192", ["8192"]), (f"exec -a srv {RUN} 8192", ["8192"]),
    (f"if [ -n \"$X\" ]; then exec {RUN} 1024; fi", ["1024", "4096"]),  # bash: 1024 with X set, 4096 without
    # no command (only redirections), or one that may expand to nothing: the shell goes on
    ("exec > /dev/null 2>&1", ["4096"]), ('exec "$@"', ["4096"]), ("exec $CMD", ["4096"]),
    # one that may not run, or runs in a job of its own: the shell goes on
    (f"false && exec {RUN} 2", ["4096"]), (f"exec {RUN} 8192 &", ["8192", "4096"]),
    ("shopt -s execfail\nexec " + RUN + " 8192", ["8192", "4096"]),  # a failed exec does not exit then
])
def test_nothing_after_a_sure_exec_runs(text, expected):
    assert last_words(text) == expected


@pytest.mark.parametrize("text, expected", [
    # `${A:?msg}` of an A the script set to "": bash 5.2.15 writes msg and exits there, so that command and every
    # one after it never run (before: the empty word was read, a false "--max-model-len: expected one argument")
    (f'L=""\n{RUN} ${{L:?set L}}', []), ('L=""; : ${L:?set L}', []),
    (f'L=""; true && {RUN} ${{L:?x}}', []),
    # `?` without the colon tests for unset only; a value, or a name the caller may set, goes on
    ('M=""; : ${M?x}', ["4096"]), ("L=2048; : ${L:?x}", ["2048"]), (": ${Q:?x}", ["4096"]),
])
def test_a_null_error_expansion_ends_the_script(text, expected):
    assert last_words(text) == expected


@pytest.mark.parametrize("text, expected", [
    # an `if`'s own condition, a `while`/`until` condition and a `for` list run (are expanded) at least once where
    # their compound command stands: bash 5.2.15 exits at each (before: the launch after them was read, and checked)
    (f'L=""\nif [ -n "${{L:?x}}" ]; then {RUN} 1; fi', []),
    ('L=""\nwhile [ -n "${L:?x}" ]; do sleep 1; done', []), ('L=""\nuntil [ -z "${L:?x}" ]; do :; done', []),
    ('L=""\nfor x in ${L:?x}; do :; done', []),
    # a `case` word is expanded once where the `case` stands, before its patterns (before: the launch after it read)
    ('L=""\ncase "${L:?x}" in *) ;; esac', []), ('L=""\ncase ${L:?x} in\n  a) exit 1;;\nesac', []),
    # ... not a pattern after the one that matched, nor a `case` in another's arm (it may not run)
    ('L=""\ncase a in a|${L:?x}) ;; esac\nL=5', ["5"]), ('L=""\ncase a in a) ;; ${L:?x}) ;; esac\nL=5', ["5"]),
    ('L=""\ncase "$X" in a) case ${L:?x} in *) ;; esac;; esac\nL=5', ["5"]),
    # inside a branch: that branch ends there (the launch after the `fi` runs where X is not set)
    (f'L=""\nif [ -n "$X" ]; then\n  if [ -n "${{L:?x}}" ]; then :; fi\n  {RUN} 1\nfi\nL=5', ["5"]),
    # an `elif`'s condition runs only where the conditions before it fail; a loop's body may not run at all
    (f'L=""\nif [ -n "$X" ]; then :; elif [ -n "${{L:?x}}" ]; then :; fi\nL=5', ["5"]),
    ('L=""\nfor x in $@; do : ${L:?x}; done\nL=5', ["5"]),
])
def test_a_null_error_in_a_condition_or_loop_head(text, expected):
    assert last_words(text) == expected


@pytest.mark.parametrize("text, expected", [
    # an arithmetic command expands its words where it runs: `(( ))`, `let`, a `while`/`until (( ))` head, and a
    # `for (( e1; e2; e3 ))` head's e1 and e2 (bash 5.2.15 exits at each; before: the launch after them was read)
    ('L=""\nfor ((i=0; i<${L:?x}; i++)); do :; done', []), ('L=""\nfor ((i=${L:?x}; i<2; i++)); do :; done', []),
    ('L=""\nfor (( i = 0 ; i < ${L:?x} ; i++ )); do :; done', []),
    ('L=""\nwhile (( ${L:?x} > 0 )); do :; done', []), ('L=""\nuntil (( ${L:?x} > 0 )); do :; done', []),
    ('L=""\n(( ${L:?x} > 0 ))', []), ('L=""\nlet "i=${L:?x}"', []),
    # e3 runs only after the body (which breaks first here), a loop's body may not run, a job exits its own shell
    ('L=""\nfor ((i=0; i<2; i+=${L:?x})); do break; done\nL=5', ["5"]),
    ('L=""\nfor x in $@; do (( ${L:?x} )); done\nL=5', ["5"]), ('L=""\n(( ${L:?x} )) &\nL=5', ["5"]),
    # a value the caller gives is not known: no exit
    ('for ((i=0; i<${Q:?x}; i++)); do :; done', ["4096"]),
])
def test_a_null_error_in_an_arithmetic_command_or_for_head(text, expected):
    assert last_words(text) == expected


@pytest.mark.parametrize("text, expected", [
    # an arithmetic expansion expands its `${L:?x}` as a command's word does: bash 5.2.15 exits (before: read on)
    ('L=""\nN=$(( ${L:?x} + 1 ))', []), ('L=""\necho $(( ${L:?x} * 2 ))', []),
    ('L=""\nvllm serve m --max-model-len $(( ${L:?x} ))', []),
    # `${M:-${L:?x}}` with M set never expands L; `$( ... )` exits its own shell; after `&&`, in a job: not sure
    ('L=""\nM=1\nN=$(( ${M:-${L:?x}} ))\nL=5', ["5"]), ('L=""\nN=$(echo $(( ${L:?x} )))\nL=5', ["5"]),
    ('L=""\n[ -n "$X" ] && N=$(( ${L:?x} ))\nL=5', ["5"]), ('L=""\nN=$(( ${L:?x} )) &\nL=5', ["5"]),
    ('N=$(( ${Q:?x} + 1 ))', ["4096"]),  # the caller's Q: not known
])
def test_a_null_error_in_an_arithmetic_expansion(text, expected):
    assert last_words(text) == expected


@pytest.mark.parametrize("text, expected", [
    # L "" in one `if` world only: bash 5.2.15 exits in that world and launches with the other's value (before: the
    # launch was dropped in every world and the script read as ended there, no launch at all)
    (f'if [ -n "$X" ]; then L=""; else L=5; fi\n{RUN} ${{L:?set L}}\nexit 0', ["5"]),
    (f'if [ -n "$X" ]; then L=""; fi\n{RUN} ${{L:?set L}}\nexit 0', ["4096"]),
    # "" in every world: the script ends there
    (f'if [ -n "$X" ]; then L=""; else L=""; fi\n{RUN} ${{L:?set L}}', []),
])
def test_a_null_error_in_one_world_only(text, expected):
    assert last_words(text) == expected


@pytest.mark.parametrize("text, expected", [
    # an option bash's exec does not know: "invalid option", status 2, the shell goes on (bash 5.2.15 runs the
    # launch after it); before: read as a sure exec of `-x`, the later launch dropped
    (f"exec -x {RUN} 1", ["4096"]),
    # `-lx`: -x is no option of exec's (bash 5.2.15: "invalid option", nothing runs, the shell goes on); `-a`
    # with no name; a `{fd}>FILE` redirection's name: not a sure exec
    (f"exec -lx {RUN} 1", ["4096"]), ("exec -a", ["4096"]), (f"exec {{fd}}>/dev/null {RUN} 1", ["4096"]),
])
def test_an_exec_option_not_read_is_no_sure_exec(text, expected):
    assert expected[-1] in last_words(text)


@pytest.mark.parametrize("text", [
    # bash's exec reads its options with getopt "cla:" (builtins/exec.def): joined, and -a's name the rest of its
    # word or the next one; bash 5.2.15 runs the command of each and nothing after it. Before: `-la NAME`, `-aNAME`,
    # `-al` and `-c -a NAME` left the launch unread (no deployment) and the script read as going on
    f"exec -la srv {RUN} 1", f"exec -aNAME {RUN} 1", f"exec -al {RUN} 1", f"exec -c -la srv -- {RUN} 1",
    f"exec -lca srv {RUN} 1",
])
def test_exec_options_joined_are_read(text):
    assert last_words(text) == ["1"]


@pytest.mark.parametrize("text", [
    # `NAME=value exec CMD`, `command exec CMD`, `builtin exec CMD` run the same builtin: bash 5.2.15 runs only CMD
    # (before: the launch after it was read too, and checked)
    f"CUDA_VISIBLE_DEVICES=0 exec {RUN} 1", f"A=1 B=$L exec {RUN} 1", f"command exec {RUN} 1",
    f"builtin exec {RUN} 1",
])
def test_an_exec_behind_prefixes_ends_the_script(text):
    assert last_words(text) == ["1"]


def test_an_exec_function_is_no_exec():
    assert last_words(f"exec() {{ :; }}\nN=1 exec {RUN} 1")[-1] == "4096"


@pytest.mark.parametrize("text", [
    # the outer shell expands a double-quoted `bash -c` string first: `${L:?msg}` of an L "" exits it there, and
    # neither bash -c nor anything after runs (bash 5.2.15); before: the inner reading reset the note, so the
    # launch inside was read with an empty --max-model-len (a false CTX301) and the one after it too
    f'L=""\nbash -c "{RUN} ${{L:?set L}}"', f'L=""\nbash -c ": ${{L:?x}}; {RUN} 1"',
])
def test_a_null_error_in_a_double_quoted_bash_c_string_ends_the_script(text):
    assert last_words(text) == []


@pytest.mark.parametrize("text, expected", [
    # `: ${L:?msg}` checks L, then the launch reads it: bash 5.2.15 exits where L is "" and launches only with 5
    # (before: the world where L is "" went on, and its launch read an empty --max-model-len, a false CTX301)
    (f'if [ -n "$X" ]; then L=""; else L=5; fi\n: ${{L:?set L}}\n{RUN} $L\nexit 0', ["5"]),
    (f'if [ -n "$X" ]; then L=""; elif [ -n "$Y" ]; then L=6; else L=5; fi\n: ${{L:?x}}\n{RUN} $L\nexit 0',
     ["6", "5"]),
    # the check may not run (after `&&`, in an `if`): both worlds go on
    (f'if [ -n "$X" ]; then L=""; else L=5; fi\n[ -n "$Z" ] && : ${{L:?x}}\n{RUN} $L\nexit 0', ["", "5"]),
])
def test_the_worlds_a_null_error_exits_leave_nothing_after_it(text, expected):
    commands = split_shell(f"#!/bin/bash\nL=4096\n{text}\n", defaults=True).commands
    assert [c.argv[-1] if c.argv[-2] == "--max-model-len" else "" for c in commands if c.argv[0] == "vllm"] == expected


def test_a_null_error_of_a_value_the_environment_gives_is_no_exit():
    # SkyPilot's `envs: {LLM_HOSTNAME: ""}` is a placeholder `sky launch --env` fills, and the script's
    # `: "${LLM_HOSTNAME:?required}"` checks it (sweep p30: Adam-D-Lewis/skyllm sky/sky-llamacpp.yaml): the check
    # may pass at launch, so the launch after it is kept (it was dropped: the script read as ending there)
    text = f'#!/bin/bash\n: "${{HOST:?HOST is required}}"\n{RUN} 8192\n{RUN} ${{HOST:?x}}\n'
    commands = split_shell(text, resolver=lambda name: "" if name == "HOST" else None, defaults=True).commands
    assert [c.argv[-1] for c in commands if c.argv[0] == "vllm"][:1] == ["8192"]
    assert len([c for c in commands if c.argv[0] == "vllm"]) == 2
