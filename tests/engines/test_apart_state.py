"""What another process bash starts assigns stays there (engines/apart_state.py): a here-document body fed to a
shell, a job ended by `&`, a pipeline's element. Every expectation was checked with GNU bash 5.2.15 (the script
with `echo "$L"` for the launch line)."""
from __future__ import annotations

import pytest

from ctxlint.engines.shellwords import split_shell

RUN = "vllm serve m --max-model-len"


def lengths(text: str) -> list[str]:
    return [c.argv[-1] for c in split_shell(text + f"\n{RUN} $L\n", defaults=True).commands if c.argv[0] == "vllm"]


@pytest.mark.parametrize("feed", ["bash <<EOT", "sh <<EOT", "cat <<EOT | bash", "bash -s <<EOT", "bash <<'EOT'",
                                  "ssh node <<EOT", "cat > run.sh <<EOT", "sudo bash <<-EOT"])
def test_a_here_document_a_shell_reads_assigns_nothing_in_the_script(feed):
    # before: 5, the body's value, read after it (a false refusal where it is larger than the model's window)
    assert lengths(f"L=4096\n{feed}\nL=5\nexport L=6\nEOT") == ["4096"]


def test_the_body_s_own_launch_runs_with_the_values_it_sets():
    assert lengths(f"L=4096\nbash <<'EOT'\nL=5\n{RUN} $L\nEOT") == ["5", "4096"]
    # unquoted, the script's shell expands $L first: the child gets 4096 typed
    assert lengths(f"L=4096\nbash <<EOT\nL=5\n{RUN} $L\nEOT") == ["4096", "4096"]
    # a body that sources or runs a shell may set any name: every one is put back
    assert lengths("L=4096\nbash <<'EOT'\n. ./env.sh\nL=5\nEOT") == ["4096"]


@pytest.mark.parametrize("job", [
    "{ L=5; } &", "{ L=5; } & true", "{ L=5\n} &", "L=5 &", "export L=5 &", "L=5 && true &", "{ L=5; } | cat",
    "L=5 | cat", "cat | { L=5; }", "echo x | while read a; do L=5; done", "for i in 1; do L=5; done | cat",
    "if true; then L=5; fi &", "( L=5 )", "( L=5 ) &", "true | L=5 | cat",
])
def test_a_job_or_a_pipeline_s_element_assigns_nothing_in_the_script(job):
    # before: 5 after every one but `( L=5 )` (the pipeline's loop: unknown)
    assert lengths(f"L=4096\n{job}") == ["4096"]


def test_a_job_s_own_launch_runs_with_the_values_it_sets():
    assert lengths(f"L=4096\n{{ L=5; {RUN} $L; }} &") == ["5", "4096"]
    assert lengths(f"L=4096\nL=5 && {RUN} $L &") == ["5", "4096"]
    assert lengths(f"L=4096\n( L=200000; {RUN} $L ) &") == ["200000", "4096"]


def test_with_lastpipe_the_last_element_runs_in_the_script_s_shell():
    # bash manual (Pipelines): lastpipe runs the last element in the current shell (job control is off in a script)
    assert lengths("L=4096\nshopt -s lastpipe\necho x | { L=5; }") == ["5"]
    assert lengths("L=4096\nshopt -s lastpipe\n{ L=5; } | cat") == ["4096"]


def test_a_body_written_to_a_file_the_script_may_source_leaves_its_names_unknown():
    # bash 5.2.15: `cat > r.sh <<'EOF'` / `L=5` / `EOF` / `source r.sh` gives 5; `bash r.sh` keeps 4096
    assert lengths("L=4096\ncat > r.sh <<'EOF'\nL=5\nEOF\nsource r.sh") == ["$L"]
    assert lengths("L=4096\ncat > r.sh <<'EOF'\nexport L=5\nEOF\n. ./r.sh") == ["$L"]
    assert lengths("L=4096\ncat > r.sh <<'EOF'\nL=5\nEOF\nbash r.sh") == ["4096"]


@pytest.mark.parametrize("script", [
    # a here-document body read before the job is no command of the job's list (before: 6)
    "bash <<'EOT'\nL=31\nEOT\nL=6 &", "cat > r.sh <<'EOT'\nL=31\nEOT\nL=6 &",
    # a `;` inside the braces, an `if` or a `( )` does not start the and-or list the `&` ends (before: 5, 1)
    "L=5 || { L=2; } &", "L=5 && { L=2; } &", "L=5 && if true; then L=2; fi &", "L=1 && ( L=2; L=3 ) &",
    "readonly L=5 || { true; } &",
    # a job that starts with `(( ))` (before: unknown, or 7)
    "(( L=6 )) &", "(( L=6 )) && L=7 &",
    # a function defined after a here-document body a shell reads (before: not read as one, its body run: 9)
    "f() { L=9; }; f | cat", "f() { L=9; }; f &", "cat > r.sh <<'EOT'\nL=31\nEOT\nf() { L=9; }; f | cat",
    "bash <<'EOT'\nL=31\nEOT\nf() { L=9; }\nf | cat",
])
def test_a_job_s_range_is_its_whole_and_or_list(script):
    # each checked with bash 5.2.15: 4096
    assert lengths(f"L=4096\n{script}") == ["4096"]


def test_a_function_defined_after_a_here_document_body_is_a_definition():
    # bash 5.2.15: 4096 (the body only defines f); before: 9, `{ L=9; }` read as commands of the script
    assert lengths("L=4096\nbash <<'EOT'\nL=31\nEOT\nf() { L=9; }") == ["4096"]
    assert lengths("L=4096\ncat > r.sh <<'EOT'\nL=31\nEOT\nf() {\n  L=9\n}\nbash r.sh") == ["4096"]


@pytest.mark.parametrize("apart", ["echo x | declare -i L", "{ declare -i L; } &", "( declare -i L )",
                                   "bash <<'EOT'\ndeclare -i L\nEOT"])
def test_an_integer_attribute_given_apart_stays_there(apart):
    # bash 5.2.15: `L=5+1` after each assigns the text 5+1 (before: 6, the attribute kept in the script)
    assert lengths(f"L=4096\n{apart}\nL=5+1") == ["5+1"]


def test_a_value_set_between_the_write_and_the_source_does_not_hold():
    # bash 5.2.15: 31, the body's (before: 77)
    assert lengths("L=4096\ncat > r.sh <<'EOF'\nL=31\nEOF\nL=77\nsource r.sh") == ["$L"]
    assert lengths("L=4096\ncat > r.sh <<'EOF'\nL=31\nEOF\nL=77\n. ./r.sh") == ["$L"]
    assert lengths("L=4096\ncat > r.sh <<'EOF'\nL=31\nEOF\nsource r.sh\nL=77") == ["77"]
