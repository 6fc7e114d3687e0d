"""Which vaults exist (`home`: the global vault; `key`, `registry`: projects registered with
it; `scope`: which vaults a read covers), and what belongs to agents and tiers.

Each feature owns its many-vault form (the scoped search is `search/scoped.py`); the app session
resolves a scope and hands its vaults to them.
"""
