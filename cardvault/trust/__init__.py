"""What a vault may run: the settings that run code, the user's own configuration, and the
approvals `cardvault trust` records outside every repository (docs/security.md).

`user.py` is the configuration folder, `store.py` the approvals, `settings.py` the decision
made on opening (`settle`).
"""
