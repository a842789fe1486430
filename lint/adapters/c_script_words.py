"""`sh -c` given an engine's command as several words: `entrypoint: ["/bin/sh", "-c"]` with a string `command:`
(Compose splits it into words: compose-spec/compose-go@c100299aef5ebc4b578a886ddcfd7b859ac1fc79:types/command.go,
ShellCommand, shellwords.Parse of a scalar), or Kubernetes `command: ["sh", "-c"]` with `args:` of several items.
The shell runs only its first operand as the script and makes the rest its $0, $1, ... (POSIX sh "-c": "the
remaining arguments ... assigned to positional parameters, starting with $0"; shell_set.py), so `sh -c vllm serve M
--max-model-len 8192` runs `vllm` alone: vLLM's CLI with no subcommand prints its help and exits, no server starts
(vllm-project/vllm@00a5fdd20935ba7679750db22997dcf539ca4591:vllm/entrypoints/cli/main.py: no dispatch_function,
`parser.print_help()`). The reader reads what runs (the lone program: no engine's flags, no deployment of these
words) and says so at the script word (CTX301), with the one-item form that keeps the script whole. Imported only
for an exec-form list with a `-c` item (workload.py), or, for a shell script's `sh -c WORD ...` and `docker run
--entrypoint /bin/sh IMAGE -c WORD ...` lines, by the splitter (engines/simple_commands.py) when WORD is one
unquoted-space word naming an engine's program."""
from __future__ import annotations

from typing import List, Optional, Sequence

from ctxlint.engines.c_script_cut import cut_short_text
from ctxlint.engines.command_prefixes import shell_script_index, strip_prefixes
from ctxlint.engines.tokens import typed
from ctxlint.findings import Diagnostic


def script_cut_short(texts: Sequence, compose: bool, string: bool = False) -> Optional[tuple]:
    """(index of the script item, Diagnostic text) when `sh -c` is given an engine command as several items: the
    script is one word naming the engine's program (or an interpreter of its module) and the words after it are
    that command's rest; None otherwise (one item holding the whole script, `sh -c 'vllm serve M' _ a`, whose
    later words are the script's own positional parameters, no engine's words). `string`: the words of a Compose
    string `command: sh -c vllm serve M` (the shell and its `-c` in the string too), whose fix is to quote the
    script in it."""
    plain = [typed(t if isinstance(t, str) else "", i) for i, t in enumerate(texts)]
    head = strip_prefixes(list(plain), [], [])
    idx = shell_script_index(head)
    if idx is None or idx + 1 >= len(head):
        return None
    script = head[idx]
    where = "compose-string" if string else "compose" if compose else "kubernetes"
    text = cut_short_text([t.text for t in head[:idx]], [t.text for t in head[idx:]], where)
    return None if text is None else (script.item or 0, text)


def cut_short_finding(reader, compose: bool) -> List[Diagnostic]:
    """CTX301 at the script word of the reader's exec-form items (workload_positions.Positions.span_source)."""
    found = script_cut_short(reader.item_texts, compose)
    if found is None:
        return []
    item, text = found
    node_text = reader.item_texts[item] if item < len(reader.item_texts) else ""
    at = reader.span_source(item, (0, len(node_text) if isinstance(node_text, str) else 0))
    return [Diagnostic("engine-rejects-value", text, at)]


def string_cut_short(reader, text: str) -> List[Diagnostic]:
    """CTX301 for a Compose string `command:` (read as the service's shell line) that holds `sh -c` and the
    engine's command as several words: Compose splits the string into words (shellwords, no shell), so the
    shell runs the first of them alone, as for the exec form (script_cut_short). At the script word in the
    string where it is found there, else at the string."""
    import shlex

    try:
        words = shlex.split(text)
    except ValueError:  # a quote left open: the splitter says so
        return []
    found = script_cut_short(words, True, string=True)
    if found is None:
        return []
    item, message = found
    at = 0
    for word in words[:item + 1]:
        hit = text.find(word, at)
        if hit < 0:
            at = -1
            break
        at = hit + len(word)
    span = (at - len(words[item]), at) if at >= 0 else (0, len(text))
    return [Diagnostic("engine-rejects-value", message, reader.span_source(0, span))]
