"""The secret guard against its labelled corpus, plus redaction and start-up properties.

tests/fixtures/secrets/secrets.txt holds notes that each contain a (fake) secret and
lookalikes.txt holds notes that only look like they might: every secret must be refused and
located, no look-alike may be refused, and redaction must change nothing but the secret.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardvault import guard
from cardvault.errors import SecretFoundError

CORPUS = Path(__file__).parent / "fixtures" / "secrets"
REDACTED = re.compile(r"\[REDACTED:[^\]]+\]")


def load_cases(name: str) -> list[tuple[str, list[str], str]]:
    """(label, secret values, note text) per `---`-separated block; `# ` lines are the header."""
    cases = []
    for block in (CORPUS / name).read_text(encoding="utf-8").split("\n---\n"):
        lines = block.strip("\n").split("\n")
        header = list(_leading_comments(lines))
        label = header[0].split(":", 1)[1].strip()
        secrets = [h.split(":", 1)[1].strip() for h in header if h.startswith("# secret:")]
        cases.append((label, secrets, "\n".join(lines[len(header) :])))
    return cases


def _leading_comments(lines: list[str]) -> Iterator[str]:
    for line in lines:
        if not line.startswith(("# kind:", "# why:", "# secret:")):
            return
        yield line


SECRETS = load_cases("secrets.txt")
LOOKALIKES = load_cases("lookalikes.txt")


def _ids(cases: list[tuple[str, list[str], str]]) -> list[str]:
    return [f"{i:02d}-{label}" for i, (label, _, _) in enumerate(cases)]


def _windows(secret: str, size: int = 10) -> set[str]:
    """Every `size`-character slice of `secret`: none may survive redaction or reach a message."""
    if len(secret) <= size:
        return {secret}
    return {secret[i : i + size] for i in range(len(secret) - size + 1)}


def _only_spans_replaced(original: str, redacted: str) -> bool:
    """True when `redacted` is `original` with some non-empty spans swapped for markers."""
    pieces = REDACTED.split(redacted)
    return re.fullmatch("(?s)" + ".+?".join(map(re.escape, pieces)), original) is not None


def test_corpus_is_big_enough_and_labelled() -> None:
    assert len(SECRETS) >= 45 and len(LOOKALIKES) >= 45
    assert all(secrets for _, secrets, _ in SECRETS), "every secret case names its secret"
    labels = " ".join(label for label, _, _ in SECRETS).lower()
    for kind in ("aws", "github", "slack", "openai", "anthropic", "jwt", "private key"):
        assert kind in labels
    for kind in ("password in url", "password in .env", "api key in yaml", "password assignment"):
        assert kind in labels


@pytest.mark.parametrize(("label", "secrets", "text"), SECRETS, ids=_ids(SECRETS))
def test_every_secret_is_refused_without_echoing_it(
    label: str, secrets: list[str], text: str
) -> None:
    with pytest.raises(SecretFoundError) as caught:
        guard.ensure_no_secrets(text, "memory/cards/note.md")
    first = guard.scan_text(text)[0]
    message = str(caught.value)
    assert message.startswith(f"memory/cards/note.md:{first.line}: ")
    assert caught.value.line == first.line
    assert first.kind in message
    for secret in secrets:
        assert not _windows(secret) & _windows(message, 10), f"{label}: message leaks the secret"


@pytest.mark.parametrize(("label", "secrets", "text"), SECRETS, ids=_ids(SECRETS))
def test_every_secret_is_located(label: str, secrets: list[str], text: str) -> None:
    lines = text.split("\n")
    findings = guard.scan_text(text)
    for secret in secrets:
        number = next(i for i, line in enumerate(lines, start=1) if secret in line)
        assert any(f.line <= number <= (f.end_line or f.line) for f in findings), label


@pytest.mark.parametrize(("label", "secrets", "text"), SECRETS, ids=_ids(SECRETS))
def test_redaction_removes_the_secret_and_nothing_else(
    label: str, secrets: list[str], text: str
) -> None:
    redacted = guard.redact_text(text)
    for secret in secrets:
        survivors = [w for w in _windows(secret) if w in redacted]
        assert not survivors, f"{label}: {len(survivors)} pieces of the secret survive"
    assert _only_spans_replaced(text, redacted)
    assert guard.scan_text(redacted) == []


@pytest.mark.parametrize(("label", "secrets", "text"), LOOKALIKES, ids=_ids(LOOKALIKES))
def test_no_lookalike_is_refused(label: str, secrets: list[str], text: str) -> None:
    assert guard.scan_text(text) == [], label
    guard.ensure_no_secrets(text, "memory/cards/note.md")
    assert guard.redact_text(text) == text


def test_error_line_is_offset_by_first_line() -> None:
    body = "# Title\n\nsmtp password = 'Qz7!rW9pLm2x'\n"
    with pytest.raises(SecretFoundError) as caught:
        guard.ensure_no_secrets(body, Path("memory/cards/smtp.md"), first_line=5)
    assert caught.value.line == 7
    assert str(caught.value).startswith("memory/cards/smtp.md:7: ")
    assert "Qz7!rW9pLm2x" not in str(caught.value)


def test_message_counts_further_secrets() -> None:
    text = "DB_PASSWORD=Qz7rW9pLm2x\nnothing here\nAWS key AKIA2E0A8F3B244C9986\n"
    with pytest.raises(SecretFoundError) as caught:
        guard.ensure_no_secrets(text, "log.md")
    assert caught.value.line == 1
    assert "password" in caught.value.message and "1 more" in caught.value.message


def test_private_key_block_is_one_finding_and_fully_redacted() -> None:
    body = ["MIIEowIBAAKCAQEAx7Vq9Lm2Wf8Zr4Tn0Ys3Kd6Hc1Gb5Ja8Pe2Qu7Xi4No9Rt3M", "Zk5Lw8Jv2"]
    text = "\n".join(
        ["Before.", "-----BEGIN RSA PRIVATE KEY-----", *body, "-----END RSA PRIVATE KEY-----"]
    )
    findings = guard.scan_text(text + "\nAfter.")
    assert [(f.kind, f.line, f.start, f.end_line) for f in findings] == [("private key", 2, 0, 5)]
    assert guard.redact_text(text + "\nAfter.") == "Before.\n[REDACTED:private key]\nAfter."


def test_private_key_without_end_marker_is_still_redacted() -> None:
    body = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
    text = f"Pasted half a key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n{body}\n\nThen lunch."
    assert guard.redact_text(text) == "Pasted half a key:\n[REDACTED:private key]\n\nThen lunch."


def test_crlf_text_keeps_its_line_endings() -> None:
    text = "a: 1\r\napi_key: 7c2d9e4f1a8b3c6d5e0f9a2b\r\nb: 2\r\n"
    assert guard.redact_text(text) == "a: 1\r\napi_key: [REDACTED:API key]\r\nb: 2\r\n"


def test_long_lines_are_scanned_in_pieces_without_losing_secrets() -> None:
    prose = "the archive job moved cards between folders without trouble " * 200
    token = "Kq8vN2xLp4Rt6Wz0Yc3Fh5Jm7Bd9Gs1Ae4Ui6Oo8" * 100  # one 4,000-character token
    text = f"{prose}password=Qz7rW9pLm2x {prose}session key {token} {prose}"
    redacted = guard.redact_text(text)
    assert redacted == (
        f"{prose}password=[REDACTED:password] {prose}session key "
        f"[REDACTED:high-entropy secret] {prose}"
    )


def test_gate_covers_every_detect_secrets_keyword() -> None:
    from detect_secrets.plugins.keyword import DENYLIST

    spelled = {word.replace("_?", sep) for word in DENYLIST for sep in ("_", "")}
    assert spelled <= set(guard._FRAGMENTS)


def test_plain_notes_do_not_import_detect_secrets() -> None:
    note = "# Standup\n\nShipped the search fix in 3f9a2c1; next: review the archive flow.\n" * 30
    code = (
        "import sys, cardvault.guard as g\n"
        f"assert g.scan_text({note!r}) == []\n"
        "print('detect_secrets' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


ORDINARY = """the a note search index vault card daily log fixed shipped review archive merge
build release deploy user team python rust docs issue bug today tomorrow"""
ORDINARY_WORDS = st.sampled_from(ORDINARY.split())
NUMERIC = st.integers(min_value=0, max_value=10**12).map(str)
HEX_IDS = st.sampled_from([7, 12, 40, 64]).flatmap(
    lambda n: st.text("0123456789abcdef", min_size=n, max_size=n)
)
UUIDS = st.uuids().map(str)
TOKENS = st.one_of(ORDINARY_WORDS, NUMERIC, HEX_IDS, UUIDS)
SEPARATORS = st.sampled_from([" ", " ", ", ", ". ", "\n", "\n\n", " - ", ": "])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(TOKENS, SEPARATORS), max_size=60))
def test_ordinary_notes_round_trip_unchanged(parts: list[tuple[str, str]]) -> None:
    text = "".join(token + sep for token, sep in parts)
    assert guard.redact_text(text) == text


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_redaction_only_replaces_spans_and_is_idempotent(text: str) -> None:
    redacted = guard.redact_text(text)
    assert _only_spans_replaced(text, redacted)
    assert guard.redact_text(redacted) == redacted


SECRETISH = st.sampled_from(
    [
        "password = 'Qz7!rW9pLm2x'",
        "AKIA2E0A8F3B244C9986",
        "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5",
        "postgres://app:Zx81Lr0qW3@db:5432/x",
        "token: 9fQ2xL7pB4kM8sN1vC6zR3tY5wJ0hD2g",
    ]
)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(TOKENS, SECRETISH), max_size=12), SEPARATORS)
def test_findings_stay_inside_their_lines(tokens: list[str], sep: str) -> None:
    text = sep.join(tokens)
    lines = text.split("\n")
    for found in guard.scan_text(text):
        last = found.end_line or found.line
        assert 1 <= found.line <= last <= len(lines)
        assert 0 <= found.start <= len(lines[found.line - 1])
        assert 0 <= found.end <= len(lines[last - 1])
        assert found.line < last or found.start < found.end
