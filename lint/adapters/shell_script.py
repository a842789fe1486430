"""A shell script that starts an engine: `start_vllm.sh`, `serve.sh`, `run_server.bash`.

The loader keeps such a file as text (`LoadedFile.shell`, never parsed as YAML); here the
whole text is one script, read as SkyPilot's `run:` script is (workload.read_container over
engines/shellwords.py): assignments and `export`s before the command, `${VAR:-default}` of a
variable the script never sets (the shell's default: the script as run without an environment),
continuations, `exec`/`nohup`/`env` prefixes, `&`-backgrounded servers, `sh -c` strings and
`docker run IMAGE ...`. Each engine command is a role: a prefill and a decode server of one model
in one script are one disaggregated deployment, engines of different models one each (as a pod's
containers are), and scripts beside each other pair as sibling manifests do. Caller-set values
(`$1`, a variable nothing sets) are unknown: CTX008, never guessed. A script states its accelerators only
in Slurm's options: a batch header's `#SBATCH --gres=gpu:h100:4` is 4 GPUs a node of that device (slurm_header.py,
slurm_gres.py), and an `srun` in front of the engine asks for its own the same way (srun_request.py).

Most scripts in a repository start no engine: a text without an engine's name is skipped before
any splitting or import (a tree of unrelated scripts costs a read and a few substring tests each), and a script
ctxlint cannot follow (odd syntax, unterminated quotes) gives no finding, as one without an engine, unless a
quote (or `${`, `$(`, backquote) left open hides an engine command after it (CTX001: adapters/script_problems.py).
Nor does one over MAX_CHARS (or --max-file-size, or with a NUL byte in its first line: see file_reader.py),
whatever it names.
"""
from __future__ import annotations

import os

from ctxlint.adapters.base import AdaptResult
from ctxlint.lazyre import lazy_compile
from ctxlint.loader import LoadedFile

NAME = "shell-script"
PATH = "script"  # the logical path of every value: the script as a whole holds them (SkyPilot's are `run`)
# Every program engines/detect.py and image engines/images.py can find has one of these in its name (vllm,
# dynamo.vllm, sglang, text-generation-launcher, trtllm-serve, tensorrt-llm images, lmdeploy, llama-server,
# llama.cpp images, tgi-gaudi; llama.cpp's old `server` given a .gguf model file): a script without any starts
# no engine (tests/adapters/test_shell_script.py checks).
MARKERS = ("vllm", "sglang", "text-generation", "tgi", "trtllm", "tensorrt", "lmdeploy", "llama", ".gguf")
# Splitting keeps every character's position (~200 bytes of memory a character): launchers are a few
# KB, and a larger script is generated or an installer. Longer ones are not read, as if they named no engine.
MAX_CHARS = 2 << 20


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    if not loaded.shell or len(loaded.text) > MAX_CHARS:
        return result
    sourcer = _sourcer(loaded.path)
    if not names_engine(loaded.text) and not _sources_engine(loaded.text, sourcer):
        return result
    # Only a script that names an engine pays for importing the workload core (issue 15: a tree of
    # unrelated scripts, or a pre-commit run on one, never imports it).
    from ctxlint.adapters.config_files import script_reader
    from ctxlint.adapters.workload import Container, Workload, read_container
    from ctxlint.adapters.workload_groups import deployments_from, named_halves
    from ctxlint.model import Val

    spans, node = script_node(loaded.path, loaded.text)
    text = spans.text
    stem = os.path.splitext(os.path.basename(loaded.path))[0] or "script"
    # `--config cfg.yaml`: a relative path is read beside the script (as beside a manifest) or, naming a folder,
    # from the nearest folder above it that leads to the file (config_files.script_reader), a here-document the
    # script writes from its own text; any other file is CTX008.
    count, job = _sbatch_gpus(text, node, spans)
    reading = read_container(Container(spans=spans, node=node, name=stem, script=node, k8s_refs=False,
                                       shell_defaults=True, config_reader=script_reader(loaded.path),
                                       accelerator_type=_sbatch_device(text, node, spans),
                                       accelerator_count=count, batch_job=job,
                                       sourcer=sourcer, env=_slurm_env(text)))
    result.diagnostics.extend(reading.diagnostics)  # without a role, only a quote left open that hides one
    if not reading.roles:  # no engine: nothing else about the script is reported
        return result
    whole = node.source(loaded.path)
    roles = [_at_program(r, whole) for r in reading.roles]
    # the deployment is where its first engine command starts, not the script's first line (a shebang)
    workload = Workload(name=Val(stem, whole), source=roles[0].role.source, input_format=NAME, roles=roles)
    # `llama-prefill.sh` with a vLLM kv_both connector (NIXL's) is the prefill half, as a workload named so; a
    # script that starts several servers (`disaggregated_prefill.sh` starts both halves) is not named after one
    result.extend(deployments_from(loaded.path, named_halves([workload]) if len(roles) == 1 else [workload]))
    # a script this one runs from its own folder, with this one's arguments, header and exports, is read through
    # it alone, as a compose service's script is (read alone, it would lack them)
    here = os.path.dirname(os.path.abspath(loaded.path))
    result.scripts.extend(os.path.join(os.path.dirname(loaded.path), os.path.basename(f))  # as the loader names it
                          for f in dict.fromkeys(sourcer.ran if sourcer is not None else ())
                          if os.path.dirname(f) == here)
    return result


