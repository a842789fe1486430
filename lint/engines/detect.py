"""Find engine invocations in a command's tokens (what an image name says is in images.py).

Engine ids: "vllm", "sglang", "tgi", "trtllm", "llamacpp", "lmdeploy", and "tgis" (IBM's TGI fork).
`launcher` tells which front door was used ("vllm serve", "dynamo.vllm", ...),
because Dynamo workers accept extra flags and TRT-LLM's Dynamo worker spells
them differently.
"""
from __future__ import annotations

import re
from typing import Optional, Sequence, Union

from ctxlint.lazyre import lazy_compile

from ..records import record, replace
from .images import engine_from_image, image_entrypoint_is_engine, split_image
from .runners import NOTHING, SCAN, run_verb, runs, scan_end
from .specs import TRL_LAUNCHER
from .tokens import SHELLS, Token

_PY = lazy_compile(r"python(\d+(\.\d+)?)?$")
_MODULES = {
    "vllm.entrypoints.openai.api_server": ("vllm", None),
    "vllm.entrypoints.api_server": ("vllm", None),
    # gRPC front end: AsyncEngineArgs.add_cli_args on a FlexibleArgumentParser, the same engine flags
    # (vllm-project/vllm@029329a8eded26d05ef8d4a302a6c9f318817dd8:vllm/entrypoints/grpc_server.py)
    "vllm.entrypoints.grpc_server": ("vllm", None),
    # OpenShift AI's gRPC runtime: vLLM's own parser (make_arg_parser) and engine, TGIS's spellings beside its flags
    # (opendatahub-io/vllm-tgis-adapter@df3596ae59854c7e7efaf9fee3c3ace9623c95ee:src/vllm_tgis_adapter/__main__.py;
    # flags_tgis_adapter)
    "vllm_tgis_adapter": ("vllm", None),
    "sglang.launch_server": ("sglang", None),
    # The router's co-launcher: the whole ServerArgs plus the router's `--router-*` flags on one parser, then one
    # SGLang server per data-parallel rank, each of TP tp_size with dp_size 1 (`launch_server_process`), and a router
    # in front (sgl-project/sglang@106f37cea63a70dea91958cb633ccbd87c932d40:sgl-model-gateway/bindings/python/src/
    # sglang_router/launch_server.py; sgl-router/py_src/sglang_router/launch_server.py at cc42351f8624 before the move).
    # `sglang_router.launch_router` starts the router alone: no engine.
    "sglang_router.launch_server": ("sglang", None),
    "dynamo.vllm": ("vllm", None),
    "dynamo.sglang": ("sglang", None),
    "dynamo.trtllm": ("trtllm", None),
    # the API server module's parser (make_arg_parser), engine and UsageContext.OPENAI_API_SERVER with endpoints of
    # their own: SkyRL's server (NovaSky-AI/SkyRL@f2425e808e8c:skyrl/backends/skyrl_train/inference_engines/vllm/
    # vllm_server.py; yumc-afk/SkyRL@bafdbb5db698:skyrl-train/skyrl_train/inference_engines/vllm/vllm_server.py)
    "skyrl_train.inference_engines.vllm.vllm_server": ("vllm", "vllm.entrypoints.openai.api_server"),
    "skyrl.backends.skyrl_train.inference_engines.vllm.vllm_server": ("vllm", "vllm.entrypoints.openai.api_server"),
    "trl.scripts.vllm_serve": ("vllm", TRL_LAUNCHER),  # TRL's own flags before vLLM's LLM class (flags_trl)
}  # module -> (engine, the launcher it is read as when not the module itself)


@record(frozen=True)
class Detection:
    engine: str
    launcher: str
    subcommand: Optional[str]
    start: int  # index of the program token (0 for args-only containers)
    args_start: int  # index of the first argument after program and subcommand
    via_image: bool = False  # args-only: the image's entrypoint is the engine


def _base(text: str) -> str:
    return text.rsplit("/", 1)[-1]


def _texts(tokens: Sequence[Union[Token, str]]) -> list[str]:
    return [t.text if isinstance(t, Token) else str(t) for t in tokens]


# Every program _at can match, by its base name: these names, or a llama-server build or a
# Python interpreter (tests/engines/test_detect_prefilter.py checks the two agree).
_PROGRAMS = frozenset({"vllm", "sglang", "text-generation-launcher", "trtllm-serve", "lmdeploy", "server", "trl"})
_PROGRAM_PREFIXES = ("llama", "python")
_CALLERS_WORDS = frozenset({"$@", "$*", "${@}", "${*}"})  # all of the positional parameters, not known


