"""Splitting with exact spans: shell strings, sh -c wrappers, list form, variables."""
from __future__ import annotations

import pytest
from hypothesis import example, given, settings, strategies as st

from ctxlint.engines.execform import split_list
from ctxlint.engines.shellwords import split_shell


def toks(res, i=0):
    return res.commands[i].tokens


def test_quotes_and_spans():
    s = """vllm serve 'my model' --kv "{\\"a\\": 1}" x\\ y --n=4"""
    t = toks(split_shell(s))
    assert [x.text for x in t] == ["vllm", "serve", "my model", "--kv", '{"a": 1}', "x y", "--n=4"]
    assert s[t[2].start:t[2].end] == "'my model'"
    assert s[t[4].start:t[4].end] == '"{\\"a\\": 1}"'
    # value part of --n=4 maps to the single character "4"
    a, b = t[6].span_of(4, 5)
    assert s[a:b] == "4"


def test_continuations_comments_and_chains():
    s = "cd /x && \\\n  FOO=1 exec vllm serve m \\\n   --max-model-len 4096 # trailing\nsleep 1 | tee l; b || c"
    r = split_shell(s)
    argvs = [c.argv for c in r.commands]
    assert argvs == [["cd", "/x"], ["vllm", "serve", "m", "--max-model-len", "4096"], ["sleep", "1"],
                     ["tee", "l"], ["b"], ["c"]]
    cmd = r.commands[1]
    assert cmd.wrappers == ("exec",) and [e.name for e in cmd.env] == ["FOO"] and cmd.env[0].value == "1"
    t = cmd.tokens[4]
    assert s[t.start:t.end] == "4096"


def test_sh_c_wrapper_maps_through_quotes():
    s = 'bash -lc "exec vllm serve \\"org/m\\" --max-model-len=\'32k\' && echo done"'
    r = split_shell(s)
    cmd = r.commands[0]
    assert cmd.wrappers[0] == "bash -lc" and cmd.argv == ["vllm", "serve", "org/m", "--max-model-len=32k"]
    t = cmd.tokens[3]
    assert s[t.start:t.end] == "--max-model-len='32k'"
    a, b = t.span_of(len("--max-model-len="), len(t.text))
    assert s[a:b] == "32k'" or s[a:b] == "32k"
    assert s[slice(*t.span_of(16, 17))] == "3"
    m = cmd.tokens[2]
    assert s[m.start:m.end] == '\\"org/m\\"'


def test_shell_variables_resolved_and_unresolved():
    s = "vllm serve ${MODEL} --tp $TP --max-model-len ${LEN:-4096}"
    r = split_shell(s, {"MODEL": "org/m", "TP": "2"}.get)
    t = toks(r)
    assert [x.text for x in t][:5] == ["vllm", "serve", "org/m", "--tp", "2"]
    assert s[t[2].start:t[2].end] == "${MODEL}"
    assert [v.name for v in r.unresolved] == ["LEN"] and r.unresolved[0].default == "4096"
    assert t[6].text == "${LEN:-4096}" and s[t[6].start:t[6].end] == "${LEN:-4096}"


def test_unquoted_expansion_splits_fields():
    s = "vllm serve m $EXTRA"
    t = toks(split_shell(s, {"EXTRA": "--tp 4"}.get))
    assert [x.text for x in t] == ["vllm", "serve", "m", "--tp", "4"]
    assert all(s[x.start:x.end] == "$EXTRA" for x in t[3:])


def test_script_local_export():
    s = "export MODEL=org/m\nMASTER=$(hostname)\nvllm serve $MODEL --host $MASTER"
    r = split_shell(s)
    assert r.commands[-1].argv[:3] == ["vllm", "serve", "org/m"]
    assert [v.style for v in r.unresolved] == ["command", "shell"]


def test_list_form_plain_and_k8s_refs():
    items = ["vllm", "serve", "$(MODEL)", "--max-model-len=$(LEN)", "--x=$$(Y)", 8]
    r = split_list(items, {"MODEL": "org/m"}.get)
    t = toks(r)
    assert [x.text for x in t] == ["vllm", "serve", "org/m", "--max-model-len=$(LEN)", "--x=$(Y)", "8"]
    assert [x.item for x in t] == [0, 1, 2, 3, 4, 5]
    assert (t[2].start, t[2].end) == (0, len("$(MODEL)"))
    assert [(v.name, v.item) for v in r.unresolved] == [("LEN", 3)]


