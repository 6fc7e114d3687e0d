"""Clusters from similar pairs: union-find that refuses to join what must stay apart.

Pairs are taken best first; two groups are joined unless some member of one may not be with
some member of the other (two cards that contradict each other, two lessons aimed at different
cards). A pair that would join such groups is skipped, so one conflict never blocks the rest
of a cluster.
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
