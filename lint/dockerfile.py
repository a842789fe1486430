"""A Dockerfile read as Docker reads it, each instruction with the place of every character of its arguments, so
a value read from it (the FROM image, an ENV value, a CMD word) is said where it is typed in the Dockerfile.

What is read, as https://docs.docker.com/reference/dockerfile/ gives it ("Format", "Parser directives", "escape"):
a `# escape=` directive at the top picks the escape character (`\\` or a backtick); an escape at the end of a
line (blanks may follow it) continues the instruction on the next line, the escape and the line break dropped and
nothing put in their place; comment lines and empty lines inside an instruction are dropped; the keyword is any
case. A here-document of a RUN, COPY or ADD (`RUN <<EOF` ... `EOF`, also `<<-EOF`, `<<'EOF'`, several on one line)
takes the lines after the instruction up to its name alone on a line (`<<-`: after leading tabs), never read as
instructions (a `from x import y` line of a Python one is no FROM); a RUN's are its text after a line break, as the
script it runs (moby/buildkit@73ed6825c4b7569379ef89df0aedcdbe64473d31:frontend/dockerfile/parser/parser.go
heredocDirectives, reHeredoc, Parse). A compose service that builds its image reads this through compose_build.py;
the Dockerfile alone is still no input of its own (unsupported.py: CTX011).
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence, Tuple

from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.lazyre import lazy_compile
from ctxlint.nodes import SCALAR, Marks, Node, Position, adopt

MAX_BYTES = 1 << 20  # a Dockerfile of a megabyte is no hand-written one: not read
_DIRECTIVE = lazy_compile(r"^#[ \t]*([A-Za-z][A-Za-z0-9_]*)[ \t]*=[ \t]*(\S+)[ \t]*$")
_KEYWORD = lazy_compile(r"[ \t]*([A-Za-z]+)(?=[ \t\[]|$)[ \t]*")
# a JSON string of the exec form, found in the arguments once they parse as a JSON list of strings
_JSON_STRING = lazy_compile(r'"(?:[^"\\]|\\.)*"')
# a word of a RUN, COPY or ADD that opens a here-document (buildkit's reHeredoc): fd, `-`, the name as typed
_HEREDOC = lazy_compile(r"^(\d*)<<(-?)[ \t]*([^<]*)$")
_HEREDOC_KEYWORDS = ("RUN", "COPY", "ADD")


class Instruction:
    """One instruction: its keyword (upper case), the arguments as Docker joins them (`text`) and the file
    index of each of their characters (`at`), and the file index of the keyword."""

    __slots__ = ("keyword", "text", "at", "start", "end")

    def __init__(self, keyword: str, text: str, at: Sequence[int], start: int, end: int) -> None:
        self.keyword, self.text, self.at, self.start, self.end = keyword, text, at, start, end


class DockerfileSpans(ScalarSpans):
    """The Dockerfile's ScalarSpans: a node made here knows the file index of each of its characters (a value
    joined over continuation lines is no run of the file's text), so a token inside it is placed exactly."""

    def __init__(self, file: str, text: str) -> None:
        super().__init__(file, text)
        self.known: Dict[int, Sequence[int]] = {}

    def offsets(self, node: Node, value: Optional[str] = None):
        found = self.known.get(id(node))
        if found is not None and (value is None or value == node.value):
            return found
        return super().offsets(node, value)


