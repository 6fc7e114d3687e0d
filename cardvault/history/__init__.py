"""Git history of a vault: every command that changes the vault records exactly one commit here.

A vault that is not a git repository still works (the change is written, `commit` returns a
result saying it was not recorded); a repository with no user configured gets cardvault's
default identity, so commits never fail for want of `git config user.name`. git runs as a
subprocess (no library: importing one cost ~60 ms of every `log` and `new`); `run_git` is the
one way cardvault starts it, and `sync/` builds its fetch, merge and push on it.

- runner.py: `run_git`, the repository holding a vault, the default identity;
- commits.py: `commit` (one per write, of exactly its files), `commit_to_branch`, `unstage`;
- status.py: uncommitted paths, HEAD, commit counts and subjects, the remote;
- states.py: what git is in the middle of (a rebase, a merge, a detached HEAD...);
- treemerge.py: sync's merge made in the object store, then the branch moved to it.
"""

from cardvault.history.commits import (
    AGENT_TRAILER,
    CommitResult,
    commit,
    commit_to_branch,
    head_of,
    safe_message,
    signed,
    unstage,
)
from cardvault.history.runner import (
    DEFAULT_EMAIL,
    DEFAULT_NAME,
    MANY_PATHS,
    GitError,
    git_dir,
    identity_env,
    init_repo,
    is_repo,
    run_git,
    work_tree_of,
)
from cardvault.history.states import GitOperation, unfinished_operation
from cardvault.history.status import (
    IGNORED,
    CommitInfo,
    commit_count,
    head,
    is_temp_file,
    last_commit_with_subject,
    merge_in_progress,
    parse_status,
    remote_url,
    uncommitted,
    work_tree,
)
from cardvault.history.treemerge import (
    TreeMerge,
    blob_text,
    changed_paths,
    finish_move,
    merge_in_objects,
    move_head,
)

__all__ = [
    "AGENT_TRAILER",
    "DEFAULT_EMAIL",
    "DEFAULT_NAME",
    "IGNORED",
    "MANY_PATHS",
    "CommitInfo",
    "CommitResult",
    "GitError",
    "GitOperation",
    "TreeMerge",
    "blob_text",
    "changed_paths",
    "commit",
    "commit_count",
    "commit_to_branch",
    "finish_move",
    "git_dir",
    "head",
    "head_of",
    "identity_env",
    "init_repo",
    "is_repo",
    "is_temp_file",
    "last_commit_with_subject",
    "merge_in_objects",
    "merge_in_progress",
    "move_head",
    "parse_status",
    "remote_url",
    "run_git",
    "safe_message",
    "signed",
    "uncommitted",
    "unfinished_operation",
    "unstage",
    "work_tree",
    "work_tree_of",
]
