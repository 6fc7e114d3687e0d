"""The token rule every budget uses."""

from __future__ import annotations

import pytest

from cardvault.vault.tokens import count_tokens


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("hello world", 2),
        ("authentication", 3),
        ("port 5432 and 1234567", 7),
        ("a.b/c", 5),
        ("数据库迁移", 5),
        ("   \n\t ", 0),
    ],
)
def test_token_rule(text: str, tokens: int) -> None:
    assert count_tokens(text) == tokens


def test_token_count_is_close_to_a_word_count_on_prose() -> None:
    prose = (
        "Cortex uses non-standard CSRF. Send the token as a cookie and as a header on every "
        "POST, PUT and DELETE request; the usual bypass header does not work."
    )
    words = len(prose.split())
    assert words <= count_tokens(prose) <= 1.6 * words
