"""Agglomerative clustering over a score matrix, with pairs that must stay apart.

Groups are joined best pair first while the link between them reaches the threshold. The link
is the *lowest* score between their members (complete linkage: every member must be close to
every other, so a chain of look-alikes never joins two different lessons) or the *mean* score
(average linkage: looser, for proposing groups to a person). A score of -inf keeps two items
apart for good, and so it keeps apart any two groups holding them; `allowed` may refuse other
joins (a group may hold at most one card, a proposal at most so many tellings).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

Allowed = Callable[[list[int], list[int]], bool]
COMPLETE, AVERAGE = "complete", "average"


def agglomerate(
    scores: np.ndarray,
    threshold: float,
    linkage: str,
    start: Sequence[Sequence[int]] | None = None,
    allowed: Allowed | None = None,
) -> list[list[int]]:
    """Groups of row indices (each sorted; groups ordered by first member).

    `scores` is square and symmetric; `start` (default: every row alone) are groups already
    made, which are kept whole. Rows linked by no score at or above the threshold can never
    meet (a group's link is at most its best pair's score), so each connected part of the
    matrix is clustered on its own: the cost follows the parts' sizes, not the whole matrix."""
    import numpy as np

    groups = [list(group) for group in start or ()]
    found: list[list[int]] = []
    for part in _parts(scores, threshold, groups):
        index = {row: n for n, row in enumerate(part)}
        sub = scores[np.ix_(part, part)]
        local_start = [[index[r] for r in g] for g in groups if g and g[0] in index]

        def local_allowed(a: list[int], b: list[int], part: list[int] = part) -> bool:
            return allowed is None or allowed([part[i] for i in a], [part[i] for i in b])

        for group in _cluster(sub, threshold, linkage, local_start, local_allowed):
            found.append(sorted(part[i] for i in group))
    return sorted(found, key=lambda g: g[0])


def _parts(scores: np.ndarray, threshold: float, start: list[list[int]]) -> list[list[int]]:
    """Rows in connected parts: linked by a score at or above the threshold, or a start group."""
    import numpy as np

    parent = list(range(len(scores)))

    def root(item: int) -> int:
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    rows, cols = np.nonzero(np.triu(scores >= threshold, k=1))
    pairs = list(zip(rows.tolist(), cols.tolist(), strict=True))
    pairs += [(group[0], other) for group in start for other in group[1:]]
    for i, j in pairs:
        parent[root(i)] = root(j)
    parts: dict[int, list[int]] = {}
    for row in range(len(scores)):
        parts.setdefault(root(row), []).append(row)
    return list(parts.values())


def _cluster(
    scores: np.ndarray,
    threshold: float,
    linkage: str,
    start: list[list[int]],
    allowed: Allowed,
) -> list[list[int]]:
    import numpy as np

    count = len(scores)
    links = np.array(scores, dtype=np.float64, copy=True)
    sizes = np.ones(count)
    alive = np.ones(count, dtype=bool)
    blocked = np.eye(count, dtype=bool)
    members: dict[int, list[int]] = {i: [i] for i in range(count)}

    def join(a: int, b: int) -> None:
        if linkage == COMPLETE:
            links[a] = np.minimum(links[a], links[b])
        else:
            links[a] = links[a] + links[b]
        links[:, a] = links[a]
        sizes[a] += sizes[b]
        alive[b] = False
        blocked[a] |= blocked[b]
        blocked[:, a] = blocked[a]
        members[a].extend(members.pop(b))

    for group in start:
        for other in group[1:]:
            join(group[0], other)
    while count > 1:
        value = links if linkage == COMPLETE else links / np.outer(sizes, sizes)
        value = np.where(blocked | ~alive[:, None] | ~alive[None, :], -np.inf, value)
        a, b = divmod(int(np.argmax(value)), count)
        if not value[a, b] >= threshold:
            break
        if not allowed(members[a], members[b]):
            blocked[a, b] = blocked[b, a] = True
            continue
        join(min(a, b), max(a, b))
    return list(members.values())
