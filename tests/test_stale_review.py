"""Stale cards offered for review (issue 22): a vault inside a project repository, cards naming
files that are then deleted; `verify` (and maintain's verify step) asks about each stale card,
and the three answers a person wants stick: still right (the mark goes, the check is recorded,
the same reason never comes back; a new one asks again), archive it, or edit the card."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from cardvault.vault.read import read_card
from tests.support.cli import cli_at, git_log
from tests.support.serve import run_in_terminal
from tests.support.writers import git

WRITTEN = "2026-10-22T09:00"
TODAY = "2026-12-01T09:00"
LATER = "2026-12-08T09:00"
CARDS = {
    "Old loader": "The loader is `src/app/loader.py`; its cache is `src/app/cache.py`.",
    "Settings module": "Settings live in `src/app/settings.py`.",
    "Nightly jobs": "Jobs run from `src/app/jobs.py`.",
}


def cli(root: Path, *args: str, now: str = TODAY, code: int | None = 0) -> str:
    return cli_at(root, *args, now=now, code=code)


def on_terminal(vault: Path, *args: str) -> str:
    """What a person sees at a terminal (a pseudo-terminal: the human form, not JSON)."""
    code, shown = run_in_terminal([sys.executable, "-m", "cardvault", "--vault", str(vault),
                                   *args], vault)  # fmt: skip
    assert code == 0, shown
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown.decode("utf-8", "replace"))


def commit_all(top: Path, message: str) -> None:
    git(top, "add", "-A")
    git(top, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", message)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    top = tmp_path / "web"
    (top / "src/app").mkdir(parents=True)
    for name in ("loader", "cache", "settings", "config", "jobs"):
        (top / f"src/app/{name}.py").write_text(f"# {name}\n")
    git(tmp_path, "init", "-q", "-b", "main", str(top))
    commit_all(top, "code")
    vault = top / "memory-vault"
    cli(top, "init", str(vault), now=WRITTEN)
    for topic, body in CARDS.items():
        cli(vault, "new", topic, "-c", "workflow", "--body", body, now=WRITTEN)
    return vault


def pending(vault: Path) -> list[dict[str, Any]]:
    return list(json.loads(cli(vault, "review", "--json")))


def meta(vault: Path, slug: str, folder: str = "cards") -> dict[str, Any]:
    return dict(read_card(vault / f"memory/{folder}/{slug}.md", vault).meta)


def test_still_right_clears_the_mark_records_the_check_and_sticks(vault: Path) -> None:
    top = vault.parent
    git(top, "rm", "-q", "src/app/loader.py")
    commit_all(top, "drop the loader")
    cli(vault, "verify", code=1)
    [question] = pending(vault)
    assert question["kind"] == "stale"
    assert [m["path"] for m in question["members"]] == ["memory/cards/old-loader.md"]
    assert question["evidence"] == {
        "reasons": ["`src/app/loader.py` no longer exists"],
        "since": "2026-12-01",
    }
    shown = " ".join(on_terminal(vault, "review").split())
    assert "is the card stale?" in shown and "src/app/loader.py` no longer exists" in shown
    assert f"cardvault review reject {question['id']}" in shown
    assert git_log(vault)[0] == "verify: 1 stale"  # the mark and the question: one commit

    why = "the card tells why the loader went"
    cli(vault, "review", "reject", question["id"], "--reason", why, now=LATER)
    card = meta(vault, "old-loader")
    assert "stale" not in card
    head = git(top, "rev-parse", "HEAD~1").strip()  # the project's commit before the answer's
    assert card["checked"] == {"date": card["checked"]["date"], "commit": head[:12]}
    assert str(card["checked"]["date"]) == "2026-12-08"
    assert pending(vault) == []
    commits = git_log(vault)

    cli(vault, "verify", now=LATER)  # the same reason: no mark, no question, no commit
    assert "stale" not in meta(vault, "old-loader") and pending(vault) == []
    assert git_log(vault) == commits
    cli(vault, "maintain", "--only", "verify", now=LATER)
    assert "stale" not in meta(vault, "old-loader") and pending(vault) == []

    git(top, "rm", "-q", "src/app/cache.py")  # a new reason asks again
    commit_all(top, "drop the cache")
    cli(vault, "verify", now=LATER, code=1)
    [again] = pending(vault)
    assert again["id"] != question["id"]
    assert again["evidence"]["reasons"] == ["`src/app/cache.py` no longer exists"]
    assert meta(vault, "old-loader")["stale"]["reason"] == "`src/app/cache.py` no longer exists"

    cli(vault, "review", "accept", again["id"], now=LATER)  # stale: archive it
    assert not (vault / "memory/cards/old-loader.md").exists()
    archived = meta(vault, "old-loader", "archive")
    assert archived["status"] == "archived" and archived["stale"]
    assert pending(vault) == []


def test_an_edited_card_closes_its_question_and_maintain_asks_too(vault: Path) -> None:
    top = vault.parent
    (top / "src/app/settings.py").unlink()
    (top / "src/app/jobs.py").unlink()
    cli(vault, "maintain", "--only", "verify")  # maintain's verify step asks as well
    asked = {q["members"][0]["path"]: q for q in pending(vault)}
    assert set(asked) == {"memory/cards/settings-module.md", "memory/cards/nightly-jobs.md"}
    assert "review: asked" in git(vault, "log", "-1", "--format=%B")

    card = vault / "memory/cards/settings-module.md"  # the person fixes the card by hand
    card.write_text(card.read_text().replace("settings.py", "config.py"))
    cli(vault, "verify", code=1)  # the jobs card is still stale
    assert "stale" not in meta(vault, "settings-module")
    left = pending(vault)
    assert [q["members"][0]["path"] for q in left] == ["memory/cards/nightly-jobs.md"]
    queue = (vault / "memory/review.jsonl").read_text().splitlines()
    closed = [json.loads(line) for line in queue if "settings-module" in line]
    assert closed[0]["status"] == "rejected" and closed[0]["by"] == "maintain"
    why = "closed: memory/cards/settings-module.md is no longer marked stale"
    assert closed[0]["reason"] == why

    cli(vault, "verify", code=1)  # asked once: running again asks nothing new
    assert len(pending(vault)) == 1


def test_the_search_table_shows_each_cards_age_and_stale_mark(vault: Path) -> None:
    """The human table, on a terminal (the pinned clock: 2026-11-30, 39 days after the cards
    were written); --json carries the same as `age_days` and `stale`."""
    (vault.parent / "src/app/loader.py").unlink()
    cli(vault, "verify", code=1)
    shown = on_terminal(vault, "search", "loader settings", "--mode", "keyword", "--all")
    lines = shown.splitlines()
    header = next(line for line in lines if "score" in line)
    assert [cell.strip() for cell in header.split("┃")[1:4]] == ["#", "score", "age"]
    rows = {line.split("│")[4].strip(): line for line in lines if line.count("│") > 4}
    assert "39d" in rows["Old loader"] and "39d" in rows["Settings module"]
    below = lines[lines.index(rows["Old loader"]) + 1]
    assert "STALE" in below  # under the stale card's age, and nowhere else
    assert shown.count("STALE") == 1
    data = json.loads(cli(vault, "search", "loader", "--mode", "keyword", "--json"))
    assert data[0]["age_days"] >= 39 and data[0]["stale"] is True


def test_maintain_clears_the_mark_of_a_card_edited_out_of_what_it_cites(vault: Path) -> None:
    top = vault.parent
    (top / "src/app/settings.py").unlink()
    (top / "src/app/jobs.py").unlink()
    cli(vault, "maintain", "--only", "verify")
    assert meta(vault, "settings-module")["stale"] and meta(vault, "nightly-jobs")["stale"]
    card = vault / "memory/cards/settings-module.md"  # the person fixes one card's body
    text = card.read_text()
    assert text.count("live in `src/app/settings.py`") == 1
    card.write_text(text.replace("live in `src/app/settings.py`", "live in `src/app/config.py`"))
    commit_all(top, "the settings card points at config.py")

    cli(vault, "maintain", "--only", "verify", now=LATER)  # no `verify` needed
    assert "stale" not in meta(vault, "settings-module")
    assert meta(vault, "nightly-jobs")["stale"]  # untouched, still naming a missing file
    assert "settings-module: no longer stale" in git(vault, "log", "-1", "--format=%B")
    left = pending(vault)
    assert [q["members"][0]["path"] for q in left] == ["memory/cards/nightly-jobs.md"]
    commits = git_log(vault)
    cli(vault, "maintain", "--only", "verify", now=LATER)  # settled: nothing more to write
    assert git_log(vault) == commits


def test_a_card_stale_again_for_the_reasons_of_a_closed_question_is_asked_again(
    vault: Path,
) -> None:
    """A question maintenance closed (the card was found fresh) answered nothing: when the card
    is marked again for the same reasons, the person is asked again, and can answer."""
    top = vault.parent
    jobs = top / "src/app/jobs.py"
    git(top, "rm", "-q", "src/app/jobs.py")
    commit_all(top, "drop the jobs")
    cli(vault, "verify", code=1)
    [first] = pending(vault)
    jobs.write_text("# jobs\n")  # the file comes back: the card is fresh, the question closed
    commit_all(top, "jobs back")
    cli(vault, "verify")
    assert pending(vault) == []
    git(top, "rm", "-q", "src/app/jobs.py")  # and goes again
    commit_all(top, "drop the jobs again")
    cli(vault, "verify", now=LATER, code=1)
    assert meta(vault, "nightly-jobs")["stale"]["reason"] == "`src/app/jobs.py` no longer exists"
    [again] = pending(vault)
    assert (
        again["id"] != first["id"] and again["evidence"]["reasons"] == first["evidence"]["reasons"]
    )
    cli(vault, "review", "reject", again["id"], now=LATER)  # still right: answered, and it sticks
    assert "stale" not in meta(vault, "nightly-jobs") and pending(vault) == []
    cli(vault, "verify", now=LATER)
    assert "stale" not in meta(vault, "nightly-jobs")
