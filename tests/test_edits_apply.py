"""The one applier: composition of changes, all-or-nothing writes, exact rollback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cardvault.edits.apply import ApplyError, apply_changes, compose
from cardvault.edits.changes import DeleteFile, MoveFile, Report, WriteFile
from cardvault.errors import CardvaultError, ConcurrentEditError
from cardvault.vault.files import ABSENT, digest_text, read_text
from tests.support.maintain import card, new_vault, snapshot


@pytest.fixture
def vault(tmp_path: Path):  # type: ignore[no-untyped-def]
    vault = new_vault(tmp_path / "v")
    card(vault, "alpha", "Alpha", "Alpha body.")
    card(vault, "beta", "Beta", "Beta body.")
    return vault


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_writes_creates_moves_and_deletes(vault) -> None:  # type: ignore[no-untyped-def]
    alpha, beta = vault.card_path("alpha"), vault.card_path("beta")
    new = vault.card_path("gamma")
    archived = vault.archive_dir / "beta.md"
    changes = [
        WriteFile(
            alpha, _text(alpha) + "More.\n", read_text(alpha, vault.root).digest, "edit alpha"
        ),
        WriteFile(new, "---\ntopic: G\n---\nG\n", ABSENT, "new gamma"),
        MoveFile(beta, archived, _text(beta), read_text(beta, vault.root).digest, "archive beta"),
        Report("conflict", "not a file change"),
    ]
    written = apply_changes(vault, changes)
    assert set(written) == {alpha, new, beta, archived}
    assert _text(alpha).endswith("More.\n")
    assert new.exists() and archived.exists() and not beta.exists()


def test_failure_between_writes_restores_every_byte(vault) -> None:  # type: ignore[no-untyped-def]
    alpha, beta = vault.card_path("alpha"), vault.card_path("beta")
    os.chmod(beta, 0o600)
    before = snapshot(vault.root)
    changes = [
        WriteFile(alpha, "changed\n", read_text(alpha, vault.root).digest, "a"),
        DeleteFile(beta, read_text(beta, vault.root).digest, "b"),
        WriteFile(vault.root / "memory" / "new" / "deep" / "x.md", "x\n", ABSENT, "c"),
    ]
    calls: list[Path] = []

    def fail_on_third(path: Path) -> None:
        calls.append(path)
        if len(calls) == 3:
            raise OSError(28, "No space left on device", str(path))

    with pytest.raises(ApplyError, match="restored"):
        apply_changes(vault, changes, after_write=fail_on_third)
    assert len(calls) == 3  # the failure came after real writes and a removal
    assert snapshot(vault.root) == before
    assert beta.stat().st_mode & 0o777 == 0o600
    assert not (vault.root / "memory" / "new").exists()


def test_unwritable_target_fails_midway_and_restores(vault) -> None:  # type: ignore[no-untyped-def]
    alpha = vault.card_path("alpha")
    blocker = vault.root / "memory" / "blocker"
    blocker.write_text("a file where a folder is needed\n", encoding="utf-8")
    before = snapshot(vault.root)
    changes = [
        WriteFile(alpha, "changed\n", read_text(alpha, vault.root).digest, "a"),
        WriteFile(blocker / "x.md", "x\n", ABSENT, "cannot be written: its folder is a file"),
    ]
    with pytest.raises(CardvaultError):
        apply_changes(vault, changes)
    assert snapshot(vault.root) == before


def test_failing_finish_restores_files(vault) -> None:  # type: ignore[no-untyped-def]
    alpha = vault.card_path("alpha")
    before = snapshot(vault.root)

    def commit_fails(paths: list[Path]) -> None:
        assert paths == [alpha]
        raise CardvaultError("git commit failed")

    with pytest.raises(CardvaultError, match="git commit failed"):
        apply_changes(
            vault,
            [WriteFile(alpha, "x\n", read_text(alpha, vault.root).digest, "a")],
            finish=commit_fails,
        )
    assert snapshot(vault.root) == before


def test_file_edited_after_planning_is_never_clobbered(vault) -> None:  # type: ignore[no-untyped-def]
    alpha, beta = vault.card_path("alpha"), vault.card_path("beta")
    changes = [
        WriteFile(alpha, "planned\n", read_text(alpha, vault.root).digest, "a"),
        WriteFile(beta, "planned\n", read_text(beta, vault.root).digest, "b"),
    ]
    beta.write_text("edited in an editor meanwhile\n", encoding="utf-8")
    before = snapshot(vault.root)
    with pytest.raises(ConcurrentEditError):
        apply_changes(vault, changes)
    assert snapshot(vault.root) == before


@pytest.mark.parametrize("save", ["in place", "by rename"])
def test_an_editor_save_while_the_new_bytes_are_flushed_is_never_clobbered(  # type: ignore[no-untyped-def]
    vault, monkeypatch: pytest.MonkeyPatch, save: str
) -> None:
    """The editor saves after the applier checked the card and while its new bytes are being
    flushed (the milliseconds of fsync): the save is refused, not overwritten, and the change
    rolled back."""
    alpha, beta = vault.card_path("alpha"), vault.card_path("beta")
    changes = [
        WriteFile(alpha, "planned\n", read_text(alpha, vault.root).digest, "a"),
        WriteFile(beta, "planned\n", read_text(beta, vault.root).digest, "b"),
    ]
    real_fsync, edited = os.fsync, "---\ntopic: Beta\n---\nedited in an editor meanwhile\n"

    def editor_saves_during_the_flush(fd: int) -> None:
        real_fsync(fd)
        if os.readlink(f"/proc/self/fd/{fd}").startswith(str(beta.parent / ".beta")):
            if save == "in place":
                beta.write_text(edited, encoding="utf-8")
            else:
                beta.with_suffix(".swp").write_text(edited, encoding="utf-8")
                os.replace(beta.with_suffix(".swp"), beta)

    monkeypatch.setattr(os, "fsync", editor_saves_during_the_flush)
    original = _text(alpha)
    with pytest.raises(ConcurrentEditError):
        apply_changes(vault, changes)
    assert _text(beta) == edited  # the person's save stands
    assert _text(alpha) == original  # and the change is undone as a whole


def test_compose_chains_changes_to_one_operation_per_path(vault) -> None:  # type: ignore[no-untyped-def]
    alpha = vault.card_path("alpha")
    original = read_text(alpha, vault.root).digest
    temp = vault.card_path("temp")
    ops = compose(
        [
            WriteFile(alpha, "one\n", original, "first step"),
            WriteFile(alpha, "two\n", digest_text("one\n"), "second step"),
            WriteFile(temp, "t\n", ABSENT, "created"),
            DeleteFile(temp, digest_text("t\n"), "then removed"),
        ]
    )
    assert [(op.path, op.expected, op.text) for op in ops] == [(alpha, original, "two\n")]


def test_compose_refuses_changes_that_disagree(vault) -> None:  # type: ignore[no-untyped-def]
    alpha = vault.card_path("alpha")
    original = read_text(alpha, vault.root).digest
    with pytest.raises(ConcurrentEditError):
        compose(
            [WriteFile(alpha, "one\n", original, "a"), WriteFile(alpha, "two\n", original, "b")]
        )


def test_paths_outside_the_vault_are_refused(vault, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    outside = tmp_path / "elsewhere.md"
    with pytest.raises(CardvaultError):
        apply_changes(vault, [WriteFile(outside, "x\n", ABSENT, "escape")])
    assert not outside.exists()


def test_a_path_leading_outside_the_vault_is_refused(vault, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from cardvault.errors import UnsafePathError

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (vault.root / "memory" / "cards" / "link").symlink_to(outside, target_is_directory=True)
    before = snapshot(vault.root)
    for path in (vault.root / "memory" / "cards" / "link" / "x.md", vault.root / ".." / "y.md"):
        with pytest.raises(UnsafePathError):
            apply_changes(vault, [WriteFile(path, "x\n", ABSENT, "escape")])
    assert snapshot(vault.root) == before and list(outside.iterdir()) == []
