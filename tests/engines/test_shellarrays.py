"""Bash arrays in scripts (engines/shellarrays.py): read as bash reads them; what is not known stays a reference."""
from __future__ import annotations

from ctxlint.engines.shellwords import split_shell


def words(text: str) -> list[tuple[str, bool]]:
    """The last command's words, each with whether it holds an unresolved reference."""
    return [(t.text, bool(t.unresolved)) for t in split_shell(text, defaults=True).commands[-1].tokens]


def test_an_array_expands_as_bash_expands_it_at_the_positions_typed():
    text = 'A=(x "y z"\n  # a comment\n)\nc "${A[@]}" "${A[*]}" ${A[-1]} $A "${A[1]}" ${A[@]}'
    assert [w for w, _ in words(text)] == ["c", "x", "y z", "x y z", "y", "z", "x", "y z", "x", "y", "z"]
    token = split_shell(text, defaults=True).commands[-1].tokens[2]
    assert (token.text, token.start, text[token.start:token.end]) == ("y z", 6, "y z")  # where it is typed
    assert words('B=7\ndeclare -a A=($B 2)\nA+=(3)\nE=()\nc "${A[@]}" "${E[@]}" x') == [
        ("c", False), ("7", False), ("2", False), ("3", False), ("x", False)]
    # an element ctxlint does not know stays that reference, where the element is typed
    token = split_shell('A=("$@" --tp 2)\nc "${A[@]}"').commands[-1].tokens[1]
    assert (token.text, token.start, [r.name for r in token.unresolved]) == ("$@", 4, ["@"])


def test_what_ctxlint_cannot_know_of_an_array_stays_a_reference_never_nothing():
    # Before: every `${A[...]}` was read as `$A`, set to "" by `A=(`: no word at all.
    assert words('A=(vllm serve m)\n[[ -n $Q ]] && A+=(--q 1)\nA+=(--z)\n"${A[@]}" --last') == [
        ("vllm", False), ("serve", False), ("m", False), ("${A[@]}", True), ("--last", False)]
    for text in ('A=(1)\nA[1]=2\nc "${A[@]}"', 'if x; then A=(1); fi\nc "${A[@]}"', 'c "${A[@]}"'):
        assert words(text) == [("c", False), ("${A[@]}", True)], text
    assert [w for w, _ in words("A=(1 2)\nc ${A[$i]} ${A[5]} ${A[5]:-d}")] == ["c", "${A[$i]}", "${A[5]}", "${A[5]:-d}"]
    assert "A" in split_shell("if x; then A=(1); fi\nc ${A[0]}").unsure
