"""An exec-form list item that holds a whole command line (`args: ["--model-url URL --port 8000"]`): no shell
splits it, so the engine receives it as ONE argument, and what it does with that argument is its parser's.

* argparse (vLLM's FlexibleArgumentParser, SGLang's prepare_server_args (sglang==0.5.23: sglang/srt/server_args.py,
  `parse_args`), LMDeploy): `_parse_optional` returns None for a word that is no option and holds a space ("if it
  contains a space, it was meant to be a positional", CPython Lib/argparse.py), so the word is a positional
  argument, or the value of an option before it that takes one. The first positional of `vllm serve` is its model
  (`model_tag`, nargs "?"), of `lmdeploy serve api_server` its model path: the engine tries to load a model of that
  name and fails; one more than the parser takes ends it at once, "error: unrecognized arguments" (exit 2). A word
  whose part before `=` is a flag is that flag with the rest as its value (`--chat-template={...}`, a JSON value):
  read as usual, no finding here. vLLM's FlexibleArgumentParser.parse_args first takes a word that starts with `-`
  and holds a `.` for a dotted JSON argument (`--hf-overrides.a.b`) and splits it there: the parts are no flag
  either, and it exits (IndexError for the last word, else "unrecognized arguments"). Checked by running
  vllm==0.34.0:vllm/utils/argparse_utils.py's parser on CPython 3.11 with `serve`'s model_tag: `["serve", "--port
  8000 --max-model-len 4096"]` gives model_tag that word, `["serve", "Qwen/Q", "--port 8000 ..."]` exits 2 with
  "unrecognized arguments: --port 8000 ...", and a word with a `.` in it as the last exits with IndexError.
* llama.cpp's common/arg.cpp looks every argument up whole (`--` ones with `_` made `-`) and throws "error:
  invalid argument: %s" for one it has not (ggml-org/llama.cpp@145b6280d6aa1890e22457143dad0badb3fd6820:
  common/arg.cpp parse_cli_args). It splits no `=`, so only the blank matters here.
* TGI's launcher (clap), when the list or the image's entrypoint starts it (not through the images whose
  entrypoint script re-splits the words, see _door): a `--` word's name is the part before `=`, and a name no argument has ends it with
  "error: unexpected argument '--NAME' found" (clap-rs/clap@56fe5e0ec0f97a82651775252b4699e8442e81b1:
  clap_builder/src/parser/parser.rs parse_long_arg, NoMatchingArg; @1c7d02e129d62c5474811bf6ab8adc3eff2aac86:
  clap_builder/src/error/format.rs UnknownArgument).
* trtllm-serve (click): the part before `=` is matched as a long option; none matches: NoSuchOption, "No such
  option '--NAME'." (click==8.5.1:click/parser.py _process_opts, click/exceptions.py; "No such option: --NAME"
  in click 8.1), exit 2.

Only the front doors whose parser is known are judged; a word a reference made part of is not (its words are
not as typed). The caller says which tokens are whole items of a list written in the file (`names`).
"""
from __future__ import annotations

import json
from typing import Callable, List, Optional, Sequence

from ctxlint.lazyre import lazy_compile

from ..records import replace
from .image_builds import tgi_entrypoint_splits
from .parse import _flaglike
from .result import Invocation, Problem
from .specs import spec_for
from .tokens import Token

_FLAG_INSIDE = lazy_compile(r"\s--[A-Za-z]")  # `Qwen/Qwen3-8B --port 8000`: a long flag after a blank
_NEG_NUM = lazy_compile(r"-\d")
# argparse front doors judged: (how messages name it, how many positional arguments it takes, what the first one
# is, what the message says of them)
_ARGPARSE = {
    "vllm serve": ("vllm serve", 1, "its model", "`vllm serve` takes one, its model"),
    "sglang.launch_server": ("SGLang", 0, "", "SGLang's parser takes none"),
    # `sglang serve M` makes only a first word that does not start with `-` its --model-path (sglang==0.5.23:
    # sglang/cli/serve.py _normalize_positional_model_path), then parses with launch_server's parser
    "sglang serve": ("sglang serve", 0, "", "SGLang's parser takes none"),
    "lmdeploy serve api_server": ("lmdeploy serve api_server", 1, "its model path",
                                  "`lmdeploy serve api_server` takes one, its model path"),
    # vLLM's image: `vllm serve` in newer ones, the API server module (no positional before 0.10.0) in older ones
    "image": ("the image's vLLM server", 1, "its model", "`vllm serve` takes one, its model, and the API server "
              "module of older images none"),
    # before 0.10.0 none; from 0.10.0 one, `model_tag`, which it parses and ignores (vllm_words._module_words)
    "vllm.entrypoints.openai.api_server": ("the API server module", 0, "", "the API server module takes none "
                                           "before 0.10.0"),
}
_MODULE = "vllm.entrypoints.openai.api_server"
# vLLM's FlexibleArgumentParser.parse_args makes `_` a `-` in a `--` word up to its first `.` (in its name before
# any `=`) before argparse sees it, so argparse's "unrecognized arguments" names the word so changed
# (vllm==0.13.0 and vllm==0.34.0: vllm/utils/argparse_utils.py, `pattern = re.compile(r"(?<=--)[^\.]*")`)
_VLLM_NAME = lazy_compile(r"(?<=--)[^.]*")
# LMDeploy parses with a copy of vLLM's FlexibleArgumentParser from 0.9.2 (InternLM/lmdeploy@9098ae8:
# lmdeploy/cli/cli.py, lmdeploy/cli/utils.py; flags_lmdeploy.SPEC_ flexible_since)
_LMDEPLOY_DASHES = "0.9.2"
_WHY = "argparse reads a word that holds a blank and names no flag as a positional argument"


