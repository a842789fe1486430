"""The words vLLM's front doors have no argument for (engines/parse.py): `vllm serve` takes one model
argument and argparse exits on any other word that is no flag's value. The OpenAI API server module takes none
before 0.10.0 (it exits on the word); from 0.10.0 its parser has `vllm serve`'s `model_tag`, which only `serve`
copies into --model, so the module reads the word and ignores it."""
from __future__ import annotations

from typing import List, Optional, Sequence

from .parse import _flaglike
from .result import Problem, Setting
from .tokens import Token


def surely_extra(toks: Sequence[Token], k: int, spec, unknown_flags: set, start: int = 0) -> bool:
    """Whether word k is one vLLM surely has no argument for: it and the words between it and the flag before it
    typed as they are (no expansion made them, no blank inside from a continuation or quoting ctxlint may have
    read otherwise than the shell: `--host` glued to a compose string's line break is no flag), and not after a flag
    that may take it: one ctxlint does not know, or one that takes a list (`--cuda-graph-sizes 1 2 4`: vLLM's
    arg_utils gives every list field nargs "+", and its list fields differ by release). Any other is not
    reported: uncertainty makes no error (review, sweep 41 follow-up). The walk stops at `start`, the first word
    after the launcher: a word right after `-m vllm.entrypoints.openai.api_server` follows no flag of vLLM's."""
    j = k
    while j >= start and (j == k or not _flaglike(toks[j].text)):
        if toks[j].refs or any(c.isspace() for c in toks[j].text):
            return False  # it, or a word between it and its flag, is one ctxlint may have read otherwise
        j -= 1
    if j < start:
        return True
    if j in unknown_flags:
        return False
    f, _ = spec.find(toks[j].text.partition("=")[0])
    return f is not None and f.kind != "list"


def extra_words(toks: Sequence[Token], rest: Sequence[int], flag: Optional[Setting], serve: bool,
                image: bool = False) -> List[Problem]:
    """vLLM's refusal of words no argument takes. `vllm serve` moves `--model M` to the front as its one model
    argument (nargs "?"), so a word beside it is a second one, whatever it was meant for: vLLM never serves
    `--model`'s M then (vllm-project/vllm@00da11e37d1ffac917c3427fff227500302eb452:vllm/utils/argparse_utils.py
    FlexibleArgumentParser.parse_args, "Move <model> to the front"; argparse's parse_args exits on the rest)."""
    words = " ".join(toks[k].text for k in rest)
    first = toks[rest[0]]
    where = (rest[0], (first.start, first.end), first.item)
    given = f"{flag.flag_spelling} {flag.raw_text}" if flag is not None and flag.flag_spelling else None
    if not serve:
        return _module_words(words, where, given)
    if image:  # which server an image's entrypoint runs depends on its release: neither takes the word
        why = ("the image's server has no argument for it: `vllm serve` takes one model argument"
               + (f", which `{given}` gives," if given else ",") + " and the API server module of older images none")
    elif given:
        why = (f"`vllm serve` takes one model argument and moves `{given}` to the front as that argument, so "
               f"{words!r} is one too many: vLLM serves neither; give the model once")
    else:
        why = "`vllm serve` takes one model argument, the first word that is no flag"
    return [Problem(f"unrecognized arguments: {words} ({why})", *where)]


def _module_words(words: str, where: tuple, given: Optional[str]) -> List[Problem]:
    """The API server module's words: its parser had no positional before 0.10.0 ("api_server.py: error:
    unrecognized arguments", vllm#27389; none in the 0.9.2 wheel's vllm/entrypoints/openai/cli_args.py); from
    0.10.0 make_arg_parser adds `model_tag` (nargs "?": vllm-project/vllm@789340fbad95a900ca3c467c9cee33b3d905fd61:
    vllm/entrypoints/openai/cli_args.py; in the 0.10.0 wheel's, and the 0.34.0 wheel's
    vllm/entrypoints/common/cli_args.py), which the module's own main parses and never reads (0.22.0 wheel:
    vllm/entrypoints/openai/api_server.py `__main__`; 0.34.0: vllm/entrypoints/launchers/api_server/entry.py
    main): only `vllm serve`'s cmd copies it into --model (@78265ccd8aadf98d0e9d33c13b6cd2f0053b165e:vllm/
    entrypoints/cli/serve.py). So a release from 0.10.0 starts, serving --model's model (the word is harmless
    then: nothing is said), or its default when none is given: the word's model is never served. A second word is
    refused there too (nargs "?")."""
    refused = Problem(f"unrecognized arguments: {words} (the API server module takes no positional argument before "
                      "0.10.0: name the model with --model)", *where, until="0.10.0")
    if len(words.split()) > 1:  # model_tag takes one word; argparse exits on the next at every release
        return [Problem(f"unrecognized arguments: {words} (the API server module takes at most one positional "
                        "argument, which it ignores: name the model with --model)", *where)]
    if given:  # from 0.10.0 the word is parsed and ignored, and the model the flag names is served: harmless
        return [refused]
    return [refused, Problem(f"{words!r} is read as the API server module's `model_tag`, which only `vllm serve` "
                             "serves: the module serves --model's default model instead; name the model with --model",
                             *where, since="0.10.0", effect="not serve it")]
