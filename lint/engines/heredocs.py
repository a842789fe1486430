"""Files a shell script writes from a here-document before it starts the engine:

    cat <<'EOF' > /tmp/config.yaml
    max_num_tokens: 8192
    EOF
    trtllm-serve serve m --extra_llm_api_options /tmp/config.yaml

The engine's config file is then in the manifest after all, and its settings are read like a
mounted one's (adapters/config_files.py). Only a body the shell writes as it stands is taken: a
quoted delimiter (`<<'EOF'`, `<<"EOF"`, `<<\\EOF`), or an unquoted one whose body holds nothing the
shell would expand (`$`, a backquote, a backslash). A body with leading tabs under `<<-` (the
shell strips them) is left out too, and so is a file a later line edits (`sed -i ... file`,
`>> file`). Anything else stays a file ctxlint does not see (CTX008).

The lexer asks here too where a body ends (after_bodies): a body is data the splitter never reads as
commands, unless its line feeds it to a shell or writes it to a script (read_as_script); then it is a
HereBody, read as that shell reads it (heredoc_scripts.py).
"""
from __future__ import annotations

import posixpath
import re
import shlex
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from ctxlint.lazyre import lazy_compile
from ctxlint.lines import after_break
from ctxlint.file_reader import SHELL_SUFFIXES

from ..records import record

from .tokens import SHELLS

# `<<`, `<<-`, then the delimiter word: 'quoted', "quoted", \escaped or bare
_START = lazy_compile(r"<<(-?)[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|(\\?)([A-Za-z0-9_.-]+))")
_LINE_END = lazy_compile(r"\r\n?|\n")
_EDITORS = frozenset({"sed", "yq", "jq", "envsubst", "perl", "awk", "mv", "tee", "truncate", "rm", "ln"})
# `cat file`, `cp file x` and `echo ... > file`: the redirect decides; an engine (`python3 -m ...`) only reads
_SEGMENT = lazy_compile(r"&&|\|\||[;|]")  # the commands of one line
_SEPARATOR = lazy_compile(r"&&|\|\||;")  # the here-document's own command is the one around `<<`


# Why a here-document that writes a whole file is not that file as written, worded to follow "written by
# the here-document at line N" (CTX008)
EXPANDED = ", whose body has shell expansions (an unquoted delimiter): ctxlint does not take it as written"
TABS_STRIPPED = " under `<<-`, which strips the tabs that indent its body: ctxlint does not take it as written"
MAY_NOT_RUN = " inside an `if` or a loop, which may not run"
EDITED_LATER = ", which a later command edits: the engine does not read it as written"


def written_files(script: str) -> Dict[str, Tuple[int, int]]:
    """{path as the script writes it (normalized): (start, end) of the body in `script`} for each
    `cat`/`tee` here-document whose body ctxlint can take as written. Never raises."""
    found: Dict[str, Tuple[int, int]] = {}
    for target, body, _, why in _writes(script):
        if why is None:
            found.setdefault(target, body)
    return found


def declined_files(script: str) -> Dict[str, Tuple[int, str]]:
    """{path (normalized): (index of its `<<` in `script`, why)} for each file a `cat`/`tee` here-document
    writes whole but ctxlint does not take as written (one of the reasons above), and no other one does:
    the script holds the file, so CTX008 says why it is not read rather than that it is missing."""
    taken: Dict[str, Tuple[int, int]] = {}
    declined: Dict[str, Tuple[int, str]] = {}
    for target, body, at, why in _writes(script):
        if why is None:
            taken.setdefault(target, body)
        else:
            declined.setdefault(target, (at, why))
    return {path: found for path, found in declined.items() if path not in taken}


