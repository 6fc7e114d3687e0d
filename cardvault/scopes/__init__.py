"""Which vaults exist, and what belongs to agents and tiers.

- `home`: where the global vault lives ($CARDVAULT_HOME, else the user data folder) and making
  it on first write;
- `key` and `registry`: a project's stable context key and its registration with the global
  vault;
- `scope`: which vaults a read covers (project, global, all);
- `agents`: agent names, each agent's hot memory, who learned a lesson;
- `tiers`: HOT / WARM / COLD sizes against their limits.

Each feature owns its many-vault form: the scoped search is `search/scoped.py`, the scoped
session pack `context/plan.py`, cross-project promotion and its questions
`maintain/crossproject.py` and `maintain/crossasking.py`; the app session (`cardvault.app`)
resolves a scope and hands its vaults to them.
"""