def test_list_form_sh_c_offsets_inside_item():
    script = "ulimit -n 65536 && python3 -m sglang.launch_server --model-path $(M) --tp '8'"
    r = split_list(["/bin/sh", "-c", script], {"M": "org/m"}.get)
    cmd = r.commands[1]
    assert cmd.argv == ["python3", "-m", "sglang.launch_server", "--model-path", "org/m", "--tp", "8"]
    assert all(x.item == 2 for x in cmd.tokens)
    assert script[cmd.tokens[4].start:cmd.tokens[4].end] == "$(M)"
    assert script[cmd.tokens[6].start:cmd.tokens[6].end] == "'8'"


def test_odd_input_reports_problems():
    r = split_shell('vllm serve "unterminated')
    assert r.problems and r.commands[0].argv == ["vllm", "serve", "unterminated"]
    assert split_shell(None).problems  # type: ignore[arg-type]
    assert split_list("nope").problems  # type: ignore[arg-type]


def test_go_template_actions_are_references_where_the_operator_renders_them():
    s = "vllm serve m --max-model-len {{ .Labels.ctx }} {{- if .Spec.X }} --tp {{ .Spec.X }}{{- end }} --n '{{.Name}}'"
    t = toks(split_shell(s, {"{{ .Name }}": "qwen"}.get, go=True))
    assert [x.text for x in t] == ["vllm", "serve", "m", "--max-model-len", "{{ .Labels.ctx }}", "--tp", "{{ .Spec.X }}",
                                   "--n", "qwen"]
    assert [(v.name, v.style, v.value) for v in t[4].refs] == [(".Labels.ctx", "go", None)]
    [cond] = t[5].refs  # inside `{{ if }}`: the word is given only when it holds
    assert (cond.name, cond.style, s[cond.start:cond.end]) == ("if .Spec.X", "go-if", "{{- if .Spec.X }}")
    assert [v.style for v in t[6].refs] == ["go-if", "go"] and t[8].refs[0].value == "qwen"
    assert not split_shell(s).refs  # only where the operator renders Go templates
    # a Jinja chat template and JSON are not Go's syntax
    jinja = """vllm serve m --chat-template "{{ bos_token }}{% for m in messages %}{{ m['content'] }}{% endfor %}" """
    r = split_shell(jinja + """--kv '{"a":{"b":1}}'""", go=True)
    assert not r.refs and toks(r)[4].text.startswith("{{ bos_token }}{% for") and toks(r)[6].text == '{"a":{"b":1}}'
    # list form: a control action renders nothing, an item holding `{{ if }}` is conditional as a whole
    items = ["vllm", "serve", "m", "{{ if .Labels.x }}--max-model-len=$(LEN){{ else }}{{ end }}", "{{.Name}}", "{{ x }}"]
    t = toks(split_list(items, {"LEN": "4096"}.get, go=True))
    assert [x.text for x in t][3:] == ["--max-model-len=4096", "{{.Name}}", "{{ x }}"]
    assert [(v.name, v.style) for v in t[3].refs] == [("if .Labels.x", "go-if"), ("LEN", "k8s")]
    assert [(v.name, v.style) for v in t[4].refs] == [(".Name", "go")] and t[5].refs == ()


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="{} .$-ifend'\"abX", max_size=60))
@example("'{{.' }}")  # an action that runs past its closing quote: its word had ended inside the next one
def test_go_templates_never_raise_and_spans_stay_inside(text):
    for r in (split_shell("vllm " + text, go=True), split_list(["vllm", text], go=True)):
        for c in r.commands:
            for t in c.tokens:
                for k in range(len(t.text)):
                    a, b = t.span_of(k, k + 1)
                    assert t.start <= a < b <= t.end


_word = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(_word, max_size=8))
def test_list_tokens_slice_back(items):
    r = split_list(items)
    for c in r.commands:
        for t in c.tokens:
            src = items[t.item]
            assert 0 <= t.start <= t.end <= len(src)
            if not t.refs and "$$" not in src and c.wrappers == ():
                assert src[t.start:t.end] == t.text


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_shell_never_raises_and_spans_inside(text):
    r = split_shell(text, lambda n: "v v" if n.startswith("A") else None)
    for c in r.commands:
        for t in c.tokens:
            assert 0 <= t.start <= t.end <= len(text)
            for k in range(len(t.text)):
                a, b = t.span_of(k, k + 1)
                assert t.start <= a < b <= t.end


_plain = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_=./:", min_size=1, max_size=10)


