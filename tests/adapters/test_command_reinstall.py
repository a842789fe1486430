"""A container whose own command installs the engine before starting it runs that install's release, not its
image tag's (Versions.run_release): a pin names it, any other install leaves it unknown."""
from __future__ import annotations

from ctxlint.adapters import adapt_file
from ctxlint.file_reader import read_path
from helpers import run

LAUNCH = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --context-length 8192"

POD = """apiVersion: v1
kind: Pod
metadata:
  name: sgl
spec:
  containers:
  - name: server
    image: {image}
    command: ["bash", "-c", "{install} && {launch}"]
"""

SCRIPT = '#!/bin/bash\n{before}docker run --gpus all {image} bash -c "{install} && {launch}"\n'


def _dep(path):
    [dep] = adapt_file(read_path(str(path))).deployments
    return dep


def _where(val):
    return (val.value, val.source.line, val.source.col) if val is not None else None


def _pod(tmp_path, install, launch=LAUNCH, image="lmsysorg/sglang:v0.5.20"):
    path = tmp_path / "pod.yaml"
    path.write_text(POD.format(image=image, install=install, launch=launch))
    return path


def _script(tmp_path, install, launch=LAUNCH, before=""):
    path = tmp_path / "run.sh"
    path.write_text(SCRIPT.format(before=before, image="lmsysorg/sglang:v0.5.20", install=install, launch=launch))
    return path


def _refusals(path):
    return [line[len(str(path)) + 1:] for line in run(["check", str(path)]).out.splitlines() if "CTX301" in line]


def test_a_pinned_reinstall_in_a_pods_command_is_the_release_it_runs(tmp_path):
    # the pin, at its version (the script starts at column 30 of line 9)
    for install, col in (("pip install sglang==0.5.5", 50), ("python3 -m pip install 'sglang[all]==0.5.5'", 67),
                         ("uv pip install --system sglang==0.5.5", 62)):
        assert _where(_dep(_pod(tmp_path, install)).engine.version) == ("0.5.5", 9, col), install
    # a foreign image whose tag names the release it was built with
    image = "example.com/team/mooncake:0.3.7-sglang0.5.20"
    assert _where(_dep(_pod(tmp_path, "pip install sglang==0.5.5", image=image)).engine.version) == ("0.5.5", 9, 50)
    # an image without the engine: the pin is its release too
    assert _dep(_pod(tmp_path, "pip install sglang==0.5.5", image="python:3.12")).engine.version.value == "0.5.5"
    # installing something else leaves the tag's release
    assert _dep(_pod(tmp_path, "pip install sglang-router==0.1.0")).engine.version.value == "0.5.20"


def test_a_flag_the_tags_release_refuses_is_no_error_under_a_pinned_reinstall(tmp_path):
    dropped = LAUNCH + " --cuda-graph-max-bs 64"  # gone from 0.5.20, read by 0.5.5
    assert _refusals(_pod(tmp_path, "pip install sglang==0.5.5", dropped)) == []
    assert _refusals(_script(tmp_path, "pip install sglang==0.5.5", dropped)) == []
    # and what the pinned release refuses is its refusal: --dcp-size is new in 0.5.15
    assert _refusals(_pod(tmp_path, "pip install sglang==0.5.5", LAUNCH + " --dcp-size 2")) == [
        "9:150: CTX301 [error] sglang 0.5.5 would refuse to start: unrecognized arguments: --dcp-size (a spelling "
        "from 0.5.15 on: earlier releases have no such flag) (engine-rejects-value)"]


def test_an_upgrade_runs_the_newest_and_a_range_or_url_an_unknown_release(tmp_path):
    dropped = LAUNCH + " --cuda-graph-max-bs 64"
    refused = ("sglang 0.5.20 and later would refuse to start: ambiguous option: --cuda-graph-max-bs could match "
               "--cuda-graph-max-bs-decode, --cuda-graph-max-bs-prefill (dropped in 0.5.20: write "
               "--cuda-graph-max-bs-decode 64)")
    # `-U` installs the newest the index offers, which refuses it too: still an error, no longer 0.5.20's
    assert _refusals(_pod(tmp_path, "pip install -U sglang", dropped)) == [
        f"9:146: CTX301 [error] {refused} (engine-rejects-value)"]
    assert _refusals(_script(tmp_path, "pip install -qU sglang", dropped)) == [
        f"2:173: CTX301 [error] {refused} (engine-rejects-value)"]
    # a range installs a release the line does not name: a warning that says why
    assert _refusals(_pod(tmp_path, "pip install 'sglang>=0.5.5'", dropped)) == [
        f"9:152: CTX301 [warning] {refused}. Which sglang release runs is unknown: the container's command installs "
        "sglang>=0.5.5 over the image lmsysorg/sglang:v0.5.20, whose tag is then not the release it runs; a release "
        "before 0.5.20 takes it, so this is a warning (the image's sglang version says which; with that release "
        "pinned ctxlint can tell) (engine-rejects-value)"]
    for install in ("pip install -U sglang", "pip install --upgrade 'sglang[all]'", "pip install 'sglang>=0.5.5'",
                    "pip install sglang==0.5.*", "pip install sglang==$V",
                    "pip install git+https://github.com/sgl-project/sglang.git#subdirectory=python"):
        assert _dep(_pod(tmp_path, install)).engine.version is None, install
    # a bare name over the image's own install is "already satisfied": the tag's release runs
    assert _dep(_pod(tmp_path, "pip install sglang")).engine.version.value == "0.5.20"


