"""docs/cli.md, generated from the commands' own `--help`.

Run `python -m cardvault.cli.reference > docs/cli.md` after changing a command; a test fails
when the committed page differs from what this prints.
"""

from __future__ import annotations

from typing import Any

import typer

HEADER = """# CLI reference

Generated from `cardvault --help` by `python -m cardvault.cli.reference > docs/cli.md`;
`tests/test_docs.py` fails when this page is stale.
"""


def _context(command: Any, name: str, parent: Any = None) -> typer.Context:
    """The context `--help` is rendered in: the command's own settings (the app's `-h`,
    which sub-commands inherit), 100 columns wide."""
    settings = {"terminal_width": 100, "max_content_width": 100, **command.context_settings}
    return typer.Context(command, info_name=name, parent=parent, **settings)


def render_reference() -> str:
    """The whole CLI reference as Markdown."""
    from cardvault.cli.app import app

    group = typer.main.get_command(app)
    root_ctx = _context(group, "cardvault")
    parts = [HEADER, "## cardvault\n", "```text", group.get_help(root_ctx), "```\n"]
    for name in group.list_commands(root_ctx):  # type: ignore[attr-defined]
        command = group.get_command(root_ctx, name)  # type: ignore[attr-defined]
        if command is None or command.hidden:
            continue
        context = _context(command, name, root_ctx)
        parts += [f"## cardvault {name}\n", "```text", command.get_help(context), "```\n"]
        for sub in getattr(command, "list_commands", lambda _: [])(context):
            found = command.get_command(context, sub)
            if found is not None and not found.hidden:
                help_text = found.get_help(_context(found, sub, context))
                parts += [f"## cardvault {name} {sub}\n", "```text", help_text, "```\n"]
    return "\n".join(parts)


if __name__ == "__main__":
    print(render_reference(), end="")