@settings(max_examples=200, deadline=None)
@given(st.lists(_plain, min_size=1, max_size=8))
def test_plain_words_roundtrip_in_shell_and_sh_c(words):
    words = ["prog"] + words  # a leading `a=b` word would be an assignment, not argv
    s = " ".join(words)
    t = split_shell(s).commands[0].tokens
    assert [s[x.start:x.end] for x in t] == words == [x.text for x in t]
    wrapped = 'sh -c "' + s + '"'
    t = split_shell(wrapped).commands[0].tokens
    assert [wrapped[x.start:x.end] for x in t] == words


def test_bash_lc_double_dash_list_form():
    # seen in vllm-project/aibrix samples: command: ["/bin/bash", "-lc", "--"], args: ["..."]
    items = ["/bin/bash", "-lc", "--", "ulimit -n 65536; $GEN_CMD; vllm serve org/m --tensor-parallel-size 16"]
    r = split_list(items)
    assert r.commands[-1].argv[:3] == ["vllm", "serve", "org/m"]
    assert not r.problems
    t = r.commands[-1].tokens[-1]
    assert t.item == 3 and items[3][t.start:t.end] == "16"


def test_arithmetic_expansion_of_known_integers():
    # SkyPilot's DeepSeek-R1 recipe: TP=$(($SKYPILOT_NUM_GPUS_PER_NODE * $SKYPILOT_NUM_NODES))
    script = "TP=$(($GPUS * ${NODES}))\npython -m sglang.launch_server --tp $TP --dp $(( (NODES + 2) * 3 - -1 ))"
    res = split_shell(script, resolver={"GPUS": "8", "NODES": "2"}.get)
    [cmd] = res.commands
    assert [t.text for t in cmd.tokens][3:] == ["--tp", "16", "--dp", "13"]
    tp = cmd.tokens[4]
    assert script[tp.start:tp.end] == "$TP"  # the value points at the reference that carries it


def test_arithmetic_with_unknown_or_odd_terms_stays_unresolved():
    for expr in ("$((X + 1))", "$((8 / 0))", "$((2 ** 3))", "$((1 +))", "$((" + "(" * 30 + "1" + ")" * 30 + "))",
                 "$((a[1]))", "$((3 > 2))"):
        [cmd] = split_shell(f"vllm serve m --tensor-parallel-size {expr}", resolver={"A": "1"}.get).commands
        assert cmd.tokens[-1].text == expr
    [cmd] = split_shell("vllm serve m -tp $((7 / -2)) -pp $((7 % 3))").commands
    assert [t.text for t in cmd.tokens][-3:] == ["-3", "-pp", "1"]  # the shell truncates toward zero


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters="$", blacklist_categories=("Cs",)), max_size=40),
       st.integers(0, 5), st.booleans())
def test_an_item_without_references_is_the_token_the_expansion_gives(text, index, compose):
    from ctxlint.engines.execform import _expanded_item
    from ctxlint.engines.word_expansion import SplitContext
    from ctxlint.engines.tokens import typed

    slow = SplitContext(None, index)
    assert typed(text, index) == typed(text, index) == _expanded_item(text, index, slow, compose)
    assert slow.refs == []


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab =-$(){}'\"\\\n\t#;&|<>`12")) | st.characters(), max_size=60),
       st.booleans())
def test_a_text_lexed_without_spans_is_lexed_at_its_own_positions(text, k8s):
    # lex(text) maps character k to (k, k + 1) without building that list: exactly what the list gives
    from ctxlint.engines.lexer import lex

    assert lex(text, None, k8s) == lex(text, [(k, k + 1) for k in range(len(text))], k8s)


def _per_character(parts):
    return [(p.kind, p.quoted, [c for text, starts, ends in p.runs for c in zip(text, starts, ends)]) for p in parts]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab =-$(){}'\"\\\n\t#;&|<>`12")) | st.characters(), max_size=60),
       st.booleans(), st.booleans())
def test_a_run_of_literals_is_the_characters_lit_appends_one_by_one(text, k8s, spanned):
    # _lit_run keeps s[a:b] as one run (text, starts, ends); the lexer before it appended each
    # character with _lit. Both must give every word the same characters at the same spans.
    from ctxlint.engines.lex_words import Word
    from ctxlint.engines.lexer import Lexer

    class OneByOne(Lexer):
        def _lit_run(self, a, b, quoted):
            for k in range(a, b):
                self._lit(self.s[k], k, k + 1, quoted)

    base = [(2 * k + 1, 2 * k + 3) for k in range(len(text))] if spanned else None
    fast, _ = Lexer(text, base, k8s).run()
    slow, _ = OneByOne(text, base, k8s).run()
    assert len(fast) == len(slow)
    for f, s in zip(fast, slow):
        assert type(f) is type(s)
        if isinstance(f, Word):
            assert (f.had_quotes, f.src_span) == (s.had_quotes, s.src_span)
            assert _per_character(f.parts) == _per_character(s.parts)
            assert all(len(text) == len(starts) == len(ends) > 0 for p in f.parts for text, starts, ends in p.runs)
        else:
            assert f == s


