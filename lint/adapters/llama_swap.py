"""llama-swap's config (`models: {name: {cmd: "llama-server ...", env: ["K=V"]}}`), read by engine_files.py.

Every model's `cmd` is a command line, read like a container's script, with `${name}` taken from the `macros:`
(llama-swap's own substitution; `${PORT}` is unknown until run time), and its `capabilities.context` is the window
llama-swap's /v1/models advertises (a route).

llama-swap splits a `cmd` itself (no shell), with the dialect of the host it runs on: `shlex.Windows.Split` when
runtime.GOOS is "windows", else `shlex.Posix.Split` (mostlygeek/llama-swap@0bdb3720199f530b622a1934c0db89f32c94819c:
internal/config/commands.go SanitizeCommand). In the Windows dialect a backslash is a character unless a run of them
ends at a `"` (billziss-gh/golib@96c1ae5b8b676c005d854315cbd73bd72b9b0c65:shlex/shlex.go `Windows`), so
`C:\\apps\\llama-server.exe` is one word naming llama-server, where POSIX words would make the backslashes escapes and
the program `C:appsllama-server.exe`. A file whose cmds or macros name a drive path with backslashes runs on Windows
(no POSIX host could start that program): its texts reach the (POSIX) word reader with each such backslash spelled
`/`, at the same length so positions still point into the file; a run before a `"` is kept (both dialects read `\\"`
as a literal quote). Not modelled: the Windows dialect's single quote is a plain character.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.gw_common import at_file, count
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import Container, Workload, read_container
from ctxlint.adapters.workload_inputs import env_from_list
from ctxlint.findings import Diagnostic
from ctxlint.lazyre import lazy_compile
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, Node
from ctxlint.routes import BackendRef, Route

_MACRO_REF = lazy_compile(r"\$\{([A-Za-z0-9_-]+)\}")
# A drive-letter path with a backslash (`C:\`, `f:\`), not the end of a longer word.
_DRIVE_PATH = lazy_compile(r"(?<![A-Za-z0-9_])[A-Za-z]:\\")
# A run of backslashes not followed by `"` (nor by another backslash, so a run is never cut short).
_LITERAL_BACKSLASHES = lazy_compile(r"\\+(?![\\\"])")


def llama_swap(root: Node, spans: ScalarSpans, result: AdaptResult, gpus: Optional[Val[int]] = None,
               device: Optional[Val[str]] = None) -> List[Workload]:
    """One workload per model whose `cmd` starts an engine, and a route for each stated `capabilities.context`.
    `gpus`, `device`: those of the pod whose llama-swap container reads this config (llama_swap_pods.py): every
    model's process is its child, on its GPUs."""
    out = []
    windows = _windows_host(root, spans)
    shared = _macros(root.get("macros"), windows)
    start = root.get("startPort")
    port = str(start.value) if start is not None and isinstance(start.value, int) else "5800"
    for name, model in root.get("models").value.items():
        cmd = model.get("cmd") if model.kind == MAP else None
        if cmd is None or cmd.kind != SCALAR or not isinstance(cmd.value, str):
            continue
        # `${name}` in cmd is a llama-swap macro (top-level `macros:`, a model's own `macros:`
        # win), substituted as text, not an environment variable. `${PORT}` is the port llama-swap
        # assigns (from `startPort`, default 5800): it never matters to a check, so it is not
        # reported as unresolved. `${MODEL_ID}` is the model's own key (llama-swap's mergeModelMacros; PORT, PID and
        # MODEL_ID are reserved: no macros: entry may take them), mostlygeek/llama-swap@0bdb3720:internal/config/
        # macros.go. Macros are text put into the cmd before llama-swap splits it (shlex, no shell): a value's
        # quotes group its words there (`--speculative-config '{"method": "ngram"}'` is two words), so the cmd is
        # read as a string interpolated before it is split (compose_refs, text_macros), not with shell variables.
        expanded, left = _expand({"MODEL_ID": str(name), **shared, **_macros(model.get("macros"), windows)}, port)
        macros = _shell_names(expanded)
        written = _shell_names({**_macro_nodes(root.get("macros")), **_macro_nodes(model.get("macros"))})
        for used in dict.fromkeys(_MACRO_REF.findall(cmd.value)):
            if used in left:  # llama-swap refuses the whole file (validateConfigMacroUses): never a silent skip
                at_node = written.get(used)
                result.diagnostics.append(Diagnostic(
                    "schema-violation",
                    f"llama-swap refuses this file: the macro {used} puts ${{{left[used]}}} into models.{name}.cmd, "
                    f"which stays unsubstituted (\"unknown macro\"): a macro's value is given only the macros declared "
                    f"before it (and a model's new macros come after the global ones); declare {left[used]} earlier",
                    (at_node if at_node is not None else cmd).source(spans.file), str(name)))
        reading = read_container(Container(spans=spans, node=model, name=str(name), script=cmd,
                                           script_text=_one_line(cmd.value, windows),
                                           env=env_from_list(model.get("env")),
                                           k8s_refs=False, compose_refs=True, text_macros=True,
                                           resolver=macros.get, resolver_nodes=written,
                                           accelerator_count=gpus, accelerator_type=device))
        result.diagnostics.extend(reading.diagnostics)
        if reading.roles:
            key = root.get("models").keys[name]
            out.append(Workload(name=Val(str(name), key.source(spans.file)), source=model.source(spans.file),
                                input_format="llama-swap", roles=reading.roles))
            written = model.dig("capabilities", "context")  # 0 is llama-swap's "not configured"
            context = count(written, at_file(spans.file),
                            result.diagnostics if written is None or written.value != 0 else None)
            if context is not None:  # what /v1/models tells clients: the model's context length
                result.routes.append(Route(
                    file=spans.file, source=model.source(spans.file), gateway="llama-swap",
                    name=Val(str(name), key.source(spans.file)), window=context,
                    backends=(BackendRef("workload", str(name), key.source(spans.file)),)))
    return out


