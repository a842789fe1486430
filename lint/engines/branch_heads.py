"""What a command string the branches of `if`s append to still holds for certain: its common head.

    CMD="vllm serve $MODEL_PATH --port 80 --gpu-memory-utilization 0.9"
    if [ "$ENABLE_PREFIX_CACHING" = true ]; then CMD="$CMD --enable-prefix-caching"; fi
    if [ "$TRUST_REMOTE_CODE" = true ]; then CMD="$CMD --trust-remote-code"; fi
    ...                                     # one `if` per optional flag
    eval $CMD

Each `if` doubles the values CMD may hold; past a few (scalar_branches.MAX_WORLDS) they are not read one by one,
and CMD was then unknown as a whole, so the `eval` started nothing: no role and no finding for a vLLM launch
(an Inference Endpoints entrypoint that builds its command so, sweep cli25). Every value still begins with the
words typed before the first `if`: those are known, and what the branches may have added after them is one
unknown word, the variable itself (CTX008 where a branch appends it). Only words every value holds at the same
typed place make the head, cut at a word's end; nothing of it is guessed. A script run without an environment
takes no such branch (`${X:-default}` takes its default the same way), so the head alone is also one of the
commands that really run.
"""
from __future__ import annotations

from typing import Optional

from .tokens import Token, VarRef


def common_head(name: str, values: "list[str]", tokens: "list[Optional[Token]]",
                located: Optional[Token]) -> Optional[Token]:
    """The words every one of `values` (each text a branch leaves: its token, where located) begins with, at the
    places `located` (the value before the `if`s, or one of theirs) types them, followed by `$name` standing for
    the rest, located where a branch appends; None when nothing locates them, or they share no whole word."""
    if len(values) < 2 or located is None or len(located.starts) != len(located.text):
        return None
    size = min(len(v) for v in values)
    same = 0
    while same < size and all(v[same] == values[0][same] for v in values):
        same += 1
    if not all(len(v) == same or v[same].isspace() for v in values):  # cut inside a word: back to its start
        same = max((k for k in range(same) if values[0][k].isspace()), default=0)
    cut = len(values[0][:same].rstrip())
    if cut == 0 or located.text[:cut] != values[0][:cut]:
        return None
    longer = next((t for t in tokens if t is not None and len(t.starts) == len(t.text) and t.text[:cut] ==
                   values[0][:cut] and t.text[cut:].strip()), None)
    if longer is None:
        return None
    at = cut + len(longer.text[cut:]) - len(longer.text[cut:].lstrip())
    start, end = longer.starts[at], longer.ends[-1]
    placed = set(located.starts[:cut])
    kept = tuple(r for r in located.refs if r.start in placed)
    if located.text[:cut].endswith("$" + name) and any(r.name == name and r.why == "branch" for r in kept):
        # the head an earlier `if` left ends in the rest already: it stands for this `if`'s words too
        return Token(located.text[:cut], located.start, located.end, located.starts[:cut], located.ends[:cut], kept,
                     located.item)
    refs = kept + (VarRef(name, "shell", start, end, None, None, located.item, "branch"),)
    rest = " $" + name
    before = located.ends[cut - 1]
    return Token(located.text[:cut] + rest, located.start, max(located.end, end),
                 located.starts[:cut] + (before,) + (start,) * (len(rest) - 1),
                 located.ends[:cut] + (before,) + (end,) * (len(rest) - 1), refs, located.item)
