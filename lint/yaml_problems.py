"""What the loader says about a YAML or JSON text that does not parse cleanly.

The loader's happy path is read, decode, compose; everything here runs only when that goes wrong
or may have: the parse-error wording (a tab in the indentation, a template placeholder), a Go
template that is YAML once rendered, nesting too deep to read, JSON that YAML accepts but JSON
readers refuse, and tabs that libyaml reads but PyYAML's pure-Python reader does not. It is apart
from loader.py and file_reader.py so that those read as the path a file takes, and these as the reasons it stops.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Tuple

import yaml

from ctxlint.findings import Diagnostic
from ctxlint.lazyre import lazy_compile
from ctxlint.lines import has_other_breaks, line_col, mark_line_col, split_lines
from ctxlint.model import Source
from ctxlint.node_builder import MAX_NESTING
from ctxlint.nodes import MAP
from ctxlint.templates import PLACEHOLDER_HINT, blank_go_actions, placeholder_near
from ctxlint.yaml_loaders import BaseLoader, composer

if TYPE_CHECKING:
    from ctxlint.loader import LoadedFile

PARSE_ERROR, NONPORTABLE = "parse-error", "nonportable-yaml"


def rendered_go_template(text: str) -> Optional[Tuple[int, int]]:
    """Where the first Go template action is, when the text is not YAML as written but is once its
    actions are blanked (a non-Helm Go template its operator renders, such as KServe's): a file whose
    error stays is a real syntax error."""
    blanked = blank_go_actions(text)
    if blanked is None:
        return None
    try:
        for _ in yaml.compose_all(blanked[0], Loader=composer()):
            pass
    except (yaml.YAMLError, RecursionError):
        return None
    return blanked[1]


def too_deep(display: str, text: str, index: int, mark: Optional[yaml.Mark]) -> Diagnostic:
    line, col = mark_line_col(text, mark)
    return Diagnostic(PARSE_ERROR, f"document {index} nests mappings or lists more than {MAX_NESTING} levels "
                                   "deep; ctxlint does not read it, so it was not checked", Source(display, line, col))


def deep_mark(text: str) -> Optional[yaml.Mark]:
    """Where nesting first passes MAX_NESTING, found from parser events (same marks as nodes)."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=BaseLoader):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_NESTING:
                    return event.start_mark
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.YAMLError:
        pass
    return None


# What makes yaml.Reader.forward count a line (or, for "\r", look at the next character) or skip a column.
_LINE_CHARS = lazy_compile("[\n\r\x85\u2028\u2029\ufeff]")
_COMMENT_END = lazy_compile("[\0\r\n\x85\u2028\u2029]")  # Scanner.scan_to_next_token's end of a comment
_NOT_SPACE = lazy_compile("[^ ]")


class _PurePythonScan(yaml.SafeLoader):
    """PyYAML's pure-Python loader, minus its check for non-printable characters: libyaml accepted
    the text, and it refuses the same characters (YAML 1.1's printable set, in reader.c), so the
    check could only pass; it compiled a class of 1.1 million code points (~4 ms) to do so.

    The scanner reads through peek, prefix and forward, a Python call per character of indentation and
    comments: a 3 KB manifest took as long to scan as ~5 files take to check. Its text is a str, for which
    Reader.update never reads more (no raw buffer), so peek and prefix are the index and slice they make
    after it, and forward over characters that are neither line breaks nor byte-order marks adds their count
    to the index and column at once; runs of spaces and comments are skipped that way (else as Reader's)."""

    def check_printable(self, data: str) -> None:
        return None

    def peek(self, index: int = 0) -> str:
        return self.buffer[self.pointer + index]

    def prefix(self, length: int = 1) -> str:
        return self.buffer[self.pointer:self.pointer + length]

    def forward(self, length: int = 1) -> None:
        if _LINE_CHARS.search(self.buffer, self.pointer, self.pointer + length) is not None:
            yaml.reader.Reader.forward(self, length)
            return
        self.pointer += length
        self.index += length
        self.column += length

    def scan_to_next_token(self) -> None:
        # Scanner.scan_to_next_token, with its loops a character at a time over spaces and comments made one
        # forward each (the same characters: forward(a) then forward(b) is forward(a + b))
        if self.index == 0 and self.peek() == "\uFEFF":
            self.forward()
        found = False
        while not found:
            self.forward(_NOT_SPACE.search(self.buffer, self.pointer).start() - self.pointer)  # the buffer ends in \0
            if self.peek() == "#":
                self.forward(_COMMENT_END.search(self.buffer, self.pointer).start() - self.pointer)
            if self.scan_line_break():
                if not self.flow_level:
                    self.allow_simple_key = True
            else:
                found = True


def check_portability(text: str, display: str, loaded: LoadedFile) -> None:
    """libyaml accepted the text; does PyYAML's pure-Python scanner, which trips on tabs?"""
    offset, lines_before = _resume_point(text, loaded)
    try:
        for _ in yaml.scan(text[offset:] if offset else text, Loader=_PurePythonScan):
            pass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if mark is not None and offset:  # a mark of the scanned tail, as a mark of the whole text
            mark = yaml.Mark(mark.name, mark.index + offset, mark.line + lines_before, mark.column, None, None)
        line, col = mark_line_col(text, mark)
        what = exc.problem or "invalid syntax"
        loaded.diagnostics.append(Diagnostic(
            NONPORTABLE, f"libyaml (like Kubernetes' parser) reads this file, but PyYAML's pure-Python "
                         f"reader stops here: {what}; replace the tab with spaces",
            Source(display, line, col)))
    except yaml.YAMLError:
        pass


def _resume_point(text: str, loaded: LoadedFile) -> Tuple[int, int]:
    """Where the pure-Python scan may start (a text index, the lines before it): the last key at column 0 of a
    document's block mapping at or before the text's first tab, else (0, 0).

    The check stands on a premise: a text without a tab scans alike in both readers (it is run only when the
    text holds a tab), so the tab-free text before that key holds no error of the pure-Python scanner. At such a
    key (a line start in block context, no flow level, no simple key pending, every indentation above 0 closed)
    the scanner is where a fresh one stands after the mapping's start: every token from there on, and the first
    error, are the same, at marks shifted by the text skipped. A 3 KB manifest whose tab sits in its last
    object's `spec` took 6.2 ms to scan from its start (about what checking two other files costs), 0.4 ms from
    that object's `spec:`. A byte-order mark anywhere or a line break libyaml counts otherwise (NEL, LS, PS) keeps
    the whole scan, as does a root that is a flow collection, starts with a tag, an anchor or an alias, or does
    not start a line."""
    first_tab = text.find("\t")
    if first_tab < 0 or "\ufeff" in text or has_other_breaks(text):
        return 0, 0
    best: Tuple[int, int] = (0, 0)
    for document in loaded.documents:
        root = document.root
        if root.kind != MAP or root.start_index > first_tab or root.start.column != 0:
            continue
        if text[root.start_index:root.start_index + 1] in ("{", "[", "!", "&", "*", ""):
            continue
        keys, values = root.keys, root.value
        # a key merged in (`<<: *anchor`) or written as an alias (`*anchor : 1`) is a node of the anchor's place,
        # which may start a line inside a flow collection: only a key no entry of the root's spans is the root's
        spans = [(node.start_index, node.end_index) for node in (*keys.values(), *values.values())]
        for key in keys.values():
            start = key.start_index
            if best[0] < start <= first_tab and text[start - 1] == "\n" and not any(
                    begin < start < end for begin, end in spans):  # a key of the root's own that starts a line
                best = (start, key.start.line)
    return best


# Files their tools read as JSON with comments (and trailing commas), named `.json`: TypeScript's project files
# (microsoft/vscode#50974: tsconfig.json and tsconfig.*.json open as "JSON with Comments"; jsconfig.json is its
# JavaScript twin) and devcontainer.json ("written using the JSONC format": github/docs content/codespaces/
# setting-up-your-project-for-codespaces/introduction-to-dev-containers.md). Tool settings, never a deployment: one
# that strict JSON refuses is no parse error.
def jsonc_tool_file(path: str) -> bool:
    """Is `path` a file its tool reads as JSON with comments (tsconfig[.*].json, jsconfig[.*].json,
    devcontainer.json)?"""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name.endswith(".json") and (name in ("devcontainer.json", ".devcontainer.json") or
                                       name.split(".", 1)[0] in ("tsconfig", "jsconfig"))


def valid_json(text: str, loaded: LoadedFile) -> bool:
    """YAML accepts comments, unquoted keys and trailing garbage that JSON readers reject."""
    import json

    if not text.strip():
        return True
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        loaded.diagnostics.append(Diagnostic(  # not exc.lineno: json counts "\n" only
            PARSE_ERROR, f"invalid JSON: {exc.msg}", Source(loaded.path, *line_col(text, exc.pos))))
        return False
    except RecursionError:
        loaded.diagnostics.append(Diagnostic(
            PARSE_ERROR, "JSON nested too deeply to read; it was not checked", Source(loaded.path, 1, 1)))
        return False
    return True


def syntax_hint(text: str, line: int) -> str:
    lines = split_lines(text)
    if 0 < line <= len(lines) and "\t" in lines[line - 1][: len(lines[line - 1]) - len(lines[line - 1].lstrip())]:
        return " (a tab in the indentation: YAML indents with spaces only)"
    # an unquoted `{{{PREFIX}}}/key:` or `{{#if X}}` is a template's, not a YAML mistake (sweep 29: 40 such files)
    placeholder = placeholder_near(text, line) if "{" in text else None
    if placeholder is not None:
        return (f". It looks like a template placeholder ({placeholder[0]} on line {placeholder[1]}): "
                f"{PLACEHOLDER_HINT}")
    return ""


def position_source(display: str, text: str, index: Optional[int]) -> Source:
    if not isinstance(index, int):
        return Source(display, 1, 1)
    return Source(display, *line_col(text, index))
