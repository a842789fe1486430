"""Here-document bodies a shell reads as a script (engines/heredoc_scripts.py): with an unquoted delimiter the shell
that holds the here-document expands the body first, then the result is read as shell text; a quoted one keeps it.

Expectations about the shell were checked with GNU bash 5.2.15 (the file `cat > run.sh <<EOV` writes, and what
`bash <<EOV` runs)."""
from __future__ import annotations

import pytest

from ctxlint.engines.shellwords import split_shell

HEAD = 'PORT="${PORT:-8000}"\nMAX_LEN="${MAX_LEN:-32768}"\n'
LINE = "exec vllm serve Qwen/Qwen3-8B --port '${PORT}' --max-model-len '${MAX_LEN}'\n"


def typed(text: str, token) -> str:
    """The characters of `text` each character of `token` comes from, joined."""
    return "".join(text[a:b] for a, b in zip(token.starts, token.ends))


def engine(text: str):
    result = split_shell(text, defaults=True)
    return next(c for c in result.commands if c.argv[:1] == ["vllm"]), result


@pytest.mark.parametrize("line", ["cat > /tmp/run_vllm.sh <<EOV", "bash <<EOV", "cat <<EOV | sh", "ssh node <<EOV",
                                  "sbatch <<EOV", "cat > job.slurm << EOV", "bash <<-EOV"])
def test_an_unquoted_body_is_expanded_by_the_holding_shell_before_it_is_read(line):
    # before: `--port '${PORT}'` as typed, a CTX301 vLLM never prints (sweep 31: the file bash writes holds '8000')
    text = HEAD + line + "\n" + LINE + "EOV\n"
    command, _ = engine(text)
    assert command.argv == ["vllm", "serve", "Qwen/Qwen3-8B", "--port", "8000", "--max-model-len", "32768"]
    port, length = command.tokens[4], command.tokens[6]
    # a value sits where its reference is typed in the body, each literal character where it is typed
    assert (typed(text, port), typed(text, length)) == ("${PORT}" * 4, "${MAX_LEN}" * 5)
    assert text[port.start:port.end] == "'${PORT}'"
    assert [text[t.start:t.end] for t in command.tokens[:4]] == ["vllm", "serve", "Qwen/Qwen3-8B", "--port"]
    assert not any(t.unresolved for t in command.tokens)


@pytest.mark.parametrize("delimiter", ["'EOV'", '"EOV"', "\\EOV", 'E"O"V', "EO'V'"])
def test_a_quoted_delimiter_keeps_the_body_as_typed(delimiter):
    # bash: "If any part of word is quoted [...] the lines in the here-document are not expanded": the inner shell
    # gets '${PORT}' and passes vLLM the text ${PORT}, which it refuses (CTX301 stays)
    command, _ = engine(HEAD + f"bash <<{delimiter}\n{LINE}EOV\n")
    assert command.argv[3:] == ["--port", "${PORT}", "--max-model-len", "${MAX_LEN}"]


def test_values_after_a_source_are_unknown_in_the_body_as_inline():
    text = 'source "$ENV_FILE"\n' + HEAD + "cat > run.sh <<EOV\n" + LINE + "EOV\n"
    command, result = engine(text)
    assert command.argv[3:] == ["--port", "${PORT}", "--max-model-len", "${MAX_LEN}"]
    port = command.tokens[4]
    assert [(r.name, r.why, text[r.start:r.end]) for r in port.unresolved] == [("PORT", "set", "${PORT}")]
    assert text[port.start:port.end] == "'${PORT}'"
    inline, _ = engine('source "$ENV_FILE"\n' + HEAD + LINE.replace("'", '"'))  # the same, double-quoted
    assert [[r.name for r in t.unresolved] for t in inline.tokens] == \
        [[r.name for r in t.unresolved] for t in command.tokens]
    assert "PORT" in {r.name for r in result.refs if not r.resolved}


