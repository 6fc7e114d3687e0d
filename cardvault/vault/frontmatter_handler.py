"""A card's frontmatter through python-frontmatter: `BoundedYAMLHandler`, the library's
`YAMLHandler` with cardvault's own split, load and dump, and `HANDLER`, the one instance.

The split is byte-exact: the frontmatter is the lines between a first line of exactly `---` and
the next `---` line, and the body every byte after (the library's `frontmatter.parse` strips
them, which would rewrite a card on every edit). Load is `bounded_yaml.load_bounded`; export is
the house style `update_card_text` writes, so a rewritten key's diff is that key's lines alone.
Only `vault/` imports python-frontmatter, and card.py imports this module lazily, so a command
served from the catalog never loads it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import frontmatter

from cardvault.errors import CardFormatError
from cardvault.vault.bounded_yaml import load_bounded
from cardvault.vault.fields import field

_UNNAMED = Path("<card>")


class Split(NamedTuple):
    """A card's text cut in two: frontmatter text, body, the body's first line, the newline."""

    front: str
    body: str
    body_line: int
    newline: str


class BoundedYAMLHandler(frontmatter.YAMLHandler):
    """python-frontmatter's YAML handler over cardvault's split, bounded loader and dump."""

    def detect(self, text: str) -> bool:
        """Whether `text` opens with a frontmatter line."""
        return text.startswith(("---\n", "---\r\n"))

    def split(self, text: str) -> tuple[str, str]:
        """(frontmatter, body) as the library asks; see `split_exact`."""
        found = self.split_exact(text, _UNNAMED)
        return found.front, found.body

    def split_exact(self, text: str, path: Path) -> Split:
        """The card's parts, every byte kept; CardFormatError (with the line) when it has none."""
        newline = "\r\n" if text.startswith("---\r\n") else "\n"
        if not text.strip():
            raise CardFormatError("empty file; a card needs YAML frontmatter and a body", path, 1)
        if not text.startswith("---" + newline):
            raise CardFormatError("no frontmatter: a card must start with a '---' line", path, 1)
        lines = text.split(newline)
        for index in range(1, len(lines)):
            if lines[index].rstrip() == "---":
                front = newline.join(lines[1:index])
                body = newline.join(lines[index + 1 :])
                return Split(front, body, index + 2, newline)
        raise CardFormatError("frontmatter is not closed by a '---' line", path, 1)

    def load(self, fm: str, **kwargs: object) -> Any:
        """The frontmatter's YAML within limits; `path` and `first_line` name where errors point."""
        path = kwargs.get("path", _UNNAMED)
        first_line = kwargs.get("first_line", 2)
        assert isinstance(path, Path) and isinstance(first_line, int)
        return load_bounded(fm, path, first_line) if fm.strip() else {}

    def export(self, metadata: dict[str, object], **kwargs: object) -> str:
        """The frontmatter lines of `metadata`, keys in order, in the house style."""
        return "\n".join(line for key, value in metadata.items() for line in dump_key(key, value))


def dump_key(key: str, value: Any) -> list[str]:
    """The frontmatter lines for one key: short lists of scalars on one line (`tags: [a, b]`);
    provenance lists (the fields declared `block`) and long lists one item per line."""
    import yaml

    options: dict[str, Any] = {"sort_keys": False, "allow_unicode": True, "width": 10**6}
    flat = isinstance(value, list) and all(not isinstance(v, dict | list) for v in value)
    if flat and not field(key).block and len(repr(value)) <= 80:
        inline = yaml.safe_dump(value, default_flow_style=True, **options).strip()
        return [f"{key}: {inline}"]
    dumped = yaml.safe_dump({key: value}, default_flow_style=False, **options)
    return dumped.rstrip("\n").split("\n")


HANDLER = BoundedYAMLHandler()
