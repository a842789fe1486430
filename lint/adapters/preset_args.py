"""A platform preset that runs the engine itself and appends the container's strings to its command line,
re-split by its shell (workload.Container.preset): KServe's `LLMInferenceService` without a `command`.

KServe's preset `kserve-config-llm-template` runs `/bin/bash -c SCRIPT --` with the container's `args` as
the script's `$@`, and the script ends in `eval "exec vllm serve /mnt/models --served-model-name ...
--port 8000 ... ${VLLM_ADDITIONAL_ARGS} $@"` (kserve/kserve@aaac4e294dae2c7b1aa1886447793f3aa1c30912:
charts/kserve-runtime-configs/files/llmisvcconfigs/resources.yaml, config/llmisvcconfig/
config-llm-template.yaml). `eval` joins its words with spaces and reads the result as shell input, so each
string is split into words (its quotes removed, `\\` newlines joined), and a string holding a second command
line (after a newline or `;`) never runs past `exec`. vLLM's `serve` takes one positional argument, the
model (vllm-project/vllm@005223338608bc94fd165a4f976c102a57bd1fc4:vllm/entrypoints/openai/cli_args.py
make_arg_parser: `model_tag`, nargs "?"), which the preset gives (`/mnt/models`), and parses with
`parse_args` (vllm-project/vllm@00a5fdd20935ba7679750db22997dcf539ca4591:vllm/entrypoints/cli/main.py), which
exits on any other word: "unrecognized arguments". A shell script in `args` (`python3 -m
vllm.entrypoints.openai.api_server --tensor-parallel-size=4`) is such words, while its flags are still
vLLM's. Imported only for a container with a preset.
"""
from __future__ import annotations

from typing import List

from ctxlint.adapters.workload_inputs import scalar_text
from ctxlint.engines import Problem, split_shell
from ctxlint.engines.tokens import Command, SplitResult
from ctxlint.nodes import SCALAR, SEQ

from ..records import replace


def preset_split(reader) -> SplitResult:
    """The words the preset appends, as one command of the reader's items: the container's `script` (the
    preset's own variable, VLLM_ADDITIONAL_ARGS), then each string of `args`, every token at its item."""
    c = reader.c
    nodes = ([c.script] if c.script is not None else []) + (
        list(c.args.value) if c.args is not None and c.args.kind == SEQ else [c.args] if c.args is not None
        else [])
    reader.item_nodes = [n for n in nodes if n.kind == SCALAR]
    reader.item_texts = [scalar_text(n) for n in reader.item_nodes]
    tokens: List = []
    refs, problems, unsure = [], [], set()
    for i, text in enumerate(reader.item_texts):
        split = split_shell(text, reader.lookup, k8s=c.k8s_refs, go=reader.go_actions())
        refs.extend(split.refs)
        problems.extend(replace(p, item=i) for p in split.problems)
        unsure.update(split.unsure)
        if split.commands:
            first = split.commands[0]
            # `eval` reads a word written as an assignment as a word too (after `exec vllm serve`)
            words = [a.token for a in first.env] + list(first.tokens)
            tokens.extend(replace(t, item=i) for t in words)
        if len(split.commands) > 1:  # a second command line: `exec` has replaced the shell before it runs
            break
    return SplitResult(commands=(Command(tuple(tokens)),), refs=tuple(refs), problems=tuple(problems),
                       unsure=frozenset(unsure))


def stray_words(inv, tokens, preset: str):
    """`inv` with the positional words the engine refuses as one error at the first (the preset gives the
    model), and without a model read from them."""
    if not inv.positionals:
        return inv
    words = [tokens[k].text for k in inv.positionals]
    first = tokens[inv.positionals[0]]
    why = (f"unrecognized arguments: {' '.join(words)} ({preset}, re-split into words: vLLM takes one model "
           "argument, which the preset gives, so every other word that is no flag is refused; give only vLLM "
           "flags there, or set `command` to run a command line of your own)")
    error = Problem(why, inv.positionals[0], (first.start, first.end), first.item)
    model, settings = inv.model, inv.settings
    if model is not None and model.note == "positional":
        settings = {k: v for k, v in settings.items() if v is not model}
        model = None
    # the parser's own refusal of the words after the first (engines/parse.py) is this one
    errors = tuple(e for e in inv.errors if e.token_index not in inv.positionals)
    return replace(inv, model=model, settings=settings, errors=errors + (error,))