def test_the_body_sees_the_values_at_its_line_and_branch():
    body = "bash <<EOF\nvllm serve m --max-model-len $LEN\nEOF\n"
    assert engine("LEN=1\n" + body + "LEN=2\n")[0].argv[-1] == "1"
    # assigned in an `if` branch: known inside it, unknown after the `fi` (branches.py)
    inside, _ = engine('if [ -n "$X" ]; then\nLEN=4096\n' + body + "fi\n")
    assert inside.argv[-1] == "4096"
    after, _ = engine('if [ -n "$X" ]; then\nLEN=4096\nfi\n' + body)
    assert after.tokens[-1].unresolved


def test_backslashes_and_double_quotes_as_bash_expands_the_body():
    # bash writes: vllm serve m --a "5 y" --b $X --c \z --d \"q\" --e \n (and joins the `\`-newline line)
    text = ('X=5\ncat > run.sh <<EOV\nvllm serve m --a "$X y" --b \\$X --c \\\\z --d \\"q\\" --e \\n \\\n'
            "  --f 1\nEOV\n")
    command, _ = engine(text)
    assert command.argv == ["vllm", "serve", "m", "--a", "5 y", "--b", "5", "--c", "z", "--d", '"q"', "--e", "n",
                            "--f", "1"]
    assert text[command.tokens[6].start:command.tokens[6].end] == "\\$X"  # the inner shell's `$X`, typed `\$X`


def test_tab_stripping_keeps_the_tabs_of_a_joined_line():
    # bash 5.2, `<<-`: "\t--port=80\\\n\t00" is read as one line, which alone loses its leading tab:
    # `--port=80<TAB>00`, two words for the inner shell; typed with `<<`, the first tab stays too
    for op in ("<<-", "<<"):
        command, _ = engine(f"bash {op}EOV\n\tvllm serve m --port=80\\\n\t00 --x\n\tEOV\nEOV\n")
        assert command.argv == ["vllm", "serve", "m", "--port=80", "00", "--x"], op
    quoted, _ = engine("bash <<-'EOV'\n\tvllm serve m \\\n\t--max-model-len 7\n\tEOV\n")
    assert quoted.argv == ["vllm", "serve", "m", "--max-model-len", "7"]


def test_a_partly_known_command_string_in_the_body_gives_its_words_where_typed():
    text = 'CMD="vllm serve $MODEL --max-model-len 8192"\nssh node <<EOF\n$CMD\nEOF\n'
    command, _ = engine(text)
    assert command.argv == ["vllm", "serve", "$MODEL", "--max-model-len", "8192"]
    assert [text[t.start:t.end] for t in command.tokens] == command.argv  # in the assignment
    assert [r.name for r in command.tokens[2].unresolved] == ["MODEL"]


def test_the_body_is_a_script_of_its_own():
    # an `if` the body leaves open ends with it: the script's later assignment is still known
    text = "bash <<EOF\nif true; then\nEOF\nLEN=9\nvllm serve m --max-model-len $LEN\n"
    assert engine(text)[0].argv[-1] == "9"
    # and a quote it leaves open swallows only the body (the inner shell stops; the script reads on)
    command, result = engine("bash <<EOF\necho 'oops\nEOF\nvllm serve m --max-model-len 5\n")
    assert command.argv[-1] == "5"
    assert [p.message for p in result.problems] == ["unterminated single quote"]


@pytest.mark.parametrize("text", ["bash <<EOF\nEOF\n", "bash <<EOF\n", "bash <<EOF\n${\nEOF\n", "bash <<-E\n\t\tE\n",
                                  "cat > a.sh <<A <<'B'\n$X\nA\n`\nB\n", "bash <<EOF\n\\", "bash <<EOF\n$(\nEOF\n"])
def test_odd_bodies_never_crash(text):
    split_shell(text, defaults=True)
    split_shell(text.replace("\n", "\r\n"), defaults=True)


def test_a_command_kept_in_a_body_that_is_data_is_not_read():
    # written to a file no shell reads as a script, expanded or not, the body is data (heredocs.read_as_script)
    assert split_shell("P=1\ncat > notes.txt <<EOF\nvllm serve m --port $P\nEOF\n", defaults=True).commands[-1].argv \
        == ["cat"]
