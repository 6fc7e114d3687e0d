"""What git is in the middle of: the states in which a commit would be lost or misplaced.

A commit made during a rebase is dropped by `git rebase --abort`; one made on a detached HEAD is
left behind by the next `git checkout` (only the reflog keeps it); one made during a merge,
cherry-pick or revert is swept into the commit that finishes it. So every writing command asks
`unfinished_operation` first (edits/door.py) and refuses with the one line it returns, naming
what git is doing and how to finish it; readers never ask.

The answer is read from git's own state files in the repository's git folder (found as every
history function finds it, `runner.git_dir`: a vault in a subfolder of a larger repository, a
linked work tree): `rebase-merge/`, `rebase-apply/` (a rebase, or `git am`), `MERGE_HEAD`,
`CHERRY_PICK_HEAD`, `REVERT_HEAD`, `sequencer/` (a cherry-pick or revert of several commits),
`BISECT_LOG`, and `HEAD` itself (detached when it names a commit, not a branch). No git is
started: this runs on every write.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cardvault.history.runner import git_dir


@dataclass(frozen=True)
class GitOperation:
    """An operation git has not finished: what it is and the line that tells a person."""

    kind: str  # "rebase" | "am" | "merge" | "cherry-pick" | "revert" | "sequence" | "bisect"
    #            | "detached"
    message: str


#: What each state file means, and how it is finished, in the order they are looked for (a
#: rebase detaches HEAD and may stop on a cherry-pick, so it is named first).
_STATES = (
    ("rebase-merge", "rebase", "a git rebase", "`git rebase --continue` or `git rebase --abort`"),
    ("MERGE_HEAD", "merge", "a git merge", "`git commit` or `git merge --abort`"),
    (
        "CHERRY_PICK_HEAD",
        "cherry-pick",
        "a git cherry-pick",
        "`git cherry-pick --continue` or `git cherry-pick --abort`",
    ),
    ("REVERT_HEAD", "revert", "a git revert", "`git revert --continue` or `git revert --abort`"),
    (
        "sequencer",
        "sequence",
        "a git cherry-pick or revert of several commits",
        "`git cherry-pick --continue` (or `git revert --continue`) or `--abort`",
    ),
    ("BISECT_LOG", "bisect", "a git bisect", "`git bisect reset`"),
)


def unfinished_operation(root: Path) -> GitOperation | None:
    """The operation git is in the middle of in the repository holding `root` (None: none,
    or not a repository)."""
    folder = git_dir(root)
    if folder is None:
        return None
    found = _rebase_apply(folder)
    if found is None:
        found = next(
            (
                (kind, what, finish)
                for name, kind, what, finish in _STATES
                if (folder / name).exists()
            ),
            None,
        )
    if found is not None:
        kind, what, finish = found
        return GitOperation(
            kind,
            f"{what} is in progress in this vault's repository: a commit now would be lost or "
            f"swept into it; finish it ({finish}), then run this again; nothing written",
        )
    detached = _detached_at(folder)
    if detached is None:
        return None
    return GitOperation(
        "detached",
        f"HEAD is detached (at {detached[:10]}): a commit here would be left behind by the next "
        "`git checkout`; check out a branch (`git switch BRANCH`), then run this again; "
        "nothing written",
    )


def _rebase_apply(folder: Path) -> tuple[str, str, str] | None:
    """`rebase-apply/` is git am's folder as well as the apply-backend rebase's."""
    apply = folder / "rebase-apply"
    if not apply.exists():
        return None
    if (apply / "applying").exists():
        return ("am", "a git am", "`git am --continue` or `git am --abort`")
    return ("rebase", "a git rebase", "`git rebase --continue` or `git rebase --abort`")


def _detached_at(folder: Path) -> str | None:
    """The commit a detached HEAD names (None: HEAD names a branch, or cannot be read)."""
    try:
        text = (folder / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text or text.startswith("ref:"):
        return None
    return text
