"""CTX301's text for `sh -c` given an engine's command as several words (adapters/c_script_words.py has the why:
the shell runs only its first operand as the script, the rest are its $0, $1, ...). Here, for the exec-form lists
the adapters read and for the splitter's own `sh -c WORD ...` lines of a shell script (`cut_short`), which it
hands on as a SplitProblem marked CUT_SHORT; workload.py makes it the finding at the script word."""
from __future__ import annotations

from typing import List, Optional, Sequence

from .detect import detect

CUT_SHORT = "sh -c cut short: "  # a SplitProblem's message prefix: the rest is CTX301's text
_ENGINES = {"vllm": "vLLM", "sglang": "SGLang", "tgi": "TGI", "llamacpp": "llama.cpp", "lmdeploy": "LMDeploy",
            "trtllm": "TensorRT-LLM", "tgis": "TGIS"}


def cut_short_text(shell_words: Sequence[str], rest: Sequence[str], where: str) -> Optional[str]:
    """CTX301's text for `SHELL -c` (`shell_words`) given `rest` (the script word first) when the script is one
    word naming an engine's program and the words after it are that command's rest; None otherwise. `where`:
    "compose", "compose-string" (a string `command:` whose own words hold the shell), "kubernetes" or "shell" (a
    script's command line, or a `docker run` line in it), for the advice."""
    program = rest[0] if rest else ""
    if len(rest) < 2 or not program or any(c.isspace() for c in program) or "$" in program:
        return None
    found = detect(list(rest))
    if not found or found[0].start != 0:
        return None
    engine = _ENGINES.get(found[0].engine, found[0].engine)
    shell = " ".join(shell_words)
    lost = " ".join(_shown(t) for t in rest[1:4]) + (" ..." if len(rest) > 4 else "")
    whole = _example(" ".join(rest))
    base = program.rsplit("/", 1)[-1]
    runs = (f"`{program}` with no subcommand prints vLLM's help and exits: no server starts" if base == "vllm" else
            f"`{program}` alone is an interpreter reading its stdin, not {engine}'s module: no server starts"
            if base.startswith("python") else
            f"`{program}` starts with none of these words ({engine} on its own defaults, not the command written)")
    fix = (f"quote the script as one word (`command: {shell} \"{whole}\"`)" if where == "compose-string" else
           f"give the whole script as ONE `command:` list item (`command: [\"{whole}\"]`, or a `- |` block "
           "string as its one item)" if where == "compose" else
           f"give the whole script as ONE `args:` item (`args: [\"{whole}\"]`)" if where == "kubernetes" else
           f"quote the whole script as ONE word (`-c \"{whole}\"`)")
    return (f"`{shell}` runs only its first argument as the script and makes the rest its $0, $1, ... ({lost}): "
            + (f"Compose splits a string `command:` into words, so " if where.startswith("compose") else "")
            + f"{runs}; {fix}")


def _example(text: str) -> str:
    """The script for the advice's example: whole words, at most about 50 characters, quotes escaped."""
    words: List[str] = text.split()
    shown = " ".join(words)
    while len(shown) > 50 and len(words) > 1:
        words = words[:-1]
        shown = " ".join(words) + " ..."
    return shown.replace("\\", "\\\\").replace('"', '\\"')


def _shown(word: str) -> str:
    return f'"{word}"' if not word or any(c.isspace() for c in word) else word



def cut_short(program: list, idx: int, script_word, ctx) -> None:
    """A shell script's `sh -c WORD REST...` (or `docker run ... IMAGE -c WORD REST...`) whose WORD, typed without
    a space, names an engine's program and REST is its command: noted for CTX301 at WORD (the lone program runs)."""
    if idx + 1 >= len(program) or any(part.kind != "lit" for part in script_word.parts):
        return
    texts = [t.text for t in program]
    first = texts[0].rsplit("/", 1)[-1]
    if first in ("docker", "podman", "nerdctl"):  # the container's shell: `--entrypoint /bin/sh IMAGE -c` or
        from .docker_run import parse_run  # `IMAGE sh -c`

        run = parse_run(texts)
        shell = ([run.entrypoint] if run is not None and run.entrypoint else []) + \
            texts[run.image + 1 if run is not None else 0:idx]
    else:  # the shell itself, not a wrapper in front of it (`timeout 1h bash -lc`)
        from .tokens import SHELLS

        start = max((k for k in range(idx) if texts[k].rsplit("/", 1)[-1] in SHELLS), default=0)
        shell = texts[start:idx]
    text = cut_short_text(shell, texts[idx:], "shell")
    if text is not None:
        from .tokens import SplitProblem

        token = program[idx]
        ctx.problems.append(SplitProblem(CUT_SHORT + text, token.start, token.end, ctx.item))