class Dockerfile:
    """A Dockerfile's instructions (`instructions`), and nodes of its values at their places (`word`, `words`)."""

    def __init__(self, path: str, text: str) -> None:
        self.path, self.text = path, text
        self.spans = DockerfileSpans(path, text)
        self.escape = "\\"
        self.instructions: List[Instruction] = list(self._read())

    def _read(self):
        text, escape, at_top = self.text, "\\", True
        starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
        current: Optional[Tuple[str, List[str], List[int], int]] = None
        k = -1
        while k + 1 < len(starts):
            k += 1
            begin = starts[k]
            end = starts[k + 1] if k + 1 < len(starts) else len(text)
            line = text[begin:end].rstrip("\r\n")
            if at_top:  # parser directives: only before any comment, blank line or instruction
                directive = _DIRECTIVE.match(line)
                if directive and directive.group(1).lower() == "escape" and directive.group(2) in ("\\", "`"):
                    escape = self.escape = directive.group(2)
                    continue
                if directive:
                    continue
                at_top = False
            stripped = line.lstrip(" \t")
            if not stripped or stripped.startswith("#"):
                continue  # comment and empty lines, inside an instruction too
            piece_at = begin
            if current is None:
                keyword = _KEYWORD.match(line)
                if keyword is None:
                    continue
                current = (keyword.group(1).upper(), [], [], begin + keyword.start(1))
                piece_at = begin + keyword.end()
                line = line[keyword.end():]
            continued = re.search(re.escape(escape) + r"[ \t]*$", line)
            if continued:
                line = line[:continued.start()]
            current[1].append(line)
            current[2].extend(range(piece_at, piece_at + len(line)))
            if not continued:
                end_at = piece_at + len(line)
                for name, chomp in self._heredocs(current[0], "".join(current[1])):
                    k, end_at = self._heredoc_body(starts, k, name, chomp, current if current[0] == "RUN" else None,
                                                   end_at)
                yield Instruction(current[0], "".join(current[1]), current[2], current[3], end_at)
                current = None
        if current is not None:  # a continuation at the end of the file
            yield Instruction(current[0], "".join(current[1]), current[2], current[3], len(text))

    def _heredocs(self, keyword: str, args: str) -> List[Tuple[str, bool]]:
        """(name, `<<-`) of each here-document the instruction opens: a RUN, COPY or ADD (or an ONBUILD of one) in
        shell form, a word `<<NAME` (quotes around the name removed)."""
        from ctxlint.dockerfile_values import split_pairs

        if keyword == "ONBUILD":
            inner = _KEYWORD.match(args)
            if inner is None:
                return []
            keyword, args = inner.group(1).upper(), args[inner.end():]
        if keyword not in _HEREDOC_KEYWORDS or "<<" not in args or args.lstrip().startswith("["):
            return []
        found = []
        for a, b in split_pairs(args, self.escape):
            match = _HEREDOC.match(args[a:b])
            name = match.group(3).replace('"', "").replace("'", "") if match else ""
            if name and not any(c in name for c in " \t"):
                found.append((name, match.group(2) == "-"))
        return found

    def _heredoc_body(self, starts: List[int], k: int, name: str, chomp: bool, current, end_at: int):
        """The lines after line `k` up to the one that is `name` (tabs before it dropped when `chomp`), joined to a
        RUN's text (`current`) each after a line break; (the terminator's line index, the body's end)."""
        text = self.text
        while k + 1 < len(starts):
            k += 1
            begin = starts[k]
            if begin >= len(text):  # the end of a file that ends with a line break
                break
            end = starts[k + 1] if k + 1 < len(starts) else len(text)
            line = text[begin:end].rstrip("\r\n")
            if (line.lstrip("\t") if chomp else line) == name:
                return k, begin + len(line)
            if current is not None:
                current[1].append("\n" + line)
                current[2].extend([max(begin - 1, 0)] + list(range(begin, begin + len(line))))
            end_at = begin + len(line)
        return k, end_at  # not ended: Docker refuses the file ("unterminated heredoc"); the rest is the body

    def word(self, ins: Instruction, first: int, last: int, value: Optional[str] = None, path: str = "",
             style: Optional[str] = None) -> Node:
        """A node of `ins.text[first:last]` (its value `value` when it differs: a quoted or expanded word) at its
        place in the Dockerfile; characters of the value map one for one only when it is the text as typed."""
        text = ins.text
        if last <= first or not ins.at:
            a = b = ins.start
        else:
            a, b = ins.at[min(first, len(ins.at) - 1)], ins.at[min(last, len(ins.at)) - 1] + 1
        node = Node(SCALAR, text[first:last] if value is None else value,
                    Marks(self.position(a), self.position(b), style), path or ins.keyword)
        foreign = adopt(node, self.spans)
        if value is None or value == text[first:last]:
            self.spans.known[id(foreign)] = ins.at[first:last]
        return foreign

    def at_keyword(self, ins: Instruction, value: str, path: str) -> Node:
        """A word Docker puts in itself (the `/bin/sh -c` before a shell form), said at the instruction's keyword."""
        node = Node(SCALAR, value, Marks(self.position(ins.start), self.position(ins.start + len(ins.keyword))),
                    path)
        return adopt(node, self.spans)

    def exec_form(self, ins: Instruction) -> Optional[List[Node]]:
        """The words of an exec form (`["vllm", "serve"]`), each at its string; None when the arguments are no
        JSON list of strings, which Docker then runs as a shell form ("CMD": "the exec form is parsed as a JSON
        array")."""
        import json

        text = ins.text.strip()
        if not text.startswith("["):
            return None
        try:
            parsed = json.loads(text)
        except ValueError:
            return None
        if not isinstance(parsed, list) or not all(isinstance(item, str) for item in parsed):
            return None
        # a lone `\ud800` is U+FFFD to Go's encoding/json, which Docker reads it with (moby/buildkit@73ed6825:
        # frontend/dockerfile/parser/line_parsers.go parseJSON), and no text Python can print
        parsed = [re.sub("[\ud800-\udfff]", "\ufffd", item) for item in parsed]
        lead = len(ins.text) - len(ins.text.lstrip())
        found = list(_JSON_STRING.finditer(ins.text, lead))
        if len(found) != len(parsed):
            return None
        words = []
        for k, (match, value) in enumerate(zip(found, parsed)):
            inner = match.group(0)[1:-1]
            if inner == value:  # typed as read: each character at its place
                words.append(self.word(ins, match.start() + 1, match.end() - 1, path=f"{ins.keyword}[{k}]"))
            else:
                words.append(self.word(ins, match.start(), match.end(), value, f"{ins.keyword}[{k}]", '"'))
        return words

    def position(self, index: int) -> Position:
        line, column = self.spans.position(min(index, len(self.text)))
        return Position(index, line - 1, column - 1)


def read_dockerfile(path: str) -> Tuple[Optional[Dockerfile], Optional[str]]:
    """(the Dockerfile at `path`, None), or (None, why it is not read: missing, a directory, too large, no text)."""
    import os

    try:
        if not os.path.isfile(path):
            return None, "not found" if not os.path.exists(path) else "not a file"
        if os.path.getsize(path) > MAX_BYTES:
            return None, f"larger than {MAX_BYTES:,} bytes"
        with open(path, "rb") as handle:
            data = handle.read()
        # bytes that are not UTF-8 read as U+FFFD, one character each, as a script's, a unit's or a .env's do
        text = data.decode("utf-8-sig", errors="replace")
    except OSError as exc:
        return None, f"not readable ({exc.__class__.__name__})"
    if "\0" in text:
        return None, "not text"
    return Dockerfile(path, text), None
