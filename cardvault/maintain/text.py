"""Card bodies as blocks and sentences: splitting, normalising, and appending only what is new.

A body is a run of blocks: paragraphs, list items, headings and fenced code blocks (kept whole).
Sentences are compared in a normalised form (lower case, Markdown marks and punctuation dropped,
spaces collapsed), so "Use `npm ci`." and "use npm ci" are the same sentence. Appending keeps the
existing body byte for byte and adds new blocks after it, so a diff shows only the addition.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_ITEM = re.compile(r"^(\s*(?:[-*+]|\d+[.)])\s+)(.*)$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[*_])")
_MARKS = re.compile(r"[`*_~\[\]()>#\"']")
_PUNCT = re.compile(r"[^\w\s./:@+-]")
_CODE_OR_NUMBER = re.compile(
    r"`[^`]+`"  # code spans
    r"|\b\w*\d[\w.:/-]*"  # numbers and words with digits (arm64, 3.1.8)
    r"|\b\w+(?:[_./:=]\w+)+"  # identifiers and paths (DOCKER_DEFAULT_PLATFORM, linux/amd64)
    r"|\b[A-Z]{2,}\w*"  # acronyms and constants (KEYS, CSRF)
)


@dataclass(frozen=True)
class Block:
    """One block of a body. `prefix` is a list marker ("- ") or "" ; `text` excludes it."""

    kind: str  # "paragraph" | "item" | "heading" | "code"
    prefix: str
    text: str


def blocks(body: str) -> list[Block]:
    """The body's blocks in order."""
    out: list[Block] = []
    lines = body.splitlines()
    index = 0
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            out.append(Block("paragraph", "", " ".join(s.strip() for s in paragraph)))
            paragraph.clear()

    while index < len(lines):
        line = lines[index]
        if _FENCE.match(line):
            flush()
            end = _fence_end(lines, index)
            out.append(Block("code", "", "\n".join(lines[index : end + 1])))
            index = end + 1
            continue
        item = _LIST_ITEM.match(line)
        if not line.strip():
            flush()
        elif line.lstrip().startswith("#"):
            flush()
            out.append(Block("heading", "", line.strip()))
        elif item:
            flush()
            out.append(Block("item", item.group(1).lstrip(), item.group(2).strip()))
        elif out and out[-1].kind == "item" and not paragraph and line[:1] in (" ", "\t"):
            last = out.pop()
            out.append(Block("item", last.prefix, f"{last.text} {line.strip()}"))
        else:
            paragraph.append(line)
        index += 1
    flush()
    return out


def _fence_end(lines: list[str], start: int) -> int:
    marker = _FENCE.match(lines[start])
    assert marker is not None
    for index in range(start + 1, len(lines)):
        if lines[index].strip().startswith(marker.group(1)):
            return index
    return len(lines) - 1


def split_sentences(text: str) -> list[str]:
    """The sentences of one block of prose."""
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


def body_sentences(body: str) -> list[str]:
    """Every sentence of a body (code blocks count as one sentence each)."""
    found: list[str] = []
    for block in blocks(body):
        if block.kind == "code":
            found.append(block.text)
        else:
            found.extend(split_sentences(block.text))
    return found


def normalise(sentence: str) -> str:
    """The comparison form of a sentence."""
    flat = _MARKS.sub(" ", sentence.lower())
    flat = _PUNCT.sub(" ", flat)
    return " ".join(flat.split()).strip(" .:")


def words(text: str) -> set[str]:
    """The lower-case word tokens of `text`, numbers without thousands separators."""
    flat = re.sub(r"(?<=\d),(?=\d{3})", "", text.lower())
    return set(re.findall(r"[a-z0-9_]+", flat))


def facts(sentence: str) -> set[str]:
    """The words of a sentence's code spans, numbers, identifiers and acronyms: the details a
    paraphrase must not lose."""
    found: set[str] = set()
    flat = re.sub(r"(?<=\d),(?=\d{3})", "", sentence)
    for match in _CODE_OR_NUMBER.finditer(flat):
        found |= words(match.group())
    return found


def content_words(sentence: str) -> set[str]:
    """Words that carry meaning (3+ letters, not function words), crudely singular."""
    return {
        w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words(sentence)
    } - FUNCTION_WORDS


FUNCTION_WORDS = frozenset(
    re.split(
        r"\s+",
        "a an and are as at be but by can for from has have in into is it its of on or so "
        "that the their them then there these this those to was were when which while with "
        "will would not no do does did if than too very just only also",
    )
)


def first_sentence(body: str, limit: int = 200) -> str:
    """The body's first prose sentence on one line, trimmed to `limit` characters."""
    for block in blocks(body):
        if block.kind in ("paragraph", "item"):
            sentences = split_sentences(block.text)
            if sentences:
                line = " ".join(sentences[0].split())
                return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return ""


def append_paragraphs(body: str, paragraphs: Iterable[str]) -> str:
    """`body` unchanged, followed by each new paragraph after a blank line."""
    new = [p.strip() for p in paragraphs if p.strip()]
    if not new:
        return body
    head = body.rstrip("\n")
    joined = "\n\n".join(new)
    return f"{head}\n\n{joined}\n" if head.strip() else f"{joined}\n"


def render_blocks(kept: list[Block]) -> list[str]:
    """Paragraph strings for `kept` blocks; consecutive list items share one paragraph."""
    out: list[str] = []
    previous = ""
    for block in kept:
        text = f"{block.prefix}{block.text}"
        if block.kind == "item" and previous == "item":
            out[-1] = f"{out[-1]}\n{text}"
        else:
            out.append(text)
        previous = block.kind
    return out
