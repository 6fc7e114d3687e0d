"""Frontmatter YAML read with limits: the one place cardvault turns YAML text into values.

YAML aliases share nodes, so a few hundred bytes can describe a billion items, and `&a [*a]` an
endless one; the first code that walks them hangs. So the node graph libyaml composes is
measured before any value is built: at most YAML_NODES nodes with aliases expanded, YAML_DEPTH
levels, no cycles. A value YAML recognises but cannot build (`2026-02-30`, an integer too long
for Python) stays as its text, so the card still reads and `check` reports the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import MappingNode, Node, SequenceNode
from yaml.resolver import Resolver

from cardvault.errors import CardFormatError
from cardvault.limits import YAML_DEPTH, YAML_NODES

#: Text no longer than this nests at most SHALLOW_TEXT / 2 levels (`- - - x`: two characters a
#: level), which libyaml's composer, recursive in C, builds safely; it overflows the C stack (a
#: crash no Python code can catch) somewhere past 20,000 levels. Longer text is first read as
#: a stream of events, which nests nothing, and refused at the level past YAML_DEPTH.
SHALLOW_TEXT = 4096


class _LenientConstructor(SafeConstructor):
    """SafeConstructor that keeps the text of a timestamp or integer Python cannot build, and
    builds only values JSON can hold (every command may export, index or catalog them): a
    `!!set` as a list of its items, `!!omap`/`!!pairs` as [key, value] lists, `!!binary` as its
    base64 text, and mapping keys that are not text (`1:`, `2026-01-01:`, `true:`) as text."""

    def construct_yaml_timestamp(self, node: Node) -> Any:
        try:
            return super().construct_yaml_timestamp(node)
        except (ValueError, OverflowError):
            return self.construct_scalar(node)

    def construct_yaml_int(self, node: Node) -> Any:
        try:
            return super().construct_yaml_int(node)
        except (ValueError, OverflowError):
            return self.construct_scalar(node)

    def construct_yaml_set(self, node: Node) -> Any:
        data: list[Any] = []
        yield data
        data.extend(self.construct_mapping(node))

    def construct_yaml_omap(self, node: Node) -> Any:
        return _as_lists(super().construct_yaml_omap(node))

    def construct_yaml_pairs(self, node: Node) -> Any:
        return _as_lists(super().construct_yaml_pairs(node))

    def construct_yaml_binary(self, node: Node) -> Any:
        super().construct_yaml_binary(node)  # refuses what is not base64
        return self.construct_scalar(node)

    def construct_yaml_map(self, node: Node) -> Any:
        data: dict[str, Any] = {}
        yield data
        if isinstance(node, MappingNode):
            self.flatten_mapping(node)  # `<<` merge keys, as SafeConstructor does
            for key_node, value_node in node.value:  # keys as text before they can collide
                key = self.construct_object(key_node, deep=True)
                if isinstance(key, list | dict):
                    raise ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        "found unhashable key", key_node.start_mark,
                    )  # fmt: skip
                data[_key_text(key)] = self.construct_object(value_node, deep=True)


def _as_lists(built: Any) -> Any:
    """SafeConstructor's `!!omap`/`!!pairs` (a list it fills with (key, value) tuples, checking
    the shape) with each pair as a [key, value] list."""
    data: list[Any] = []
    yield data
    pairs = next(built)
    for _ in built:  # the library fills `pairs`, refusing what is not a list of pairs
        pass
    data.extend([key, value] for key, value in pairs)


def _key_text(key: Any) -> Any:
    """A mapping key as text, the way YAML wrote it (`true`, `null`, `2026-01-01`, `1`)."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool) or key is None:
        return {True: "true", False: "false", None: "null"}[key]
    if hasattr(key, "isoformat"):
        return key.isoformat()
    return str(key)


for _tag, _method in (
    ("set", _LenientConstructor.construct_yaml_set),
    ("omap", _LenientConstructor.construct_yaml_omap),
    ("pairs", _LenientConstructor.construct_yaml_pairs),
    ("binary", _LenientConstructor.construct_yaml_binary),
    ("map", _LenientConstructor.construct_yaml_map),
    ("timestamp", _LenientConstructor.construct_yaml_timestamp),
    ("int", _LenientConstructor.construct_yaml_int),
):
    _LenientConstructor.add_constructor(f"tag:yaml.org,2002:{_tag}", _method)


def _loader_class() -> Any:
    """libyaml's parser where PyYAML has it (~8x faster), PyYAML's own otherwise; with the
    lenient constructor and the standard resolver."""
    try:
        from yaml.cyaml import CParser as Parser
    except ImportError:  # pragma: no cover - PyYAML built without libyaml
        from yaml import SafeLoader as Parser

    def __init__(self: Any, text: str) -> None:
        Parser.__init__(self, text)
        _LenientConstructor.__init__(self)
        Resolver.__init__(self)

    return type("BoundedLoader", (Parser, _LenientConstructor, Resolver), {"__init__": __init__})


_Loader = _loader_class()


def load_bounded(text: str, path: Path, first_line: int) -> Any:
    """The YAML document in `text` as Python values; CardFormatError (with the file line, counted
    from `first_line`) when it is not YAML or breaks a limit."""
    loader = _Loader(text)
    try:
        if len(text) > SHALLOW_TEXT:
            _measure_depth(text, path, first_line)
        node = loader.get_single_node()
        if node is None:
            return None
        _measure(node, path, first_line)
        return loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = first_line + mark.line if mark is not None else first_line
        raise CardFormatError(f"invalid YAML: {exc.problem or exc}", path, line) from exc
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        raise CardFormatError(f"invalid YAML: {exc}", path, first_line) from exc
    finally:
        loader.dispose()


def _measure_depth(text: str, path: Path, first_line: int) -> None:
    """Refuse `text` where its collections nest past YAML_DEPTH, reading parser events (flat)
    so that no node is composed."""
    loader = _Loader(text)
    depth = 0
    try:
        while (event := loader.get_event()) is not None:
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > YAML_DEPTH:
                    line = first_line + event.start_mark.line
                    raise CardFormatError(
                        f"invalid YAML: nested more than {YAML_DEPTH} levels deep", path, line
                    )
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            elif isinstance(event, yaml.StreamEndEvent):
                break
    finally:
        loader.dispose()


def _children(node: Node) -> list[Node]:
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, SequenceNode):
        return list(node.value)
    return []


def _measure(root: Node, path: Path, first_line: int) -> None:
    """Refuse a node graph that expands past YAML_NODES, nests past YAML_DEPTH or holds a cycle:
    depth-first without recursion, each distinct node sized once, so a bomb costs time linear
    in its text."""
    sizes: dict[int, int] = {}
    ancestors: set[int] = set()
    stack: list[tuple[Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, finished = stack.pop()
        key = id(node)
        if finished:
            ancestors.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
            if sizes[key] > YAML_NODES:
                _refuse(
                    node,
                    f"expands to more than {YAML_NODES:,} values (an alias bomb?)",
                    path,
                    first_line,
                )
            continue
        if key in sizes:
            continue  # an alias of a node already measured
        if key in ancestors:
            _refuse(node, "an alias refers to itself (a recursive structure)", path, first_line)
        if depth > YAML_DEPTH:
            _refuse(node, f"nested more than {YAML_DEPTH} levels deep", path, first_line)
        ancestors.add(key)
        stack.append((node, depth, True))
        stack.extend((child, depth + 1, False) for child in _children(node))


def _refuse(node: Node, problem: str, path: Path, first_line: int) -> None:
    raise CardFormatError(f"invalid YAML: {problem}", path, first_line + node.start_mark.line)
