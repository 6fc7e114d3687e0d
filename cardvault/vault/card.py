"""Knowledge cards: parsing, validation and minimal-diff rewriting.

A card is YAML frontmatter between `---` lines and a Markdown body (frontmatter_handler.py).
Parsing keeps the file's exact text; rewriting edits only the frontmatter lines of the keys that
changed, so key order, unknown keys, comments, quoting and every byte of the body survive, and
a maintenance run's diff shows only what it changed."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from cardvault.errors import CardFormatError
from cardvault.vault.fields import (
    ALIASES,
    CATEGORY,
    DISTILLED,
    SEEN,
    SOURCES,
    STATUS,
    TAGS,
    TOPIC,
    field,
)

TAG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
#: The key of a card `maintain` distilled from log entries: a digest of the body as maintenance
#: last wrote it (`body_mark`). A card is *distilled* while its body still has that digest; any
#: other card is *curated* (written by hand, imported, merged by a person's answer, a distilled
#: card whose body a person edited, a card from before the key existed): maintenance may merge
#: only distilled cards on its own, and only asks about curated ones (maintain/merge.py).
DISTILLED_KEY = DISTILLED
_TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:")


@dataclass(frozen=True)
class Card:
    """One parsed card file. `text` is the file exactly as read."""

    path: Path
    meta: dict[str, Any]
    body: str
    text: str
    body_line: int  # 1-based line where the body starts
    newline: str = "\n"

    @cached_property
    def slug(self) -> str:
        return self.path.stem

    @property
    def topic(self) -> str:
        return str(self.meta.get(TOPIC, self.slug))

    @property
    def category(self) -> str:
        return str(self.meta.get(CATEGORY, ""))

    @property
    def tags(self) -> tuple[str, ...]:
        return self.items(TAGS)

    @property
    def status(self) -> str:
        return str(self.meta.get(STATUS, field(STATUS).default))

    @property
    def seen(self) -> int:
        value = self.meta.get(SEEN)
        return (
            value if isinstance(value, int) and not isinstance(value, bool) else field(SEEN).default
        )

    @property
    def sources(self) -> tuple[str, ...]:
        return self.items(SOURCES)

    def items(self, key: str) -> tuple[str, ...]:
        """The list under `key` as text items (none when it is not a list)."""
        value = self.meta.get(key) or []
        return tuple(str(v) for v in value) if isinstance(value, list) else ()

    @cached_property  # merge asks it of every close pair: the body is digested once
    def distilled(self) -> bool:
        """Whether maintenance distilled this card and nobody has edited its body since."""
        mark = self.meta.get(DISTILLED_KEY)
        return isinstance(mark, str) and mark == body_mark(self.body)

    @property
    def aliases(self) -> tuple[str, ...]:
        return self.items(ALIASES)

    def date(self, key: str) -> dt.date | None:
        """The frontmatter date under `key` (created, updated, last_used, ...), if valid."""
        return as_date(self.meta.get(key))

    def repeated_keys(self) -> list[tuple[int, str, int]]:
        """(line, key, line it was first given on) for each top-level key given again in the
        frontmatter (YAML keeps the last value without a word)."""
        first: dict[str, int] = {}
        repeated = []
        for number, key in self._key_lines():
            if key in first:
                repeated.append((number, key, first[key]))
            else:
                first[key] = number
        return repeated

    def key_line(self, key: str) -> int:
        """1-based line of `key` in the file (the opening `---` line when absent)."""
        return next((number for number, found in self._key_lines() if found == key), 1)

    def _key_lines(self) -> Iterator[tuple[int, str]]:
        for number, line in enumerate(self.text.splitlines()[1 : self.body_line - 1], start=2):
            if match := _TOP_KEY.match(line):
                yield number, match.group(1)


def body_mark(body: str) -> str:
    """The digest a distilled card carries under DISTILLED_KEY: of its body's words, so a
    change of line endings or trailing spaces is no edit."""
    import hashlib

    return hashlib.sha256(" ".join(body.split()).encode("utf-8")).hexdigest()[:12]


def keep_provenance(card: Card, text: str) -> str:
    """`text`, maintenance's rewrite of `card`: a distilled card's mark follows its new body (it
    stays distilled); a curated card stays as it is (curated)."""
    if not card.distilled:
        return text
    body = parse_card(text, card.path).body
    return update_card_text(text, {DISTILLED_KEY: body_mark(body)}, path=card.path)


def sightings(cards: Iterable[Card]) -> int:
    """How many times the lesson of `cards`, taken as one card, was seen: its distinct sources,
    plus the most any one card counts beyond its own (a hand-written `seen: 2`). Never a sum:
    ten imported notes merged are one note seen once."""
    cards = list(cards)
    cited = {source for card in cards for source in card.sources}
    beyond = max(card.seen - len(set(card.sources)) for card in cards)
    return max(1, len(cited) + max(0, beyond))


def as_date(value: Any) -> dt.date | None:
    """A date from a YAML value (a date, or an ISO string); None when it is neither."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            return None
    return None


