"""Engine config files a container's script writes from a here-document (engines/heredocs.py)."""
from __future__ import annotations

import pytest

from ctxlint.engines.heredocs import (EDITED_LATER, EXPANDED, MAY_NOT_RUN, TABS_STRIPPED, declined_files,
                                      written_files)

SCRIPT = """\
set -e
cat <<'EOF' > /tmp/config.yaml
backend: pytorch
max_num_tokens: 8192
EOF
mkdir -p /c && cat > /c/./x.yaml <<EOF
a: 1
EOF
cat <<EOF | tee /tmp/t.yaml
b: 2
EOF
cat <<"X" > /tmp/v.yaml
d: 3
X
trtllm-serve serve m --extra_llm_api_options /tmp/config.yaml
"""


def test_each_file_a_cat_or_tee_here_document_writes_is_its_body():
    found = {path: SCRIPT[a:b] for path, (a, b) in written_files(SCRIPT).items()}
    assert found == {"/tmp/config.yaml": "backend: pytorch\nmax_num_tokens: 8192\n", "/c/x.yaml": "a: 1\n",
                     "/tmp/t.yaml": "b: 2\n", "/tmp/v.yaml": "d: 3\n"}
    crlf = SCRIPT.replace("\n", "\r\n")
    assert {p: crlf[a:b] for p, (a, b) in written_files(crlf).items()}["/c/x.yaml"] == "a: 1\r\n"


@pytest.mark.parametrize("script", [
    "cat <<EOF > /tmp/c.yaml\nport: $PORT\nEOF\n",  # the shell expands an unquoted body
    "cat <<EOF > /tmp/c.yaml\nport: `cat p`\nEOF\n",
    "cat <<-EOF > /tmp/c.yaml\n\tport: 1\n\tEOF\n",  # <<- strips the tabs
    "cat <<'EOF' > /tmp/c.yaml\nport: __PORT__\nEOF\nsed -i s/__PORT__/$P/ /tmp/c.yaml\n",  # edited later
    "cat <<'EOF' > /tmp/c.yaml\nport: 1\nEOF\necho 'x: 2' >> /tmp/c.yaml\n",
    "cat <<'EOF' > /tmp/c.yaml\nport: 1\nEOF\nX=1 yq -i '.port = 2' /tmp/c.yaml\n",
    "cat <<'EOF' > /tmp/c.yaml\nport: 1\nEOF\nrender | tee /tmp/c.yaml\n",
    "cat <<'EOF' > /tmp/c.yaml\nport: 1\n",  # never ends
    "python3 - <<'EOF' > /tmp/c.yaml\nprint(1)\nEOF\n",  # another program's output
    "cat <<'EOF'\nport: 1\nEOF\n",  # to stdout
    "cat <<'EOF' >> /tmp/c.yaml\nport: 1\nEOF\n",  # an append: not the whole file
    "cat <<'EOF' | envsubst > /tmp/c.yaml\nport: 1\nEOF\n",  # another program writes it
    "cat <<'EOF' > /tmp/c.yaml && sed -i s/1/2/ /tmp/c.yaml\nport: 1\nEOF\n",  # edited on the same line
    "cat /etc/base.yaml <<'EOF' > /tmp/c.yaml\nport: 1\nEOF\n",  # cat reads a file too
    "cat <<'EOF' | tee -a /tmp/c.yaml\nport: 1\nEOF\n",
    "if [ ! -f /tmp/c.yaml ]; then\n  cat <<'EOF' > /tmp/c.yaml\nport: 1\nEOF\nfi\n",  # may not run
    "for i in 1; do cat <<'EOF' > /tmp/c.yaml\nport: 1\nEOF\ndone\n",
])
def test_a_body_the_engine_would_not_read_as_written_is_no_file(script):
    assert written_files(script) == {}


@pytest.mark.parametrize("script, why", [
    ("cat <<EOF > /tmp/c.yaml\nport: $PORT\nEOF\n", EXPANDED),
    ("set -e\ncat > /tmp/./c.yaml << EOF\nport: `cat p`\nEOF\n", EXPANDED),
    ("cat <<-EOF > /tmp/c.yaml\n\tport: 1\n\tEOF\n", TABS_STRIPPED),
    ("cat <<'EOF' > /tmp/c.yaml\nport: __PORT__\nEOF\nsed -i s/__PORT__/$P/ /tmp/c.yaml\n", EDITED_LATER),
    ("if [ ! -f /tmp/c.yaml ]; then\n  cat <<'EOF' > /tmp/c.yaml\nport: 1\nEOF\nfi\n", MAY_NOT_RUN),
])
def test_why_a_file_a_here_document_writes_whole_is_not_taken_as_written(script, why):
    # CTX008 says this (at the `<<`'s line) instead of "a file this manifest does not hold"
    assert declined_files(script) == {"/tmp/c.yaml": (script.index("<<"), why)}