def _writes(script: str) -> Iterator[Tuple[str, Tuple[int, int], int, Optional[str]]]:
    """(normalized path, (start, end) of the body, index of the `<<`, why it is not taken as written or
    None) for each here-document that `cat`/`tee` writes to a file whole."""
    if "<<" not in script:
        return
    at, flow = 0, 0
    while True:
        line_end = _LINE_END.search(script, at)
        if line_end is None:
            return
        line = script[at:line_end.start()]
        start = _START.search(line)
        body_start = after_break(script, line_end.start())
        opened = flow
        flow = _flow_after(line[:start.start()] if start is not None else line, flow)
        if start is None:
            at = body_start
            continue
        strip_tabs, word = start.group(1) == "-", next(g for g in start.group(2, 3, 5) if g is not None)
        quoted = start.group(2) is not None or start.group(3) is not None or start.group(4) == "\\"
        body_end, after = find_end(script, body_start, word, strip_tabs)
        if body_end is None:
            return
        body = script[body_start:body_end]
        before, rest = _SEPARATOR.split(line[:start.start()]), line[start.end():]
        own = _SEPARATOR.split(rest)[0]  # the rest of the here-document's own command
        target = _target(before[-1], own)
        later = rest[len(own):] + "\n" + script[after:]  # the same line's later commands, then the script's
        values = None
        if target is not None and ("$" in target or "$" in later):  # `> ${CFG}`, or `>> $CFG` later on
            from .heredoc_targets import known_values, substitute  # only such a script pays for it

            values = known_values(script, at)
            if "$" in target:  # single-quoted, `'$CFG'` is a file of that name: no variable's
                target = None if "'" + target in before[-1] + own else substitute(target, values)
        if target is not None and word:
            why = None
            if opened or flow:
                why = MAY_NOT_RUN
            elif not quoted and any(c in body for c in "$`\\"):
                why = EXPANDED
            elif strip_tabs and any(part.startswith("\t") for part in body.splitlines()):
                why = TABS_STRIPPED
            elif _changed_later(later, target, values):
                why = EDITED_LATER
            yield posixpath.normpath(target), (body_start, body_end), at + start.start(), why
        at = after


# A here-document fed to one of these is a script, not data: `bash <<EOF`, `docker exec -i c sh <<EOF`,
# `cat <<EOF | bash`, `ssh host <<EOF` (run there), `sbatch <<EOF` (Slurm reads the job script from stdin).
_SCRIPT_READERS = SHELLS | {"ssh", "sbatch"}


def read_as_script(words: Iterable[str], targets: frozenset = frozenset(), expanded: Optional[dict] = None) -> bool:
    """Is a here-document on a line of these words (the lexer's, quotes removed) a script: fed to a shell,
    or written to a file with a shell script's name (a launcher written to run later, read as that file would
    be: `*.sh`, `*.bash`, a Slurm job `*.slurm`/`*.sbatch` written and then submitted)? Anything else (`cat >
    cfg.yaml`, `kubectl apply -f -`, a usage note) is data. `ssh HOST COMMAND` feeds the body to COMMAND on
    HOST, so its words say: `ssh HOST bash -s`, `ssh HOST 'cat > run.sh'` (a launcher written there) read the body as
    a script, `ssh HOST 'cat > cfg.yaml'` as data; `ssh HOST` alone feeds it to HOST's login shell.
    `targets`: which of the words are a redirection's target (not ssh's), when known; `expanded`: which hold an
    expansion, each with whether it stays one word (`"$HOST"`). Where one of ssh's words may become several or none
    (`ssh $OPTS HOST`), or its command holds one (`ssh HOST "$CMD"`), what runs on HOST is not known: the body is
    read as a script, as any on an ssh line was before."""
    words = list(words)
    k = next((k for k, w in enumerate(words) if w.rsplit("/", 1)[-1] == "ssh" and k not in targets), None)
    if k is not None:
        from .ssh_commands import command_start, login_shell

        kept = [n for n in range(len(words)) if n not in targets]
        plain = [words[n] for n in kept]
        at = kept.index(k)  # the ssh's place among them
        j = command_start(plain[at:])
        expanded = expanded or {}
        known = j is not None and all(expanded.get(n, True) for n in kept[at:at + j]) and \
            not any(n in expanded for n in kept[at + j:])
        if known:  # ssh joins its command words with spaces and HOST's shell splits them again
            remote = " ".join(plain[at + j:]).split()
            if login_shell(remote):  # `ssh HOST sudo -i <<EOF`: a shell reads it there, though none is named
                return True
            words = plain[:at] + remote + [words[n] for n in sorted(targets)]
    return any(word.rsplit("/", 1)[-1] in _SCRIPT_READERS or word.lower().endswith(SHELL_SUFFIXES) for word in words)