def test_a_later_pin_wins_and_a_host_install_is_not_the_containers(tmp_path):
    assert _dep(_pod(tmp_path, "pip install -U sglang && pip install sglang==0.5.5")).engine.version.value == "0.5.5"
    assert _dep(_pod(tmp_path, "pip install sglang==0.5.5 && pip install -U sglang")).engine.version is None
    assert _dep(_pod(tmp_path, "pip install sglang==0.5.5 && pip install sglang")).engine.version.value == "0.5.5"
    assert _dep(_pod(tmp_path, "pip install sglang==0.5.5 && pip install -U sglang", image="python:3.12")) \
        .engine.version is None
    # an install after the launch is not what it runs
    path = _pod(tmp_path, "true", launch=LAUNCH + " && pip install sglang==0.5.5")
    assert _dep(path).engine.version.value == "0.5.20"
    # `docker run IMAGE` with the engine as its entrypoint: the host's pip is not the container's
    path = tmp_path / "host.sh"
    path.write_text("#!/bin/bash\npip install -U sglang\ndocker run --gpus all lmsysorg/sglang:v0.5.20 "
                    "python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --cuda-graph-max-bs 64\n")
    assert _dep(path).engine.version.value == "0.5.20"


def test_a_pin_with_blanks_is_a_pin_and_an_install_elsewhere_or_a_dry_run_is_not_the_release(tmp_path):
    # PEP 508 lets blanks stand around the extras and before `==` (packaging reads `sglang[all] == 0.5.5` as
    # sglang ==0.5.5): the pin, at its version, not the tag's 0.5.20 (the script starts at column 30 of line 9)
    for install, col in (("pip install 'sglang[all] == 0.5.5'", 58), ("pip install 'sglang ==0.5.5'", 52)):
        assert _where(_dep(_pod(tmp_path, install)).engine.version) == ("0.5.5", 9, col), install
    # `--dry-run`: "Don't actually install anything" (pip install --help): the tag's release runs
    assert _dep(_pod(tmp_path, "pip install --dry-run sglang==0.5.5")).engine.version.value == "0.5.20"
    # into a directory of its own (`--target`, `--prefix`, `--root`): the server imports it from there or not
    dropped = LAUNCH + " --cuda-graph-max-bs 64"
    for install in ("pip install --target /opt/x sglang==0.5.5", "pip install -t/opt/x -U sglang",
                    "pip install --prefix=/opt/x sglang==0.5.5"):
        assert _dep(_pod(tmp_path, install)).engine.version is None, install
    assert [line.split(" Which ")[1] for line in _refusals(_pod(tmp_path, "pip install --root /r sglang==0.5.5",
                                                                 dropped))] == [
        "sglang release runs is unknown: the container's command installs sglang==0.5.5 with --root, where the "
        "server may or may not import it from; a release before 0.5.20 takes it, so this is a warning (the image's "
        "sglang version says which; with that release pinned ctxlint can tell) (engine-rejects-value)"]


def test_a_pin_in_a_branch_the_launch_is_not_in_leaves_the_release_unknown(tmp_path):
    # `if [ -n "$FAST" ]; then pip install sglang==0.5.5; fi && launch`: the pin runs only when FAST is set, so
    # the release is 0.5.5 or the tag's 0.5.20; a flag 0.5.20 refuses is a warning that says why, not an error
    # and not no finding (review of fixes28: the pin was taken as the release it runs)
    install = 'if [ -n \\"$FAST\\" ]; then pip install sglang==0.5.5; fi'
    dropped = LAUNCH + " --cuda-graph-max-bs 64"
    assert _dep(_pod(tmp_path, install)).engine.version is None
    [line] = _refusals(_pod(tmp_path, install, dropped))
    assert line.startswith("9:") and "CTX301 [warning]" in line and (
        "Which sglang release runs is unknown: the container's command installs sglang==0.5.5 only in a branch of an "
        "`if`, which may not run, so the release it runs is either that or the image's;") in line
    # in the launch's own branch it always runs before it: the pin is the release
    both = 'if [ -n \\"$FAST\\" ]; then pip install sglang==0.5.5 && ' + LAUNCH + '; fi'
    path = tmp_path / "pod.yaml"
    path.write_text(POD.format(image="lmsysorg/sglang:v0.5.20", install="true", launch=both))
    assert _dep(path).engine.version.value == "0.5.5"