def test_a_file_also_written_as_written_or_not_written_whole_is_not_declined():
    taken = "cat <<EOF > /tmp/c.yaml\nport: $PORT\nEOF\ncat <<'EOF' > /tmp/c.yaml\nport: 1\nEOF\n"
    assert (declined_files(taken), list(written_files(taken))) == ({}, ["/tmp/c.yaml"])
    for script in ("cat <<EOF >> /tmp/c.yaml\nport: $P\nEOF\n", "cat <<EOF | envsubst > /tmp/c.yaml\nport: $P\nEOF\n",
                   "python3 - <<EOF > /tmp/c.yaml\nprint($P)\nEOF\n", "vllm serve m\n"):
        assert declined_files(script) == {}, script


def test_a_later_line_that_only_reads_or_names_the_file_leaves_it_as_written():
    script = ("cat <<'EOF' > /tmp/c.yaml\nport: 1\nEOF\necho Config:; cat /tmp/c.yaml\n"
              "cp /tmp/c.yaml /backup/\nsed -i s/a/b/ /etc/abc.yaml\n"
              "python3 -m vllm.entrypoints.openai.api_server --config /tmp/c.yaml 2>&1 | tee /tmp/c.yaml.log\n")
    assert list(written_files(script)) == ["/tmp/c.yaml"]


def test_a_here_document_after_a_closed_branch_is_read():
    script = "if [ -n \"$X\" ]; then echo x; fi\ncat <<'EOF' > /tmp/c.yaml\nport: 1\nEOF\n"
    assert list(written_files(script)) == ["/tmp/c.yaml"]


def test_here_document_bodies_are_data_not_commands():
    from ctxlint.engines.shellwords import split_shell

    def argvs(text):
        return [c.argv for c in split_shell(text, defaults=True).commands]

    note = "  vllm serve m --tensor-parallel-size N\n"
    # quoted or bare delimiter, `<<-` with tabs, the redirect on either side, two on one line, CRLF (as read)
    assert argvs(f"cat > USAGE <<'NOTE'\n{note}NOTE\nls done\n") == [["cat"], ["ls", "done"]]
    assert argvs(f"cat <<EOF >x; ls a\n{note}EOF\nb\n") == [["cat"], ["ls", "a"], ["b"]]
    assert argvs(f"if x; then\n\tcat <<-\"E\"\n\t{note}\tE\nfi\n") == [["x"], ["cat"]]  # `fi` runs nothing
    assert argvs(f"paste <<A <<B\n{note}A\n{note}B\nc\n") == [["paste"], ["c"]]
    assert argvs(f"cat <<EOF \n{note}EOF \nc\n") == [["cat"], ["c"]]
    assert argvs("grep x <<< 'vllm serve m'\nc\n") == [["grep", "x"], ["c"]]  # a here-string: one word
    # fed to a shell (or written to a launcher script): the body is the script that runs
    for line in ("bash <<EOF", "cat <<'EOF' | sudo bash -s", "ssh node1 <<EOF", "sbatch <<EOF",
                 "cat > run_server.sh <<'EOF'", "cat > job.slurm <<'EOF'", "cat <<EOF > $DIR/Serve.SBATCH"):
        assert ["vllm", "serve", "m", "--tensor-parallel-size", "N"] in argvs(f"{line}\n{note}EOF\n"), line
    # no delimiter line: not a here-document ctxlint can be sure of, so what follows is read as before
    assert argvs("(( x = 1 << 2 ))\nvllm serve m\n")[-1] == ["vllm", "serve", "m"]