def split_frontmatter(text: str, path: Path) -> tuple[str, str, int, str]:
    """Split a card into (frontmatter text, body, body start line, newline), every byte kept."""
    from cardvault.vault.frontmatter_handler import HANDLER

    return tuple(HANDLER.split_exact(text, path))  # type: ignore[return-value]


def parse_card(text: str, path: Path) -> Card:
    """Parse card text; raise CardFormatError (with the line) when its YAML is unusable."""
    front, body, body_line, newline = split_frontmatter(text, path)
    meta = load_yaml(front, path, first_line=2)
    return Card(path=path, meta=meta, body=body, text=text, body_line=body_line, newline=newline)


def load_yaml(front: str, path: Path, first_line: int) -> dict[str, Any]:
    """Load frontmatter YAML within limits (`bounded_yaml`, as the frontmatter handler's load);
    errors carry the file line."""
    from cardvault.vault.frontmatter_handler import HANDLER

    meta = HANDLER.load(front, path=path, first_line=first_line)
    if not isinstance(meta, dict):
        raise CardFormatError("frontmatter must be a YAML mapping of keys", path, first_line)
    return {str(k): v for k, v in meta.items()}


def render_value(key: str, value: Any) -> list[str]:
    """The frontmatter lines for one key, in the house style (`frontmatter_handler.dump_key`)."""
    from cardvault.vault.frontmatter_handler import dump_key

    return dump_key(key, value)


def render_card(meta: Mapping[str, Any], body: str) -> str:
    """Text of a new card with keys in the given order."""
    from cardvault.vault.frontmatter_handler import HANDLER

    lines = ["---", *([HANDLER.export(dict(meta))] if meta else []), "---"]
    body = body.strip("\n")
    return "\n".join(lines) + "\n" + body + "\n"


def update_card_text(
    text: str, changes: Mapping[str, Any], remove: Iterable[str] = (), path: Path | None = None
) -> str:
    """Set/remove frontmatter keys, touching only those keys' lines; the rest stays byte-exact.
    Keys already holding the new value are left alone; new keys go at the end, in order given."""
    where = path or Path("<card>")
    card = parse_card(text, where)
    newline = card.newline
    lines = text.split(newline)
    end = card.body_line - 2  # index of the closing '---'
    blocks = _key_blocks(lines[1:end])
    removed = set(remove)
    pending = {k: v for k, v in changes.items() if k not in card.meta or card.meta[k] != v}
    if not pending and not (removed & set(card.meta)):
        return text
    out = [lines[0]]
    for key, block in blocks:
        if key is not None and key in removed:
            continue
        if key is not None and key in pending:
            out.extend(_same_indent(render_value(key, pending.pop(key)), block))
        else:
            out.extend(block)
    for key, value in pending.items():
        out.extend(render_value(key, value))
    out.extend(lines[end:])
    return newline.join(out)


def _same_indent(rendered: list[str], old: list[str]) -> list[str]:
    """`rendered` block-list lines indented like the `old` block's items ("  - x" stays so)."""
    items = [line for line in old[1:] if line.lstrip().startswith("- ")]
    if not items or len(rendered) < 2:
        return rendered
    indent = items[0][: len(items[0]) - len(items[0].lstrip())]
    return [
        rendered[0],
        *(indent + line if line.startswith("- ") else line for line in rendered[1:]),
    ]


def replace_body(text: str, body: str) -> str:
    """Card text with its body replaced and its frontmatter bytes untouched."""
    card = parse_card(text, Path("<card>"))
    lines = text.split(card.newline)
    head = card.newline.join(lines[: card.body_line - 1])
    return head + card.newline + body.replace("\n", card.newline)


def _key_blocks(lines: list[str]) -> list[tuple[str | None, list[str]]]:
    """Group frontmatter lines into (key, lines) blocks; comments/blank lines are keyless."""
    blocks: list[tuple[str | None, list[str]]] = []
    for line in lines:
        match = _TOP_KEY.match(line)
        if match:
            blocks.append((match.group(1), [line]))
        elif blocks and blocks[-1][0] is not None and line[:1] in (" ", "\t", "-") and line.strip():
            blocks[-1][1].append(line)
        else:
            blocks.append((None, [line]))
    return blocks