def _blank(text: str) -> bool:
    return any(c.isspace() for c in text)


def _door(inv: Invocation) -> Optional[tuple]:
    """(kind, name, positional slots, what the first slot is, said) of the front door, or None when not judged."""
    launcher, engine = inv.launcher or "", inv.engine
    if engine == "vllm" and launcher.startswith("image:"):
        return ("argparse",) + _ARGPARSE["image"]
    if engine in ("vllm", "sglang", "lmdeploy") and launcher in _ARGPARSE:
        return ("argparse",) + _ARGPARSE[launcher]
    if engine == "sglang" and launcher.startswith("image:"):  # an image whose entrypoint is launch_server
        return ("argparse",) + _ARGPARSE["sglang.launch_server"]
    if engine == "llamacpp" and (launcher == "llama-server" or launcher.startswith("image:")):
        return ("stoi", "llama-server", 0, "", "")
    # TGI's images from 2.0.0 start `/tgi-entrypoint.sh`, whose `exec text-generation-launcher $@` is unquoted:
    # bash splits the item at its blanks and the launcher gets the words, read so (adapters/joined_items.py
    # entrypoint_fields). An image that starts the launcher itself (v1.x, -rocm before 2.0.4, -intel, -trtllm,
    # huggingface/tgi-gaudi: image_builds.tgi_entrypoint_splits) gives it the item whole, as a list that starts it does.
    if engine == "tgi" and (launcher == "text-generation-launcher" or launcher.startswith("image:")
                            and tgi_entrypoint_splits(launcher[len("image:"):]) is False):
        return ("clap", "text-generation-launcher", 0, "", "")
    if engine == "trtllm" and launcher == "trtllm-serve" and inv.subcommand == "serve":
        return ("click", "trtllm-serve", 0, "", "")
    return None


def _joined(text: str, kind: str) -> bool:
    """A word that starts as a flag and holds a blank in its flag (before any `=`; llama.cpp splits no `=`)."""
    if text.startswith("--"):
        return _blank(text if kind == "stoi" else text.partition("=")[0])
    return kind == "stoi" and text[:1] == "-" and _blank(text) and not _NEG_NUM.match(text)


