"""`readonly NAME=value` keeps the value: a later assignment or `unset` fails (engines/shell_readonly.py). Each
expected value is what bash 5.2.15 gives, printed with `vllm() { echo "$@"; }` in front of the script."""
from __future__ import annotations

import pytest

from ctxlint.engines.shellwords import split_shell

RUN = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len"


def last_words(text: str) -> list[str]:
    return [c.argv[-1] for c in split_shell(text, defaults=True).commands]


@pytest.mark.parametrize("then", ["unset L", "L=200000", "unset L\nL=200000", "export L=200000", "declare L=200000",
                                  "L+=0", "readonly L=200000", "declare -r L=200000", "f() { local L=200000; }\nf"])
def test_a_readonly_value_is_kept_in_bash(then):
    # before: `unset L` left `${L:-8192}` 8192 and `L=200000` made it 200000 (a false CTX109 for a 4096 launch)
    text = f"#!/bin/bash\nreadonly L=4096\n{then}\n{RUN} ${{L:-8192}}\n"
    assert last_words(text) == ["4096"]


@pytest.mark.parametrize("readonly", ["declare -r L=4096", "typeset -r L=4096", "L=4096\nreadonly L",
                                      "readonly -a X L=4096"])
def test_other_spellings_of_readonly(readonly):
    assert last_words(f"#!/bin/bash\n{readonly}\nL=200000\nunset L\n{RUN} ${{L:-8192}}\n") == ["4096"]


def test_a_shell_other_than_bash_stops_there_so_the_value_is_unknown():
    # dash 0.5.12 and bash --posix exit at the failed assignment or unset: never read as 200000 or 8192
    for shebang in ("#!/bin/sh\n", ""):
        for then in ("unset L", "L=200000"):
            assert last_words(f"{shebang}readonly L=4096\n{then}\n{RUN} ${{L:-8192}}\n") == ["${L:-8192}"]


def test_what_readonly_does_not_reach():
    # a name made readonly in a branch may or may not be: an assignment after it leaves it unknown
    text = f"#!/bin/bash\nL=4096\nif [ -n \"$Q\" ]; then readonly L; fi\nL=200000\n{RUN} $L\n"
    assert last_words(text) == ["$L"]
    # a function's `declare -r` is its own local; other names, and `readonly -f`, are as before
    assert last_words(f"#!/bin/bash\nf() {{ declare -r L=1; }}\nf\nL=200000\n{RUN} $L\n") == ["200000"]
    assert last_words(f"#!/bin/bash\nreadonly M=1\nreadonly -f L\nL=200000\n{RUN} $L\n") == ["200000"]
    # a subshell's readonly ends at its `)`
    assert last_words(f"#!/bin/bash\n( readonly L=1 )\nL=200000\n{RUN} $L\n") == ["200000"]


def test_a_functions_local_made_readonly_is_gone_at_return():
    # bash 5.2.15: `f() { local L=4096; readonly L; }; f; L=200000` assigns 200000 (the readonly L was f's local);
    # before, L stayed readonly after f returned: unknown ("not set in the file")
    text = f"#!/bin/bash\nf() {{\n  local L=4096\n  readonly L\n  {RUN} $L\n}}\nf\nL=200000\n{RUN} $L\n"
    assert last_words(text) == ["4096", "200000"]
    # a readonly of a name the function did not make local is the script's (bash: `f() { readonly L=1; }`)
    assert last_words(f"#!/bin/bash\nf() {{ readonly L=4096; }}\nf\nL=200000\n{RUN} $L\n") == ["4096"]


@pytest.mark.parametrize("then, tp", [
    # bash 5.2.15 (non-interactive, `vllm() { echo "$@"; }` in front): a failed plain assignment drops the rest of
    # the top-level command it is in; the next line runs (before, TP=8 was read after the failure)
    ("L=200000; TP=8", "none"), ("x=1 L=200000 TP=8", "none"),
    ("f() { L=200000; TP=2; }\nf; TP=3", "none"), ("f() { L=200000; TP=2; }\nf\nTP=3", "3"),
    ("{ L=200000; TP=2; }; TP=3", "none"), ("L=200000\nTP=8", "8"), ("L=200000 &&\n  TP=3\nTP=4", "4"),
    # its own subshell: a subshell's, a pipeline's or a background command's failure ends there
    ("( L=200000; TP=3 ); TP=5", "5"), ("L=200000 | cat; TP=4", "4"), ("L=200000 & TP=4", "4"),
    # `export`/`declare` only fail themselves; a prefix fails its command alone
    ("export L=200000; TP=8", "8"), ("L=200000 true; TP=8", "8"),
])
def test_a_failed_assignment_drops_the_rest_of_its_command_in_bash(then, tp):
    text = f"#!/bin/bash\nreadonly L=4096\n{then}\n{RUN} $L --tp ${{TP:-none}}\n"
    assert [c.argv[-3:] for c in split_shell(text, defaults=True).commands if c.argv[0] == "vllm"] == \
        [["4096", "--tp", tp]]


