"""The docs site (docs/rules/<ID>.md + index, docs/config.schema.json) is current, complete and
link-clean: built and checked here because CI runs only the test suite.
"""
from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path
from typing import Dict, Iterator, List, Set, Tuple

import pytest

from conftest import REPO
from ctxlint.config import parse_config
from ctxlint.registry import all_rules
from ctxlint.reporters.rule_pages import INPUTS, config_example, page_path

_spec = importlib.util.spec_from_file_location("build_docs", REPO / "tools" / "build_docs.py")
build_docs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_docs)


def test_generated_docs_are_current(update_golden):
    if update_golden:
        build_docs.write(REPO)
    assert build_docs.stale(REPO) == [], "docs are stale: run python tools/build_docs.py"


def test_a_stale_or_left_over_page_is_noticed(tmp_path):
    build_docs.write(tmp_path)
    assert build_docs.stale(tmp_path) == []
    (tmp_path / "docs" / "rules" / "CTX101.md").write_text("edited by hand\n", encoding="utf-8")
    (tmp_path / "docs" / "rules" / "CTX999.md").write_text("a removed rule\n", encoding="utf-8")
    (tmp_path / "docs" / "config.schema.json").unlink()
    assert build_docs.stale(tmp_path) == ["docs/config.schema.json", "docs/rules/CTX101.md",
                                          "docs/rules/CTX999.md"]
    build_docs.write(tmp_path)
    assert build_docs.stale(tmp_path) == [] and not (tmp_path / "docs" / "rules" / "CTX999.md").exists()


@pytest.mark.parametrize("spec", all_rules(), ids=lambda s: s.id)
def test_every_rule_has_its_page_where_sarif_help_points(spec):
    assert page_path(spec) == f"docs/rules/{spec.id}.md"
    text = (REPO / page_path(spec)).read_text(encoding="utf-8")
    assert text.startswith(f"# {spec.id} {spec.name}\n")
    for part in ("\n## Why\n", "\n## Example (bad)\n", "\n## Example (good)\n", "\n## Inputs\n",
                 "\n## Options\n", "\n## Configuration\n", f"| default severity | {spec.severity} |"):
        assert part in text, (spec.id, part)
    assert f"[{spec.id}]({spec.id}.md)" in (REPO / "docs" / "rules" / "README.md").read_text(encoding="utf-8")


# --- links -------------------------------------------------------------------------------------------

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> Set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    seen: Dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *#* *$", text, re.M):
        slug = github_slug(heading)
        found.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return found