def _at(texts: list[str], i: int, unknown: frozenset = frozenset()) -> Optional[Detection]:
    """Detection when the program starts at texts[i], else None. `unknown`: the indices of tokens that are
    an unresolved reference as a whole (`$PYTHON`, `"${PY_BIN}"`, `$(which python3)`), which may be the
    interpreter: followed by `-m` and an engine's module they start that engine, whatever they hold."""
    prog = _base(texts[i])
    nxt = texts[i + 1] if i + 1 < len(texts) else ""
    if prog == "vllm" and nxt == "serve":
        return Detection("vllm", "vllm serve", "serve", i, i + 2)
    if prog == "sglang" and nxt == "serve":
        return Detection("sglang", "sglang serve", "serve", i, i + 2)
    if prog == "trl" and nxt == "vllm-serve":  # TRL's CLI (trl/cli), the same parser as its module's (flags_trl)
        return Detection("vllm", TRL_LAUNCHER, None, i, i + 2)
    if prog in ("vllm", "sglang") and i + 1 in unknown and nxt in _CALLERS_WORDS:
        # `exec vllm "$@"` with the words the script's caller passes: a launch whose settings are not known
        # (the parser reports the unknown words: CTX008), not no launch at all
        return Detection(prog, f"{prog} serve", "serve", i, i + 1)
    if prog == "text-generation-launcher":
        return Detection("tgi", "text-generation-launcher", None, i, i + 1)
    if prog == "trtllm-serve":
        if nxt in ("serve", "disaggregated", "disaggregated_mpi_worker", "mm_embedding_serve"):
            return Detection("trtllm", "trtllm-serve", nxt, i, i + 2)
        return Detection("trtllm", "trtllm-serve", "serve", i, i + 1)
    # llama-swap setups keep one binary per build: llama-server-ec9e0301, llama-server-b4589
    if prog in ("llama-server", "llama_server") or re.match(r"^llama[-_]server[-_.][0-9a-z]+$", prog):
        return Detection("llamacpp", "llama-server", None, i, i + 1)
    if prog == "server" and _old_llama_server(texts, i):
        return Detection("llamacpp", "llama-server", None, i, i + 1)
    if prog == "lmdeploy" and nxt == "serve" and i + 2 < len(texts) and texts[i + 2] == "api_server":
        return Detection("lmdeploy", "lmdeploy serve api_server", "api_server", i, i + 3)
    if _PY.match(prog) or i in unknown:
        j = i + 1
        while j < len(texts) and texts[j].startswith("-") and texts[j] != "-m":
            j += 1  # interpreter options such as -u, -O
        if j + 1 < len(texts) and texts[j] == "-m":
            return _module_run(texts, i, j + 1)
    return None


def _module_run(texts: list[str], start: int, at: int) -> Optional[Detection]:
    """The launch `-m texts[at] ...` starts (`python -m`, `uv run -m`), its program at `start`, or None."""
    mod = texts[at]
    found = _module(mod, start, at + 1)
    if found is not None:
        return found
    if mod == "lmdeploy" and texts[at + 1:at + 3] == ["serve", "api_server"]:
        return Detection("lmdeploy", "lmdeploy serve api_server", "api_server", start, at + 3)
    # the `vllm` console script's own module: `vllm = "vllm.entrypoints.cli.main:main"`
    # (vllm-project/vllm@001cabc1be16a59a70d720ed61a13b678c060a18:pyproject.toml [project.scripts])
    if mod == "vllm.entrypoints.cli.main" and at + 1 < len(texts) and texts[at + 1] == "serve":
        return Detection("vllm", "vllm serve", "serve", start, at + 2)
    return None


def detect(tokens: Sequence[Union[Token, str]], image: Optional[str] = None,
           args_only: bool = False) -> list[Detection]:
    """Every engine invocation in one command's tokens.

    args_only: the tokens go to the image's ENTRYPOINT (Kubernetes `args`
    without `command`, compose `command` without `entrypoint`). Then, when no
    program is found and the image's entrypoint is the engine, the whole token
    list is one args-only detection.
    """
    texts = _texts(tokens)
    # a program named `--` (or `-u`, `-i`, any word with a leading `-`) does not exist: `env A=1 -- vllm`, `env A=1
    # -u X vllm` (GNU env 9.1 reads no option after an assignment) fail with "'--': No such file or directory"
    # (checked), and bash says `--: command not found`; args given to an image's entrypoint are that program's
    found = _programs(texts, _unknown(tokens)) if args_only or not texts or texts[0][:1] != "-" else []
    if found and found[0].engine == "tgi":
        found = [_tgis(d, texts, image) for d in found]
    if found and _base(texts[0]) in ("docker", "podman", "nerdctl"):
        from .container_runs import appended  # only a container run that names a program asks
        found = appended(texts, found)
    if not found:
        # `docker run [opts] IMAGE ARGS...`: the arguments after the image go to its entrypoint.
        if texts and _base(texts[0]) in ("docker", "podman", "nerdctl") and run_verb(texts) is not None:
            from .container_runs import entrypoint
            entry = entrypoint(texts)
            if entry is not None:  # the image's own entrypoint does not run: an engine named there, or none
                return entry
            for i, t in enumerate(texts):
                eng, _ = engine_from_image(t)
                if eng and image_entrypoint_is_engine(t):
                    return [Detection(eng, "image:" + t, None, i, i + 1, via_image=True)]
        if texts and _base(texts[0]) in ("apptainer", "singularity") and "run" in texts:
            from .container_runs import runscript
            return runscript(texts)
        if args_only and image:
            entry = entrypoint_detection(image)
            if not entry and not texts and engine_from_image(image)[0] == "tgis":
                # no words at all: the image's own CMD runs, and IBM TGIS images end `CMD text-generation-launcher`
                # (images._TGIS_IMAGES), configured by env (MODEL_NAME, MAX_SEQUENCE_LENGTH)
                return [Detection("tgis", "image:" + image, _image_sub("tgis"), 0, 0, via_image=True)]
            return entry
    return found


