"""The judge protocol, with real script judges: JSON on stdin, an answer on stdout, applied like a
person's answer and recorded with the judge's name; a judge that crashes, hangs or talks
nonsense leaves the question pending and says why."""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
from pathlib import Path

import pytest

from cardvault.edits.door import Door
from cardvault.errors import ConfigError
from cardvault.review.answer import Answer, ReviewResult, answer
from cardvault.review.judge import JudgeOutcome, judge_name, judge_pending
from cardvault.trust.store import approve
from cardvault.vault.config import parse_config
from cardvault.vault.decisions import Member, ReviewItem, item_id, read_queue, render_queue
from cardvault.vault.layout import Vault, open_vault_at
from tests.support.maintain import card, commit_all, new_vault

NOW = dt.datetime(2026, 3, 20, 10, 0)


def judge_script(folder: Path, name: str, body: str) -> str:
    """A Python judge at folder/name; returns the command line that runs it."""
    path = folder / name
    path.write_text("import json, sys, time\n" + body, encoding="utf-8")
    return f"{sys.executable} {path}"


def vault_with(tmp_path: Path, judge: str, timeout: float = 20.0) -> Vault:
    """Two cards and two pending questions about them: a duplicate and a contradiction; the
    vault's judge approved by its user, as `cardvault trust` records it."""
    vault = new_vault(tmp_path / "v")
    card(
        vault,
        "use-jest",
        "Use Jest",
        "Always use Jest for the dashboard tests.",
        created="2026-01-02",
    )
    card(
        vault,
        "no-jest",
        "Vitest",
        "Never use Jest for the dashboard tests; use Vitest.",
        created="2026-02-01",
    )
    members = (
        Member("memory/cards/use-jest.md", "memory/cards/use-jest.md", "Always use Jest."),
        Member("memory/cards/no-jest.md", "memory/cards/no-jest.md", "Never use Jest."),
    )
    items = [
        ReviewItem(
            item_id(kind, [m.key for m in members]), kind, members, {"cosine": 0.77}, "2026-03-19"
        )
        for kind in ("duplicate", "contradiction")
    ]
    (vault.root / "memory" / "review.jsonl").write_text(render_queue(items), encoding="utf-8")
    config = vault.root / "cardvault.toml"
    text = config.read_text(encoding="utf-8")
    text = text.replace('judge = ""', f"judge = {json.dumps(judge)}")
    config.write_text(text.replace("judge_timeout = 60", f"judge_timeout = {timeout}"), "utf-8")
    commit_all(vault)
    approve(vault.root, [("maintain.judge", judge)], NOW)
    return open_vault_at(vault.root)


def settled(vault: Vault) -> dict[str, ReviewItem]:
    return {i.kind: i for i in read_queue(vault.root)}


def test_the_judge_reads_the_question_and_its_answers_are_applied(tmp_path: Path) -> None:
    seen = tmp_path / "seen.jsonl"
    command = judge_script(
        tmp_path,
        "judge.py",
        f"""
question = json.load(sys.stdin)
with open({str(seen)!r}, "a") as out:
    out.write(json.dumps(question) + "\\n")
if question["item"]["kind"] == "contradiction":
    print(json.dumps({{"answer": "contradiction", "keep": 2, "reason": "Vitest replaced Jest"}}))
else:
    print("different: one says use Jest, the other says never")
""",
    )
    vault = vault_with(tmp_path, command)
    outcome = _judge(vault)
    assert outcome.messages == () and outcome.pending == 0
    asked = [json.loads(line) for line in seen.read_text(encoding="utf-8").splitlines()]
    assert {q["protocol"] for q in asked} == {"cardvault-judge/1"}
    assert {q["item"]["kind"] for q in asked} == {"duplicate", "contradiction"}
    first = asked[0]["item"]["members"][0]
    assert {"n", "path", "text"} <= set(first) and first["n"] == 1
    found = settled(vault)
    assert (
        found["duplicate"].status == "rejected" and found["duplicate"].by == "judge:python3"
    ) or (found["duplicate"].by == f"judge:{Path(sys.executable).name}")
    assert "never" in (found["duplicate"].reason or "")
    assert found["contradiction"].status == "accepted"
    assert (vault.root / "memory" / "archive" / "use-jest.md").exists()


