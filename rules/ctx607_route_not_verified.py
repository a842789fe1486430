"""A gateway route whose backend ctxlint cannot follow, or a plugin nothing attaches.

Why:
    A route can only be checked against the engine it reaches. When its backend
    is an address outside the checked files (an IP, an `os.environ/` reference, a
    Service or pool that is not there), ctxlint says it cannot verify the route
    instead of passing it silently. Routes are joined to the files of their own
    directory: keep the files that define the backend in the gateway's directory
    and check them together (files in another directory are not followed, even
    when both are named on the command line).
    Routes to public providers (an `https://` host outside the cluster) are not
    engines of this deployment and are not reported.

    A Kong plugin that no Ingress or Service of the checked files names in its
    `konghq.com/plugins` annotation does nothing unless it is global or attached
    elsewhere: its limits protect no route.

Example (bad):
    ```yaml
    litellm_params: {model: openai/qwen, api_base: os.environ/QWEN_URL}
    ```

Example (good):
    ```yaml
    litellm_params: {model: openai/qwen, api_base: http://qwen:8000/v1}   # with the qwen Service beside it
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ctxlint.findings import Problem
from ctxlint.lazyre import lazy_compile
from ctxlint.rules._stack import route_text
from ctxlint.routes import url_host

if TYPE_CHECKING:  # the stack module loads only for runs with gateways (engine.py)
    from ctxlint.stack import StackView

ID = "CTX607"
NAME = "route-not-verified"
SEVERITY = "info"
SCOPE = "stack"
TAGS = ()
INPUTS = ("routes",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}

_INTERNAL = lazy_compile(r"(^localhost$|^[0-9.]+$|\.(svc|local|internal|cluster|lan|home)$|^[^.]+$)")


def check(view: StackView, options) -> Iterator[Problem]:
    route = view.route
    if view.attached is False:
        yield Problem(
            f"the {route_text(view)} ({route.key.split('/', 1)[1]}) is attached to no Ingress or Service of the "
            "checked files (konghq.com/plugins): unless it is global or attached elsewhere it changes nothing",
            route.source, route.label)
    if not view.unresolved or _external(view):
        return
    yield Problem(
        f"cannot verify the {route_text(view)}: {view.unresolved}. Its window, output limit and model name were "
        "not compared with any engine; check the backend's files together with the gateway's, in its directory",
        route.backends[0].source if route.backends else route.source, route.label)


def _external(view: StackView) -> bool:
    """Every backend is a public provider (not an engine these files could define)."""
    urls = [b for b in view.route.backends if b.kind == "url"]
    if not urls or len(urls) != len(view.route.backends):
        return False
    return all(not _INTERNAL.search(url_host(str(b.value))[0] or "x") for b in urls)
