r"""A command substitution that runs the Hugging Face CLI's `download`: its output is the path it downloaded to.

    MODEL_PATH=$(hf download --format quiet Qwen/Qwen2.5-0.5B-Instruct-GGUF qwen2.5-0.5b-instruct-q4_k_m.gguf)
    llama-server -m "$MODEL_PATH" --ctx-size 131072

`hf download REPO [FILE...]` (and the older `huggingface-cli download`) prints the local path of what it fetched into
the Hugging Face cache (huggingface/huggingface_hub@ee0a4510f4bc15e26cb722be2efc2bdb01383ca0:src/huggingface_hub/
cli/download.py): one regular FILE is `hf_hub_download`'s file path, `<cache>/models--ORG--NAME/snapshots/<commit>/
FILE` (`--include`/`--exclude` then ignored); no file, several, a `dir/` are `snapshot_download`'s folder,
`<cache>/models--ORG--NAME/snapshots/<commit>`. A script captures that path and hands it to the engine, so the
engine loads a snapshot of REPO: the substitution is read as that path, which names the repository (and the GGUF
file's quantization) as any Hugging Face cache path does (resolution/names.py). Before, the variable was unknown
and the model with it (sweep p30: Adam-D-Lewis/skyllm's sky/sky-llamacpp*.yaml, 12 deployments).

The path is written with the cache the script names (`--cache-dir`, else `$HF_HUB_CACHE`, else `$HF_HOME/hub`, else
huggingface_hub's default `~/.cache/huggingface/hub`) and `{commit}` for the snapshot's commit unless `--revision`
gives one; those two parts only place the file, the repository and the file name are the script's own words.
What prints something else, or what ctxlint cannot tell, is left unknown as before: a pipe, `;`, a redirection other
than `2>/dev/null`, `--dry-run` (a table), `--local-dir` (the path is that folder, not a snapshot of the repository
by its name: a bare folder names no model), a dataset or a space (`--repo-type`, or the type an `hf://` URI
names), a word whose value is not known, an option neither CLI has. `hf` reads an `hf://` URI in place of REPO
(huggingface_hub 1.19.0 on, through 2.5.0's cli/download.py; not 1.18.0's): a model's is read as its repository,
revision and file (engines/hf_uris.py). `huggingface-cli` is gone from huggingface_hub 1.0 on
(huggingface/huggingface_hub#3404, "Remove `huggingface-cli` entirely in favor of `hf`": the 0.36.2 wheel's entry
points list it, 1.0.0's and 2.5.0's only `hf`), so its download prints a path only where the image's huggingface_hub
is older; which one an image holds is not read, and where it is newer the command is not found and the engine starts
with no path. The newest `hf` prints a decorated line unless it runs with
`--format quiet` (cli/_output.py, 2026-04); whichever it prints, a server that starts was given that path. A format
the script asks for by name other than `quiet` is not a bare path (cli/_output.py Output.result: `json` prints
`{"path": ...}`, `agent` `path=...`, `human` and `auto` a decorated line), so it stays unknown.
"""
from __future__ import annotations

from typing import Callable, List, Optional

from ctxlint.lazyre import lazy_compile

from .command_prefixes import ASSIGN
from .lex_words import Part, Word
from .tokens import Token

_PROGRAMS = ("hf", "huggingface-cli")
# options taking a value, in either CLI (`--type` is hf's alias of `--repo-type`, cli/_cli_utils.py)
_VALUED = frozenset({"--repo-type", "--type", "--revision", "--include", "--exclude", "--cache-dir", "--token",
                     "--max-workers", "--format", "--local-dir-use-symlinks"})
# huggingface-cli's `--include`/`--exclude` take nargs="*" (huggingface/huggingface_hub@61bc87eb4d774c477ee87c9bf14aa9557ccb4e34:
# src/huggingface_hub/commands/download.py, and cli/download.py's argparse `hf` before 1.0); hf 1.0 on takes one each
_PATTERNS = frozenset({"--include", "--exclude"})
_FLAGS = frozenset({"--force-download", "--resume-download", "--quiet", "-q"})
_STDERR_AWAY = lazy_compile(r"\s+2>\s*/dev/null\s*$")
_COMMIT = lazy_compile(r"[0-9a-f]{40}")
_REPO = lazy_compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")


