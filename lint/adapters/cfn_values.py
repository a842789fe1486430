"""CloudFormation intrinsic functions, resolved as far as the template itself says (adapters/cloudformation.py).

A template's values may be written as functions CloudFormation evaluates at deploy time, in YAML's short form
(`!Ref P`, `!Sub '...'`, `!GetAtt R.Attr`, `!Join [sep, [...]]`: the loader keeps the tag on the node) or the long
form JSON and CDK's synthesized templates use (`{"Ref": "P"}`, `{"Fn::Sub": ...}`, `{"Fn::Join": [...]}`), as the
CloudFormation User Guide's intrinsic function reference defines them:

- `Ref` of a Parameter is the value the deploy passes, else its `Default`: the Default is taken, and said to be
  taken (a deploy may override it); a Parameter without one is given at deploy time: unknown. A Parameter of an
  SSM type (`AWS::SSM::Parameter::Value<String>`, ...) is the value of the Systems Manager parameter its Default
  names, read at deploy time: unknown (the Default is that parameter's name, not the value). `Ref` of a
  pseudo parameter (AWS::Region, AWS::AccountId, AWS::StackName, ...) or of a resource (its physical id) is known
  only once deployed: unknown.
- `Fn::Sub`: `${Name}` is `Ref Name`, `${R.Attr}` is `GetAtt`, `${!Text}` is the literal `${Text}`; in the list
  form, the variables of the map first.
- `Fn::Join [sep, [items]]`: the items joined, known when each is.
- `Fn::FindInMap [Map, Top, Second]`: the Mappings entry, known when the three keys are.
- Everything else (`Fn::If`, `Fn::Select`, `Fn::ImportValue`, `Fn::GetAtt` of an attribute, dynamic references
  `{{resolve:...}}`) depends on the deploy: unknown, with the function named.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from ctxlint.lazyre import lazy_compile
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

_SUB_VAR = lazy_compile(r"\$\{(!?)([^}]*)\}")
_TAGS = {"!Ref": "Ref", "!Sub": "Fn::Sub", "!GetAtt": "Fn::GetAtt", "!Join": "Fn::Join", "!FindInMap": "Fn::FindInMap",
         "!If": "Fn::If", "!Select": "Fn::Select", "!ImportValue": "Fn::ImportValue", "!Split": "Fn::Split",
         "!Base64": "Fn::Base64", "!GetAZs": "Fn::GetAZs", "!Cidr": "Fn::Cidr", "!Transform": "Fn::Transform"}


class Resolved:
    """A value as the template resolves it: `text` (None: not known, `why` says why), `node` where it is written
    (a Parameter's Default when it came from one), `defaults` the Parameters whose Defaults it took (name, node)."""
    __slots__ = ("text", "node", "why", "defaults")

    def __init__(self, text: Optional[str], node: Node, why: str = "",
                 defaults: Tuple[Tuple[str, Node], ...] = ()) -> None:
        self.text, self.node, self.why, self.defaults = text, node, why, defaults


def function(node: Optional[Node]) -> Optional[Tuple[str, Node]]:
    """(the intrinsic function's long name, its argument) of a node that is one, else None."""
    if node is None:
        return None
    tag = node.tag if isinstance(node.tag, str) else ""
    if tag.startswith("!"):
        return _TAGS.get(tag, tag[1:]), node
    if node.kind == MAP and len(node.value) == 1:
        key = next(iter(node.value))
        if isinstance(key, str) and (key == "Ref" or key.startswith("Fn::") or key == "Condition"):
            return key, node.value[key]
    return None


class Template:
    """A template's Parameters, Mappings and Resources, and the resolution of values against them."""

    def __init__(self, root: Node) -> None:
        self.root = root
        self.parameters = _map(root.get("Parameters"))
        self.mappings = _map(root.get("Mappings"))
        self.resources = _map(root.get("Resources"))

    def resource_type(self, name: str) -> Optional[str]:
        res = self.resources.get(name)
        kind = res.get("Type") if res is not None and res.kind == MAP else None
        return kind.value if kind is not None and kind.kind == SCALAR and isinstance(kind.value, str) else None

    def target(self, node: Optional[Node]) -> Optional[str]:
        """The resource a value names by `Ref R` or `GetAtt R.Attr`, else None."""
        fn = function(node)
        if fn is None:
            return None
        name, arg = fn
        if name == "Ref" and arg.kind == SCALAR and isinstance(arg.value, str):
            return arg.value if arg.value in self.resources else None
        if name == "Fn::GetAtt":
            first = arg.value.split(".", 1)[0] if arg.kind == SCALAR and isinstance(arg.value, str) else \
                _text(arg.value[0]) if arg.kind == SEQ and arg.value else None
            return first if first in self.resources else None
        if name == "Fn::Sub" and arg.kind == SCALAR:  # `!Sub '${R.Attr}'` or `!Sub '${R}'`: GetAtt or Ref of R
            whole = _SUB_VAR.fullmatch(_text(arg) or "")
            first = whole.group(2).strip().split(".", 1)[0] if whole is not None and not whole.group(1) else None
            return first if first in self.resources else None
        return None

    def resolve(self, node: Node, keep_unknown: bool = False) -> Resolved:
        """The value of `node`. `keep_unknown`: a `${...}` of `Fn::Sub` that is not known stays in the text as
        written (an image's `${AWS::Region}`: its repository and tag are known), `why` then still says it."""
        fn = function(node)
        if fn is None:
            if node.kind == SCALAR and node.value is not None:
                # a boolean is passed as the string CloudFormation writes for it (`true`, `false`)
                text = node.value if isinstance(node.value, str) else str(node.value).lower() \
                    if isinstance(node.value, bool) else str(node.value)
                if "{{resolve:" in text:
                    return Resolved(None, node, f"`{text}` is a dynamic reference, resolved at deploy time")
                return Resolved(text, node)
            return Resolved(None, node, "not a string" if node.kind != SCALAR else "empty")
        name, arg = fn
        if name == "Ref":
            return self._ref(node, arg)
        if name == "Fn::Sub":
            return self._sub(node, arg, keep_unknown)
        if name == "Fn::Join":
            return self._join(node, arg, keep_unknown)
        if name == "Fn::FindInMap":
            return self._find_in_map(node, arg)
        if name == "Fn::GetAtt":
            what = _text(arg) if arg.kind == SCALAR else ".".join(str(_text(a)) for a in arg.value) \
                if arg.kind == SEQ else "?"
            return Resolved(None, node, f"`GetAtt {what}` is known only once the stack is deployed")
        return Resolved(None, node, f"`{name}` is evaluated at deploy time, and ctxlint does not evaluate it")

    def _ref(self, node: Node, arg: Node) -> Resolved:
        ref = _text(arg)
        if ref is None:
            return Resolved(None, node, "a `Ref` to no name")
        if ref.startswith("AWS::"):
            return Resolved(None, node, f"`{ref}` is known only at deploy time")
        param = self.parameters.get(ref)
        if param is None or param.kind != MAP:
            what = "a resource's physical id" if ref in self.resources else "no Parameter or resource of the template"
            return Resolved(None, node, f"`Ref {ref}` is {what}")
        default = param.get("Default")
        kind = _text(param.get("Type")) or ""
        if kind.startswith("AWS::SSM::Parameter::Value<"):  # its Default names the SSM parameter, not the value
            return Resolved(None, node, f"Parameter {ref} is of type {kind}: its value is the SSM parameter "
                            f"{_text(default) or 'it names'}'s, read at deploy time")
        if default is None or default.kind != SCALAR or default.value is None:
            return Resolved(None, node, f"Parameter {ref} has no Default: its value is given at deploy time")
        if function(default) is not None:  # a Default is a literal (no function is evaluated in Parameters)
            return Resolved(None, node, f"Parameter {ref}'s Default is no literal", ())
        found = self.resolve(default)
        return Resolved(found.text, default, found.why, ((ref, default),))

    def _sub(self, node: Node, arg: Node, keep_unknown: bool) -> Resolved:
        variables: Dict[str, Node] = {}
        template = arg
        if arg.kind == SEQ and arg.value:
            template = arg.value[0]
            if len(arg.value) > 1 and arg.value[1].kind == MAP:
                variables = {k: v for k, v in arg.value[1].value.items() if isinstance(k, str)}
        text = _text(template)
        if text is None:
            return Resolved(None, node, "`Fn::Sub` of no string")
        whys: List[str] = []
        defaults: List[Tuple[str, Node]] = []

        def one(m: "re.Match[str]") -> str:
            if m.group(1):  # `${!Literal}` is written as `${Literal}`
                return "${" + m.group(2) + "}"
            name = m.group(2).strip()
            if name in variables:
                found = self.resolve(variables[name])
            elif "." in name and not name.startswith("AWS::"):
                found = Resolved(None, node, f"`${{{name}}}` is known only once the stack is deployed")
            else:
                found = self._ref(node, _Literal(name, node))
            defaults.extend(found.defaults)
            if found.text is None:
                whys.append(found.why)
                return m.group(0)
            return found.text

        out = _SUB_VAR.sub(one, text)
        at = template if template.kind == SCALAR else node
        whole = _SUB_VAR.fullmatch(text)
        if whole is not None and not whole.group(1) and not whys:  # `!Sub '${Name}'` is the value where Name's is
            name = whole.group(2).strip()
            at = self.resolve(variables[name]).node if name in variables else defaults[-1][1] if defaults else at
        if whys and not keep_unknown:
            return Resolved(None, at, "; ".join(dict.fromkeys(whys)), tuple(defaults))
        return Resolved(out, at, "; ".join(dict.fromkeys(whys)), tuple(defaults))

    def _join(self, node: Node, arg: Node, keep_unknown: bool) -> Resolved:
        if arg.kind != SEQ or len(arg.value) != 2 or arg.value[1].kind != SEQ:
            return Resolved(None, node, "`Fn::Join` that is not [delimiter, [values]]")
        sep = _text(arg.value[0]) or ""
        parts, whys, defaults = [], [], []
        for item in arg.value[1].value:
            found = self.resolve(item, keep_unknown)
            defaults.extend(found.defaults)
            if found.text is None:
                whys.append(found.why)
                parts.append("${" + (_text(function(item)[1]) or "?") + "}" if function(item) is not None
                             and function(item)[0] == "Ref" else "${?}")
            else:
                parts.append(found.text)
        if whys and not keep_unknown:
            return Resolved(None, node, "; ".join(dict.fromkeys(whys)), tuple(defaults))
        return Resolved(sep.join(parts), node, "; ".join(dict.fromkeys(whys)), tuple(defaults))

    def _find_in_map(self, node: Node, arg: Node) -> Resolved:
        keys = [self.resolve(k) for k in arg.value] if arg.kind == SEQ and len(arg.value) == 3 else None
        if keys is None:
            return Resolved(None, node, "`Fn::FindInMap` that is not [map, key, key]")
        unknown = next((k for k in keys if k.text is None), None)
        if unknown is not None:
            return Resolved(None, node, f"`Fn::FindInMap` with a key not known: {unknown.why}")
        entry = self.mappings.get(keys[0].text)
        for key in (keys[1].text, keys[2].text):
            entry = entry.get(key) if entry is not None and entry.kind == MAP else None
        if entry is None:
            return Resolved(None, node, f"Mappings has no {keys[0].text}.{keys[1].text}.{keys[2].text}")
        if function(entry) is not None:  # a Mappings value is a literal (no function is evaluated in Mappings)
            return Resolved(None, node, f"Mappings {keys[0].text}.{keys[1].text}.{keys[2].text} is no literal")
        found = self.resolve(entry)
        return Resolved(found.text, entry, found.why, tuple(d for k in keys for d in k.defaults))


class _Literal:
    """A `${Name}` of Fn::Sub, given to _ref as its argument."""
    kind, tag = SCALAR, None

    def __init__(self, value: str, node: Node) -> None:
        self.value, self.node = value, node


def _text(node) -> Optional[str]:
    if node is None or node.kind != SCALAR or node.value is None or isinstance(node.value, bool):
        return None
    return node.value if isinstance(node.value, str) else str(node.value)


def _map(node: Optional[Node]) -> Dict[str, Node]:
    return {k: v for k, v in node.value.items() if isinstance(k, str)} if node is not None and node.kind == MAP \
        else {}