def _windows_host(root: Node, spans: ScalarSpans) -> bool:
    """Whether llama-swap runs this file on Windows: a cmd or macro names a drive path with backslashes (`C:\\`),
    which no POSIX host could start."""
    if ":\\" not in spans.text:
        return False
    models = list(root.get("models").value.values())
    texts = [str(m.get("cmd").value) for m in models if m.kind == MAP and m.get("cmd") is not None]
    texts += [str(v.value) for n in [root] + models if n.kind == MAP for v in _macro_nodes(n.get("macros")).values()]
    # a `#` line is dropped before the split (SanitizeCommand): a path named there says nothing of the host
    return any(_DRIVE_PATH.search(line) for t in texts for line in t.split("\n")
               if not line.strip().startswith("#"))


def _macros(node: Optional[Node], windows: bool = False) -> Dict[str, str]:
    if node is None or node.kind != MAP:
        return {}
    # llama-swap puts a macro's text into the cmd before it splits the cmd (shlex, no shell): the value's line
    # breaks are blanks there, as the cmd's own are (`_one_line`), and its quotes group words (compose_refs below).
    # Its `${name}`s keep their spelling: `_expand` puts the earlier macros' texts there by their own names.
    return {str(k): _one_line(str(v.value), windows, names=False).replace("\n", " ") for k, v in node.value.items()
            if v.kind == SCALAR and v.value is not None and not isinstance(v.value, bool)}


def _macro_nodes(node: Optional[Node]) -> Dict[str, Node]:
    return {str(k): v for k, v in node.value.items() if v.kind == SCALAR} if node is not None and \
        node.kind == MAP else {}


def _one_line(cmd: str, windows: bool = False, names: bool = True) -> str:
    """llama-swap drops `#` comment lines and trailing backslashes, then splits the rest like
    a shell word list with newlines as spaces (`cmd: |` with one flag per line is one command).
    Replacements keep every character's index, so positions still point into the file."""
    lines = []
    split = cmd.split("\n")
    for i, line in enumerate(split):
        stripped = line.strip()
        if stripped.startswith("#"):
            line = " " * len(line)
        elif stripped.endswith("\\") and (names or i < len(split) - 1):
            # A macro's text is put into the cmd before llama-swap drops the backslash that ends a line: its last
            # line goes on with the cmd's text after the `${name}` (`${dir}model.gguf` with `dir: C:\models\`),
            # so a backslash ending it ends no line (a cmd's own last line does end there).
            cut = line.rstrip()
            line = cut[:-1] + " " + line[len(cut):]
        lines.append(line)
    text = " ".join(lines)
    # Macro names may hold `-` and `.` (`${latest-llama}`), which a shell name cannot: spelled with `_`
    # (same length) they are expanded, and word-split like any unquoted expansion (`_shell_names`); `names`
    # is False for a macro's own text, whose `${name}`s llama-swap substitutes as text (`_expand`).
    text = text if not names else _MACRO_REF.sub(lambda m: m.group(0).replace("-", "_").replace(".", "_"), text)
    if windows:  # the Windows dialect keeps these backslashes as characters: `/` reads them so, at one length
        text = _LITERAL_BACKSLASHES.sub(lambda m: "/" * len(m.group(0)), text)
    return text[:-1] + "\n" if cmd.endswith("\n") else text  # a block's final newline stays: it is in the file


def _shell_names(values: Dict[str, Any]) -> Dict[str, Any]:
    """Macros also under their names as `_one_line` spells them in the command."""
    return {**values, **{k.replace("-", "_").replace(".", "_"): v for k, v in values.items()}}


def _expand(macros: Dict[str, str], port: str) -> tuple:
    """Each macro's text as llama-swap puts it into the cmd (mostlygeek/llama-swap@0bdb3720199f530b622a1934c0db89f32c94819c:
    internal/config/macros.go): substituteMacroList replaces the macros last-declared first (MODEL_ID first in the
    list, then the global macros with a model's own in their place, then the model's new ones: mergeModelMacros),
    so the text a macro puts in is then given only the macros declared before it; `${PORT}` comes after all of them.
    A `${name}` still left (a macro declared later, or none) makes llama-swap refuse the file
    (validateConfigMacroUses): that macro is not known (None), and the second dict names what it kept."""
    names = list(macros)
    out: Dict[str, Optional[str]] = {}
    left: Dict[str, str] = {}  # a macro whose text keeps a `${name}`: that name
    for i, name in enumerate(names):
        text = macros[name]
        for earlier in reversed(names[:i]):
            text = text.replace(f"${{{earlier}}}", macros[earlier])
        text = text.replace("${PORT}", port)
        kept = _MACRO_REF.search(text)
        out[name] = None if kept else text
        if kept:
            left[name] = kept.group(1)
    out["PORT"] = port
    return out, left