def downloaded_path(part: Part, ctx, expand: Callable) -> Optional[Token]:
    """The path `$(hf download REPO [FILE])` prints, placed over the whole substitution, or None for any other
    substitution and for a download this module does not read (the module docstring)."""
    raw = "".join(run[0] for run in part.runs)
    starts = tuple(s for run in part.runs for s in run[1])
    ends = tuple(e for run in part.runs for e in run[2])
    if not (raw.startswith("$(") and raw.endswith(")")) or len(starts) != len(raw):
        return None
    inner = raw[2:-1]
    away = _STDERR_AWAY.search(inner)
    inner = inner[:away.start()] if away else inner
    from .lexer import lex

    items, problems = lex(inner, list(zip(starts[2:2 + len(inner)], ends[2:2 + len(inner)])))
    if problems or not items or not all(isinstance(item, Word) for item in items):
        return None  # an operator: a pipe, a list, a redirection of its output
    words = [token for item in items for token in expand(item, ctx)]
    while words and ASSIGN.match(words[0].text):  # `HF_HUB_ENABLE_HF_TRANSFER=1 hf download ...`
        words = words[1:]
    if len(words) < 3 or words[1].text != "download" or words[1].unresolved:
        return None
    program = words[0].text.rsplit("/", 1)[-1]  # `"$ENV/bin/hf"`: the binary its typed last segment names
    if program not in _PROGRAMS or "$" in program:
        return None
    path = _path([w.text for w in words[2:]], any(w.unresolved for w in words[2:]), ctx, program)
    if path is None:
        return None
    begin, end = min(starts), max(ends)
    return Token(path, begin, end, (begin,) * len(path), (end,) * len(path), (), ctx.item)


def _path(args: List[str], unknown: bool, ctx, program: str = "hf") -> Optional[str]:
    """The path the download prints for its arguments, or None (the module docstring)."""
    if unknown:
        return None
    options: dict = {}
    positional: List[str] = []
    k = 0
    while k < len(args):
        word = args[k]
        name, eq, value = word.partition("=")
        if word.startswith("-") and name in _VALUED:
            if not eq:
                k += 1
                if k >= len(args):
                    return None
                value = args[k]
                if name in _PATTERNS:
                    # argparse's nargs="*" (huggingface-cli; hf before 1.0): the words up to the next option are
                    # patterns too; hf 1.0 on (click) takes one, the next word a file: for hf, not known which
                    more = 0
                    while k + 1 + more < len(args) and not args[k + 1 + more].startswith("-"):
                        more += 1
                    if more and program != "huggingface-cli":
                        return None
                    k += more
            if name == "--format" and value != "quiet":
                return None  # json, agent, human, auto: the path inside other text (the module docstring)
            options[name] = value
        elif word.startswith("-"):
            if word not in _FLAGS:
                return None  # --local-dir, --dry-run, or an option neither CLI has
        else:
            positional.append(word)
        k += 1
    if not positional:
        return None
    files = positional[1:]
    revision = options.get("--revision", "")
    if positional[0].startswith("hf://") and program == "hf":
        from .hf_uris import model_uri

        uri = model_uri(positional[0])
        # the URI gives the type, revision and file: either option beside it, or files beside its path, stop hf
        if uri is None or {"--repo-type", "--type", "--revision"} & options.keys() or uri.path and files:
            return None
        positional, files, revision = [uri.repo], [uri.path] if uri.path else files, uri.revision
    if not _REPO.fullmatch(positional[0]):
        return None  # no repository (an `hf://` URI hf does not read as a model's, or huggingface-cli's)
    if options.get("--repo-type", options.get("--type", "model")) != "model":
        return None
    org, name = positional[0].split("/", 1)
    snapshot = f"{_cache(options.get('--cache-dir'), ctx)}/models--{org}--{name}/snapshots/" \
               f"{revision if _COMMIT.fullmatch(revision) else '{commit}'}"
    one = len(files) == 1 and not files[0].endswith("/")
    return f"{snapshot}/{files[0]}" if one else snapshot


def _cache(flag: Optional[str], ctx) -> str:
    """The cache folder huggingface_hub writes to: `--cache-dir`, `$HF_HUB_CACHE`, `$HF_HOME/hub`, its default."""
    if flag:
        return flag.rstrip("/")
    hub = ctx.lookup("HF_HUB_CACHE")
    if hub:
        return hub.rstrip("/")
    home = ctx.lookup("HF_HOME")
    return f"{home.rstrip('/')}/hub" if home else "~/.cache/huggingface/hub"