def broken_links(path: Path, root: Path) -> Iterator[Tuple[str, str]]:
    """(link, why) for every relative link in a Markdown file that does not resolve."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans are not links
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # https:, mailto:: not checked offline
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        if root not in resolved.parents and resolved != root:
            yield target, "points outside the repository"
        elif not resolved.exists():
            yield target, "no such file"
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            yield target, "no such heading"


def markdown_files() -> List[Path]:
    return sorted([*REPO.glob("*.md"), *(REPO / "docs").rglob("*.md")])


def test_every_relative_link_in_readme_and_docs_resolves():
    files = markdown_files()
    assert REPO / "README.md" in files and len(files) > 40
    broken = [(str(f.relative_to(REPO)), link, why) for f in files for link, why in broken_links(f, REPO)]
    assert broken == []


def test_the_link_checker_finds_broken_links(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Title, here\n\n## Two words\n", encoding="utf-8")
    (tmp_path / "README.md").write_text(
        "[ok](docs/a.md) [ok](docs/a.md#two-words) [ok](#top-level) [web](https://example.com/x)\n"
        "`[code](nowhere.md)`\n```\n[fenced](nowhere.md)\n```\n"
        "[gone](docs/b.md) [bad anchor](docs/a.md#three) [out](../x.md)\n# Top level\n", encoding="utf-8")
    found = list(broken_links(tmp_path / "README.md", tmp_path.resolve()))
    assert found == [("docs/b.md", "no such file"), ("docs/a.md#three", "no such heading"),
                     ("../x.md", "points outside the repository")]


# --- what each page says ---------------------------------------------------------------------------

# Fields of the normalized deployment whose reading by a rule (or a rules._ helper it calls) is
# unambiguous, and the INPUTS key each belongs to.
FIELD_INPUT = {
    "context_window": "advertised.context_window", "max_output_tokens": "advertised.max_output_tokens",
    "max_prompt_tokens": "gateway.max_prompt_tokens", "context_length": "roles[].context_length",
    "context_default": "roles[].context_length", "kv_pool_tokens": "roles[].kv_pool_tokens",
    "pool": "roles[].pool", "available_kv_gib": "roles[].pool", "capacity": "roles[].capacity",
    "accelerators": "roles[].accelerators", "gpus": "roles[].accelerators", "neuron": "roles[].accelerators",
    "parallelism": "roles[].parallelism", "tp": "roles[].parallelism", "pp": "roles[].parallelism",
    "dp": "roles[].parallelism", "engine_args": "roles[].engine_args", "arg": "roles[].engine_args",
    "kv_cache_dtype": "roles[].kv_cache_dtype", "max_position_embeddings": "model",
    "rope_scaling_factor": "model", "arch": "model", "custom_accelerators": "custom_accelerators",
    "disaggregation": "disaggregation", "disaggregated": "disaggregation", "roles_of": "disaggregation",
    "engine": "engine",
}
RULES_DIR = REPO / "rules"


def _top_level(path: Path) -> Tuple[ast.Module, Dict[str, ast.AST]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    named = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            named[node.name] = node
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            named[node.targets[0].id] = node
    return tree, named


def _names(node: ast.AST) -> Set[str]:
    """Attributes read, and strings (getattr(role, "context_length")), anywhere under node."""
    return ({n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
            | {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)})


def fields_read(path: Path) -> Set[str]:
    """The INPUTS keys of the deployment fields a rule module reads, following rules._ helpers."""
    tree, _ = _top_level(path)
    found = _names(tree)
    todo = [(node.module, alias.name) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            and (node.module or "").startswith("ctxlint.rules._") for alias in node.names]
    seen = set()
    while todo:
        module, name = todo.pop()
        if (module, name) in seen:
            continue
        seen.add((module, name))
        _, helpers = _top_level(RULES_DIR / (module.rsplit(".", 1)[1] + ".py"))
        if name in helpers:
            found |= _names(helpers[name])
            todo += [(module, n.id) for n in ast.walk(helpers[name]) if isinstance(n, ast.Name) and n.id in helpers]
    return {FIELD_INPUT[name] for name in found if name in FIELD_INPUT}


@pytest.mark.parametrize("spec", all_rules(), ids=lambda s: s.id)
def test_inputs_are_known_and_name_what_the_rule_reads(spec):
    assert spec.inputs and set(spec.inputs) <= set(INPUTS), spec.inputs
    assert list(spec.inputs) == sorted(spec.inputs, key=list(INPUTS).index), "INPUTS in the pages' order"
    if spec.scope == "deployment":  # input rules report what earlier stages recorded
        path = RULES_DIR / (spec.module.__name__.rsplit(".", 1)[1] + ".py")
        assert set(spec.inputs) & set(FIELD_INPUT.values()) == fields_read(path)


def test_the_reads_analysis_sees_helpers_and_getattr():
    assert fields_read(RULES_DIR / "ctx101_window_exceeds_kv_pool.py") >= {  # via _common.max_request
        "advertised.max_output_tokens", "gateway.max_prompt_tokens"}
    assert "roles[].kv_cache_dtype" in fields_read(RULES_DIR / "ctx108_role_settings_disagree.py")


@pytest.mark.parametrize("spec", all_rules(), ids=lambda s: s.id)
def test_configuration_example_is_a_valid_config(spec):
    text = config_example(spec)
    assert "# .ctxlint.yaml\n" in (REPO / page_path(spec)).read_text(encoding="utf-8")
    config = parse_config(text, ".ctxlint.yaml")
    assert config.severity[spec.id] == spec.severity
    assert dict(config.rule_options.get(spec.id, {})) == spec.default_options()
