"""The lookups rules and adapters make of a role, each against the code it replaced (kept here as the oracle), over
every deployment of the samples and the real corpus and made-up cases: Role.arg (an index built on first use,
model._arg_index), rules._engine.engine_id (kept by the engine's written name) and engine_roles.role_facts (its stated
settings and unknown parallel sizes, without generators)."""
from __future__ import annotations

import copy
import pickle
import sys
from pathlib import Path
from typing import Any, Optional

import pytest

import ctxlint.adapters.engine_roles as engine_roles
import ctxlint.rules._engine as rule_engine
from conftest import REPO, SHARED
from ctxlint.engine import Settings, lint_paths
from ctxlint.engines import Setting, parse_invocation
from ctxlint.engines.values import normalize_engine
from ctxlint.model import Deployment, Engine, Role, Source, Val
from ctxlint.records import replace

TREES = [str(path) for path in (REPO / "samples", SHARED / "corpus" / "real") if path.is_dir()]
CORPUS = (SHARED / "corpus" / "real").is_dir()  # else the samples alone (../shared not beside the repo)
HERE = Source("f.yaml", 1, 1)


def old_arg(role: Role, name: str) -> Optional[Val[Any]]:
    """Role.arg as it was: a scan of engine_args, the first of the name."""
    for key, val in role.engine_args:
        if key == name:
            return val
    return None


def old_engine_id(dep: Deployment) -> Optional[str]:
    return normalize_engine(dep.engine.name.value if dep.engine.name is not None else None)


@pytest.fixture(scope="module")
def deployments():
    found = lint_paths(TREES, Settings()).deployments
    assert len(found) > (250 if CORPUS else 100)  # the samples and the corpus
    return found


def _made_up_roles():
    a, b, c = Val(1, HERE), Val("x", HERE), Val(None, HERE)
    for args in ((), (("a", a),), (("a", a), ("b", b), ("a", c)), (("b", b), ("b", a), ("", c)), (("a", a),) * 3):
        yield Role(Val("unified", HERE), engine_args=args)


def test_arg_is_the_first_setting_of_the_name(deployments):
    roles = [role for dep in deployments for role in dep.roles] + list(_made_up_roles())
    asked = 0
    for role in roles:
        names = [name for name, _ in role.engine_args] + ["", "missing", "MAX_MODEL_LEN", "max_model_len"]
        for name in names * 2:  # the second time from the index the first built
            assert role.arg(name) is old_arg(role, name), (role.label, name)
            asked += 1
    assert asked > (5000 if CORPUS else 1000)


def test_arg_index_is_no_part_of_the_role():
    role = list(_made_up_roles())[2]
    fresh = pickle.dumps(role)
    assert role.arg("a").value == 1 and role.arg("b").value == "x" and role.arg("c") is None
    assert "_by_name" in role.__dict__  # built by the first arg
    assert pickle.dumps(role) == fresh  # pickles (--jobs) and copies leave it out
    for copied in (pickle.loads(fresh), copy.copy(role), copy.deepcopy(role)):
        assert copied == role and hash(copied) == hash(role) and repr(copied) == repr(role)
        assert "_by_name" not in copied.__dict__ and copied.arg("a").value == 1
    other = replace(role, engine_args=(("c", Val(3, HERE)),))  # a copy with other settings: its own index
    assert other.arg("c").value == 3 and other.arg("a") is None
    assert replace(role, name="r").arg("a").value == 1
    assert "_by_name" not in replace(role, name="r").__dict__


def test_engine_id_as_normalize_engine(deployments):
    class Named(str):
        pass

    made_up = [Deployment("f", HERE, "native", engine=Engine(name=Val(name, HERE)))
               for name in ("vllm", " VLLM ", "vLLM", "sglang", "tgi", "text-generation-inference", "trt-llm", "",
                            "unknown", Named("vllm"), 3, None, ["vllm"])]
    made_up.append(Deployment("f", HERE, "native"))
    for dep in list(deployments) + made_up * 2:  # twice: kept answers
        assert rule_engine.engine_id(dep) == old_engine_id(dep)


def test_engine_id_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(rule_engine, "_IDS", {})
    # the 1,100 made-up names go through normalize_engine's own bounded memo too: a fresh one here, so the names
    # other tests expect it to remember still fit after this test
    from ctxlint.engines import values
    monkeypatch.setattr(values, "_NORMALIZED", {})
    for i in range(1100):
        dep = Deployment("f", HERE, "native", engine=Engine(name=Val(f"engine-{i}", HERE)))
        assert rule_engine.engine_id(dep) is None
    assert len(rule_engine._IDS) == 1024
    assert rule_engine.engine_id(Deployment("f", HERE, "native", engine=Engine(name=Val(" SGLang", HERE)))) == "sglang"


