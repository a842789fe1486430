"""`exit`: nothing after it runs in the shell that runs it.

    L=4096
    if [ -z "$HF_TOKEN" ]; then L=200000; echo "no token"; exit 1; fi
    vllm serve "$MODEL" --max-model-len $L            # bash 5.2.15: 4096, the only value it ever runs with

bash manual, Bourne Shell Builtins: "exit [n] Exit the shell". So:

* an `exit` that surely runs where the script's own commands are read (not after `&&`/`||`, in no `if`, loop or
  `case`) ends the reading: no later command starts (`exit 0` before a launch left in the file);
* an `exit` that surely runs once its `if` branch does ends that branch: nothing after it in the branch runs, and
  the branch leaves no world for the commands after the `fi` (scalar_branches.py), as a branch the script's own
  values rule out leaves none (decided_tests.py); where every branch of the `if` ends so (an `else` too, or a
  condition the script decides), the `if` itself ends the script;
* an `exit` that may run (after `&&`/`||`, inside a loop or a `case`) is not followed: what comes after it may run
  and is read as before (a launch kept; a value assigned only where the `exit` may run stays unknown, as any
  assignment after `&&`/`||` is).

An `exit` in a subshell of its own (`( ... )`, a pipeline's element, a job run with `&`) ends that subshell only,
and one in a text another shell reads (`bash -c`, a here-document fed to `bash`, a called script) ends that shell
only (container_scripts.own_shell); one in a function's body or an `eval` string ends the script (same shell),
unless a `return` of that call, read before it, may have ended the call first (`ctx.returned`).
Each entry of ctx.local.ifs (branches.if_step) holds in its last field [the branch being read has exited, an earlier
branch goes on past the `fi`] (branches._branch_ends).
"""
from __future__ import annotations

from .branches import OPAQUE, in_condition, outside

_EXITED = 7  # the field of an `if` entry (branches.if_step) that says which of its branches exited


def exit_here(ctx, loop_head: bool = False) -> None:
    """An `exit` that surely runs where it stands is read. `loop_head`: it is in the words of a `while`/`until`
    condition or a `for` list, which bash runs (expands) at least once, where the loop stands."""
    local = ctx.local
    if loop_head and local.branches.path and local.branches.path[-1] == OPAQUE:
        local.branches.path.pop()
        ctx.flow -= 1
        try:
            exit_here(ctx)
        finally:
            ctx.flow += 1
            local.branches.path.append(OPAQUE)
        return
    if OPAQUE in local.branches.path or ctx.subshells or ctx.returned:
        # a loop's body or a `case` arm may not run; a subshell's exit ends only it; a `return` read before it in
        # the function may have ended the call (bash 5.2.15: `f() { [ -n "$X" ] && return; exit 1; }; f` goes on
        # where X is set)
        return
    if local.ifs:
        entry = local.ifs[-1]
        arm = local.branches.arm()
        if arm is not None and arm[1] == 0:
            if in_condition(ctx):  # an `if`'s own condition runs whenever the `if` does (`if [ -n "${L:?x}" ]`
                # of an L "": bash 5.2.15 exits there), so it exits where the `if` stands
                with outside(ctx):
                    exit_here(ctx)
            return  # an `elif`'s: it runs only where the conditions before it fail, not followed
        entry[5][0] = True  # the rest of this branch never runs, and it leaves no world
        entry[_EXITED][0] = True
    elif ctx.flow == 0:
        ctx.exited = True


def returned_here(ctx, conditional) -> None:
    """A `return` of the function being called is read (bash manual, Bourne Shell Builtins: "return [n] Cause a
    shell function to stop executing"). Where it surely runs at the body's own level (no `if`, loop, subshell or
    `&&`/`||` of the body around it) nothing after it in the call runs: the call ends (ctx.call_ended). Where it may
    run, what follows it in the call may not: read as unsure (ctx.flow, put back at the call's end) and its exits,
    those of the functions it calls included, are not followed (ctx.returned). bash 5.2.15: `f() { return 0; L=5; };
    f` leaves L as it was; `f() { grep -q x f && return 0; g; }` runs g only where grep fails."""
    ifs, flow, subshells, path = ctx.return_marks[-1]
    if not conditional and len(ctx.local.ifs) == ifs and ctx.flow == flow and ctx.subshells == subshells \
            and len(ctx.local.branches.path) == path:
        ctx.call_ended = True
        return
    ctx.flow += 1
    ctx.returned = True


def exit_worlds(ctx, worlds) -> None:
    """A command whose `${A:?msg}` surely runs exits in the worlds (fork, world) of an earlier `if` where A is "":
    those worlds leave nothing after it (bash 5.2.15: `if [ -n "$X" ]; then L=""; else L=5; fi; : ${L:?x}; vllm ...
    $L` launches only with 5). Only where a sure `exit` would end the script (exit_here), and never the last world."""
    local = ctx.local
    if OPAQUE in local.branches.path or ctx.subshells or ctx.returned or local.ifs or ctx.flow:
        return
    for fork, world in worlds:
        if world in fork.worlds and len(fork.worlds) > 1:
            fork.worlds.remove(world)
