"""The words vLLM's front doors have no argument for (engines/parse.py): `vllm serve` takes one model
argument, the OpenAI API server module none; argparse exits on any other word that is no flag's value."""
from __future__ import annotations

from typing import Optional, Sequence

from .parse import _flaglike
from .result import Problem, Setting
from .tokens import Token


def surely_extra(toks: Sequence[Token], k: int, spec, unknown_flags: set) -> bool:
    """Whether word k is one vLLM surely has no argument for: it and the words between it and the flag before it
    typed as they are (no expansion made them, no blank inside from a continuation or quoting ctxlint may have
    read otherwise than the shell: `--host` glued to a compose string's line break is no flag), and not after a flag
    that may take it: one ctxlint does not know, or one that takes a list (`--cuda-graph-sizes 1 2 4`: vLLM's
    arg_utils gives every list field nargs "+", and its list fields differ by release). Any other is not
    reported: uncertainty makes no error (review, sweep 41 follow-up)."""
    j = k
    while j >= 0 and (j == k or not _flaglike(toks[j].text)):
        if toks[j].refs or any(c.isspace() for c in toks[j].text):
            return False  # it, or a word between it and its flag, is one ctxlint may have read otherwise
        j -= 1
    if j < 0:
        return True
    if j in unknown_flags:
        return False
    f, _ = spec.find(toks[j].text.partition("=")[0])
    return f is not None and f.kind != "list"


def extra_words(toks: Sequence[Token], rest: Sequence[int], flag: Optional[Setting], serve: bool,
                image: bool = False) -> Problem:
    """vLLM's refusal of words no argument takes. `vllm serve` moves `--model M` to the front as its one model
    argument (nargs "?"), so a word beside it is a second one, whatever it was meant for: vLLM never serves
    `--model`'s M then (vllm-project/vllm@00da11e37d1ffac917c3427fff227500302eb452:vllm/utils/argparse_utils.py
    FlexibleArgumentParser.parse_args, "Move <model> to the front"; argparse's parse_args exits on the rest)."""
    words = " ".join(toks[k].text for k in rest)
    first = toks[rest[0]]
    given = f"{flag.flag_spelling} {flag.raw_text}" if flag is not None and flag.flag_spelling else None
    if not serve:
        why = "the API server module takes no positional argument: name the model with --model"
    elif image:  # which server an image's entrypoint runs depends on its release: neither takes the word
        why = ("the image's server has no argument for it: `vllm serve` takes one model argument"
               + (f", which `{given}` gives," if given else ",") + " and the API server module of older images none")
    elif given:
        why = (f"`vllm serve` takes one model argument and moves `{given}` to the front as that argument, so "
               f"{words!r} is one too many: vLLM serves neither; give the model once")
    else:
        why = "`vllm serve` takes one model argument, the first word that is no flag"
    return Problem(f"unrecognized arguments: {words} ({why})", rest[0], (first.start, first.end), first.item)
