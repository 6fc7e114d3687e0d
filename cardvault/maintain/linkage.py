"""Clustering: agglomerative over a score matrix, and union-find over scored pairs.

`agglomerate` joins groups best pair first while their link reaches the threshold: the *lowest*
score between members (complete linkage: a chain of look-alikes never joins two different
lessons) or the *mean* (average linkage: looser, for proposals to a person). A score of -inf
keeps two items, and any groups holding them, apart for good. `constrained_clusters` joins
pairs best first unless a member of one side may not be with one of the other; a refused pair
is skipped, so one conflict never blocks the rest of a cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
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
    """Groups of row indices of the symmetric `scores`; `start` groups are kept whole. Each
    connected part is clustered on its own: the cost follows the parts' sizes."""
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
    import numpy as np

    rows, cols = np.nonzero(np.triu(scores >= threshold, k=1))
    pairs = [(i, j, 0.0) for i, j in zip(rows.tolist(), cols.tolist(), strict=True)]
    pairs += [(group[0], other, 0.0) for group in start for other in group[1:]]
    return constrained_clusters(len(scores), pairs)


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


def constrained_clusters(
    count: int,
    pairs: Iterable[tuple[int, int, float]],
    apart: Callable[[int, int], bool] = lambda i, j: False,
) -> list[list[int]]:
    """Groups of item indices, singletons included."""
    parent = list(range(count))
    members: dict[int, list[int]] = {i: [i] for i in range(count)}

    def root(item: int) -> int:
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    for i, j, _ in sorted(pairs, key=lambda p: (-p[2], p[0], p[1])):
        left, right = root(i), root(j)
        if left == right:
            continue
        if any(apart(a, b) for a in members[left] for b in members[right]):
            continue
        if len(members[left]) < len(members[right]):
            left, right = right, left
        parent[right] = left
        members[left].extend(members.pop(right))
    return sorted((sorted(group) for group in members.values()), key=lambda g: g[0])


def complete_clusters(count: int, pairs: Iterable[tuple[int, int, float]]) -> list[list[int]]:
    """Groups of item indices, singletons included, in which every two members are a pair of
    `pairs`; best pairs join first."""
    import numpy as np

    given = list(pairs)
    scores = {(min(i, j), max(i, j)): score for i, j, score in given}
    floor = min(scores.values(), default=0.0)  # every given pair joins; a missing one (-inf) never
    found: list[list[int]] = []
    for part in constrained_clusters(count, given):
        matrix = np.full((len(part), len(part)), -np.inf)
        for a, i in enumerate(part):
            for b, j in enumerate(part[a + 1 :], a + 1):
                matrix[a, b] = matrix[b, a] = scores.get((i, j), -np.inf)
        for group in _cluster(matrix, floor, COMPLETE, [], lambda a, b: True):
            found.append(sorted(part[n] for n in group))
    return sorted(found, key=lambda g: g[0])