@pytest.mark.parametrize("script", [
    "TP=1\nwhile [ $(($TP * 2)) -le 8 ]; do\n  TP=$(($TP * 2))\ndone\nvllm serve m -tp $TP",
    "for i in 1; do\n  if [ -n \"$BIG\" ]; then TP=8; else TP=1; fi\ndone\nvllm serve m -tp $TP",  # if in a loop
    "for n in 1 2; do TP=$n; done; vllm serve m -tp $TP",
    "[ -n \"$BIG\" ] && TP=8 || TP=1\nvllm serve m -tp $TP",
    # (a plain `case`'s arms are each a reading now: tests/engines/test_case_arms.py)
])
def test_a_variable_set_in_a_branch_or_loop_is_not_known_after_it(script):
    # values are never guessed: the loop's count, the branch taken and a `&&` chain are run-time facts
    result = split_shell(script, lambda name: None)
    [cmd] = [c for c in result.commands if c.tokens and c.tokens[0].text == "vllm"]
    assert cmd.tokens[-1].unresolved and "TP" in result.unsure


def test_a_variable_set_before_any_branch_is_still_known():
    result = split_shell("TP=4\nif true; then echo hi; fi\nvllm serve m -tp $TP", lambda name: None)
    [cmd] = [c for c in result.commands if c.tokens and c.tokens[0].text == "vllm"]
    assert cmd.tokens[-1].text == "4" and not result.unsure


def test_defaults_of_variables_nothing_sets_only_when_asked():
    s = ('X=7\nif [ -n "$A" ]; then Z=1; fi\n'
         'vllm serve ${M:-"org/m"} --a ${X:-5} --b=${N:-64} --c ${Q:-$R} --d ${Z:-2} --e ${E:-}')
    set_z, cmd = split_shell(s, defaults=True).commands[-2:]
    texts = [t.text for t in cmd.tokens]
    # Z is set in one branch (scalar_branches.py): read once with Z=1, once unset, where its default is taken
    assert texts == ["vllm", "serve", "org/m", "--a", "7", "--b=64", "--c", "${Q:-$R}", "--d", "2", "--e",
                     "${E:-}"] and [t.text for t in set_z.tokens][9] == "1"
    b = cmd.tokens[5]  # the default's characters where they are typed
    assert [s[b.starts[k]:b.ends[k]] for k in range(4, 6)] == ["6", "4"]
    assert s[cmd.tokens[2].starts[0]:cmd.tokens[2].ends[-1]] == "org/m"
    # without `defaults` (Kubernetes, compose, SkyPilot scripts) a default is recorded, never applied
    plain = split_shell(s).commands[-1]
    assert [t.text for t in plain.tokens][2] == '${M:-"org/m"}'


def test_data_builtins_run_nothing_and_source_read_for_set_variables():
    # sweep 10e: `echo vllm serve ...`, `printf`, `:` and a `for` list start no engine; after `source FILE` any
    # variable may be set, so `${X:-default}` is no longer its default; `read` and `for` set variables to values
    # the script does not hold
    def programs(text):
        return [[t.text for t in c.tokens] for c in split_shell(text, defaults=True).commands]

    assert programs("echo vllm serve m --tp 2\nprintf '%s' vllm serve m\n: vllm serve m\n"
                    "for bin in vllm llama-server; do echo $bin; done\n") == []
    assert programs("vllm serve m --max-model-len ${LEN:-8192}") == [["vllm", "serve", "m", "--max-model-len", "8192"]]
    assert programs("source ./env.sh\nvllm serve m --max-model-len ${LEN:-8192}") == [
        ["source", "./env.sh"], ["vllm", "serve", "m", "--max-model-len", "${LEN:-8192}"]]
    assert programs("read LEN\nvllm serve m --max-model-len ${LEN:-8192}")[-1][-1] == "${LEN:-8192}"
    assert programs("for LEN in 1 2; do vllm serve m --max-model-len ${LEN:-8192}; done")[-1][-1] == "${LEN:-8192}"


