"""Scopes and agents: the global vault beside project vaults, per-agent memory, tiered loading.

- `home`: where the global vault lives ($CARDVAULT_HOME, else the user data folder) and making
  it on first write;
- `key` and `registry`: a project's stable context key and its registration with the global
  vault;
- `scope`: which vaults a read covers (project, global, all) and naming results by vault;
- `agents`: agent names, each agent's hot memory, who learned a lesson;
- `tiers`: HOT / WARM / COLD sizes against their limits;
- `context`: the session-start pack across scopes, agents and tiers;
- `crossproject`: `maintain --global`, a lesson found in several projects made global.
"""
