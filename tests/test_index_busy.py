"""A query while another process writes the search index (a first index of thousands of notes
runs for minutes): the query waits at most `SEARCH_WAIT` seconds (`FIRST_WAIT` while the index
is still empty), then answers from the index as that process last committed it and says so;
`cardvault index` waits for as long as it takes and says it is waiting. The other process here
is a real second process holding the index's write transaction as a sync does, until the test
lets it go."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from typer.testing import CliRunner

from cardvault import open_vault
from cardvault.cli.app import app
from cardvault.search.engine import SEARCH_WAIT
from cardvault.search.sync import WAITING
from tests.support.machine import scaled
from tests.support.search import write_card

#: A second process that opens the vault's index and holds its write transaction until told.
HOLDER = """
import sys
from pathlib import Path
from cardvault.search.index import open_index
index = open_index(Path(sys.argv[1]))
index.conn.execute("BEGIN IMMEDIATE")  # as a sync does (IndexHandle.begin_write)
print("held", flush=True)
sys.stdin.readline()
index.conn.execute("ROLLBACK")
"""
#: Far longer than a query may wait (SEARCH_WAIT), shorter than the old 30 s busy timeout.
QUERY_BOUND = scaled(25)


@contextmanager
def held_index(root: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the write lock of `root`'s search index while the body runs."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(root / ".cardvault")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        if holder.stdin is not None:
            holder.stdin.close()  # readline returns: it rolls back and ends
        holder.wait(timeout=scaled(30))
        if holder.stdout is not None:
            holder.stdout.close()


def _cli(root: Path, *args: str, timeout: float = QUERY_BOUND) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardvault", "--vault", str(root), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    assert CliRunner().invoke(app, ["init", str(root)]).exit_code == 0
    write_card(root, "retry-budget", "Retry budget", "The deploy queue retries a job five times.")
    return root


def test_a_query_answers_from_the_committed_index_while_another_process_writes_it(
    tmp_path: Path,
) -> None:
    """The card indexed before the other process began is found; the card written since is
    not yet (the index cannot be written), and the query says why instead of hanging."""
    root = _vault(tmp_path)
    assert _cli(root, "index", timeout=scaled(300)).returncode == 0
    write_card(root, "cron-drift", "Cron drift", "The nightly cron job drifts by a minute.")
    with held_index(root) as holder:
        done = _cli(root, "search", "deploy queue retries cron job", "--mode", "keyword", "--all",
                    "--json")  # fmt: skip
        assert holder.poll() is None  # it answered while the other still held the index
    assert done.returncode == 0, done.stderr
    slugs = [hit["slug"] for hit in json.loads(done.stdout)]
    assert slugs == ["retry-budget"]
    assert "another cardvault is writing the search index" in done.stderr
    assert "as it stood before" in done.stderr
    # let go, the next query brings the index up to date and finds the new card too
    again = _cli(root, "search", "nightly cron drifts", "--mode", "keyword", "--all", "--json")
    assert json.loads(again.stdout)[0]["slug"] == "cron-drift"
    assert "another cardvault" not in again.stderr


def test_a_query_during_another_first_index_waits_for_it(tmp_path: Path) -> None:
    """The other process has created the index and is still filling it (a first index): an
    answer from the empty index would help no one, so the query waits longer than it would
    beside an index with documents, and answers in full once the other is done."""
    root = _vault(tmp_path)
    with held_index(root):
        query = subprocess.Popen(
            [sys.executable, "-m", "cardvault", "--vault", str(root), "search", "deploy queue",
             "--mode", "keyword", "--all", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        time.sleep(SEARCH_WAIT + 3)
        assert query.poll() is None  # still waiting, past what it waits beside documents
    out, err = query.communicate(timeout=QUERY_BOUND)
    assert query.returncode == 0, err
    assert [hit["slug"] for hit in json.loads(out)] == ["retry-budget"]
    assert "another cardvault" not in err


def test_a_query_that_gives_up_on_another_first_index_says_nothing_is_indexed_yet(
    tmp_path: Path,
) -> None:
    """Past its wait (`FIRST_WAIT`, 30 s: here a shorter one), the query says why it has
    nothing, and `Searcher.first_index` (the MCP server's warm-up) reports the index unbuilt."""
    root = _vault(tmp_path)
    notices: list[str] = []
    with held_index(root), open_vault(root) as session:
        searcher = session.searcher(session.vault)
        index, _ = searcher.synced(None, notices, wait=0.5)
        built = searcher.first_index(lambda *_: None, wait=0)
        found = index.conn.execute("SELECT count(*) FROM docs").fetchone()[0]
    assert found == 0 and built is False
    assert any("another cardvault is building the search index" in n for n in notices)
    assert any("nothing is in it yet" in n for n in notices)
    with open_vault(root) as session:
        assert session.searcher(session.vault).first_index(lambda *_: None) is True


def test_index_waits_for_the_other_process_and_says_so(tmp_path: Path) -> None:
    """`cardvault index` does not give up while the other process writes: piped, it writes a
    waiting line every ten seconds, and once the other lets go it indexes what is on disk then,
    not what it had read before it waited (a card edited meanwhile is indexed as it is now)."""
    root = _vault(tmp_path)
    assert _cli(root, "index", timeout=scaled(300)).returncode == 0
    write_card(root, "cron-drift", "Cron drift", "The nightly cron job drifts by a minute.")
    with held_index(root) as holder:
        waiting = subprocess.Popen(
            [sys.executable, "-m", "cardvault", "--vault", str(root), "index"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert waiting.stderr is not None
        said = []  # its stderr up to the first piped progress line (after ten seconds)
        while not said or WAITING not in said[-1]:
            said.append(waiting.stderr.readline())
            assert said[-1], said  # it ended, or closed stderr, without saying it waits
        assert waiting.poll() is None and holder.poll() is None
        write_card(root, "cron-drift", "Cron drift", "The nightly cron job now runs at 02:00.")
    out, err = waiting.communicate(timeout=scaled(300))
    assert waiting.returncode == 0, err
    assert "1 files read" in out + err
    uri = f"{(root / '.cardvault' / 'search.sqlite').as_uri()}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as conn:  # as `index` left it
        [(body,)] = conn.execute("SELECT body FROM docs WHERE slug = 'cron-drift'").fetchall()
    assert "02:00" in body
    found = _cli(root, "search", "nightly cron drifts", "--mode", "keyword", "--all", "--json")
    assert json.loads(found.stdout)[0]["slug"] == "cron-drift"
