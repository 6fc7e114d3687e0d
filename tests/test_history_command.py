"""`cardvault history` and `cardvault diff` through the real CLI, on a real vault in git where
new, log, maintain (a merge and a promotion), archive and forget really ran."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from cardvault.vault.layout import open_vault_at
from tests.support.cli import run_cli
from tests.support.maintain import card, commit_all, new_vault

PLATFORM_A = (
    "Images built on an Apple Silicon laptop are arm64; the cluster runs linux/amd64. Such an "
    "image crashes on start with `exec format error`.\n\n"
    "Always build with `docker buildx build --platform linux/amd64`."
)
PLATFORM_B = (  # PLATFORM_A told again by a later run, with the fix: A's content is in B
    "Images built on an Apple Silicon laptop are arm64; the cluster runs linux/amd64. Such an "
    "image crashes on start with `exec format error`.\n\n"
    "Fix: pass `--platform linux/amd64` to docker buildx, or export "
    "DOCKER_DEFAULT_PLATFORM=linux/amd64 in the shell.\n\n"
    "Always build with `docker buildx build --platform linux/amd64`."
)


def cli(root: Path, *args: str) -> object:
    done = run_cli(["--vault", str(root), *args])
    assert done.exit_code == 0, done.output
    return done


@pytest.fixture(scope="module")
def lived_in(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A vault that went through every kind of memory change, one command each. The two
    Docker cards are ones an earlier `maintain` distilled (their `distilled:` mark), so this
    run merges them on its own; a hand-written pair would only be asked about."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CARDVAULT_NOW", "2026-06-01T09:15")
        vault = new_vault(tmp_path_factory.mktemp("history") / "v")
        card(vault, "docker-platform-flag", "Docker Platform Flag", PLATFORM_A,
             category="infrastructure", created="2026-03-01", updated="2026-03-05",
             distilled=True)  # fmt: skip
        card(vault, "apple-silicon-images", "Docker Images on Apple Silicon", PLATFORM_B,
             category="infrastructure", created="2026-03-20", extra="seen: 2\n",
             distilled=True)  # fmt: skip
        card(vault, "utc-timestamps", "UTC Timestamps", "Store every timestamp as UTC.",
             category="workflow")  # fmt: skip
        card(vault, "old-vpn", "Old VPN", "The old VPN needs the legacy client.")
        commit_all(vault, "fixture")
        root = vault.root
        cli(root, "new", "Nginx upload size", "--body", "- client_max_body_size 50m", "-c",
            "infrastructure")  # fmt: skip
        cli(root, "log", "Lesson: the VPN is gone since May; use the zero-trust proxy.")
        for where in ("the API", "the exporter", "the scheduler"):  # a lesson told three times
            cli(root, "log", f"Lesson: store every timestamp as UTC, in {where} too.\n"
                "→ card: utc-timestamps", "--title", f"Local time in {where}")  # fmt: skip
        cli(root, "maintain")
        cli(root, "archive", "old-vpn")
        cli(root, "forget", "nginx-upload-size", "--yes")
    return root


def _history(root: Path, *args: str) -> list[dict]:
    return json.loads(cli(root, "history", *args, "--json").stdout)  # type: ignore[attr-defined]


def _kinds(commits: list[dict]) -> set[tuple[str, str]]:
    return {(c["kind"], c["card"]) for commit in commits for c in commit["changes"]}


@pytest.mark.slow
def test_history_says_each_change_in_words(lived_in: Path) -> None:
    commits = _history(lived_in)
    kinds = _kinds(commits)
    assert ("created", "nginx-upload-size") in kinds
    assert ("merged", "docker-platform-flag") in kinds
    assert ("promoted", "utc-timestamps") in kinds
    assert ("archived", "old-vpn") in kinds
    assert ("forgotten", "nginx-upload-size") in kinds
    assert any(kind == "logged" for kind, _ in kinds)
    merge = next(
        c for commit in commits for c in commit["changes"] if c["kind"] == "merged"
    )  # fmt: skip
    assert merge["from"] == ["apple-silicon-images"]
    assert merge["text"] == "merged apple-silicon-images into docker-platform-flag"
    # the card merged away is not also reported as removed
    assert ("removed", "apple-silicon-images") not in kinds
    # newest first: forget is the last command
    assert commits[0]["message"].startswith("forget")
    assert set(commits[0]) == {"commit", "date", "author", "message", "body", "changes"}
    text = run_cli(["--vault", str(lived_in), "history"]).stdout
    assert "promoted utc-timestamps to a rule" in text


@pytest.mark.slow
def test_history_filters_by_card_and_by_day(lived_in: Path) -> None:
    only = _history(lived_in, "old-vpn")
    assert only and all(any(c["card"] == "old-vpn" for c in commit["changes"]) for commit in only)
    assert len(only) < len(_history(lived_in))
    # the merged-away card's history includes the merge that took it
    assert ("merged", "docker-platform-flag") in _kinds(_history(lived_in, "apple-silicon-images"))
    tomorrow = (dt.date.today() + dt.timedelta(days=2)).isoformat()
    assert _history(lived_in, "--since", tomorrow) == []
    assert _history(lived_in, "--since", "2000-01-01") == _history(lived_in)
    bad = run_cli(["--vault", str(lived_in), "history", "--since", "last week"])
    assert bad.exit_code == 2 and "is not a day" in bad.output


@pytest.mark.slow
def test_diff_describes_one_commit(lived_in: Path) -> None:
    last = json.loads(cli(lived_in, "diff", "--json").stdout)  # type: ignore[attr-defined]
    assert last["message"].startswith("forget")
    before = json.loads(cli(lived_in, "diff", "HEAD~1", "--json").stdout)  # type: ignore[attr-defined]
    assert before["message"].startswith("archive")
    assert next((c["kind"], c["card"]) for c in before["changes"]) == ("archived", "old-vpn")
    unknown = run_cli(["--vault", str(lived_in), "diff", "no-such-rev"])
    assert unknown.exit_code == 1 and "unknown revision" in unknown.output


@pytest.mark.slow
def test_maintain_commit_message_says_the_same_in_short(lived_in: Path) -> None:
    maintain = next(c for c in _history(lived_in) if c["message"].startswith("maintain"))
    subject = maintain["message"]
    assert "merged 1" in subject and "promoted" in subject
    # ... and its body a line per change, naming the cards as history does
    assert "merged apple-silicon-images → docker-platform-flag" in maintain["body"]
    assert "promoted utc-timestamps" in maintain["body"]
    body = json.loads(cli(lived_in, "diff", maintain["commit"], "--json").stdout)  # type: ignore[attr-defined]
    assert body["changes"] == maintain["changes"]
    assert open_vault_at(lived_in).card_path("docker-platform-flag").exists()
