"""Managed sections: edits inside the markers leave every other byte as it was."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardvault.errors import CardFormatError
from cardvault.vault.sections import get_section, set_section

user_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="<\x00"), max_size=300
)
BEGIN, END = "<!-- cardvault:begin rules -->", "<!-- cardvault:end rules -->"


@given(user_text, user_text, user_text, user_text)
@settings(max_examples=200, deadline=None)
def test_replacing_a_section_keeps_the_rest_byte_identical(
    before: str, old: str, after: str, new: str
) -> None:
    text = f"{before}{BEGIN}\n{old}\n{END}{after}"
    updated = set_section(text, "rules", new)
    assert updated.startswith(before + BEGIN)
    assert updated.endswith(END + after)
    assert get_section(updated, "rules") == new.strip("\n")


@given(user_text, user_text)
@settings(max_examples=100, deadline=None)
def test_missing_section_is_appended_after_the_users_text(before: str, new: str) -> None:
    updated = set_section(before, "rules", new)
    assert updated.startswith(before)
    assert get_section(updated, "rules") == new.strip("\n")


def test_setting_the_same_content_twice_is_stable() -> None:
    text = "# AGENTS\n\nhand rules\n"
    once = set_section(text, "rules", "- one\n- two")
    assert set_section(once, "rules", "- one\n- two") == once


@pytest.mark.parametrize(
    "text",
    [f"x\n{BEGIN}\na\n{BEGIN}\nb\n{END}\n", f"x\n{END}\na\n{BEGIN}\n", f"x\n{BEGIN}\nno end\n"],
)
def test_broken_markers_are_an_error_with_a_line(text: str) -> None:
    with pytest.raises(CardFormatError) as info:
        set_section(text, "rules", "new")
    assert info.value.line == 2
