"""Precision and recall of the secret guard on its labelled corpus, beside detect-secrets alone.

    python benchmarks/guard_corpus.py

The corpus is tests/fixtures/secrets (see its README): notes that hold secrets and notes that
only look as if they might; the guard's rules were written against it. The held-out set
(heldout-*.txt there) was written afterwards, in other styles, and measured once before any
rule was changed for it. Counted per note:
- recall: secret notes in which every labelled secret is covered by a finding (for the guard;
  detect-secrets alone is counted as finding the note when it reports anything in it);
- precision: flagged secret notes / all flagged notes (a flagged look-alike is a false positive).
detect-secrets runs as its CLI would on a `.md` file: default plugins and filters.
Also reports the guard's median scan time per note (wall clock, 5 runs; machine noise applies).
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cardvault import guard  # noqa: E402
from tests.test_guard import LOOKALIKES, SECRETS, load_cases  # noqa: E402


def covered(text: str, secret: str) -> bool:
    """Whether a guard finding covers every character of `secret` where it occurs in `text`."""
    lines = text.split("\n")
    found = guard.scan_text(text)
    for number, line in enumerate(lines, start=1):
        column = line.find(secret)
        if column < 0:
            continue
        end = column + len(secret)
        if not any(_covers(f, number, column, end) for f in found):
            return False
    return True


def _covers(found: guard.SecretFinding, line: int, start: int, end: int) -> bool:
    last = found.end_line or found.line
    if not found.line <= line <= last:
        return False
    begins = found.start if line == found.line else 0
    ends = found.end if line == last else 10**9
    return begins <= start and end <= ends


def detect_secrets_flags(text: str) -> bool:
    """Whether detect-secrets, default settings, reports anything in `text` saved as a .md file."""
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "note.md"
        path.write_text(text, encoding="utf-8")
        with default_settings():
            collection = SecretsCollection()
            collection.scan_file(str(path))
        return bool(list(collection))


def scores(hits: int, total: int, false_alarms: int) -> dict[str, float | int]:
    flagged = hits + false_alarms
    return {
        "found": hits,
        "of": total,
        "false_alarms": false_alarms,
        "recall": round(hits / total, 3),
        "precision": round(hits / flagged, 3) if flagged else 1.0,
    }


def main() -> None:
    report: dict[str, object] = {
        "corpus": {"secret_notes": len(SECRETS), "lookalike_notes": len(LOOKALIKES)},
        **compare(SECRETS, LOOKALIKES),
    }
    report["heldout"] = compare(
        load_cases("heldout-secrets.txt"), load_cases("heldout-lookalikes.txt")
    )
    texts = [text for _, _, text in SECRETS + LOOKALIKES]
    runs = []
    for _ in range(5):
        start = time.perf_counter()
        for text in texts:
            guard.scan_text(text)
        runs.append((time.perf_counter() - start) / len(texts))
    report["guard_median_ms_per_note"] = round(statistics.median(runs) * 1000, 3)
    print(json.dumps(report, indent=2))


Cases = list[tuple[str, list[str], str]]


def compare(secrets_cases: Cases, lookalikes: Cases) -> dict[str, object]:
    """The guard and detect-secrets alone on one labelled set."""
    caught = [all(covered(text, s) for s in secrets) for _, secrets, text in secrets_cases]
    guard_false = sum(bool(guard.scan_text(text)) for _, _, text in lookalikes)
    plain_hits = sum(detect_secrets_flags(text) for _, _, text in secrets_cases)
    plain_false = sum(detect_secrets_flags(text) for _, _, text in lookalikes)
    return {
        "guard": scores(sum(caught), len(secrets_cases), guard_false),
        "detect_secrets_alone": scores(plain_hits, len(secrets_cases), plain_false),
        "guard_missed": [case[0] for case, ok in zip(secrets_cases, caught, strict=True) if not ok],
        "guard_false_alarms": [label for label, _, text in lookalikes if guard.scan_text(text)],
    }


if __name__ == "__main__":
    main()
