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
        ("vllm", False), ("serve", False), ("m", False), ("--q", False), ("${A[@]}", True), ("${A[@]}", True),
        ("--last", False)]  # `--q`'s value is the unknown rest too (array_rests.py)
    for text in ('A=(1)\nA[1]=2\nc "${A[@]}"', 'if x; then A=(1); fi\nc "${A[@]}"', 'c "${A[@]}"'):
        assert words(text) == [("c", False), ("${A[@]}", True)], text
    assert [w for w, _ in words("A=(1 2)\nc ${A[$i]} ${A[5]} ${A[5]:-d}")] == ["c", "${A[$i]}", "${A[5]}", "${A[5]:-d}"]
    assert "A" in split_shell("if x; then A=(1); fi\nc ${A[0]}").unsure


def commands(text: str) -> list[list[str]]:
    """The words of the commands whose program is `c`."""
    return [[t.text for t in c.tokens] for c in split_shell(text, defaults=True).commands if c.argv[:1] == ["c"]]


def test_an_array_a_nested_if_sets_in_a_branch_is_each_value_it_may_leave():
    # Before: the nested `if`'s values were kept as one value of the outer `if` (values of values), and the
    # command that expands the array gave no command at all. Sweep 21b: the same-line form `then if d; then` was
    # read so only because the `if` after `then` was not seen as nested (shellwords._LEADS).
    assert commands("A=(p)\nif a; then A=(x); elif b; then\n  if d; then A=(y); fi\nelse :; fi\nc \"${A[@]}\"") == [
        ["c", "x"], ["c", "y"], ["c", "p"]]
    assert commands("A=(p)\nif a; then\n  if d; then A=(y); else A=(z); fi\nfi\nc \"${A[@]}\"") == [
        ["c", "y"], ["c", "z"], ["c", "p"]]


def test_an_array_an_if_sets_is_each_value_a_branch_leaves():
    # Before: unknown as a whole after the `fi` (`"${A[@]}"` one unknown word).
    assert commands("if a; then A=(x 1); else A=(y); fi\nA+=(--z)\nc \"${A[@]}\" \"${A[0]}\"") == [
        ["c", "x", "1", "--z", "x"], ["c", "y", "--z", "y"]]
    # elif chains and nested ifs; a branch that sets nothing (or no else) leaves the value from before the `if`
    assert commands("A=(p)\nif a; then A=(x); elif b; then if d; then A=(y); fi; else :; fi\nc \"${A[@]}\"") == [
        ["c", "x"], ["c", "y"], ["c", "p"]]
    assert commands("if a; then A=(x)\n  A+=(1)\n  c \"${A[@]}\"\nfi") == [["c", "x", "1"]]  # known in its branch
    # `$A` and `${#A[@]}`-like uses that are not one word per value stay unknown, as does the array after a loop
    assert [w for w, _ in words("if a; then A=(x); else A=(y); fi\nc $A")] == ["c", "$A"]
    assert words("if a; then A=(x); else A=(y); fi\nfor i in 1; do A=(z); done\nc \"${A[@]}\"") == [
        ("c", False), ("${A[@]}", True)]


def test_an_append_in_a_branch_to_an_array_set_before_keeps_an_unknown_rest():
    # one value per optional flag would multiply: `if x; then A+=(--f); fi` is read as `[[ x ]] && A+=(--f)` is
    assert words("A=(c 1)\nif [ -n \"$Q\" ]; then A+=(--q); fi\n\"${A[@]}\"") == [
        ("c", False), ("1", False), ("${A[@]}", True)]
    assert commands("if a; then A=(c); else A=(c 2); fi\nif b; then A+=(1); fi\n\"${A[@]}\"") == [
        ["c", "${A[@]}"], ["c", "2", "${A[@]}"]]
