"""`cardvault hook EVENT --host HOST` on its edges: bad input fails with exit 1 (never click's
usage exit 2, which a host reads as "block"), captures are bounded, redacted and resumed where
the last one stopped, and each host gets the output it expects."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import git_log, run_cli

NOW = {"CARDVAULT_NOW": "2026-11-30T18:05"}


def hook(vault: Path, *args: str, stdin: str = "") -> tuple[int, str, str]:
    done = run_cli(["hook", *args], input=stdin, env=NOW)
    return done.exit_code, done.stdout, done.stderr


def payload(vault: Path, transcript: Path | None = None) -> str:
    data = {"session_id": "feedc0de-1", "cwd": str(vault), "hook_event_name": "Stop"}
    if transcript is not None:
        data["transcript_path"] = str(transcript)
    return json.dumps(data)


def say(transcript: Path, text: str) -> None:
    message = {"role": "assistant", "content": [{"type": "text", "text": text}]}
    with transcript.open("a") as handle:
        handle.write(json.dumps({"type": "assistant", "message": message}) + "\n")


def logged(vault: Path) -> list[str]:
    log = vault / "memory" / "2026-11-30.md"
    return [line for line in log.read_text().splitlines() if ":" in line and "Via" not in line
            and not line.startswith(("#", "Agent"))] if log.exists() else []  # fmt: skip


def test_bad_input_is_an_error_on_stderr_with_exit_1(vault_path: Path) -> None:
    code, out, err = hook(vault_path, "stop", stdin="{not json")
    assert (code, out) == (1, "") and "hook input is not JSON" in err
    code, out, err = hook(vault_path, "bogus", stdin=payload(vault_path))
    assert code == 1 and "unknown hook event 'bogus'" in err
    code, _, err = hook(vault_path, "stop", "--host", "vim", stdin=payload(vault_path))
    assert code == 1 and "unknown host 'vim'" in err
    code, out, _ = hook(vault_path, "session-start", "--frobnicate", stdin=payload(vault_path))
    assert code == 0 and "MEMORY.md" in out, "an option a later version dropped never exits 2"


def test_no_transcript_captures_nothing_and_says_so(vault_path: Path) -> None:
    before = git_log(vault_path)
    code, out, err = hook(vault_path, "pre-compact", "--host", "cursor", stdin=payload(vault_path))
    assert (code, out) == (0, "{}\n") and "no transcript" in err
    assert git_log(vault_path) == before


def test_cursor_gets_the_pack_as_json(vault_path: Path) -> None:
    code, out, _ = hook(vault_path, "session-start", "--host", "cursor", stdin=payload(vault_path))
    assert code == 0 and "MEMORY.md" in json.loads(out)["additional_context"]


def test_a_capture_is_bounded_and_redacted(vault_path: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    say(transcript, "Gotcha: the deploy key is AKIAZ3MHQ7KXW2PL9RTE, rotate it " + "x " * 400)
    say(transcript, "\n".join(f"- Lesson: step {n} of the migration matters" for n in range(25)))
    code, _, err = hook(vault_path, "stop", stdin=payload(vault_path, transcript))
    assert code == 0 and "6 more signal line(s) not logged" in err
    lines = logged(vault_path)
    assert len(lines) == 20
    assert lines[1:] == [f"Lesson: step {n} of the migration matters" for n in range(19)]
    gotcha = lines[0]
    assert gotcha.startswith("Gotcha: the deploy key is [REDACTED:AWS access key], rotate it")
    assert gotcha.endswith("…") and len(gotcha) <= len("Gotcha: ") + 500
    assert "AKIAZ3MHQ7KXW2PL9RTE" not in (vault_path / "memory" / "2026-11-30.md").read_text()


def test_captures_resume_where_the_last_stopped_and_restart_on_a_new_file(
    vault_path: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    say(transcript, "Lesson: the first thing learned")
    assert hook(vault_path, "stop", stdin=payload(vault_path, transcript))[0] == 0
    say(transcript, "Fix: the second thing learned")
    with transcript.open("a") as handle:
        handle.write(
            '{"type": "assistant", "message": {"role": "assistant", "content": "Lesson: half'
        )
    assert hook(vault_path, "stop", stdin=payload(vault_path, transcript))[0] == 0
    assert logged(vault_path) == [
        "Lesson: the first thing learned",
        "Fix: the second thing learned",
    ]
    transcript.write_text("")  # a new, shorter transcript in the same place: read from its start
    say(transcript, "Decision: keep the third")
    assert hook(vault_path, "stop", stdin=payload(vault_path, transcript))[0] == 0
    assert logged(vault_path)[-1] == "Decision: keep the third"


def test_no_vault_found_fails_the_hook_not_the_session(vault_path: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    say(transcript, "Lesson: there is no vault to write this to")
    missing = tmp_path / "gone"
    code, out, err = hook(vault_path, "stop", stdin=payload(missing, transcript))
    assert (code, out) == (1, "") and "error: cardvault hook stop: no vault" in err


def test_a_transcript_behind_a_symlink_is_refused_as_a_vault_file_is(
    vault_path: Path, tmp_path: Path
) -> None:
    """The transcript is read through the one bounded reader: a link is never followed."""
    transcript = tmp_path / "t.jsonl"
    say(transcript, "Lesson: read through the link")
    link = tmp_path / "link.jsonl"
    link.symlink_to(transcript)
    before = git_log(vault_path)
    code, out, err = hook(vault_path, "stop", stdin=payload(vault_path, link))
    assert (code, out) == (1, "")
    assert f"{link}: is a symlink; cardvault reads and writes no symlinks" in err
    assert git_log(vault_path) == before


def test_a_capture_reads_only_the_newest_part_of_a_huge_transcript(
    vault_path: Path, tmp_path: Path
) -> None:
    """Past the transcript limit a capture skips ahead to the newest whole lines."""
    transcript = tmp_path / "t.jsonl"
    say(transcript, "Lesson: an old thing past the limit")
    user = json.dumps({"type": "user", "message": {"role": "user", "content": "y" * 1000}})
    transcript.write_text(transcript.read_text() + (user + "\n") * 9000)  # ~ 9 MB
    say(transcript, "Lesson: the newest thing")
    assert hook(vault_path, "stop", stdin=payload(vault_path, transcript))[0] == 0
    assert logged(vault_path) == ["Lesson: the newest thing"]
