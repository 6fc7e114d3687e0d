"""A session transcript (JSON Lines): the text of the assistant's messages written since a given
offset.

An assistant message is found wherever a host puts it (Claude Code's `message`, Codex's
`response_item` `payload`, or a line whose own `role` is "assistant", Cursor's); only text parts
count: tool calls, tool results, the user's messages and hidden reasoning are not the
assistant's words. Reading is bounded: at most TRANSCRIPT bytes, the newest, and only whole
lines (a line still being written is read next time).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardvault.errors import CardvaultError
from cardvault.limits import TRANSCRIPT
from cardvault.vault.bounded_data import json_loads
from cardvault.vault.confine import read_file

_TEXT_PARTS = ("text", "output_text")


@dataclass(frozen=True)
class Chunk:
    """Whole lines of the transcript, and the offset just after them (where to go on)."""

    data: bytes
    end: int


def read_since(path: Path, offset: int) -> Chunk:
    """The whole lines written after byte `offset` (from the start again when the file is now
    shorter: it was replaced); CardvaultError when it is not a readable regular file."""
    try:
        data, start, info = read_file(path, TRANSCRIPT, after=offset)
    except OSError as exc:
        raise CardvaultError(f"cannot read the transcript: {exc.strerror}", path) from exc
    if start > (offset if offset <= info.st_size else 0):  # skipped ahead: the first line is cut
        cut = data.find(b"\n")
        data, start = (b"", start + len(data)) if cut < 0 else (data[cut + 1 :], start + cut + 1)
    last = data.rfind(b"\n")
    if last < 0:
        return Chunk(b"", start)
    return Chunk(data[: last + 1], start + last + 1)


def assistant_texts(data: bytes) -> list[str]:
    """The text of each assistant message in `data`, in order."""
    texts = []
    for line in data.splitlines():
        try:
            entry = json_loads(line)
        except ValueError:
            continue
        text = "\n".join(_texts(_assistant_content(entry)))
        if text.strip():
            texts.append(text)
    return texts


def _assistant_content(entry: Any) -> Any:
    if not isinstance(entry, dict):
        return None
    for holder in (entry, entry.get("message"), entry.get("payload")):
        if isinstance(holder, dict) and holder.get("role") == "assistant":
            inner = holder.get("message")
            if "content" not in holder and isinstance(inner, dict):
                return inner.get("content")
            return holder.get("content")
    return None


def _texts(content: Any) -> Iterator[str]:
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") in _TEXT_PARTS:
                text = part.get("text")
                if isinstance(text, str):
                    yield text
