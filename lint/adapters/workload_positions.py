"""Where a value of an engine command line sits in the file: the reader's half that turns a token, a
setting or a problem the parser reported into the Source of what the user typed (inside a list item,
`--flag=value`, an `sh -c` string, a block scalar, or the env var's value scalar)."""
from __future__ import annotations

from functools import partial
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ctxlint.engines import Setting, Token
from ctxlint.engines.gotemplate import action_at, next_action
from ctxlint.model import Source
from ctxlint.nodes import Node
from ctxlint.templates import looks_like_go_template


class Positions:
    """Mixed into workload._Reader, which sets what these read: `c` (the Container: its node and
    its ScalarSpans), `file`, the command line's item nodes and their texts, the env var nodes, the
    config file's sources and the env."""

    c: Any
    file: str
    item_nodes: List[Node]
    item_texts: List[str]
    env_nodes: Dict[str, Node]
    config_sources: Dict[str, Source]
    env: Dict[str, Optional[str]]
    unsure: frozenset = frozenset()  # the script's variables set inside a branch or loop
    assigns: dict = {}  # the command being read: its environment's `NAME=value` tokens (prefixes, exports)

    def go_actions(self) -> bool:
        """Whether `{{ ... }}` actions in the command are template actions, not text: KServe's containers (it
        renders them), and the values of a file of Helm's actions that the loader read because they sit only in
        string values (templates.values_only_actions): Compose would pass them as written, but the file is meant
        to be rendered first, so their values are unknown."""
        if self.c.go_values is not None:
            return True
        spans = self.c.spans
        if spans.helm_actions is None:
            spans.helm_actions = "{{" in spans.text and looks_like_go_template(spans.text, spans.file) is not None
        return spans.helm_actions

    def helm_value(self, value: str) -> bool:
        """A value holding a template action in a file of Helm's actions (not KServe's, which keeps its env)."""
        if self.c.go_values is not None or not self.go_actions():
            return False
        at = next_action(value, 0, len(value))
        while at < len(value):
            if action_at(value, at) is not None:
                return True
            at = next_action(value, at + 2, len(value))
        return False

    def span_source(self, item: Optional[int], span: Tuple[int, int]) -> Source:
        index = item if item is not None else 0
        if not 0 <= index < len(self.item_nodes):
            return self.c.node.source(self.file)
        node = self.item_nodes[index]
        # a script_text respells the script at the same length (llama_swap.py): its characters are at the
        # script's own (decoded) value's places, which align with the file where the respelling may not
        text = None if node is self.c.script and self.c.script_text is not None else self.item_texts[index]
        return self.c.spans.source(node, span[0], span[1], text)

    def token_source(self, tok: Token) -> Source:
        return self.span_source(tok.item, (tok.start, tok.end))

    def placer(self, sources: Dict[int, Source], tokens: Sequence[Token], assigns) -> Callable[[Setting], Source]:
        """`where(s)`: the Source of setting `s` of the command being read, found once per setting and kept in
        `sources` (by id: the settings live in the invocation while it is read)."""
        def where(s: Setting) -> Source:
            # role_facts asks again for the settings it reads (context, pool, layout, model): a quarter
            # of the asks, each an alignment of the value's characters in the file
            found = sources.get(id(s))
            if found is None:
                found = sources[id(s)] = self.setting_source(s, tokens, assigns)
            return found
        return where

    def later_placer(self, sources: Dict[int, Source], tokens: Sequence[Token], assigns):
        """`later(s)`: a call of `placer`'s `where(s)`, made when the Val's source is read (model.placed_later).
        Every stated setting's place is found only if read: by a reader as it is now (a copy of the fields
        setting_source reads, which the reader replaces, never changes, as it goes on to its next command; not
        the roles it has read, whose Vals would hold it: a cycle a run would leave to the collector), once, as
        `where` finds it (the same `sources`)."""
        now = object.__new__(type(self))
        now.c, now.file, now.env_nodes, now.config_sources = self.c, self.file, self.env_nodes, self.config_sources
        now.item_nodes, now.item_texts = self.item_nodes, self.item_texts
        return partial(partial, now.placer(sources, tokens, assigns))

    def engine_source(self, det, image: Optional[str], prog: Optional[Token]) -> Source:
        """Where the engine of detection `det` is written: the engine a preset or an image's entrypoint names, the
        container's image, or the program's token (an args-only detection has none: the container)."""
        if det.via_image and self.c.engine is not None and (self.c.image is None or not image):
            return self.c.engine.source
        if self.c.image is not None:
            return self.c.image.source(self.file)
        return self.token_source(prog) if prog is not None else self.c.node.source(self.file)

    def setting_source(self, s: Setting, tokens: Sequence[Token], assigns) -> Source:
        if s.origin == "flag" and s.value_span is not None:
            tok = tokens[s.token_index] if s.token_index is not None and s.token_index < len(tokens) else None
            if tok is not None:
                for ref in tok.refs:  # the whole value came from one variable: point at its value
                    if ref.resolved and (ref.start, ref.end) == s.value_span and ref.name in self.env_nodes \
                            and ref.name not in assigns and ref.style != "k8s-literal":
                        return self.env_nodes[ref.name].source(self.file)
            item = s.item if s.item is not None else (tok.item if tok is not None else None)
            if self.c.compose_refs and self.c.resolver_nodes:  # a Compose string interpolated before it was lexed
                found = self.compose_value_node(item, s.value_span)
                if found is not None:
                    return found.source(self.file)
            return self.span_source(item, s.value_span)
        if s.origin == "flag" and s.value_span is None and s.flag_span is not None:  # a bare boolean flag
            item = s.flag_item if s.flag_item is not None else (
                tokens[s.flag_index].item if s.flag_index is not None and s.flag_index < len(tokens) else None)
            return self.span_source(item, s.flag_span)
        if s.origin == "config-file" and s.flag_spelling in self.config_sources:
            return self.config_sources[s.flag_spelling]
        if s.origin == "env" and s.flag_spelling:
            if s.flag_spelling in assigns:
                tok = assigns[s.flag_spelling].token
                eq = tok.text.find("=") + 1
                return self.span_source(tok.item, tok.span_of(eq, len(tok.text)))
            if s.flag_spelling in self.env_nodes:
                return self.env_nodes[s.flag_spelling].source(self.file)
        return self.c.node.source(self.file)

    def compose_value_node(self, item: Optional[int], span: Tuple[int, int]) -> Optional[Node]:
        """Where the value is written when the whole of it is one `${NAME}` (or `${NAME:-d}`, `$NAME`) of a string
        Compose interpolated from the project's .env (compose.py sets `resolver_nodes` only then): the string's
        words carry no reference of their own, as Compose replaced it before any shell split them."""
        index = item if item is not None else 0
        texts = self.item_texts if self.item_texts else [self.c.script.value] if self.c.script is not None else []
        if not 0 <= index < len(texts) or not isinstance(texts[index], str):
            return None
        typed = texts[index][span[0]:span[1]]
        if not typed.startswith("$"):
            return None
        from ctxlint.engines.compose_pass import COMPOSE_REF

        m = COMPOSE_REF.fullmatch(typed)
        name = (m.group(1) or m.group(4)) if m is not None else None
        node = self.env_nodes.get(name) if name is not None and self.c.resolver(name) is not None else None
        # only a value of the project's .env (dotenv.py names its nodes `.env:NAME`): Compose never reads the
        # container's own variables there
        return node if node is not None and (self.c.text_macros or node.path == f".env:{name}") else None

    def problem_source(self, problem, tokens: Sequence[Token]) -> Source:
        if problem.span is not None:
            item = problem.item
            if item is None and problem.token_index is not None and problem.token_index < len(tokens):
                item = tokens[problem.token_index].item
            return self.span_source(item, problem.span)
        if problem.flag and problem.token_index is None:  # a config file's key: at its value there
            found = next((src for key, src in self.config_sources.items()
                          if key.replace("-", "_") == problem.flag), None)
            if found is not None:
                return found
        name = problem.message.split()[1].rstrip(":") if problem.message.startswith("env ") else ""
        if name in self.assigns:  # a script's `NAME=value` prefix or export: at its value
            tok = self.assigns[name].token
            eq = tok.text.find("=") + 1
            return self.span_source(tok.item, tok.span_of(eq, len(tok.text)) if eq < len(tok.text) else
                                    (tok.start, tok.end))
        node = self.env_nodes.get(name)
        return node.source(self.file) if node is not None else self.c.node.source(self.file)

    def unresolved_text(self, problem, flag, tokens: Sequence[Token]) -> Tuple[str, Source]:
        spelling = "argument" if flag is None else flag.spellings[0] if flag.spellings else flag.name
        if problem.ref is not None:
            ref = problem.ref
            if ref.style == "command":
                return f"{spelling} {ref.name} ({_not_evaluated(ref.name)})", self.problem_source(problem, tokens)
            # KServe renders its own containers' actions; in a file of Helm's actions something else must first
            if ref.style == "go":
                why = "a template KServe fills in" if self.c.go_values is not None else \
                    "a template action: its value is known only once the file is rendered"
                return f"{spelling} {{{{ {ref.name} }}}} ({why})", self.problem_source(problem, tokens)
            if ref.style == "go-if":
                who = "KServe renders it" if self.c.go_values is not None else "the file is rendered"
                return f"{spelling} (given only if {{{{ {ref.name} }}}} holds when {who})", \
                    self.problem_source(problem, tokens)
            what = f"$({ref.name})" if ref.style == "k8s" else f"${{{ref.name}}}"
            spelled = (self.c.ref_spelling or {}).get(ref.name)
            if spelled is not None:
                why = self.env_why(ref.name)
                return f"{spelling} {spelled} ({spelled} {why})", self.problem_source(problem, tokens)
            if ref.style == "shell" and (ref.name.isdigit() or ref.name in ("@", "*", "#")):  # `$1`, `"$@"`
                # inside a function its call's words (engines/shellfuncs.py), where one may be any number of words
                whose = "a word of the function's call that ctxlint cannot count" if ref.why == "call" else \
                    "a word a `set --` in a branch or loop may give" if ref.why == "set" else \
                    "a word after the `-c` string's $0 that ctxlint cannot count" if ref.why == "c" else \
                    "a word of the service's command that ctxlint cannot count" if ref.why == "script" else \
                    "an argument the script's caller passes"
                return f"{spelling} {what} ({whose})", self.problem_source(problem, tokens)
            if ref.style == "shell" and "[" in ref.name and ref.why == "rest":  # engines/array_rests.py
                return f"{spelling} {what} (appended inside a loop or after `&&`, so whether and how often is " \
                    "not known)", self.problem_source(problem, tokens)
            if ref.style == "shell" and "[" in ref.name:  # engines/shellarrays.py reads only literal arrays
                return f"{spelling} {what} (an array element ctxlint cannot read)", self.problem_source(problem, tokens)
            why = "is set inside a branch or loop of the script" if ref.name in self.unsure else \
                "is set by the script to a value it does not hold" if ref.why == "set" else \
                "is set only by an option the script's caller passes (its option-parsing loop)" \
                if ref.why == "option" else \
                (self.env_why(ref.name) or "has no literal value in the file (secret, config map or host variable)") \
                if ref.name in self.env \
                else "is not set in the file; a file the script sources before may set it" if ref.why == "sourced" \
                else _PANE if ref.why == "tmux" else _REMOTE if ref.why == "ssh" else _UNEXPORTED if ref.why == "unexported" else "is not set in the file"
            return f"{spelling} {what} ({ref.name} {why})", self.problem_source(problem, tokens)
        if problem.flag and problem.token_index is not None and problem.span is not None:  # said whole where read
            return problem.message, self.problem_source(problem, tokens)  # (joined_items.one_item_unknown)
        name = problem.message.split()[1] if problem.message.startswith("env ") else ""
        why = self.env_why(name) or self.assign_why(name)
        return f"{spelling} from env ({problem.message}{': ' + name + ' ' + why if why else ''})", \
            self.problem_source(problem, tokens)

    def literal_model(self, s: Setting, tokens: Sequence[Token]) -> Optional[Tuple[str, Source]]:
        """The model as Kubernetes passes a `${NAME}` (or `$NAME`) of an exec-form item: as written, since it
        expands only `$(NAME)` and no shell runs (engines/execform.py). The engine gets no model by that name;
        (the unresolved-value text, where) or None."""
        tok = tokens[s.token_index] if s.origin == "flag" and s.token_index is not None and \
            s.token_index < len(tokens) else None
        ref = next((r for r in tok.refs if r.style == "k8s-literal"), None) if tok is not None else None
        if ref is None:
            return None
        return (f"{s.flag_spelling or 'model'} {ref.value} (Kubernetes passes `{ref.value}` to the engine as written: "
                f"it expands only `$({ref.name})` in command and args, and no shell runs; write `$({ref.name})`)",
                self.setting_source(s, tokens, self.assigns))

    def assign_why(self, name: str) -> Optional[str]:
        """Why a script's `NAME=value` (a prefix, or an export: engines/shell_exports.py) has no known value."""
        found = self.assigns.get(name)
        refs = found.token.unresolved if found is not None else ()
        if not refs:
            return None
        ref = refs[-1]
        if ref.name == name and ref.why in ("branch", "sourced", "set", "tmux", "ssh"):
            return {"branch": "is set or exported inside a branch or loop of the script",
                    "sourced": "is not set in the file; a file the script sources before may set it",
                    "set": "is set by the script to a value it does not hold", "tmux": _PANE,
                    "ssh": _REMOTE}[ref.why]
        return f"is set from {_not_evaluated(ref.name, article=True)}" if ref.style == "command" else \
            f"is set from ${{{ref.name}}}"

    def env_why(self, name: str) -> Optional[str]:
        """Why the container's variable `name` has no known value, when its reader could say more (a ConfigMap
        defined differently in several files: adapters.config_map_refs)."""
        return next((var.why for var in reversed(self.c.env) if var.name == name), None) if name else None


# a script's variable it never exports: an `sh -c` child shell does not get it (engines/container_scripts.py)
_UNEXPORTED = "is set by the script but not exported: the child shell gets it only if the script's own environment " \
    "had it"
# a tmux pane's shell has the environment the tmux server started with (engines/tmux.py)
_REMOTE = "is the remote shell's: ssh runs the command on another host, without this script's variables"
_PANE = "is the tmux pane's: its shell has the environment the tmux server started with, this script's only if " \
    "this command started the server"


def _not_evaluated(text: str, article: bool = False) -> str:
    """What an unresolved `$(...)` or `$((...))` is: a command ctxlint does not run, or arithmetic (engines/arith.py)
    over a value it does not know (bash manual: Arithmetic Expansion is not Command Substitution)."""
    if text.startswith("$(("):
        return f"{'an ' if article else ''}arithmetic expansion ctxlint cannot evaluate"
    return f"{'a ' if article else ''}command substitution, not evaluated"