def entrypoint_detection(image: Optional[str]) -> list[Detection]:
    """The image's own ENTRYPOINT as the engine, reading every word given to it from the first (args-only
    containers), or [] when the image's entrypoint is not known to start its engine."""
    eng, _ = engine_from_image(image)
    if eng and image and image_entrypoint_is_engine(image):
        return [Detection(eng, "image:" + image, _image_sub(eng), 0, 0, via_image=True)]
    return []


def names_program(texts: Sequence[str]) -> bool:
    """Whether argument words start with a program of their own: a shell (`/bin/sh -c "..."`), a command prefix
    (`exec`, `env`), or an engine's program (`vllm serve M`). Given to an image whose ENTRYPOINT is the engine,
    they are that engine's arguments all the same (engine_args_as_program in adapters/entry_words.py)."""
    if not texts:
        return False
    first = _base(texts[0])
    return first in SHELLS or first in ("exec", "env", "nohup") or _at(list(texts), 0) is not None


def _tgis(d: Detection, texts: list[str], image: Optional[str]) -> Detection:
    """IBM's TGIS for a `text-generation-launcher` run from a TGIS image, or given a flag only TGIS's launcher has
    (flags_tgis.MARKERS): IBM kept Hugging Face's program name, not its arguments."""
    from .flags_tgis import MARKERS  # only a TGI launch pays for it

    if engine_from_image(image)[0] == "tgis" or any(engine_from_image(t)[0] == "tgis" for t in texts[:d.start]) \
            or any(t.split("=", 1)[0] in MARKERS for t in texts[d.args_start:]):
        return replace(d, engine="tgis")
    return d


# How each engine is started, for advice (engines.md §0).
ENGINE_COMMANDS = {"vllm": "vllm serve", "sglang": "python3 -m sglang.launch_server", "tgi": "text-generation-launcher",
                   "trtllm": "trtllm-serve", "llamacpp": "llama-server", "lmdeploy": "lmdeploy serve api_server",
                   "tgis": "text-generation-launcher"}


def unknown_entrypoint_flags(tokens: Sequence[Union[Token, str]], image: Optional[str]) -> tuple[Optional[str], list[str]]:
    """(engine, its flags among the tokens) for args-only tokens that `detect` gave no engine: an image of
    that engine whose entrypoint is not known to start it (rocm/vllm, a fork). Its flags there mean the
    arguments were written for the engine, but what runs them is unknown: said, never guessed."""
    engine, _ = engine_from_image(image)
    # only a reference in the image's own name hides which image runs (`${NAME}`, `vllm-${FLAVOUR}`); one in the
    # registry or the tag (`rocm/vllm:${TAG}`) leaves the repository, and so its engine, named: release unknown
    name = split_image(str(image))[0].rsplit("/", 1)[-1]
    if engine not in _SERVER_PROGRAMS or "$" in name or image_entrypoint_is_engine(image) or _SIMULATOR.search(name):
        return None, []  # llama.cpp and TGI images vary by tag (full, light, server); a simulator runs no engine
    from .specs import spec_for  # only such a container pays for the flag tables

    spec = spec_for(engine)
    typed = [t.split("=", 1)[0] for t in _texts(tokens) if t.startswith("--")]
    # only flags the checks read (the model, context, pool, memory, parallel sizes): --port alone is no loss
    return engine, [t for t in typed if (f := spec.find(t)[0]) is not None and set(f.tags) & _CHECKED_TAGS]


_CHECKED_TAGS = {"context", "kv_pool", "memory", "model", "parallel"}
_SERVER_PROGRAMS = ("vllm", "sglang", "lmdeploy", "trtllm", "tgis")
_SIMULATOR = lazy_compile(r"(?:^|[-_.])sim(?:ulator)?(?:$|[-_.])")  # llm-d-inference-sim, vllm-sim


