"""The resident process: one vault's search warm in memory, reached over a unix socket.

`cardvault serve` runs `server.serve` with an `answer` function the CLI supplies (the real
`search`/`context` command, warm); the console-script entry point reaches it through `client`
before importing anything heavy, and runs the command itself whenever the server cannot be
trusted to. Standard library only, so the client side costs a few milliseconds.
"""
