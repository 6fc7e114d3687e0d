"""`python -m cardvault` runs the CLI."""

from cardvault.cli.app import main

main()