@record
class HereBody:
    """A here-document body a shell reads as a script: its text, each character's source span, whether
    `<<-` strips its lines' leading tabs, and whether its delimiter is quoted (the body is then the script as
    typed; unquoted, the shell that holds it expands it first)."""

    text: str
    base: List[Tuple[int, int]]
    strip_tabs: bool
    quoted: bool
    remote: bool = False  # fed to `ssh HOST`: another host runs it, not with this script's devices (workload.py)
    written: bool = False  # only written to a file (`cat > run.sh <<EOV`), which the script may source later


def after_bodies(script: str, at: int, delimiters: Sequence[Tuple[str, bool, bool]], words: Sequence[str],
                 base: Optional[List[Tuple[int, int]]] = None,
                 remote: Sequence[bool] = (), targets: frozenset = frozenset(),
                 expanded: Optional[dict] = None) -> Tuple[int, List[HereBody]]:
    """(where the shell reads on after the here-document bodies that start at `at`, the line after their
    `<<`s; the bodies read as a script). `delimiters`: (word, `<<-`, quoted) of each `<<` of the line, in
    order; `base`: the source span of each character of `script` (None: its own offsets). Bodies that are
    data are skipped; when the line's `words` make them a script, each is a HereBody. A delimiter line that
    never comes is no here-document ctxlint can be sure of (`(( x << 2 ))`): the text from that body on is
    read on as commands, as before a here-document. `remote`: whether each body feeds an `ssh` (lexer.py), which
    runs it on another host; without it, whether the line has one. `targets`: the indexes of the words that are
    a redirection's target, and of those that hold an expansion (read_as_script)."""
    reads = read_as_script(words, targets, expanded)
    after, bodies = at, []
    for k, (word, strip_tabs, quoted) in enumerate(delimiters):
        end, following = find_end(script, after, word, strip_tabs, blanks=True)
        if end is None:
            return (after, bodies) if reads else (at, [])
        if reads and end > after:  # an empty body runs nothing
            spans = base[after:end] if base is not None else list(zip(range(after, end), range(after + 1, end + 1)))
            fed = remote[k] if k < len(remote) else any(w.rsplit("/", 1)[-1] == "ssh" for w in words)
            written = not any(w.rsplit("/", 1)[-1] in _SCRIPT_READERS for w in words)
            bodies.append(HereBody(script[after:end], spans, strip_tabs, quoted, fed, written))
        after = following
    return after, bodies


def _flow_after(text: str, depth: int) -> int:
    """The `if`/`while`/`for`/`case` nesting after `text`: a file written inside one may or may not
    be (values are never guessed)."""
    for segment in _SEGMENT.split(text):
        words = segment.split()
        while words and words[0] in ("then", "do", "else", "{", "!"):
            words = words[1:]
        if words and words[0] in _FLOW_START:
            depth += 1
        elif words and words[0] in _FLOW_END:
            depth = max(0, depth - 1)
    return depth


_FLOW_START = {"if", "while", "until", "for", "case", "select"}
_FLOW_END = {"fi", "done", "esac"}