def test_a_launch_after_a_failed_assignment_on_its_line_never_starts():
    text = f"#!/bin/bash\nreadonly L=4096\nL=200000; {RUN} 200000\n{RUN} $L\n"
    assert last_words(text) == ["4096"]


@pytest.mark.parametrize("then, launches", [
    # bash 5.2.15 (checked): a failed assignment in an eval'd string ends that string's command, not the eval's line
    ("eval 'L=200000'; TP=2", [["4096", "--tp", "2"]]),
    ("f() { eval 'L=200000'; TP=2; }; f; TP=3", [["4096", "--tp", "3"]]),
    # another shell process gets no readonly attribute: `L=5` assigns there, its launch runs, the caller's line goes
    # on (before, the inner launch was lost and TP=2 dropped)
    ("bash -c 'L=5; vllm serve m --max-model-len $L'; TP=2", [["5"], ["4096", "--tp", "2"]]),
])
def test_a_failed_assignment_in_eval_or_another_shell_ends_there(then, launches):
    text = f"#!/bin/bash\nreadonly L=4096\n{then}\nvllm serve m --max-model-len $L --tp ${{TP:-none}}\n"
    assert [c.argv[4:] for c in split_shell(text, defaults=True).commands if c.argv[0] == "vllm"] == launches


def test_a_here_document_shell_keeps_its_launch_after_an_assignment_to_a_readonly_name():
    # bash runs the body in a shell of its own, where L is not readonly: its launch starts (with 5); read as the
    # caller's text, the assignment is unknown, never a failure that drops the rest of the body (before: the launch
    # was lost)
    text = "#!/bin/bash\nreadonly L=4096\nbash <<'EOT'\nL=5\nvllm serve m --max-model-len $L\nEOT\n"
    assert [c.argv for c in split_shell(text, defaults=True).commands if c.argv[0] == "vllm"] == \
        [["vllm", "serve", "m", "--max-model-len", "$L"]]


@pytest.mark.parametrize("then, tp3", [
    # bash 5.2.15 (checked): a compound command that ends in `&` or stands in a pipeline runs in a subshell whole;
    # a failed assignment in it ends there, and the TP3=3 after it on the line runs (before: dropped, `none`)
    ("{ L=200000; TP=2; } & TP3=3", "3"), ("echo x | while read a; do L=200000; done; TP3=3", "3"),
    ("if true; then L=200000; fi & TP3=3", "3"),
])
def test_a_failed_assignment_in_a_compound_run_apart_ends_there(then, tp3):
    text = f"#!/bin/bash\nreadonly L=4096\n{then}\n{RUN} $L --tp ${{TP3:-none}}\n"
    assert [c.argv[-3:] for c in split_shell(text, defaults=True).commands if c.argv[0] == "vllm"] == \
        [["4096", "--tp", tp3]]


@pytest.mark.parametrize("then, length", [
    # bash 5.2.15 (checked, `echo $L` at the end): a failed assignment drops the rest of its top-level command, past
    # the line breaks of a `{ }` around it (before: 6, the value bash never assigns)
    ("{\nX=2\nL=5\n}; L=6", "4096"), ("X=2; {\nL=5\n}", "4096"), ("{\nX=2\nL=5\n}\nL=6", "6"),
    # an array element of a readonly name fails as the name does (before: 6)
    ("X[0]=2; L=6", "4096"), ("X[0]=2\nL=6", "6"),
    # a failure that may not run (after && or ||, in a loop, a case arm, a branch, an if condition): when it runs,
    # bash drops the rest (4096 each time), so what the rest assigns is unknown (before: 6)
    ("grep -q x y && X=2; L=6", "$L"), ("for i in 1; do X=2; L=5; done; L=6", "$L"),
    # after `true &&` or `false ||` it surely runs (and_or.py): bash 5.2.15 drops the rest, 4096 (before: unknown)
    ("true && X=2; L=6", "4096"), ("false || X=2; L=6", "4096"),
    ("case x in x) X=2; L=5;; esac; L=6", "$L"),
    # an `if`'s own condition runs whenever the `if` does (if_conditions.py): bash 5.2.15 drops the rest, 4096
    # (before: unknown, read as a branch's)
    ("if X=2; then L=5; fi; L=6", "4096"),
    ("if true; then X=2; L=5; else L=7; fi; L=6", "$L"), ("while true; do X=2; L=5; break; done; L=6", "$L"),
    # the next line is a command of its own: it runs
    ("true && X=2; L=6\nL=8", "8"), ("for i in 1; do X=2; L=5; done\nL=6", "6"),
])
def test_a_failed_assignment_s_command_ends_as_bash_ends_it(then, length):
    assert last_words(f"#!/bin/bash\nreadonly X=1\nL=4096\n{then}\n{RUN} $L\n")[-1] == length
