"""Staleness: what cards name (files, commands, pinned versions: `names`) checked against the
project the vault lives in (`project`, read only, confined), the `stale:` marks that follow
(`marks`), and `cardvault verify`'s run through the write door (`run`). Below maintain, whose
verify step (maintain/stale.py) uses it."""
