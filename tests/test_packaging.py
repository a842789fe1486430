"""lint/ and rules/ are importable only as ctxlint and ctxlint.rules."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO


@pytest.mark.parametrize("name,message", [("lint", "import ctxlint, not 'lint'"),
                                          ("rules", "import ctxlint.rules, not 'rules'")])
def test_folders_refuse_their_folder_names(name, message):
    proc = subprocess.run([sys.executable, "-c", f"import {name}"], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode != 0 and message in proc.stderr


def test_rules_package_is_the_registry_module():
    import ctxlint.rules
    from ctxlint.registry import all_rules

    assert all(spec.module.__name__.startswith("ctxlint.rules.") for spec in all_rules())
    assert ctxlint.rules.__name__ == "ctxlint.rules"