@pytest.mark.parametrize(
    ("body", "timeout", "says"),
    [
        (
            "sys.stderr.write('model not loaded')\nsys.exit(3)",
            20.0,
            "exited with status 3 (model not loaded)",
        ),
        ("time.sleep(30)", 1.0, "gave no answer within 1 s"),
        ("print('perhaps, who knows')", 20.0, "answered 'perhaps, who knows'"),
        ("print(json.dumps({'answer': 'contradiction'}))", 20.0, "without saying which side holds"),
    ],
)
def test_a_judge_that_fails_leaves_the_question_pending(
    tmp_path: Path, body: str, timeout: float, says: str
) -> None:
    vault = vault_with(tmp_path, judge_script(tmp_path, "judge.py", body), timeout)
    before = (vault.root / "memory" / "review.jsonl").read_bytes()
    outcome = _judge(vault, [settled(vault)["contradiction"].id])
    assert outcome.result is None and outcome.pending == 2
    assert len(outcome.messages) == 1 and says in outcome.messages[0]
    assert "still pending" in outcome.messages[0]
    assert (vault.root / "memory" / "review.jsonl").read_bytes() == before


def test_a_judge_that_cannot_start_is_reported(tmp_path: Path) -> None:
    vault = vault_with(tmp_path, str(tmp_path / "no-such-judge"))
    outcome = _judge(vault)
    assert outcome.pending == 2 and all("could not be run" in m for m in outcome.messages)


def test_judge_settings_are_checked() -> None:
    assert parse_config({"maintain": {"judge": "llm -m local"}}).judge == "llm -m local"
    assert parse_config({}).judge == ""
    with pytest.raises(ConfigError, match=r"maintain\.judge"):
        parse_config({"maintain": {"judge": "llm 'unclosed"}})
    with pytest.raises(ConfigError, match=r"maintain\.judge_timeout"):
        parse_config({"maintain": {"judge_timeout": 0}})
    with pytest.raises(ConfigError, match=r"unknown setting 'maintain\.judg'"):
        parse_config({"maintain": {"judg": "llm"}})
    assert judge_name("/usr/local/bin/llm -m gpt") == "judge:llm"


def test_the_users_own_judge_runs_in_a_folder_of_its_own_never_in_the_vault(
    tmp_path: Path,
) -> None:
    """The user's own judge (their settings: every vault, no approval) runs in an empty folder
    of its own. Many LLM CLIs read settings from their working folder (`uvx` a `uv.toml` with
    an index of the vault's choosing, `npx` an `.npmrc`, tools a `.env` or a project's agent
    settings with hooks): run in a shared vault, the vault's files would steer a command the
    user never approved for it. The vault's own approved judge runs at the vault's root, where
    the words naming vault files are the files `trust` showed."""
    seen = tmp_path / "where.txt"
    body = (
        "import os\n"
        f"open({str(seen)!r}, 'w').write(os.getcwd() + '|' + ','.join(os.listdir('.')))\n"
        "sys.stdin.read()\nprint('different')\n"
    )
    command = judge_script(tmp_path, "where.py", body)
    vault = vault_with(tmp_path, command)
    (vault.root / "uv.toml").write_text('index-url = "https://evil.example/simple"\n')
    _judge(vault, [settled(vault)["duplicate"].id])
    assert seen.read_text().split("|")[0] == str(vault.root)  # approved: the vault's own
    config = vault.root / "cardvault.toml"
    config.write_text(config.read_text().replace(f"judge = {json.dumps(command)}", 'judge = ""'))
    mine = Path(os.environ["CARDVAULT_CONFIG_DIR"]) / "config.toml"
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text(f"[maintain]\njudge = {json.dumps(command)}\n", encoding="utf-8")
    yours = open_vault_at(vault.root)
    assert yours.config.judge == command
    seen.unlink()
    _judge(yours, [settled(yours)["contradiction"].id])
    where, listed = seen.read_text().split("|")
    assert not Path(where).resolve().is_relative_to(vault.root.resolve()) and listed == ""


def _judge(vault: Vault, ids: list[str] | None = None) -> JudgeOutcome:
    """`review judge` at NOW: the judge's answers landed through the door."""

    def settle(answers: list[Answer], by: str) -> ReviewResult:
        return Door(vault).land(answer(vault, answers, NOW, by))

    return judge_pending(vault, settle, ids)