def joined_items(inv: Invocation, tokens: Sequence[Token], start: int,
                 names: Callable[[Token], Optional[str]]) -> Invocation:
    """`inv` with a CTX301 refusal at each item that holds several words the engine receives as one; the
    parser's own reading of such an item (an unknown flag, a positional, the model) is dropped."""
    door = _door(inv)
    if door is None:
        return inv
    kind, prog, slots, first, takes = door
    model = inv.model.token_index if inv.model is not None else None
    flags = [k for k in range(start, len(tokens)) if not tokens[k].refs and _joined(tokens[k].text, kind)]
    if flags:
        spec = spec_for(inv.engine, inv.launcher, inv.subcommand)
        flags = [k for k in flags if _alone(spec, tokens, k, start, kind)]
    words = [k for k in set(inv.positionals) | ({model} if model is not None else set())
             if k is not None and k >= start and k not in flags and not tokens[k].refs
             and _FLAG_INSIDE.search(tokens[k].text)]
    found = sorted(k for k in flags + words if names(tokens[k]) is not None)
    if not found:
        return inv
    # the positional words argparse sees: the parser's, the items, and a word the parser took as an unknown
    # flag's value after one of them (argparse never does: the item is no option)
    swallowed = {u.other_index for u in inv.unknown_flags if u.token_index in found and u.other_index is not None}
    # `vllm serve --model M` moves M to the front (FlexibleArgumentParser.parse_args): the slot is taken
    given = inv.model is not None and inv.model.note != "positional" and inv.engine == "vllm" and slots
    seen = sorted(set(inv.positionals) | set(flags) | swallowed)
    free = max(0, slots - (1 if given else 0))
    extra = seen[free:]
    problems: List[Problem] = []
    for k in found:
        tok = tokens[k]
        if k in words and k == model and inv.model is not None and (kind != "argparse"
                                                                   or inv.model.note != "positional"):
            how = inv.model.flag_spelling or "its model argument"
            what = f"{prog} takes it whole as the model to load ({how}), a name no model has, and does not start"
        elif kind == "argparse":
            what = _argparse(inv.engine, tok, tokens, extra, prog, first, takes)
            old = _argparse("", tok, tokens, extra, prog, first, takes) if inv.engine == "lmdeploy" else what
            if old != what:  # the words argparse names differ by release: LMDeploy's `_` made `-` from 0.9.2
                head = f'{names(tok)} is one argument: "{tok.text}": '
                tail = f"; write each flag and value as its own list item " \
                       f"({json.dumps(tok.text.split(), ensure_ascii=False)})"
                problems.append(Problem(head + old + tail, k, (tok.start, tok.end), tok.item, until=_LMDEPLOY_DASHES))
                problems.append(Problem(head + what + tail, k, (tok.start, tok.end), tok.item,
                                        since=_LMDEPLOY_DASHES))
                continue
        elif kind == "stoi":
            arg = tok.text.replace("_", "-") if tok.text.startswith("--") else tok.text
            what = f'{prog} exits with "error: invalid argument: {arg}"'
        elif kind == "clap":
            name = tok.text.partition("=")[0] if tok.text.startswith("--") else tok.text
            what = f"{prog} exits with \"error: unexpected argument '{name}' found\""
        else:
            what = f"{prog} exits with \"Error: No such option '{tok.text.partition('=')[0]}'.\" (click)"
        head = f'{names(tok)} is one argument: "{tok.text}": '
        tail = f"; write each flag and value as its own list item ({json.dumps(tok.text.split(), ensure_ascii=False)})"
        if inv.launcher == _MODULE and seen == [k] and not what.startswith(f"{prog} exits:"):
            # from 0.10.0 its one `model_tag` takes the word, and nothing reads it: the server starts without it
            problems.append(Problem(head + what + tail, k, (tok.start, tok.end), tok.item, until="0.10.0"))
            what = (f"{prog} parses it as its `model_tag` ({_WHY}), which only `vllm serve` reads: none of the "
                    "flags in it is set")
            problems.append(Problem(head + what + tail, k, (tok.start, tok.end), tok.item, since="0.10.0",
                                    effect="start without it"))
            continue
        problems.append(Problem(head + what + tail, k, (tok.start, tok.end), tok.item))
    gone = set(found) | swallowed
    settings = inv.settings
    if model in found:  # no model is loaded from it
        settings = {key: s for key, s in settings.items() if s is not inv.model}
    return replace(inv, model=None if model in found else inv.model, settings=settings,
                   positionals=tuple(k for k in inv.positionals if k not in gone),
                   unknown_flags=tuple(u for u in inv.unknown_flags if u.token_index not in gone),
                   errors=tuple(e for e in inv.errors if e.token_index not in gone) + tuple(problems))


def _alone(spec, tokens: Sequence[Token], k: int, start: int, kind: str) -> bool:
    """Whether item k is no flag's value. argparse gives a word that is no option (a blank in it) to the option
    before it that takes one (`--served-model-name "--my model"` is that name; with nargs "+", any such word after
    it), llama.cpp and click the next word to a flag that takes a value, whatever it is (CPython 3.11 argparse,
    checked by running it; common/arg.cpp `argv[++i]`; click==8.5.1:click/parser.py _get_value_from_state). After
    a flag ctxlint does not know, whose value it may be, it is not judged."""
    j = k - 1
    if kind == "argparse":
        while j >= start and (not _flaglike(tokens[j].text) or _joined(tokens[j].text, kind)):
            j -= 1
    if j < start or not _flaglike(tokens[j].text) or _joined(tokens[j].text, kind):
        return True
    name, eq, _ = tokens[j].text.partition("=")
    f, err = spec.find(tokens[j].text if kind == "stoi" else name)
    if f is None or err:
        return False
    if f.takes == "none" or (eq and kind != "stoi"):
        return True
    return f.takes in ("one", "optional") and j < k - 1


def _argparse(engine: str, tok: Token, tokens: Sequence[Token], extra: list, prog: str, first: str,
              takes: str) -> str:
    if engine in ("vllm", "lmdeploy") and tok.text.startswith("-") and "." in tok.text.partition("=")[0]:
        return (f'{prog} exits: its parser reads a word that starts with "-" and holds a "." as a dotted JSON '
                'argument (--a.b) and splits this one at the ".", into words that name no flag (an IndexError '
                'when it is the last word, else "unrecognized arguments")')
    if extra:
        said = " ".join(_as_read(engine, tokens[j].text) for j in extra)
        return f'{prog} exits with "error: unrecognized arguments: {said}" ({_WHY}, and {takes})'
    if prog == "the image's vLLM server":
        return (f"{prog} does not start: `vllm serve` (newer images) takes it for its model ({_WHY}) and fails to "
                "load a model of that name, and the API server module of older images refuses it (\"unrecognized "
                "arguments\")")
    return f"{prog} takes it for {first} ({_WHY}, and the first is {first}) and fails to load a model of that name"


def _as_read(engine: str, text: str) -> str:
    """The word as the engine's argparse receives it: vLLM's, and LMDeploy's from 0.9.2 (a copy of vLLM's parser),
    with `_` made `-` in a `--` word's name (_VLLM_NAME)."""
    if engine not in ("vllm", "lmdeploy") or not text.startswith("--"):
        return text
    name, eq, value = text.partition("=")
    return _VLLM_NAME.sub(lambda m: m.group(0).replace("_", "-"), name, count=1) + eq + value
