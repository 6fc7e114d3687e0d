"""What git is in the middle of: the states in which a commit would be lost or misplaced.

A commit made during a rebase is dropped by `git rebase --abort`; one on a detached HEAD is left
behind by the next checkout; one during a merge, cherry-pick or revert is swept into the commit
that finishes it; one on an orphan branch starts a history without the vault's files. Every
writing command asks `unfinished_operation` first (edits/door.py) and refuses with the line it
returns. The answer is read from git's state files in the git folder; no git is started, since
this runs on every write.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cardvault.history.runner import common_dir, git_dir


@dataclass(frozen=True)
class GitOperation:
    """An operation git has not finished: what it is and the line that tells a person."""

    kind: str  # "rebase" | "am" | "merge" | "cherry-pick" | "revert" | "sequence" | "bisect"
    #            | "detached" | "orphan"
    message: str


#: What each state file means, and how it is finished, in the order they are looked for (a
#: rebase detaches HEAD and may stop on a cherry-pick, so it is named first).
_STATES = (
    # `rebase-apply/` is git am's folder as well as the apply-backend rebase's
    ("rebase-apply/applying", "am", "a git am", "`git am --continue` or `git am --abort`"),
    ("rebase-apply", "rebase", "a git rebase", "`git rebase --continue` or `git rebase --abort`"),
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
    for name, kind, what, finish in _STATES:
        if (folder / name).exists():
            return GitOperation(
                kind,
                f"{what} is in progress in this vault's repository: a commit now would be lost "
                f"or swept into it; finish it ({finish}), then run this again; nothing written",
            )
    try:
        head = (folder / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if head and not head.startswith("ref:"):
        return GitOperation(
            "detached",
            f"HEAD is detached (at {head[:10]}): a commit here would be left behind by the "
            "next `git checkout`; check out a branch (`git switch BRANCH`), then run this "
            "again; nothing written",
        )
    orphan = _orphan_branch(folder, head)
    if orphan is None:
        return None
    return GitOperation(
        "orphan",
        f"the branch {orphan} has no commit yet while this repository has others (`git "
        "checkout --orphan`): a commit here would start a history without the vault's files; "
        "switch to a branch that has them (`git switch BRANCH`), then run this again; "
        "nothing written",
    )


def _orphan_branch(folder: Path, text: str) -> str | None:
    """The branch HEAD (its file's `text`) names when it has no commit yet but other branches
    do; None also when no branch has any (a new repository, where a first commit is right) or
    the refs are not plain files (reftable)."""
    if not text.startswith("ref: refs/heads/"):
        return None
    ref = text.removeprefix("ref: ").strip()
    common = common_dir(folder)  # a linked work tree's refs are the main folder's
    if (common / "reftable").exists() or (common / ref).is_file():
        return None
    try:
        packed = (common / "packed-refs").read_text(encoding="utf-8", errors="replace")
    except OSError:
        packed = ""
    names = {line.split(" ", 1)[1].strip() for line in packed.splitlines() if " refs/" in line}
    if ref in names:
        return None
    heads = common / "refs" / "heads"
    others = any(name.startswith("refs/heads/") for name in names) or (
        heads.is_dir() and any(p.is_file() for p in heads.rglob("*"))
    )
    return ref.removeprefix("refs/heads/") if others else None
