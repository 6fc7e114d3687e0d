"""Card bodies as blocks and sentences: splitting, normalising, and appending only what is new.

A body is a run of blocks: paragraphs, list items, headings and fenced code blocks (kept whole).
Sentences are compared in a normalised form, so "Use `npm ci`." and "use npm ci" are one
sentence. Appending keeps the existing body byte for byte, so a diff shows only the addition.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from itertools import pairwise

from cardvault.words import is_cjk, stem, words

_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_ITEM = re.compile(r"^(\s*(?:[-*+]|\d+[.)])\s+)(.*)$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[*_])")
_MARKS = re.compile(r"[`*_~\[\]()>#\"']")
_PUNCT = re.compile(r"[^\w\s./:@+-]")


def word_set(text: str) -> frozenset[str]:
    """The words of `text`, split on whitespace: the word lists below are written as one string."""
    return frozenset(text.split())


@dataclass(frozen=True)
class Block:
    """One block of a body; `prefix` is its list marker ("- ") or ""."""

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


def body_sentences(body: str, skip: Collection[str] = ()) -> list[str]:
    """Every sentence of a body (a code block counts as one), blocks of a kind in `skip` left
    out."""
    found: list[str] = []
    for block in blocks(body):
        if block.kind in skip:
            continue
        if block.kind == "code":
            found.append(block.text)
        else:
            found.extend(split_sentences(block.text))
    return found


def is_code(passage: str) -> bool:
    """Whether a passage is a fenced code block."""
    return _FENCE.match(passage) is not None


def prose_sentences(body: str) -> list[str]:
    """Every sentence of a body outside its code blocks."""
    return body_sentences(body, skip=("code",))


def normalise(sentence: str) -> str:
    """The comparison form of a sentence."""
    flat = _MARKS.sub(" ", sentence.lower())
    flat = _PUNCT.sub(" ", flat)
    return " ".join(flat.split()).strip(" .:")


#: A figure, read whole: 12, 11.91, 0.70, 3.1.8, v2, 5ms, 95%, 2026-03-01, 10:30, 1,000 (as 1000).
_FIGURE = re.compile(r"(?<![\w.])[vV]?\d+(?:[.:/-]\d+)*(?:%|[a-zA-Zµ]+)?(?!\w)")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
#: Identifiers, read whole: code spans, snake_case, dotted.names, paths, --flags, arm64, CSRF,
#: PgBouncer.
_IDENTIFIER = re.compile(
    r"`[^`]+`"  # a code span
    r"|(?<![\w-])--?[A-Za-z][\w-]*"  # --force-with-lease, -z
    r"|\b\w+(?:[_./:=@-]\w+)+"  # lock_timeout, linux/amd64, X-CORTEX-XSRF-TOKEN, a.b
    r"|\b[A-Za-z]+\d\w*"  # arm64, s3, M1
    r"|\b[A-Z]{2,}[a-z]?\b"  # CSRF, KEYS, URLs
    r"|\b[A-Z][a-z]+[A-Z]\w*"  # PgBouncer, GitHub
)
NEGATIONS = word_set(
    "not no never none nothing nobody neither nor without cannot can't don't doesn't didn't "
    "isn't aren't wasn't weren't won't wouldn't shouldn't mustn't"
)
CONDITIONS = word_set(
    "if unless when whenever only except until while before after once otherwise provided whether"
)
_WORD = re.compile(r"[a-z][a-z0-9_']*")


_NUMBER_WORDS = {
    word: str(number)
    for number, word in enumerate(
        re.split(r"\s+", "zero one two three four five six seven eight nine ten eleven twelve")
    )
}
_NUMBER_WORD = re.compile(r"\b(?:" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)


def figures(text: str) -> set[str]:
    """The figures of `text`, each whole and lower case ("11.91" is one figure, not 11 and 91;
    "1,000" is "1000"; "five" is "5")."""
    flat = _THOUSANDS.sub("", text)
    found = {m.group().lower().rstrip(".") for m in _FIGURE.finditer(flat)}
    return found | {_NUMBER_WORDS[m.group().lower()] for m in _NUMBER_WORD.finditer(flat)}


#: Units read with their figure, in one spelling each: "30 s", "30 seconds" and "30s" are "30s";
#: "30 min" is "30min", "512 MiB" "512mib".
_UNITS = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), "s"),
    **dict.fromkeys(("ms", "msec", "millisecond", "milliseconds"), "ms"),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), "min"),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), "h"),
    **dict.fromkeys(("d", "day", "days"), "d"),
    **{unit: unit for unit in ("kb", "mb", "gb", "tb", "kib", "mib", "gib", "tib")},
}
_UNIT_AFTER = re.compile(r"[ \t]+(?P<unit>[A-Za-z]+)(?![\w-])")
_NUMBER_AND_SUFFIX = re.compile(r"(?P<number>[vV]?\d+(?:[.:/-]\d+)*)(?P<suffix>[a-zA-Zµ]*)")


def _with_unit(figure: str, flat: str, end: int) -> tuple[str, int]:
    """`figure` with its unit in one spelling (one after a space too), and where it ends."""
    parts = _NUMBER_AND_SUFFIX.fullmatch(figure)
    if parts is None:
        return figure, end
    suffix = parts.group("suffix")
    if not suffix:
        after = _UNIT_AFTER.match(flat, end)
        if after and after.group("unit").lower() in _UNITS:
            suffix, end = after.group("unit").lower(), after.end()
    return parts.group("number") + _UNITS.get(suffix, suffix), end


def figure_contexts(text: str) -> dict[str, set[str]]:
    """Each figure of `text`, with its unit, -> the words just before and after it ("killed 12
    rebels": 12 -> {killed, rebels}): two figures compete for one slot when they share one."""
    flat = _THOUSANDS.sub("", text)
    tokens: list[tuple[str, bool]] = []
    at = 0
    pattern = re.compile(rf"(?P<figure>{_FIGURE.pattern})|(?P<word>[A-Za-z]+)")
    while (m := pattern.search(flat, at)) is not None:
        token, at = m.group().lower().rstrip("."), m.end()
        if m.lastgroup == "figure":
            token, at = _with_unit(token, flat, m.end())
        tokens.append((token, m.lastgroup == "figure"))
    found: dict[str, set[str]] = {}
    for index, (token, is_figure) in enumerate(tokens):
        if not is_figure:
            continue
        near = found.setdefault(token, set())
        for other in (index - 1, index + 1):
            if 0 <= other < len(tokens) and not tokens[other][1]:
                near.add(tokens[other][0])
    return found


def identifiers(text: str) -> set[str]:
    """The identifiers of `text`, each whole and lower case (a code span without its ticks)."""
    found = set()
    for match in _IDENTIFIER.finditer(_THOUSANDS.sub("", text)):
        token = match.group().strip("`").strip().lower().rstrip(".:")
        if token and not _FIGURE.fullmatch(token):
            found.add(token)
    return found


def negations(sentence: str) -> set[str]:
    """The negating words of a sentence."""
    flat = sentence.lower().replace("’", "'")
    return {w for w in _WORD.findall(flat) if w in NEGATIONS or w.endswith("n't")}


def conditions(sentence: str) -> set[str]:
    """The words that make a sentence conditional."""
    return {w for w in _WORD.findall(sentence.lower()) if w in CONDITIONS}


#: Capitalised words that start sentences without naming anything.
_STARTERS = word_set(
    "a an the this that these those it he she they we you i in on at for if when as but and "
    "or so after before while with by from of to its his her their our there here then also "
    "all some most many every each no not never always use set run do don't make keep"
)
_NAME = re.compile(r"(?<![\w'’-])[A-Za-z][A-Za-z'’-]*(?![\w'’-])")


def names(sentence: str, common: Collection[str] = ()) -> set[str]:
    """The capitalised words of letters in a sentence outside its code spans, lower case; the
    first word unless a common opener or in `common` (words the vault writes in lower case)."""
    found = set()
    prose = re.sub(r"`[^`]*`", " ", sentence)
    for number, word in enumerate(_NAME.findall(prose)):
        plain = word.lower().rstrip("'’")
        if not word[0].isupper() or (number == 0 and (plain in _STARTERS or plain in common)):
            continue
        found.add(plain)
    return found


def lower_case_words(texts: Iterable[str]) -> frozenset[str]:
    """Every word the texts write in lower case somewhere (so it is no name)."""
    found: set[str] = set()
    for text in texts:
        found.update(re.findall(r"(?<![\w'’-])[a-z][a-z'’-]*", text))
    return frozenset(found)


def meaning_words(text: str) -> set[str]:
    """The stems (as search stems them) of the words that carry meaning: not function words,
    negations, conditions or figures (those are compared on their own), nor CJK runs."""
    return set(meaning_sequence(text))


def meaning_sequence(text: str) -> list[str]:
    """`meaning_words` in the order the text has them, repeats kept."""
    found = []
    for word in words(text):
        if word in FUNCTION_WORDS or word in NEGATIONS or word in CONDITIONS or len(word) < 2:
            continue
        if word[0].isalpha() and not is_cjk(word):
            found.append(stem(word))
    return found


def word_pairs(text: str) -> set[tuple[str, str]]:
    """Each meaning word with the next one: what tells "users to A, orders to B" from "orders
    to A, users to B"."""
    return set(pairwise(meaning_sequence(text)))


FUNCTION_WORDS = word_set(
    "a an and are as at be but by can for from has have in into is it its of on or so "
    "that the their them then there these this those to was were when which while with "
    "will would not no do does did if than too very just only also"
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
