"""What a vault may run: the settings that run code, the user's own configuration, and the
approvals `cardvault trust` records outside every repository (docs/security.md).

A vault arrives through git from other people, so its `cardvault.toml` is data like the rest.
A setting that runs code (`[maintain] judge`, a command; `[search] model`, a package imported
or a model folder whose code is loaded) is honoured only when it is the built-in default, when
it comes from the user's own configuration file, or when the user approved that exact value
for that vault with `cardvault trust` (the approval names the vault's resolved root and the
clone's `origin` remote, and the SHA-256 of the value: a changed value needs approval again).
Otherwise opening the vault replaces it with the user's value or the default and keeps a note
of what was ignored, which the commands that would have used it show once.

- `user.py`: the user's configuration folder (`$CARDVAULT_CONFIG_DIR`, else the platform's user
  config folder) and its `config.toml`;
- `store.py`: the approvals (`trusted.json` there): read, record, revoke;
- `settings.py`: the settings that run code, and `settle`, which decides each one on opening.
"""
