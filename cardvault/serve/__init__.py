"""The resident process: one vault's search warm in memory, reached over a unix socket.

`cardvault serve` runs `server.serve` with an `answer` function the CLI supplies (it runs the
real `search`/`context` command against a warm `VaultHandle`); the console-script entry point
reaches it through `client` before importing anything heavy, and falls back to the in-process
command whenever the socket is missing, untrusted, silent or answers wrongly. `protocol` holds
the socket's place and the message format; `control` starts, inspects and stops a server.
Everything here is standard library only, so the client side costs a few milliseconds.
"""
