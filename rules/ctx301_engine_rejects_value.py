"""An engine setting whose value the engine itself refuses, so it does not start.

Why:
    Each engine parses its own flags: SGLang reads `--context-length 128K` as an
    error (only `k M G T` and `Ki Mi Gi Ti`, case-sensitive), TGI takes digits
    only (`--max-input-tokens 4k` fails in clap), trtllm-serve and LMDeploy take
    plain integers. The server exits at startup, or a rollout crash-loops. The
    adapters report the engine's own parse error; for a native manifest the
    values under `engine_args` are read with the named engine's rule. A value
    only some releases refuse (vLLM read `--limit-mm-per-prompt image=1` as
    KEY=VALUE pairs before 0.10.0, and wants JSON since; `--enable-chunked-prefill=false`
    was read until the switch refused `=value`) is reported for the releases that
    refuse it, and for an unknown release with the release named. So is a flag a
    later release dropped (vLLM's `--rope-scaling` and `--rope-theta` from 0.11.1:
    "unrecognized arguments"), at the flag, with what that release takes instead
    (`--hf-overrides '{"rope_scaling": ...}'`); at such a release the dropped
    flag's RoPE factor no longer lifts the context the model allows (CTX109).
    For an unknown release such a refusal is an error where the release that runs
    is the newest: the engine's own release image tagged `latest` (or `nightly`)
    or untagged (vllm/vllm-openai, lmsysorg/sglang, AMD's rocm/vllm, ...), an
    engine installed unpinned (`pip install vllm`), or no image named at all. It
    is a warning, its message saying why, where the release cannot be known and
    an older one that takes the value may run: an image that is not the engine's
    release image (a vendor fork such as OPEA's ROCm build, NVIDIA's Dynamo or
    Triton runtimes, a company's own `quay.io/me/vllm-dev:0.1.0`), whose tag
    numbers its own builds; the engine's image with a tag that names no release
    (`sha-...`, a variable set elsewhere) or pinned by its digest alone
    (`vllm/vllm-openai@sha256:...`, beside `latest` too: a fixed build, the
    newest only on the day it was pinned); an image an operator picks (KubeAI's
    resource profiles, whose chart pins a release the model file does not name).
    With the default `--fail-on error` such a warning does not fail the run,
    though the launch fails when the image's engine is the newest: the price of
    not failing gates on images that run a fork or an older release. A gate that
    wants every such refusal to fail sets `--fail-on warning`, or raises the rule
    (`severity: {CTX301: error}`, which applies to all its findings); pinning the
    image to an engine release gives an exact verdict either way.
    vLLM also refuses a `--quantization` that contradicts the checkpoint's own
    method when none of its overrides maps the flag onto it (`fp8` on an AWQ
    checkpoint; `modelopt` on a ModelOpt NVFP4 one is overridden, and loads).
    A value only later releases read is reported for a pinned earlier one:
    vLLM's `--max-model-len 32k` before 0.8.4 ("invalid int value"), `auto`
    before 0.14.0 (and `-1` there is the length itself, no auto-fit); at such
    a release the value is not taken as the engine's context. With the release
    unknown it is not reported: an unpinned image runs the newest. Another engine's
    flag is refused too ("unrecognized arguments"): vLLM's `--max-model-len`
    or `--gpu-memory-utilization` on SGLang, SGLang's `--context-length` or
    TGI's `--max-input-tokens` on vLLM, with this engine's flag for it, and
    an SGLang flag no vLLM release has (`--enable-metrics`) on vLLM. So is
    a pair of settings the engine refuses together: TGI from 2.0.0 exits when
    both `max_input_tokens` and its deprecated spelling `max_input_length`
    are set, each by flag or by env (`--max-input-tokens` with
    `MAX_INPUT_LENGTH`), reported at the later of the two (at the one to
    drop, `max_input_length`, when one is a flag and one a variable). So is
    a word vLLM has no argument for: `vllm serve` takes one model argument and
    moves `--model M` to the front as that argument, so `--model M auto` or
    `vllm serve A B` is refused at the second word (vLLM serves neither). The
    `vllm.entrypoints.openai.api_server` module took no positional word before
    0.10.0; from 0.10.0 it parses one as `model_tag` and ignores it (only
    `vllm serve` serves it), so `-m vllm.entrypoints.openai.api_server M`
    serves --model's default, not M: said for those releases, and for an
    unknown release with the release named.
    Only a word typed as it is and after a flag that takes one value (or
    none) is reported: one after a flag ctxlint does not know or one that
    takes a list (`--cuda-graph-sizes 1 2 4`), or one an expansion made, may
    be that flag's, and is not.
    llama-server takes no positional word at all (its model is `-m`, `-hf`
    or `--model-url`): a word no option takes, such as a second file after
    `-m a.gguf`, stops it ("invalid argument"), reported at the word when it
    comes first or after an option known to take one value; one after a
    switch is not (llama.cpp made switches valued over its builds: `-fa`
    alone in older ones, `-fa on` in later ones).
    Reported too is an item of an exec-form list (a container's `command`/
    `args`, a Compose `entrypoint`/`command` list) holding a flag and more words:
    no shell splits it, so `args: ["--model-url URL --port 8000"]` reaches
    the engine as ONE argument. llama-server exits ("invalid argument"),
    TGI and trtllm-serve too (an unknown option); argparse reads a word with
    a blank that names no flag as a positional argument, so SGLang exits and
    `vllm serve` or LMDeploy take it for the model (or exit when they have
    one). A `--flag=value` whose value holds blanks (JSON, a chat template)
    is that flag's value, and a list a shell runs (`sh -c`) is its script.
    Arguments given to a TGI image from 2.0.0 are split at blanks by its
    entrypoint script's unquoted `$@` and read as those words; an image
    that starts the launcher itself (v1.x, -intel, -trtllm, tgi-gaudi)
    gives it the item whole, and it exits.

Example (bad):
    ```yaml
    engine: {name: sglang}
    serving:
      roles:
        - role: unified
          engine_args: {context_length: 128K}   # SGLang: "Invalid integer value"
    ```

Example (good):
    ```yaml
    engine: {name: sglang}
    serving:
      roles:
        - role: unified
          engine_args: {context_length: 131072}
    ```

Options:
    None.

Fix:
    `ctxlint check --fix` rewrites the refusals whose fix is mechanical and
    certain (`--diff` shows them): SGLang's `128K` becomes `128Ki` (the
    131,072 that `K` means to vLLM; SGLang's `k` would be 128,000), a switch
    given `=false` becomes its `--no-` spelling (vLLM: from 0.9.2, whose
    switches have one) and `=true` the bare switch.
    Other refusals (`4k` to TGI: 4,000 or 4,096?) are left to the author.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from ctxlint.findings import Diagnostic, Problem
from ctxlint.rules._common import from_diagnostics

ID = "CTX301"
NAME = "engine-rejects-value"
SEVERITY = "error"
SCOPE = "input"
TAGS = ()
INPUTS = ("roles[].engine_args",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(diagnostics: Sequence[Diagnostic], options) -> Iterator[Problem]:
    return from_diagnostics(diagnostics, NAME)