def script_node(path: str, text: str):
    """(ScalarSpans of the script, one plain string Node holding all of it), as the splitter reads a script."""
    from ctxlint.adapters.scalar_spans import ScalarSpans
    from ctxlint.nodes import SCALAR, Marks, Node, Position

    # CRLF line ends (a script saved on Windows) read as LF, each "\r" a blank: the same length, so
    # every position stays; `\` + CRLF stays a line continuation.
    if "\r\n" in text:
        text = text.replace("\\\r\n", " \\\n").replace("\r\n", " \n")
    spans = ScalarSpans(path, text)
    line, col = spans.position(len(text))
    return spans, Node(SCALAR, text, Marks(Position(0, 0, 0), Position(len(text), line - 1, col - 1)), PATH)


def _sbatch_device(text: str, node, spans):
    """The device a batch script's `#SBATCH` header asks for by type (`--gres=gpu:a100:4`, `--gpus-per-node=`,
    `--gpus-per-task=`, `--gpus=`, `-G`) or by node feature (`--constraint=h100`, `-C a100`), when the accelerator
    catalog knows it (slurm_gres.header_device): the node the engine runs on has it. A count alone, or a type the
    catalog lacks (a site's own gres name or feature), states nothing."""
    if "#SBATCH" not in text:
        return None
    from ctxlint.adapters.slurm_gres import header_device
    from ctxlint.adapters.slurm_header import options
    from ctxlint.model import Val

    # a gres type or feature is the site's own word: only a device it settles (`v100`, `a100`: any of two sizes)
    named = header_device(options(text))
    if named is None:
        return None
    typed, name, start = named
    return Val(typed, spans.source(node, start, start + len(name), text), raw=name)


def _sbatch_gpus(text: str, node, spans):
    """(GPUs on the batch node, slurm_header.BatchJob) of a batch script's header; (None, None) without one."""
    if "#SBATCH" not in text:
        return None, None
    from ctxlint.adapters.slurm_header import batch_job
    from ctxlint.model import Val

    def val(count: int, start: int, end: int, raw):
        return Val(count, spans.source(node, start, end, text), raw=raw or text[start:end])
    return batch_job(text, val)


def _slurm_env(text: str) -> list:
    """The variables Slurm sets from a batch script's header (slurm_header.py); none without one."""
    if "#SBATCH" not in text:
        return []
    from ctxlint.adapters.slurm_header import slurm_env_vars

    return slurm_env_vars(text)


def _sourcer(script: str):
    """The files beside a script that it sources (`source ../setup.sh`) or runs (`bash serve.sh ARGS`), or None for
    stdin (_Beside)."""
    if script in ("-", "") or script.startswith("<"):
        return None
    return _Beside(os.path.dirname(os.path.abspath(script)))


