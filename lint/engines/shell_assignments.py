"""Commands that only set the script's variables: a line of assignments (`L=4096`), and the declaring builtins
(`export`, `readonly`, `declare`, `local`, `typeset`). Apart from shellwords.py, which splits commands and reads
what they run; imported by the first such command of a run (an exec-form list in a pod seldom has one)."""
from __future__ import annotations

from . import shellarrays
from .arg_loops import callers_only
from .command_strings import assigned


def assignments_only(env, words, ctx, unsure: bool, expand_word) -> None:
    """A command of assignments alone: each sets a script-local variable (unsure in a loop, a branch or after
    `&&`), but not a readonly one's, nor one a caller's option decides in an option loop."""
    for a in env:
        if ctx.readonly and a.name in ctx.readonly:  # `L=200000` after `readonly L=4096`: bash keeps 4096
            from .shell_readonly import refused
            if refused(ctx, a.name):
                if ctx.bash and ctx.readonly.get(a.name) is True:
                    from .shell_readonly import failed
                    failed(ctx, unsure)  # bash skips the rest of the command line (shell_readonly.py)
                    if not unsure:
                        return
                continue
        if ctx.argloop is not None and callers_only(a.token):
            ctx.options.add(a.name)  # only a caller's option makes it run: the value before the loop stands
            continue
        assigned(ctx.local, a.name, a.token, unsure, ctx.conditional)
        if unsure:
            ctx.unsure.add(a.name)
        if ctx.allexport is not False:  # `set -a`: every assignment is exported
            from .shell_exports import allexported
            allexported(ctx, a.name, unsure, ctx.conditional)
    shellarrays.assign(words, ctx, unsure, expand_word)


def declaration(program, words, ctx, unsure: bool, expand_word) -> None:
    """`export`, `readonly`, `declare`, `local` or `typeset` and its words: their assignments, the names it
    exports, a function's locals, the names it makes readonly."""
    if ctx.readonly:  # a word that assigns a readonly name (or makes it a function's local) fails
        from .shell_readonly import kept_words
        program = kept_words(program, ctx)
    if ctx.frames and program[0].text in ("local", "declare", "typeset"):  # in a function: restored on return
        from .shellfuncs import declare_local

        declare_local(program, ctx)
    from .shell_exports import declaring  # its assignments, and the names it exports
    declaring(program, ctx, unsure)
    shellarrays.assign(words, ctx, unsure, expand_word)
    if program[0].text in ("readonly", "declare", "typeset"):
        from .shell_readonly import mark
        mark(program, ctx, unsure)
