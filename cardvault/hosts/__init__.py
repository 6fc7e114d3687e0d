"""Agent hosts (Claude Code, Codex, Cursor): where each keeps its MCP servers and hooks, how
`cardvault install` edits those files (merged, shown as a diff, undone byte for byte), what a
host sends a hook on stdin and expects back, and how its session transcript is read.

- `program`: the command line that starts cardvault (this machine's absolute program for
  user-level files; bare `cardvault` for project files shared in git);
- `hosts`: each host's files at user and project level, and the entries cardvault puts in them;
- `jsonedit`, `tomledit`: targeted text edits of JSON and TOML files (everything else kept);
- `plan`: what an install or uninstall changes, file by file; `apply` writes it (`state`
  remembers what install created, so uninstall restores the files);
- `payload`: a hook's input and output per host; `transcript`: the assistant's messages in a
  session transcript (JSONL);
- `registration`: the snippets `cardvault mcp --config` prints.
"""
