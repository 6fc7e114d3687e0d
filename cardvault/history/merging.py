"""git's line-by-line three-way merge (`git merge-file`), for what the merge drivers cannot
merge by structure (a card's body, the hand-written rest of MEMORY.md). Standard library only:
a driver's process loads no git library.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from cardvault.history.runner import git_said, run_git

LABELS = ("-L", "ours", "-L", "base", "-L", "theirs")


def merge_texts(base: str, ours: str, theirs: str) -> tuple[str, int]:
    """`ours` and `theirs` merged against `base`, conflict markers labelled ours / theirs;
    with the number of conflict blocks (OSError when git itself fails)."""
    with tempfile.TemporaryDirectory(prefix="cardvault-merge-") as folder:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(folder) / name
            path.write_bytes(text.encode("utf-8"))
            paths.append(str(path))
        done = run_git(Path(folder), "merge-file", "-p", *LABELS, *paths, check=False)
    if done.returncode < 0 or done.returncode > 127:
        raise OSError(f"git merge-file failed: {git_said(done)}")
    return done.stdout, done.returncode


def merge_files_in_place(ours_file: str, base_file: str, theirs_file: str) -> bool:
    """git's merge of three files (not UTF-8 text) into `ours_file`; whether it was clean."""
    args = ("merge-file", *LABELS, ours_file, base_file, theirs_file)
    return run_git(Path.cwd(), *args, check=False).returncode == 0
