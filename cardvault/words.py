"""Words and their stems: the one tokenizer and stemmer of cardvault.

A word is a run of letters and digits (what SQLite's unicode61 tokenizer takes for one),
lower-cased, diacritics removed; a run of Chinese, Japanese or Korean characters is one word,
kept as written. Such text does not say where its words end, so the index holds each run as its
overlapping bigrams and a query asks for the bigrams of its runs (`terms`, the one split for
both). A stem is Snowball English's (Porter2; PyStemmer's C accelerator when installed). The
search index, its highlighting and maintenance's sentence comparison all use these stems: one
word has one stem everywhere.

A text's language is told by the Unicode scripts of its letters (`language`; no model): scripts
cannot tell English from French, so other texts are named by their script ("latin", ...), as an
embedding model's languages are (search/model.py). A CJK character weighs `CJK_WEIGHT` letters,
so a Chinese note that quotes English commands is Chinese.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterator
from functools import cached_property, lru_cache
from typing import Any

#: Han characters: the iteration marks (々 〆 〇), extension A, the unified block, the
#: compatibility ideographs and the supplementary ones (extensions B and on).
_HAN = "\u3005-\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_KANA = "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"  # with the half-width katakana
_HANGUL = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"  # Jamo, compatibility Jamo, syllables
_CJK = _HAN + _KANA + _HANGUL
CJK_RUN = re.compile(f"[{_CJK}]+")
#: A word as unicode61 sees it (letters and digits), or one CJK run.
_WORD = re.compile(rf"[{_CJK}]+|[^\W_]+", re.UNICODE)
#: Words longer than this are their own stem (a hash, a blob: nothing to stem, and the
#: stemmer's time grows with the word).
_LONGEST = 64


class _PerThread(threading.local):
    """Each thread's own English stemmer (a Stemmer object may not be shared between threads),
    made on first use: the import is paid by its users."""

    @cached_property
    def stemmer(self) -> Any:
        import snowballstemmer

        return snowballstemmer.stemmer("english")


_local = _PerThread()


def words(text: str) -> list[str]:
    """The words of `text` in order: lower case, diacritics removed, CJK runs whole."""
    if text.isascii():  # no CJK, no diacritics: lower case is all `_plain` would do
        return _WORD.findall(text.lower())
    text = unicodedata.normalize("NFC", text)  # "e" + U+0301 is one letter, as "é" is
    return [_plain(word) for word in _WORD.findall(text)]


def stem_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """Each word of `text` as (start, end, its stem) (for highlighting in place; `text` should
    be NFC, as `words` makes it)."""
    for match in _WORD.finditer(text):
        yield match.start(), match.end(), _written_stem(match.group())


@lru_cache(maxsize=1 << 16)
def _written_stem(written: str) -> str:
    """The stem of a word as the text writes it (a snippet asks this of every word it shows)."""
    return stem(_plain(written))


def _plain(word: str) -> str:
    """A word lower-cased, Latin letters without their diacritics (CJK runs as they are)."""
    if word.isascii():
        return word.lower()
    if is_cjk(word):
        return word
    decomposed = unicodedata.normalize("NFKD", word.lower())
    kept = "".join(c for c in decomposed if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", kept)


def is_cjk(word: str) -> bool:
    """Whether `word` is a run of CJK characters (no stem; the index splits it into bigrams)."""
    return CJK_RUN.fullmatch(word) is not None


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The stem of one word (as `words` gives it): "boxes" -> "box", "retries" -> "retri"."""
    if not word or len(word) > _LONGEST or not word.isalpha():
        return word
    if not word.isascii() and is_cjk(word):
        return word
    return str(_local.stemmer.stemWord(word))


def stems(text: str) -> list[str]:
    """The stems of the words of `text`, in order (CJK runs whole)."""
    return [stem(word) for word in words(text)]


def bigrams(run: str) -> list[str]:
    """Overlapping pairs of a CJK run ("数据库" -> ["数据", "据库"]); a lone char stays."""
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def terms(text: str) -> list[str]:
    """The words of `text` as the keyword index and its queries split them: each CJK run as
    its bigrams, any other word as `words` gives it (unstemmed)."""
    if text.isascii():  # no CJK run to split
        return words(text)
    found: list[str] = []
    for word in words(text):
        if is_cjk(word):
            found.extend(bigrams(word))
        else:
            found.append(word)
    return found


def index_terms(*texts: str) -> list[list[str]]:
    """The terms the keyword index holds for each of `texts`: the stems of its `terms`."""
    return [list(map(stem, terms(text))) for text in texts]


#: Letters of one CJK character, in weight: about one English word's worth of meaning.
CJK_WEIGHT = 3
#: Kana at least this share of a CJK text's Han and kana make it Japanese (a Chinese text holds
#: a stray katakana at most).
KANA_SHARE = 0.1
#: Each script but the CJK ones: its name and its letters.
_SCRIPTS = {
    "latin": "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff",
    "cyrillic": "\u0400-\u04ff",
    "greek": "\u0370-\u03ff\u1f00-\u1fff",
    "arabic": "\u0600-\u06ff\u0750-\u077f",
    "hebrew": "\u0590-\u05ff",
    "devanagari": "\u0900-\u097f",
    "thai": "\u0e00-\u0e7f",
}
_SCRIPT = {
    name: re.compile(f"[{letters}]")
    for name, letters in {**_SCRIPTS, "han": _HAN, "kana": _KANA, "hangul": _HANGUL}.items()
}
#: Any letter `language` counts: one pass finds them, each script is counted among those.
_LETTER = re.compile(f"[{''.join(_SCRIPTS.values())}{_CJK}]")
#: What is not language: URLs and code (fenced, or in backticks).
_NOT_PROSE = re.compile(
    r"```.*?(?:```|\Z)|`[^`\n]*`|(?<![A-Za-z0-9])[A-Za-z][\w+.-]{0,15}://\S+", re.DOTALL
)  # a scheme of 16 characters at most: the pattern stays linear in a word of any length
#: How a language is named to a person.
LANGUAGE_NAMES = {
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
    **{script: f"{script.capitalize()}-script" for script in _SCRIPTS},
}


def language(text: str) -> str:
    """The language of `text`: "zh", "ja", "ko", or the script of its letters ("latin",
    "cyrillic", ...); "" when it has no letters."""
    if text.isascii():
        return "latin" if any(c.isalpha() for c in text) else ""
    prose = _NOT_PROSE.sub(" ", text)
    letters = "".join(_LETTER.findall(prose))
    counts = {script: len(found.findall(letters)) for script, found in _SCRIPT.items()}
    han, kana, hangul = counts.pop("han"), counts.pop("kana"), counts.pop("hangul")
    weights = {**counts, "cjk": CJK_WEIGHT * (han + kana + hangul)}
    best = max(weights, key=lambda script: weights[script])
    if weights[best] == 0:
        return ""
    if best != "cjk":
        return best
    if hangul >= han + kana:
        return "ko"
    return "ja" if kana >= KANA_SHARE * (han + kana) else "zh"
