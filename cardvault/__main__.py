"""`python -m cardvault` runs the CLI (through the same fast path as the `cardvault` command)."""

from cardvault.cli.entry import main

main()