def _programs(texts: list[str], unknown: frozenset = frozenset()) -> list[Detection]:
    """The engine the command runs: its program (texts[0]), or the program of a runner in front of it
    (runners.py: `srun ... vllm serve`, `docker run IMAGE python3 -m ...`); never another program's argument
    (`systemctl enable llama-server`). A runner ctxlint does not list (a wrapper it cannot name, a shell prompt
    pasted in front) may still start an engine, so a launch no argument spells by accident (`vllm serve`,
    `python3 -m vllm.entrypoints...`: `_strong`) counts at any word."""
    i = 0
    while i < len(texts):
        if _candidate(texts[i]) or i in unknown:
            d = _at(texts, i, unknown)
            if d is not None:
                return [d]
        nxt = runs(texts, i, unknown)
        if nxt == SCAN:  # a launcher whose options ctxlint does not list: any later word may be its program
            module = _uv_module(texts, i)
            if module is not None:
                return [module]
            return [d for k in range(i + 1, scan_end(texts, i)) if (_candidate(texts[k]) or k in unknown)
                    and (d := _at(texts, k, unknown)) is not None]
        if nxt is None:
            break
        if nxt == NOTHING:
            return []
        i = nxt
    return [d for k in range(i + 1, len(texts)) if (_candidate(texts[k]) or k in unknown)
            and (d := _at(texts, k, unknown)) is not None and _strong(d)]


def _uv_module(texts: list[str], i: int) -> Optional[Detection]:
    """`uv run [OPTIONS] -m MODULE ARGS` (`--module`): `python -m MODULE ARGS` (uv's docs: "Run a Python module.
    Equivalent to `python -m <module>`"), as SkyRL's examples start its vLLM server (`uv run --isolated --extra vllm
    -m skyrl_train.inference_engines.vllm.vllm_server ...`); no uv option takes `-m` as its value."""
    if _base(texts[i]) != "uv" or texts[i + 1:i + 2] != ["run"]:
        return None
    k = next((k for k in range(i + 2, len(texts) - 1) if texts[k] in ("-m", "--module")), None)
    return None if k is None else _module_run(texts, i, k + 1)  # the program: `uv`, as `python` is


def _module(mod: str, start: int, after: int) -> Optional[Detection]:
    """The launch `-m mod` starts, its program at `start` and its arguments from `after`, or None."""
    engine, door = _MODULES.get(mod, (None, None))
    return Detection(engine, door or mod, None, start, after) if engine else None


def _old_llama_server(texts: list[str], i: int) -> bool:
    """llama.cpp's server before its binaries took the `llama-` prefix (ggml-org/llama.cpp#7809, 2024-06-12:
    `server` became `llama-server`, examples/deprecation-warning/README.md): `server` is llama.cpp's only where that
    is certain, in a `llama.cpp` folder (`~/llama.cpp/server`, `llama.cpp/build/bin/server`) or given a GGUF file
    as its model (`./server -m models/x.Q4_K_M.gguf`, the format llama.cpp reads); any other `server` is not."""
    if "llama.cpp" in texts[i].split("/")[:-1]:
        return True
    for k in range(i + 1, min(len(texts), i + 40)):
        flag, eq, value = texts[k].partition("=")
        if flag in ("-m", "--model"):
            value = value if eq else texts[k + 1] if k + 1 < len(texts) else ""
            return value.lower().endswith(".gguf")
    return False


def _candidate(text: str) -> bool:
    """Most tokens are flags and values: _at is asked only about a program it could match."""
    base = _base(text)
    return base in _PROGRAMS or base.startswith(_PROGRAM_PREFIXES)


def _strong(d: Detection) -> bool:
    """A launch spelled by a program and its subcommand or module (`vllm serve`, `python3 -m sglang.launch_server`),
    which no other program's argument spells by accident, unlike a lone program name (`llama-server`)."""
    return d.args_start - d.start > 1


def _unknown(tokens: Sequence[Union[Token, str]]) -> frozenset:
    """Indices of the tokens that are one unresolved reference from their first character (the script's
    `$PYTHON` with PYTHON unset or set to `$(which python3)`): a program ctxlint cannot name. Only such a
    token followed by `-m <engine module>` is taken for the engine (`_at`); any other stays no program."""
    # a list, its cheapest test first (most tokens hold no reference, so none unresolved: `refs`, a field, where
    # `unresolved` is a property that builds a tuple): a generator resumed for every token of every command was
    # ~0.4% of a run's bytecodes
    return frozenset([i for i, t in enumerate(tokens) if isinstance(t, Token) and t.refs
                      and t.text[:1] in ("$", "`") and t.starts
                      and any(r.start <= t.starts[0] < r.end for r in t.unresolved)])


def _image_sub(engine: str) -> Optional[str]:
    return "serve" if engine == "vllm" else None