def test_program_lookups_run_nothing():
    # sweep 11 (unergybot/BestBox scripts/start-llm-cuda.sh): `elif command -v llama-server >/dev/null 2>&1; then`
    # was a llama.cpp role with no model; `command -v`/`-V`, `type`, `which`, `hash` look a program up
    def programs(text):
        return [[t.text for t in c.tokens] for c in split_shell(text, defaults=True).commands]

    assert programs("if command -v llama-server >/dev/null 2>&1; then :; fi\ncommand -V vllm\ntype -p llama-server\n"
                    "which vllm\nhash sglang\n") == []
    # `command PROGRAM` runs it (bypassing functions)
    assert programs("command vllm serve m") == [["vllm", "serve", "m"]]


def test_wrappers_that_pass_the_environment_run_their_shell_script():
    # sweep 11 (huggingface/open-r1 slurm/serve_r1.slurm): `srun --nodes=2 ... bash -c "python -m sglang..."` gave
    # 0 deployments: only a shell first in the command (after exec/nohup/env) had its script read
    def programs(text):
        return [[t.text for t in c.tokens] for c in split_shell(text, defaults=True).commands]

    for wrapper in ("srun --nodes=2 --ntasks=2", "mpirun -np 2", "timeout 1h", "numactl --interleave=all"):
        assert programs(f'{wrapper} bash -c "vllm serve org/m --max-model-len 8192"') == \
            [["vllm", "serve", "org/m", "--max-model-len", "8192"]], wrapper
    # another machine's shell: ssh joins the words with spaces and HOST's shell splits them again, so HOST runs
    # `bash -c vllm serve org/m` (the script `vllm`, $0 serve): words HOST reads otherwise are not read
    assert programs('ssh host bash -c "vllm serve org/m"') == [["ssh", "host"]]


def test_a_double_quoted_script_is_expanded_by_the_outer_shell_first():
    # the outer shell expands `$X` inside the inner shell's single quotes, and `\$X` reaches the inner shell as `$X`
    # (expanded when it runs: not this script's value); a `source` before it changes nothing of that
    text = ('M=org/m\nPORT=8000\nsource ~/.bashrc\n'
            'srun bash -c "vllm serve \'$M\' --port \'$PORT\' --max-model-len \\$LEN --served-model-name \'a\\$b\'"')
    cmd = split_shell(text, defaults=True).commands[-1]  # after `source ~/.bashrc`
    assert [(t.text, bool(t.unresolved)) for t in cmd.tokens] == [
        ("vllm", False), ("serve", False), ("org/m", False), ("--port", False), ("8000", False),
        ("--max-model-len", False), ("$LEN", True), ("--served-model-name", False), ("a$b", False)]
    # Kubernetes list items and compose strings have no outer shell: single quotes stay literal
    [cmd] = split_shell("bash -c \"vllm serve '$M'\"", lambda n: "org/m").commands
    assert cmd.tokens[2].text == "$M"


def test_a_k8s_c_list_passes_its_words_after_dollar_zero() -> None:
    from ctxlint.engines import split_list

    (command,) = split_list(["sh", "-c", 'vllm serve m "$@"', "_", "--max-model-len", "4096"]).commands
    assert command.argv == ["vllm", "serve", "m", "--max-model-len", "4096"]
    assert (command.tokens[-1].item, command.tokens[-1].start, command.tokens[-1].end) == (5, 0, 4)  # where typed


def test_nothing_after_a_foreground_sleep_infinity_runs():
    # `sleep infinity` never returns: the launch after it (a debug pod's held-open command) never starts
    argvs = lambda s: [c.argv for c in split_shell(s).commands]  # noqa: E731
    assert argvs("sleep infinity && vllm serve m --max-model-len 999999") == [["sleep", "infinity"]]
    assert argvs("sleep inf; vllm serve m") == [["sleep", "inf"]]
    assert argvs("tail -f /dev/null\nvllm serve m") == [["tail", "-f", "/dev/null"]]
    assert argvs("sh -c 'sleep Infinity || vllm serve m'") == [["sleep", "Infinity"]]
    # in the background, behind a condition or in a loop it does not hold the script there
    assert argvs("sleep infinity & vllm serve m") == [["sleep", "infinity"], ["vllm", "serve", "m"]]
    assert argvs("[ -n \"$D\" ] && sleep infinity; vllm serve m")[-1] == ["vllm", "serve", "m"]
    assert argvs("if [ -n \"$D\" ]; then\n  sleep infinity\nfi\nvllm serve m")[-1] == ["vllm", "serve", "m"]
    assert argvs("(sleep inf) ; vllm serve m")[-1] == ["vllm", "serve", "m"]