def _changed_later(rest: str, target: str, values=None) -> bool:
    """Does a later command edit the file (`sed -i 's/__X__/.../' file`, `echo x >> file`, `yq -i ... file`,
    `envsubst < t > file`)? Then what the engine reads is not the body as written. A command that only
    names it (the engine's own `--config file 2>&1 | tee log`) does not count. `values`: the script's certain
    variables at the here-document (heredoc_targets.py), so `>> "$CFG"` edits the file CFG names."""
    named = re.compile(r"(?<![\w./-])" + re.escape(target) + r"(?![\w.-])")
    redirect = re.compile(r">>?\|?\s*['\"]?" + re.escape(target) + r"(?![\w.-])")
    for line in rest.splitlines():
        if values is not None and "$" in line and target not in line:
            from .heredoc_targets import substitute_known

            line = substitute_known(line, values)
        if target not in line:
            continue
        for segment in _SEGMENT.split(line):
            if not named.search(segment):
                continue
            words = segment.split()
            while words and ("=" in words[0] or words[0] in ("sudo", "env", "exec")):
                words = words[1:]
            if redirect.search(segment) or (words and posixpath.basename(words[0]) in _EDITORS):
                return True
    return False


def find_end(script: str, at: int, word: str, strip_tabs: bool, blanks: bool = False) -> Tuple[Optional[int], int]:
    """(where the body that starts at `at` ends, where the line after the delimiter starts), or (None, ...).
    blanks: a delimiter line may end in blanks (a CRLF script read with each "\r" a blank, as the shell's
    delimiter word then ends in "\r" too)."""
    while at <= len(script):
        line_end = _LINE_END.search(script, at)
        stop = line_end.start() if line_end else len(script)
        line = script[at:stop]
        if blanks:
            line = line.rstrip(" \t")
        if (line.lstrip("\t") if strip_tabs else line) == word:
            return at, after_break(script, stop) if line_end else len(script)
        if line_end is None:
            return None, len(script)
        at = after_break(script, stop)
    return None, len(script)


def _target(before: str, after: str) -> Optional[str]:
    """The file the here-document's own command writes whole: `cat > path` (the redirect on either
    side of `<<`), or `cat | tee path`; None for anything else (an append, another program in
    the pipeline, a cat that also reads files)."""
    try:
        stages = [shlex.split(part, comments=True) for part in (before + " " + after).split("|")]
    except ValueError:
        return None
    if len(stages) == 1 and stages[0] and posixpath.basename(stages[0][0]) == "tee":
        return _tee_path(stages[0][1:])  # `tee FILE <<EOF` (its copy on stdout, often `> /dev/null`)
    if not stages or not stages[0] or posixpath.basename(stages[0][0]) != "cat":
        return None
    cat = stages[0][1:]
    if len(stages) == 1:
        redirects = [w for w in cat if w.startswith(">")]
        if any(w.startswith(">>") for w in redirects) or len(redirects) != 1:
            return None  # an append, or more than one
        at = cat.index(redirects[0])
        path = redirects[0].lstrip(">|") or (cat[at + 1] if at + 1 < len(cat) else "")
        others = [w for i, w in enumerate(cat) if i not in (at, at + 1) or (i == at + 1 and redirects[0] != ">")]
        return path if path and not any(not w.startswith("-") for w in others if w != path) else None
    if len(stages) == 2 and not cat and stages[1] and posixpath.basename(stages[1][0]) == "tee":
        return _tee_path(stages[1][1:])
    return None


def _tee_path(words: List[str]) -> Optional[str]:
    """The one file `tee` writes whole (its stdout redirected or not); None for an append or several files."""
    args, skip = [], False
    for w in words:
        if skip:
            skip = False
        elif w.startswith(">"):
            skip = w in (">", ">>", ">|")  # the stdout's target is the next word
        else:
            args.append(w)
    if any(w in ("-a", "--append") for w in args):
        return None
    paths = [w for w in args if not w.startswith("-")]
    return paths[0] if len(paths) == 1 else None
