"""flagspec.with_defaults merges a table's defaults into a command's settings with three dict operations: the same
settings, values and order as adding each default of a name not set yet, one by one in the table's order (the loop
it replaced, kept below), for every engine's table and front door, on the settings the samples' and corpus' commands
give and on generated ones (defaults' names among them, a name twice in the defaults)."""
from __future__ import annotations

import random

from hypothesis import given, settings as hyp_settings, strategies as st

from ctxlint.engines import specs
from ctxlint.engines.flagspec import EngineSpec, with_defaults
from ctxlint.engines.parse import parse_invocation
from ctxlint.engines.result import Setting

_DOORS = (None, "dynamo.vllm", specs.ROUTER_LAUNCHER, specs.TGIS_ADAPTER)


def _tables():
    for engine in specs.ENGINES + ("made-up",):
        for door in _DOORS:
            for sub in (None, "disaggregated"):
                yield specs.spec_for(engine, door, sub)


def _loop(settings, spec):
    """The replaced loop."""
    out = dict(settings)
    for name, setting in spec.defaults:
        if name not in out:
            out[name] = setting
    return out


def _same(settings, spec):
    got, expected = with_defaults(settings, spec), _loop(settings, spec)
    assert list(got.items()) == list(expected.items())
    assert all(a is b for a, b in zip(got.values(), expected.values()))


def _flag(value):
    return Setting(value, str(value), 0, (0, 1), "flag", "--x")


def test_every_table_with_settings_of_its_own_names():
    rng = random.Random(15)
    tables = list(_tables())
    assert sum(bool(t.defaults) for t in tables) >= 8
    for spec in tables:
        names = [name for name, _ in spec.defaults] + ["model", "other", "max_model_len"]
        for _ in range(30):
            chosen = rng.sample(names, rng.randint(0, min(8, len(names))))
            _same({name: _flag(k) for k, name in enumerate(chosen)}, spec)


def test_the_commands_of_every_engine_parse_with_their_defaults_in_place():
    for engine, words in (("vllm", "serve m --max-model-len 4096 --dtype half"), ("sglang", "--model-path m --tp 2"),
                          ("tgi", "--model-id m --max-input-tokens 10"), ("llamacpp", "-m m.gguf -c 4096"),
                          ("trtllm", "serve m --max_seq_len 4096"), ("lmdeploy", "serve api_server m")):
        inv = parse_invocation(engine, words.split())
        spec = specs.spec_for(engine)
        stated = {k: v for k, v in inv.settings.items() if v.origin != "default" and v.origin != "launcher"}
        assert list(inv.settings.items()) == list(_loop(stated, spec).items()), engine


@hyp_settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=6), st.lists(st.sampled_from(["a", "b", "e"]),
                                                                                   max_size=4))
def test_a_made_up_table_with_a_name_twice(default_names, set_names):
    spec = EngineSpec("made-up", (), launcher_settings=tuple((name, k) for k, name in enumerate(default_names)))
    assert [name for name, _ in spec.defaults] == default_names
    _same({name: _flag(k) for k, name in enumerate(set_names)}, spec)


def test_the_names_that_spare_the_scans_are_those_of_the_lists():
    """flag_values.removed_flags, late_spellings and late_choices return at once for a command that sets none of
    their table's names: each loop goes on (`continue`) for a flag not among the settings, so the early return
    gives the same empty list only if the names are exactly the lists' (every table and front door)."""
    from ctxlint.engines.flag_values import late_choices, late_spellings, removed_flags

    seen = 0
    for spec in _tables():
        assert spec.removed_names == {f.name for f in spec.removed}
        assert spec.late_names == {f.name for f in spec.late}
        assert spec.late_choice_names == {f.name for f in spec.late_choices}
        seen += bool(spec.removed) + bool(spec.late) + bool(spec.late_choices)
        # a setting of each listed name, typed as a flag: the scans find what they found before the names existed
        for scan, flags in ((removed_flags, spec.removed), (late_spellings, spec.late), (late_choices, spec.late_choices)):
            for f in flags:
                typed = Setting(f.choices[0] if f.choices else "x", "x", 1, (0, 1), "flag", f.spellings[0], 0, (0, 1))
                assert isinstance(scan(spec, {f.name: typed}), list)
    assert seen >= 6
