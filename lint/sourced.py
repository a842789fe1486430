"""The path of a file a shell script sources (`source ../setup.sh`, `. "$(dirname "$0")/lib.sh"`), relative to
the script's directory: the shell-script adapter asks it of a script's text before splitting anything (does a
sourced file name an engine?), the splitter (engines/shellfuncs.py) of each `source` command it reads. Apart
from both so that the adapter's test imports no engine module."""
from __future__ import annotations

from typing import Optional

from ctxlint.lazyre import lazy_compile

MAX_SOURCES = 8  # sourced files read for one script
# A path beside the script spelled by the script's own directory: `$(dirname "$0")/lib.sh`, `${BASH_SOURCE%/*}/x`
_SCRIPT_DIR = lazy_compile(r'(?:\$\(\s*dirname\s+(?:--\s+)?"?\$(?:0|\{0\}|BASH_SOURCE|\{BASH_SOURCE(?:\[0\])?\})"?\s*\)'
                           r'|\$\{BASH_SOURCE(?:\[0\])?%/\*\})/(.+)')


def sourced_path(text: str) -> Optional[str]:
    """The path, relative to the script's directory, of a sourced file the script names by that directory
    (`$(dirname "$0")/lib.sh` -> `lib.sh`) or by a plain relative path; None for anything else."""
    beside = _SCRIPT_DIR.fullmatch(text)
    if beside is not None:
        text = beside.group(1)
    return text if text and "$" not in text and "`" not in text else None
