"""The benchmark's harness (benchmarks/run.py): which executables it times and what it refuses.

Speed itself is never asserted here (CI runs on noisy 2-core machines); these check that the
benchmark times the real tool, not a version-manager shim, and that a run which fails fast or
prints something else each round aborts the benchmark instead of being timed as fast.
"""
from __future__ import annotations

import os
import sys

import pytest

from benchmarks import run as bench


def script(path, text: str):
    path.write_text(text)
    path.chmod(0o755)
    return path


def test_pyenv_shim_is_recognised(tmp_path):
    shim = script(tmp_path / "yamllint", '#!/usr/bin/env bash\nset -e\nexec "/root/.pyenv/libexec/pyenv" exec '
                                          '"$program" "$@"\n')
    console = script(tmp_path / "ctxlint", f"#!{sys.executable}\nimport sys\nfrom ctxlint.cli import main\n")
    assert bench.is_shim(shim) is True
    assert bench.is_shim(console) is False


def test_tool_skips_a_shim_on_path(tmp_path, monkeypatch):
    shims, real = tmp_path / "shims", tmp_path / "real"
    shims.mkdir(), real.mkdir()
    script(shims / "peer-tool-x", "#!/usr/bin/env bash\nexec pyenv exec peer-tool-x \"$@\"\n")
    target = script(real / "peer-tool-x", f"#!{sys.executable}\nprint('ok')\n")
    monkeypatch.setenv("PATH", os.pathsep.join([str(shims), str(real)]))
    assert bench.tool("peer-tool-x") == str(target.resolve())


def test_tool_resolves_symlinks(tmp_path, monkeypatch):
    target = script(tmp_path / "peer-tool-y-real", f"#!{sys.executable}\nprint('ok')\n")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "peer-tool-y").symlink_to(target)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert bench.tool("peer-tool-y") == str(target.resolve())


def test_unexpected_exit_code_aborts():
    with pytest.raises(bench.BenchmarkError, match=r"exited 2 \(expected \(0, 1\)\)"):
        bench.interleaved({"fails": ([sys.executable, "-c", "raise SystemExit(2)"], (0, 1))}, 1, warm=False)


def test_output_that_changes_between_rounds_aborts(tmp_path):
    counter = tmp_path / "n"
    counter.write_text("0")
    code = (f"import pathlib; p = pathlib.Path({str(counter)!r}); n = int(p.read_text()) + 1; "
            "p.write_text(str(n)); print(n)")
    with pytest.raises(bench.BenchmarkError, match="exit code/output changed between rounds"):
        bench.interleaved({"drifts": ([sys.executable, "-c", code], (0,))}, 2, warm=False)


def test_interleaved_reports_exit_code_and_digest_of_each_command():
    result = bench.interleaved({"clean": ([sys.executable, "-c", "print('same')"], (0,)),
                                "findings": ([sys.executable, "-c", "raise SystemExit(1)"], (0, 1))}, 3)
    assert [(name, code, digest) for name, (_, code, digest) in result.items()] == [
        ("clean", 0, "a6328afc76e9"), ("findings", 1, "e3b0c44298fc")]  # sha256 of "same\n", of ""
