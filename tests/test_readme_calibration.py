"""The README's calibration table is the one tests/physics/calibration.py prints today."""
from __future__ import annotations

import re
import subprocess
import sys

from conftest import REPO


def test_readme_shows_the_current_calibration_table():
    out = subprocess.run([sys.executable, str(REPO / "tests" / "physics" / "calibration.py")], capture_output=True,
                         text=True, check=True).stdout.strip()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- calibration-table:[^>]*-->\n(.*?)\n<!-- end calibration-table -->", readme, re.S)
    assert m, "README lost its calibration table markers"
    assert m.group(1).strip() == out, "README calibration table is stale: paste `python tests/physics/calibration.py`"
