"""`cardvault doctor`: is this install, this vault and this machine set up right?

Each check reads only and returns what it found, its status (ok, info, warn, error) and, when
not ok, the one-line fix; `run` gathers them in order and `fix_safe` makes the one fix safe to
make unasked (this clone's git merge drivers).
"""
