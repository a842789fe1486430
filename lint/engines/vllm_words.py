"""The words vLLM's front doors have no argument for (engines/parse.py): `vllm serve` takes one model
argument, the OpenAI API server module none; argparse exits on any other word that is no flag's value."""
from __future__ import annotations

from typing import Optional, Sequence

from .result import Problem, Setting
from .tokens import Token


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
