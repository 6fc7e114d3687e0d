"""`cardvault doctor`: is this install, this vault and this machine set up right? Each check
reads only and says what it found, its status (ok, info, warn, error) and, when not ok, the
one-line fix; `run` gathers them and `fix_safe` applies the one fix safe to make unasked
(this clone's git merge drivers).

- `checks`: the install, the model, the caches, the global vault, the resident process;
- `gitcheck`: the vault's git: merge drivers and identity;
- `registrations`: each agent host's hooks and MCP server (what `cardvault install` would do);
- `run`: the checks in order.
"""