class _Beside:
    """The text of a file the script sources (for the functions it defines: engines/shellfuncs.py) or runs
    (engines/script_calls.py), by a path relative to its own directory; None for any other path, a missing file,
    or one too large to be a launcher's library. Scripts are run from their own directory far more often than not;
    a relative path of folders not there is read from a folder above (the repository's root: `bash
    production_scripts/service.sh`), and an absolute one whose last folder is the script's own folder's name
    (`/n/lab/llm-workload/production_scripts/service.sh` from `production_scripts/glm.sh`: the repository checked
    out at another root) as the file of that name beside the script; any other path is not guessed. `ran`: the files a script run
    read (script_calls.py appends them), which are then no deployments of their own (compose_scripts.without)."""

    def __init__(self, base: str) -> None:
        self.base, self.ran = base, []  # type: str, list

    def full(self, path: str):
        if "\0" in path:
            return None
        if os.path.isabs(path):
            folder, name = os.path.split(os.path.normpath(path))
            if os.path.basename(folder) != os.path.basename(self.base) or not name:
                return None
            path = name
        beside = os.path.normpath(os.path.join(self.base, path))
        parts = os.path.normpath(path).split(os.sep)
        if os.path.isfile(beside) or len(parts) < 2 or ".." in parts:
            return beside
        # `bash production_scripts/service.sh` run from the repository's root: the folders above, as a script's
        # repository-relative engine config is found (upward.folders_up bounds them)
        from ctxlint.adapters.upward import folders_up

        return next((c for c in (os.path.join(f, *parts) for f in folders_up(self.base, 4)[1:]) if os.path.isfile(c)),
                    beside)

    def __call__(self, path: str):
        full = self.full(path)
        try:
            if full is None or not os.path.isfile(full) or os.path.getsize(full) > MAX_CHARS:
                return None
            with open(full, encoding="utf-8", errors="replace") as handle:
                return handle.read().replace("\r\n", "\n")
        except OSError:
            return None


# `source FILE` / `. FILE` at a command's start (engines/shellfuncs.py reads the functions such a file defines)
_SOURCED = lazy_compile(r"(?m)^[ \t]*(?:source|\.)[ \t]+([^\n;&|#]+)")
# a script file another script runs (`bash serve.sh ARGS`, `./serve.sh`: engines/script_calls.py), by its name
_CALLED = lazy_compile(r"[^\s;&|'\"]+\.(?:sh|bash)(?=[\s;&|'\"]|$)")


def _sources_engine(text: str, sourcer) -> bool:
    """Does a script that names no engine source a file beside it that does (its functions may start one,
    called here by a name that is no engine's: `run_server --model ...`)? A regex search, and a read of each
    such file, only for a script that sources one."""
    found = [m.group(1) for m in _SOURCED.finditer(text)] if sourcer is not None else []
    called = list(dict.fromkeys(m.group() for m in _CALLED.finditer(text))) if sourcer is not None else []
    if not found and not called:
        return False
    from ctxlint.sourced import MAX_SOURCES, sourced_path  # only a script that sources or runs a file

    paths = [sourced_path(raw.strip().replace('"', "").replace("'", "")) for raw in found]
    paths += [p for p in called if "$" not in p]
    return any(names_engine(sourcer(p) or "") for p in [p for p in paths if p][:MAX_SOURCES])


def names_engine(text: str) -> bool:
    """Does the text name an engine (any case: image names are read lowercased)? Substring tests of
    the lowercased text: a tenth of the time of one case-insensitive regex search."""
    low = text.lower()
    return any(marker in low for marker in MARKERS)


def _at_program(found, whole):
    """A role as a whole is its engine command (the `vllm` of `vllm serve`), not the whole script."""
    from ctxlint.model import Val

    from ..records import replace

    at = found.engine.source
    if at == whole:
        return found
    role = found.role
    kind = role.role if role.role.source != whole else Val(role.role.value, at, raw=role.role.raw)
    return replace(found, role=replace(role, source=at, role=kind))

