"""What a vault may run: the settings that run code, the user's own configuration, and the
approvals `cardvault trust` records outside every repository (docs/security.md).

A vault arrives through git from other people, so a setting that runs code (`[maintain]
judge`, `[search] model`) is honoured only as the built-in default, from the user's own
configuration, or when the user approved that exact value for that vault; otherwise it is set
aside with a note. `user.py` is the configuration folder, `store.py` the approvals,
`settings.py` the decision made on opening (`settle`).
"""