def test_a_pin_installed_in_the_background_leaves_the_release_unknown(tmp_path):
    # `pip install sglang==0.5.5 & launch`: bash starts the launch without waiting for the install (bash manual,
    # Lists: "the shell does not wait for the command to finish"), so the server may import 0.5.5 or the tag's
    # 0.5.20; a flag 0.5.20 refuses is a warning that says why, not an error, and 0.5.5 is not named
    dropped = LAUNCH + " --cuda-graph-max-bs 64"
    for install in ("pip install sglang==0.5.5 & true", "pip install sglang==0.5.5 && echo ok & true",
                    "nohup pip install sglang==0.5.5 > /tmp/pip.log 2>&1 & sleep 5; wait $!"):
        assert _dep(_pod(tmp_path, install)).engine.version is None, install
    [line] = _refusals(_pod(tmp_path, "pip install sglang==0.5.5 & true", dropped))
    assert line.startswith("9:") and "CTX301 [warning]" in line and (
        "Which sglang release runs is unknown: the container's command installs sglang==0.5.5 in the background "
        "(`&`), which the launch does not wait for, so the release it runs is either that or the image's;") in line
    # waited for (`wait`: every background job; `wait $!` right after it: that one), it is the release
    for install in ("pip install sglang==0.5.5 & wait", "pip install sglang==0.5.5 & wait $!",
                    "pip install sglang==0.5.5 & pip install sglang-router & wait"):
        assert _where(_dep(_pod(tmp_path, install)).engine.version) == ("0.5.5", 9, 50), install
    # in a script's `docker run IMAGE bash -c` too
    assert _dep(_script(tmp_path, "pip install sglang==0.5.5 & true")).engine.version is None


def test_a_project_a_requirements_file_or_a_local_build_leaves_the_release_unknown(tmp_path):
    # `pip install -e .` (a checkout, perhaps the engine's), `-r requirements.txt` (not read: it is in the image,
    # and any may list the engine), a path or wheel of the engine: whatever release they hold replaces the tag's
    dropped = LAUNCH + " --cuda-graph-max-bs 64"
    for install in ("pip install -e .", "cd /sgl/python && pip install --no-deps -e '.[all]'",
                    "pip install -r requirements.txt", "pip install -rrequirements.txt", "uv pip install --system .",
                    "pip install ./sglang", "pip install dist/sglang-*.whl", "pip install --editable=/src/sglang"):
        assert _dep(_pod(tmp_path, install)).engine.version is None, install
    [line] = _refusals(_pod(tmp_path, "pip install -r requirements.txt", dropped))
    assert "CTX301 [warning]" in line and ("Which sglang release runs is unknown: the container's command installs "
                                           "requirements.txt, which may hold sglang (ctxlint does not read it), over "
                                           "the image lmsysorg/sglang:v0.5.20, whose tag is then not the release it "
                                           "runs;") in line
    # an option's value is no requirement: an index URL, a constraints file, a named path of another package
    for install in ("pip install -c constraints.txt sglang-router", "pip install /opt/router",
                    "pip install --extra-index-url https://flashinfer.ai/whl/sglang/ sglang-router"):
        assert _dep(_pod(tmp_path, install)).engine.version.value == "0.5.20", install
    assert _dep(_pod(tmp_path, "pip install sglang==0.5.5 --find-links /wheels/sglang")).engine.version.value \
        == "0.5.5"
    # a project over an image without the engine changes nothing ctxlint knew
    assert _dep(_pod(tmp_path, "pip install -e . && pip install sglang==0.5.5", image="python:3.12")) \
        .engine.version.value == "0.5.5"


def test_uvs_plural_requirements_option_is_a_requirements_file(tmp_path):
    # uv's long form is `--requirements` (uv-cli PipInstallArgs.requirements): before, its file was no project
    # (`--requirements=FILE` skipped as an option), so the tag's release stood though the file may pin the engine
    for install in ("uv pip install --system --requirements requirements.txt",
                    "uv pip install --system --requirements=requirements.txt"):
        assert _dep(_pod(tmp_path, install)).engine.version is None, install
    # a uv constraints/overrides file is no requirement
    assert _dep(_pod(tmp_path, "uv pip install --constraints sglang.txt sglang-router")).engine.version.value == \
        "0.5.20"
