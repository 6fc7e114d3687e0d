"""Clusters from similar pairs.

`complete_clusters` (merge): every two members of a cluster are one of the pairs given
(complete linkage: a chain a~b~c where a and c are not close never makes one cluster).
`constrained_clusters` (cross-project grouping): union-find that refuses to join what must
stay apart; pairs are taken best first, and two groups are joined unless some member of one
may not be with some member of the other. A pair that would join such groups is skipped, so
one conflict never blocks the rest of a cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


def constrained_clusters(
    count: int,
    pairs: Iterable[tuple[int, int, float]],
    apart: Callable[[int, int], bool] = lambda i, j: False,
) -> list[list[int]]:
    """Groups of item indices (each sorted; groups ordered by first member), singletons included."""
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
    """Groups of item indices (each sorted; groups ordered by first member), singletons
    included, in which every two members are a pair of `pairs`; best pairs join first."""
    import numpy as np

    from cardvault.maintain.linkage import COMPLETE, agglomerate

    given = list(pairs)
    parts = constrained_clusters(count, given)
    scores = {(min(i, j), max(i, j)): score for i, j, score in given}
    found: list[list[int]] = []
    for part in parts:
        if len(part) < 3:
            found.append(part)
            continue
        matrix = np.full((len(part), len(part)), -np.inf)
        for a, i in enumerate(part):
            for b, j in enumerate(part):
                if i < j and (i, j) in scores:
                    matrix[a, b] = matrix[b, a] = scores[(i, j)]
        floor = min(scores[(min(i, j), max(i, j))] for i in part for j in part if (i, j) in scores)
        for group in agglomerate(matrix, floor, COMPLETE):
            found.append(sorted(part[n] for n in group))
    return sorted(found, key=lambda g: g[0])
