"""A program's own words (a shell and its script, `vllm serve M`) given as arguments to an image whose ENTRYPOINT
starts the engine: the engine runs with them, the program never does.

Docker appends a container's command to an exec-form ENTRYPOINT (docs.docker.com/reference/dockerfile/#entrypoint:
"Command line arguments to docker run <image> will be appended after all elements in an exec form ENTRYPOINT";
compose-spec's `command` "overrides the default command declared by the container image", the CMD), and Kubernetes
runs the image's ENTRYPOINT with a container's `args` when it has no `command` (kubernetes.io, "Define a Command
and Arguments for a Container": "If you supply only args for a Container, the default Entrypoint defined in the
Docker image is run with the args that you supplied"). So `command: /bin/sh -c "vllm serve M ..."` on
vllm/vllm-openai runs `vllm serve /bin/sh -c "..."` (the image's ENTRYPOINT: `["vllm", "serve"]` at
vllm-project/vllm@dead20baf70df70580ecb093f82b0b7b8676e4f5:docker/Dockerfile, `["python3", "-m",
"vllm.entrypoints.openai.api_server"]` before it, e.g. at e93d59a63db72e5101fd1eae3e9220cf30866709:Dockerfile and
0000977eaf873be6a295cf73017976d49ca2fb9d): under `vllm serve` `/bin/sh` is the model, the script a word no argument
of vLLM's takes (`model_tag`, nargs "?", is the only positional; `parse_args` exits on the rest: preset_args.py
cites both). Under the API server module `/bin/sh` is never the model: the module's parser had no positional (a
`model_tag` only `vllm serve`'s subparser added: "api_server.py: error: unrecognized arguments", vllm#27389), and
where make_arg_parser gained one (vllm-project/vllm@789340fbad95a900ca3c467c9cee33b3d905fd61:vllm/entrypoints/openai/
cli_args.py) only `serve`'s cmd copies it into --model (@78265ccd8aadf98d0e9d33c13b6cd2f0053b165e:vllm/entrypoints/
cli/serve.py): the module serves --model's default. Which release moved the image to `vllm serve` is in no
source at hand (the Dockerfile's history is not: only those snapshots), so the message says both, whatever the
tag: true for every release, where naming one side could be wrong for the image in the file. TGI's image runs
`text-generation-launcher $@` (huggingface/text-generation-inference@db931fcf:tgi-entrypoint.sh) and llama.cpp's
server images `llama-server`: a shell's words are no flags of theirs either. The reader says so at the first word
(CTX301), with what to write instead, and reads the words as the engine does, never the script as if a shell
ran it; with no model (workload_launchers.program_as_args): the `/bin/sh` vLLM would take for one is never served. Imported only for such a container.
"""
from __future__ import annotations

from typing import Optional, Sequence

from ctxlint.engines.tokens import SHELLS, Token
from ctxlint.findings import Diagnostic
from ctxlint.model import Source

_ENGINES = {"vllm": "vLLM", "sglang": "SGLang", "tgi": "TGI", "llamacpp": "llama.cpp", "lmdeploy": "LMDeploy",
            "trtllm": "TensorRT-LLM"}


def engine_args_as_program(tokens: Sequence[Token], start: int, engine: str, image: str, at: Source,
                           form: str) -> Diagnostic:
    """CTX301 at tokens[start], the first word handed to the image's ENTRYPOINT. `form`: "compose", "docker",
    "kubernetes" or "dockerfile" (how the words were given, for the advice)."""
    name = _ENGINES.get(engine, engine)
    first = tokens[start].text
    words = " ".join(_shown(t.text) for t in tokens[start:start + 3])
    words = words if len(words) <= 60 else words[:56] + '..."'
    shell = first.rsplit("/", 1)[-1] in SHELLS
    # TGI's launcher and llama-server have no positional argument; vLLM's depends on the image's entrypoint (above)
    taken = (f"`vllm serve`, the entrypoint of newer images, takes `{first}` for the model; the older "
             f"`python3 -m vllm.entrypoints.openai.api_server` never serves it") if engine == "vllm" \
        else f"{name} has no argument `{first}`" if engine in ("tgi", "llamacpp") \
        else f"{name} reads `{first}` as its first argument"
    given = {"compose": "`command:` without `entrypoint:` is", "docker": "the words after the image are",
             "kubernetes": "`args:` without `command:` are", "dockerfile": "the Dockerfile's CMD is"}[form]
    if shell:
        what = (f"the container runs {name} with `{words}` as its arguments ({taken}): "
                f"the shell never runs the script and {name} exits on these words")
        # `sh -c` runs its first argument and makes the rest $0, $1...: the script must reach it as ONE word.
        # Compose splits a string `command:` into words (ShellCommand: shellwords.Parse of a scalar, a sequence
        # item by item; compose-spec/compose-go@c100299aef5ebc4b578a886ddcfd7b859ac1fc79:types/command.go), so
        # only a list item keeps it whole; a shell-form CMD is `/bin/sh -c` and its text after an exec-form ENTRYPOINT
        # (docs.docker.com/reference/dockerfile/ "Understand how CMD and ENTRYPOINT interact"), so `sh -c` would
        # run `/bin/sh` there: an exec-form CMD of one item is the script
        script = _script(tokens, start)
        fix = {"compose": f'set `entrypoint: ["{first}", "-c"]` and give the whole script as ONE `command:` list item '
                          f"(a string `command:` is split into words, and `{first} -c` runs only the first): "
                          f'`command: ["{script}"]`, or a `- |` block string as its one item',
               "docker": f"write `--entrypoint {first} IMAGE -c \"...\"`",
               "kubernetes": f'set `command: ["{first}", "-c"]` and give the whole script as ONE `args:` item '
                             f'(`args: ["{script}"]`): `{first} -c` runs only the first item',
               "dockerfile": f'set `ENTRYPOINT ["{first}", "-c"]` and give the whole script as a one-item exec-form '
                             f'CMD (`CMD ["{script}"]`)'}[form]
        fix += ", or give the engine's arguments alone"
    else:
        what = (f"the container runs {name} with `{words}` as its arguments ({taken}) and exits on them, "
                f"not the program they name")
        fix = "drop the program's words and give the engine's arguments alone"
    example = {"compose": '`command: ["--model", ...]`', "docker": "`IMAGE --model ...`",
               "kubernetes": '`args: ["--model", ...]`', "dockerfile": '`CMD ["--model", ...]`'}[form]
    return Diagnostic("engine-rejects-value", (
        f"the image {image} starts {name} itself (its ENTRYPOINT), and {given} appended to it: {what}; "
        f"{fix} ({example})"), at)


def _script(tokens: Sequence[Token], start: int) -> str:
    """The script `sh -c` was given (the word after `-c`), short, with its quotes escaped, for the advice's example;
    `...` when the shell was given none."""
    at = start + 2 if start + 1 < len(tokens) and tokens[start + 1].text == "-c" else None
    words = tokens[at].text.split() if at is not None and at < len(tokens) else []
    text = " ".join(words)
    while len(text) > 50 and len(words) > 1:  # whole words only
        words = words[:-1]
        text = " ".join(words) + " ..."
    return text.replace("\\", "\\\\").replace('"', '\\"') or "..."


def _shown(word: str) -> str:
    """A word as a reader knows it from a command line: its blanks joined, in quotes when it holds any."""
    one = " ".join(word.split())
    return f'"{one}"' if one != word or not one or " " in one else one


def form_of(docker: Optional[object], compose: bool) -> str:
    return "docker" if docker is not None else "compose" if compose else "kubernetes"
