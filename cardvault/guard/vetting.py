"""Value filters every detector shares: references to a secret kept elsewhere, and placeholders.

Notes quote templates and code, so a value in the right place is still no credential when it is
a reference (`${X}`, `os.environ[...]`), a placeholder (`<pw>`, `changeme`), or AWS's documented
`...EXAMPLE` keys.
"""

from __future__ import annotations

import re

from cardvault.guard.words import CREDENTIAL, in_vocabulary, words


def is_reference(value: str) -> bool:
    """Code or config pointing at a secret kept elsewhere: calls, names, URLs, paths, tags."""
    name = re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?::\w+)?", value)  # var.db, mod:fn
    return (
        any(c in value for c in "([")
        or (name is not None and sum(c.isdigit() for c in value) <= 2)
        or "://" in value
        or value.startswith(("/", "./", "../", "~/", "$", "%", "!"))  # `!vault`, `!Ref`
    )


_PLACEHOLDER = re.compile(
    r"<.*>|\{.*\}|%\(\w+\)s|%.*%|\.\.\.|\*+|x+|(?:change|replace)_?me|changeit|example|sample"
    r"|dummy|placeholder|redacted|hidden|masked|todo|tbd|fixme|none|null|nil|true|false|yes|no"
    r"|required|optional|empty|unset|default|test|foo|bar|foobar|value"
    r"|str|string|bytes|secretstr|any|object|bool|int|float|dict|list"  # type annotations
    r"|(?:your|my|insert|enter|replace)[-_].*|.*[-_]here|.*(?:\.\.\.|…)"
    r"|(?:your|my|the)?_?(?:pass(?:word)?|passwd|pwd|secret|token|api_?key)s?",
    re.I,
)


def is_placeholder(value: str) -> bool:
    """Templates, examples and filler: `<pw>`, `xxxx`, `changeme`, `sk-...`, `your-key-here`."""
    return (
        _PLACEHOLDER.fullmatch(value.strip("'\"`")) is not None
        or "EXAMPLE" in value  # AWS documents AKIAIOSFODNN7EXAMPLE and ...EXAMPLEKEY
        or re.search(r"(.)\1{7}", value) is not None
        or (value.replace("-", "_").isidentifier() and in_vocabulary(words(value), CREDENTIAL))
    )  # the last: `fal-ai-api-key`, `MY_TOKEN`, words that name a secret instead of being one
