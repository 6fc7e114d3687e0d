"""The language of a text, told by the Unicode scripts of its letters (no model, no dictionary).

Chinese, Japanese and Korean are told apart by their scripts: Hangul makes a text Korean, kana
Japanese, Han characters alone Chinese. Other texts are named by their script ("latin",
"cyrillic", "greek", ...): scripts cannot tell English from French, and an embedding model's
languages (search/model.py: `reads`) are named the same way. A text is in the language whose
letters weigh most, a CJK character counting as a short word (`CJK_WEIGHT` letters), so a
Chinese note that quotes English commands and links is Chinese. A text without letters has no
language ("").
"""

from __future__ import annotations

import re

#: Letters of one CJK character, in weight: about one English word's worth of meaning.
CJK_WEIGHT = 3
#: Kana at least this share of a CJK text's Han and kana make it Japanese (Chinese text holds
#: a stray katakana at most).
KANA_SHARE = 0.1
_HAN = "\u3005-\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_KANA = "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_HANGUL = "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
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
_COUNTED = {
    name: re.compile(f"[{letters}]")
    for name, letters in {**_SCRIPTS, "han": _HAN, "kana": _KANA, "hangul": _HANGUL}.items()
}
#: What is not language: URLs and code (fenced, or in backticks).
_NOT_PROSE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`|\w+://\S+", re.DOTALL)
#: How a language is named to a person.
NAMES = {
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
    **{name: f"{name.capitalize()}-script" for name in _SCRIPTS},
}


def language(text: str) -> str:
    """The language of `text`: "zh", "ja", "ko", or the script of its letters ("latin",
    "cyrillic", ...); "" when it has no letters."""
    if text.isascii():
        return "latin" if any(c.isalpha() for c in text) else ""
    prose = _NOT_PROSE.sub(" ", text)
    counts = {name: len(pattern.findall(prose)) for name, pattern in _COUNTED.items()}
    han, kana, hangul = counts.pop("han"), counts.pop("kana"), counts.pop("hangul")
    weights = {**counts, "cjk": CJK_WEIGHT * (han + kana + hangul)}
    best = max(weights, key=lambda name: weights[name])
    if weights[best] == 0:
        return ""
    if best != "cjk":
        return best
    if hangul >= han + kana:
        return "ko"
    return "ja" if kana >= KANA_SHARE * (han + kana) else "zh"


def name(tag: str) -> str:
    """A language tag as a person reads it ("zh" -> "Chinese")."""
    return NAMES.get(tag, tag or "no language")