def old_stated_and_unknown(inv, where, later):
    """role_facts' engine_args and parallel_unknown as they were computed (generators, a set difference)."""
    if later is None:
        args = tuple((name, Val(s.value, where(s), raw=s.raw_text))
                     for name, s in inv.settings.items() if s.origin in engine_roles.STATED and s.value is not None)
    else:
        args = tuple((name, s.value, later(s)(), s.raw_text)
                     for name, s in inv.settings.items() if s.origin in engine_roles.STATED and s.value is not None)
    names = engine_roles.PARALLEL_SETTINGS - ({"data_parallel_size"} if engine_roles._per_pod(inv) else set())
    unknown = any(s is not None and s.origin in engine_roles.STATED and s.value is None
                  for s in (inv.settings.get(n) for n in names))
    return args, unknown


def _made_up_invocations():
    """Each engine's command with each parallel size (and vLLM's per-pod ranks) stated without a value, stated, or
    left at a default without a value."""
    commands = {"vllm": ["--tensor-parallel-size", "2", "--max-model-len", "4096"],
                "sglang": ["--model-path", "m", "--tp-size", "2", "--nnodes", "2"],
                "tgi": ["--model-id", "m", "--num-shard", "2"], "lmdeploy": ["m", "--tp", "2"],
                "trtllm": ["m", "--tp_size", "2"], "llamacpp": ["-m", "m", "-c", "4096"]}
    for engine, tokens in commands.items():
        inv = parse_invocation(engine, tokens, {})
        yield inv
        for name in sorted(engine_roles.PARALLEL_SETTINGS) + ["data_parallel_rank", "max_model_len"]:
            for value, origin in ((None, "flag"), (None, "env"), (None, "default"), (3, "config-file")):
                settings = dict(inv.settings)
                settings[name] = Setting(value, "$X", None, None, origin, "--x")
                if engine == "vllm":
                    settings["data_parallel_size_local"] = Setting(1, "1", None, None, "flag", "--dpl")
                    yield replace(inv, settings=dict(settings))
                    del settings["data_parallel_size_local"]
                yield replace(inv, settings=settings)


def old_draft_layers(inv, where):
    """engine_roles._draft_layers as it was (the speculative config built before asking whether one is stated)."""
    _stated = engine_roles._stated
    if inv.engine == "vllm":
        from ctxlint.engines.specs import vllm_speculative

        spec = vllm_speculative(lambda name: None if _stated(inv, name) is None else _stated(inv, name).value)
        s = next((x for x in map(lambda n: _stated(inv, n), ("speculative_config", "spec_method", "spec_model"))
                  if x is not None), None)
        if s is None or spec is None:
            return None
        method, draft = (str(spec.get(k) or "").lower() for k in ("method", "model"))
        if not method:
            method = "eagle3" if "eagle3" in draft else "eagle" if "eagle-" in draft else ""
        if method not in ("eagle", "eagle3", "mtp") and not method.endswith("_mtp"):
            return None
    elif inv.engine == "sglang":
        s = _stated(inv, "speculative_algorithm")
        method = str(s.value).upper() if s is not None else ""
        if method not in ("EAGLE", "EAGLE3", "NEXTN"):
            return None
    else:
        return None
    return Val(1, where(s), raw=f"{method}: one draft layer")


def _speculative_invocations():
    """vLLM's speculative settings, each alone and together, stated or at a default."""
    inv = parse_invocation("vllm", ["--max-model-len", "4096"], {})
    values = {"speculative_config": [{"method": "eagle", "model": "x"}, {"model": "org/eagle3-head"}, {}, "bad",
                                     {"method": "deepseek_mtp"}, {"method": "ngram"}],
              "spec_method": ["mtp", "eagle3", "ngram"], "spec_model": ["org/EAGLE-llama", "org/draft"]}
    for name, choices in values.items():
        for value in choices:
            for origin in ("flag", "default", "config-file"):
                settings = dict(inv.settings)
                settings[name] = Setting(value, str(value), None, None, origin, "--x")
                yield replace(inv, settings=dict(settings))
                settings["spec_method"] = Setting("mtp", "mtp", None, None, "flag", "--spec-method")
                yield replace(inv, settings=dict(settings))