@pytest.mark.parametrize("write", [
    'cat << EOF > ${CFG}', 'cat << EOF > $CFG', 'cat <<EOF > "${CFG}"', "cat <<'EOF' >\"$CFG\"",
    'cat <<EOF | tee "$CFG"', 'tee ${CFG} <<EOF', 'tee "$CFG" > /dev/null <<EOF', 'cat > ${DIR}/c.yaml <<EOF',
])
def test_a_target_a_variable_names_is_the_file_the_variable_certainly_holds(write):
    # NVIDIA's TensorRT-LLM deployment guides: EXTRA_LLM_API_FILE=/tmp/config.yml; cat << EOF > ${EXTRA_LLM_API_FILE}
    script = f"DIR=/tmp\nexport CFG=\"$DIR/c.yaml\"\n{write}\nkv_cache_config:\n  dtype: fp8\nEOF\n"
    found = {path: script[a:b] for path, (a, b) in written_files(script).items()}
    assert found == {"/tmp/c.yaml": "kv_cache_config:\n  dtype: fp8\n"}


@pytest.mark.parametrize("script", [
    "if [ -n \"$X\" ]; then\n  CFG=/tmp/c.yaml\nfi\ncat <<'EOF' > $CFG\na: 1\nEOF\n",  # set in a branch
    "CFG=/tmp/c.yaml\n[ -n \"$X\" ] && CFG=/tmp/d.yaml\ncat <<'EOF' > $CFG\na: 1\nEOF\n",  # maybe changed
    "read CFG\ncat <<'EOF' > $CFG\na: 1\nEOF\n",
    "for CFG in /tmp/c.yaml; do :; done\ncat <<'EOF' > $CFG\na: 1\nEOF\n",
    "cat <<'EOF' > $CFG\na: 1\nEOF\n",  # never set: the caller's
    "cat <<'EOF' > ${CFG:-/tmp/c.yaml}\na: 1\nEOF\n",  # another expansion
    "CFG=/tmp/c.yaml\ncat <<'EOF' > '$CFG'\na: 1\nEOF\n",  # single-quoted: a file named `$CFG`
    "CFG=$(mktemp)\ncat <<'EOF' > $CFG\na: 1\nEOF\n",
    "f() {\n  CFG=/tmp/c.yaml\n}\ncat <<'EOF' > $CFG\na: 1\nEOF\n",  # a function body runs when called
    "CFG=/tmp/c.yaml\ncat <<'EOF' >> $CFG\na: 1\nEOF\n",  # an append, resolved or not, is not the whole file
    "CFG=/tmp/c.yaml\ncat <<'EOF' | tee -a $CFG\na: 1\nEOF\n",
])
def test_a_target_whose_value_is_not_certain_is_no_file(script):
    assert written_files(script) == {}
    assert declined_files(script) == {}


def test_an_assignment_in_a_body_is_data_and_a_later_assignment_does_not_reach_back():
    script = ("CFG=/tmp/c.yaml\ncat <<'X' > /tmp/run.env\nCFG=/tmp/d.yaml\nX\ncat <<'EOF' > \"$CFG\"\na: 1\nEOF\n"
              "CFG=/tmp/e.yaml\n")
    assert list(written_files(script)) == ["/tmp/run.env", "/tmp/c.yaml"]


@pytest.mark.parametrize("later", ["sed -i s/1/2/ \"$CFG\"", "echo 'b: 2' >> ${CFG}", "render | tee $CFG"])
def test_a_later_command_that_edits_the_file_through_its_variable_declines_it(later):
    script = f"CFG=/tmp/c.yaml\ncat <<'EOF' > /tmp/c.yaml\na: 1\nEOF\n{later}\n"
    assert declined_files(script) == {"/tmp/c.yaml": (script.index("<<"), EDITED_LATER)}
    variable = script.replace("> /tmp/c.yaml", "> $CFG")
    assert declined_files(variable) == {"/tmp/c.yaml": (variable.index("<<"), EDITED_LATER)}


def test_a_variable_target_whose_body_the_shell_expands_is_declined_at_its_line():
    script = "CFG=/tmp/c.yaml\ncat <<EOF > ${CFG}\nport: $PORT\nEOF\n"
    assert declined_files(script) == {"/tmp/c.yaml": (script.index("<<"), EXPANDED)}


@pytest.mark.parametrize("function", ["setup()\n{\n  echo hi\n}\n", "function setup\n{\n  echo hi\n}\n",
                                      "setup() {\n  echo hi\n}\n"])
def test_a_function_whose_brace_opens_on_the_next_line_ends_at_its_closing_brace(function):
    # review: `setup()` then `{` alone on the next line counted the body twice, so every assignment after the
    # function read as inside one and the variable target stayed unresolved (a CTX308 error was hidden)
    script = function + "CFG=/tmp/c.yaml\ncat <<'EOF' > ${CFG}\na: 1\nEOF\n"
    assert list(written_files(script)) == ["/tmp/c.yaml"]