def test_role_facts_as_before(monkeypatch):
    """Every invocation the adapters hand role_facts on the samples and the corpus, and made-up ones (a parallel size
    stated but not known, vLLM's per-pod ranks), against the old computation."""
    real = engine_roles.role_facts
    seen, drafts = [], []

    def checked(inv, where, later=None):
        facts = real(inv, where, later)
        args, unknown = old_stated_and_unknown(inv, where, later)
        mine = facts.engine_args if later is None else \
            tuple((name, val.value, val.source, val.raw) for name, val in facts.engine_args)
        assert mine == args and facts.parallel_unknown is unknown
        assert facts.draft_layers == old_draft_layers(inv, where)
        drafts.append(facts.draft_layers is not None)
        seen.append((inv.engine, len(args), unknown))
        return facts

    for module in list(sys.modules.values()):
        if getattr(module, "role_facts", None) is real:
            monkeypatch.setattr(module, "role_facts", checked)
    lint_paths(TREES, Settings())
    for inv in list(_made_up_invocations()) + list(_speculative_invocations()):
        checked(inv, lambda s: HERE)
        checked(inv, lambda s: HERE, lambda s: (lambda: Source("g", 2, 2)))
    assert len(seen) > (300 if CORPUS else 100)
    assert any(unknown for _, _, unknown in seen) and any(not unknown for _, _, unknown in seen)
    assert sum(1 for _, n, _ in seen if n > 5) > (100 if CORPUS else 5)
    assert 10 < sum(drafts) < len(drafts)


def test_parallel_names_are_the_set():
    assert set(engine_roles._PARALLEL_NAMES) == engine_roles.PARALLEL_SETTINGS
    assert set(engine_roles._PARALLEL_PER_POD) == engine_roles.PARALLEL_SETTINGS - {"data_parallel_size"}
    assert engine_roles._STATED == set(engine_roles.STATED)


def old_model_source(dep: Deployment, role: Optional[Role]) -> Source:
    """Deployment.model_source as it was (a generator over Role.arg)."""
    from ctxlint.engines.parse import model_keys
    from ctxlint.model import _within

    if role is not None:
        keys = model_keys(dep.engine.name.value if dep.engine.name is not None else None)
        own = next((val for key in keys for val in (old_arg(role, key),) if val is not None), None)
        if own is not None:
            return own.source
    fallback = (role.source if role is not None else None) or dep.source
    if dep.model.id is None:
        return fallback
    where = dep.model.id.source
    if role is not None and any(r.source is not None and r.source != role.source and _within(where, r.source)
                                for r in dep.roles):
        return fallback
    return where


def test_deployment_lookups_as_before(deployments):
    """disaggregated, roles_of and model_source against their old code (Role.kind, generators)."""
    split = 0
    for dep in deployments:
        assert dep.disaggregated is any(r.kind in ("prefill", "decode") for r in dep.roles)
        split += dep.disaggregated
        for kinds in ((), ("unified",), ("prefill",), ("decode",), ("prefill", "decode"), ("unified", "decode")):
            assert dep.roles_of(*kinds) == tuple(r for r in dep.roles if r.kind in kinds)
        for role in (None,) + dep.roles:
            assert dep.model_source(role) == old_model_source(dep, role)
    assert split > 10


def test_arg_index_never_answers_for_other_settings():
    # engine_args set anew on the instance after the index was built: the index is rebuilt, not read stale
    role = list(_made_up_roles())[2]
    assert role.arg("a").value == 1
    object.__setattr__(role, "engine_args", (("a", Val(9, HERE)),))
    assert role.arg("a").value == 9 and role.arg("b") is None
    # a list of settings may change after: it is scanned each time, never indexed
    settings = [("a", Val(1, HERE))]
    listed = Role(Val("unified", HERE), engine_args=settings)
    assert listed.arg("b") is None
    settings.append(("b", Val(5, HERE)))
    assert listed.arg("b").value == 5
    # a name no dict can hold (a list) finds nothing, as the scan did, instead of raising
    assert role.arg(["a"]) is None
    odd = Role(Val("unified", HERE), engine_args=((["x"], Val(1, HERE)), ("a", Val(2, HERE))))
    assert odd.arg("a").value == 2 and odd.arg(["x"]).value == 1
    for probe in (role, listed, odd):
        for name in ("a", "b", "x", ["x"], None, 3):
            assert probe.arg(name) is old_arg(probe, name)
