"""The code's own rules, checked on every run: ruff (lint + format), mypy, the banned imports,
and the import directions docs/architecture.md describes.

The import rules are read from the source with `ast`, so a new module that reaches the wrong
way fails here with the module and the import named.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "cardvault"

#: The layers from the bottom (docs/architecture.md). A module may import its own layer and
#: the layers below it, never a layer above. An entry names a folder or top-level module, or
#: one module of a folder (`maintain.crossproject`) that sits above the rest of its folder: the
#: engines (search; maintain's lesson machinery; the context items) sit below the features that
#: use them, and a feature's many-vault form sits with the features, beside the scopes it reads.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "guard", "launch", "limits", "words"),
    ("vault", "trust"),
    ("edits", "history"),
    ("search", "serve", "hosts", "verify"),
    ("maintain", "context"),
    (
        "review", "capture", "insight", "forget", "portable", "write", "check", "sync",
        "scopes", "doctor", "maintain.crossproject", "maintain.crossasking", "context.plan",
    ),
    ("app", "api"),
    ("cli", "mcp"),
)  # fmt: skip
#: search's public modules; the rest of search/ (its tables, the sync sequence) is private.
SEARCH_PUBLIC = {"engine", "filters", "keyword", "freshness", "model", "vectors", "scoped"}
#: Imports that break the rules today, each to be removed by the issue that reworks its module
#: (the search API for other services). The tests fail on any import not listed here, and on a
#: listed one that no longer exists (so the list only shrinks).
KNOWN_BREACHES: set[str] = set()


#: What the front ends (cli/, mcp/) may import at run time: the app, each other, and the bottom
#: layer's pure helpers. Everything else they reach through a `Session` method, so the Python
#: API and MCP can do what the CLI does. Type-only imports (under TYPE_CHECKING) name results.
FRONT_END_MAY_IMPORT = {"app", "errors", "guard", "limits", "cli", "mcp", "__version__"}
#: The one front-end module that reaches below the app: the console script's first step, which
#: hands a command to the resident process when one serves this install, before any of the app
#: (and the vault layer it loads) is imported. Kept exact by `test_front_end_breaches_still_exist`.
FRONT_END_BREACHES: set[str] = {
    "cardvault/cli/entry.py: cardvault.serve.client",
    "cardvault/cli/entry.py: cardvault.serve.protocol",
    "cardvault/cli/entry.py: cardvault.vault.root",
}


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=False)


def test_ruff_lint_is_clean() -> None:
    result = _run(_tool("ruff"), "check", "cardvault", "tests", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = _run(_tool("ruff"), "format", "--check", "cardvault", "tests", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    result = _run(_tool("mypy"), "cardvault")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("where", "line", "library"),
    [
        ("insight/planted.py", "from rich.table import Table", "rich"),
        ("vault/planted.py", "import git", "git"),
        ("sync/planted.py", "from git import Repo", "git"),
        ("edits/planted.py", "from gitdb import LooseObjectDB", "gitdb"),
        ("maintain/planted.py", "import onnxruntime", "onnxruntime"),
        ("context/planted.py", "from sentence_transformers import SentenceTransformer", "sentence"),
        ("check/planted.py", "import torch", "torch"),
        ("search/planted.py", "import frontmatter", "frontmatter"),
        ("cli/planted.py", "from frontmatter import YAMLHandler", "frontmatter"),
    ],
)
def test_banned_import_rule_fails_on_a_planted_violation(
    tmp_path: Path, where: str, line: str, library: str
) -> None:
    """The rule is real: the project's own ruff configuration rejects each planted import."""
    planted = tmp_path / "cardvault" / where
    planted.parent.mkdir(parents=True)
    planted.write_text(f"{line}\n", encoding="utf-8")
    config = REPO / "pyproject.toml"
    result = _run(
        _tool("ruff"), "check", "--config", str(config), "--select", "TID251", str(planted)
    )
    assert result.returncode == 1
    assert "TID251" in result.stdout and library in result.stdout


def test_gitpython_is_allowed_in_history_alone(tmp_path: Path) -> None:
    """The same import planted in history/ passes: GitPython's one home (pyproject's
    per-file rule), so the planted violations above fail for where they are."""
    planted = tmp_path / "cardvault" / "history" / "planted.py"
    planted.parent.mkdir(parents=True)
    planted.write_text("import git\n", encoding="utf-8")
    shutil.copyfile(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    result = subprocess.run(  # its file patterns are read from the folder ruff runs in
        [_tool("ruff"), "check", "--select", "TID251", "cardvault"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout


#: What other folders may import from history/: the package's names, and sync's git steps.
HISTORY_PUBLIC = {"remote", *__import__("cardvault.history", fromlist=["__all__"]).__all__}


def _starts_git(node: ast.AST) -> bool:
    """Whether `node` is a call whose first argument is a command line starting with "git"."""
    if not isinstance(node, ast.Call) or not node.args:
        return False
    first = node.args[0]
    if isinstance(first, (ast.List, ast.Tuple)) and first.elts:
        head = first.elts[0]
        return isinstance(head, ast.Constant) and head.value == "git"
    return False


def _imported_names(node: ast.AST) -> list[str]:
    """The dotted names an import statement brings in (`a.b` and `a.b.name` for a from-import)."""
    if isinstance(node, ast.ImportFrom) and node.module:
        return [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    return []


def _git_breaches(root: Path) -> list[str]:
    """Modules of the package at `root` outside history/ that start git, or import what
    history/ keeps to itself (its runner, GitPython's `Repo` maker...)."""
    wrong = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] == "history":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for name in _imported_names(node):
                parts = name.split(".")
                private = len(parts) > 2 and parts[2] not in HISTORY_PUBLIC
                if parts[:2] == ["cardvault", "history"] and private:
                    wrong.append(f"{rel}:{getattr(node, 'lineno', 0)}: {name}")
            if _starts_git(node):
                wrong.append(f"{rel}:{getattr(node, 'lineno', 0)}: starts git")
    return wrong


def test_only_history_runs_git() -> None:
    """All git knowledge lives in history/: no other module starts git, imports `run_git` or
    GitPython's `Repo` maker (history's private modules)."""
    assert _git_breaches(PACKAGE) == []


def test_the_git_rule_fails_on_a_planted_violation(tmp_path: Path) -> None:
    """The rule is real: a service that runs git itself, or imports history's runner, fails."""
    package = tmp_path / "cardvault"
    (package / "sync").mkdir(parents=True)
    (package / "sync" / "planted.py").write_text(
        "import subprocess\nsubprocess.run(['git', 'status'])\n", encoding="utf-8"
    )
    (package / "edits").mkdir()
    (package / "edits" / "planted.py").write_text(
        "from cardvault.history.runner import run_git\n", encoding="utf-8"
    )
    assert _git_breaches(package) == [
        "edits/planted.py:1: cardvault.history.runner",
        "edits/planted.py:1: cardvault.history.runner.run_git",
        "sync/planted.py:2: starts git",
    ]


#: GitPython's own writers of `.git/` (config, index, refs, objects): cardvault writes there
#: only through git commands (docs/security.md), so history/ calls none of them.
GITPYTHON_WRITERS = (
    "config_writer", "index.add", "index.remove", "index.write", "index.commit", "IndexFile",
    "set_reference", "set_object", "set_commit", "create_head", "create_tag", "create_remote",
    "odb.store", "Repo.init", "clone_from", ".delete(",
)  # fmt: skip


def test_history_writes_into_git_only_through_git() -> None:
    found = [
        f"{path.relative_to(REPO)}: {writer}"
        for path in sorted((PACKAGE / "history").glob("*.py"))
        for writer in GITPYTHON_WRITERS
        if writer in path.read_text(encoding="utf-8")
    ]
    assert found == []


def _imports(path: Path, run_time: bool = False) -> list[tuple[int, str]]:
    """(line, dotted module) of every cardvault import in `path`: TYPE_CHECKING ones included,
    unless `run_time` (the imports the module makes when it runs)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(sub)
        for node in ast.walk(tree)
        if run_time and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for sub in ast.walk(node)
    }
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "cardvault" or node.module.startswith("cardvault."):
                # `from cardvault.edits import door` imports the module cardvault.edits.door
                folder = REPO / node.module.replace(".", "/")
                named = {
                    f"{node.module}.{a.name}"
                    if node.module == "cardvault"
                    or (folder / f"{a.name}.py").is_file()
                    or (folder / a.name).is_dir()
                    else node.module
                    for a in node.names
                }
                found += [(node.lineno, module) for module in sorted(named)]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("cardvault.")]
    return found


def _layer(top: str, module: str | None = None) -> int | None:
    """The layer of folder `top`, or of its `module` when that has an entry of its own."""
    for name in ([f"{top}.{module}"] if module else []) + [top]:
        for number, members in enumerate(LAYERS):
            if name in members:
                return number
    return None


def _own_layer(path: Path) -> int | None:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return _layer(parts[0], parts[1] if len(parts) > 1 else None)


def _modules() -> list[tuple[Path, str]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[0] in ("__init__", "__main__", "templates"):
            continue
        out.append((path, parts[0]))
    return out


def test_every_top_level_name_has_a_layer() -> None:
    """`ls cardvault/` shows the architecture: every folder and module is placed in a layer."""
    unplaced = sorted({top for _, top in _modules() if _layer(top) is None})
    assert unplaced == [], f"add these to LAYERS and docs/architecture.md: {unplaced}"


def test_imports_point_down_the_layers() -> None:
    wrong = []
    for path, _top in _modules():
        mine = _own_layer(path)
        assert mine is not None
        for _line, module in _imports(path):
            parts = module.split(".")
            if len(parts) < 2 or parts[1] in ("__version__",):
                continue
            theirs = _layer(parts[1], parts[2] if len(parts) > 2 else None)
            if theirs is not None and theirs > mine:
                wrong.append(f"{path.relative_to(REPO)}: {module}")
    _assert_only_known(wrong)


def test_only_search_reads_its_own_tables() -> None:
    """Nothing outside search/ imports search's private modules (tables, sync, retrieval)."""
    wrong = []
    for path, top in _modules():
        if top == "search":
            continue
        for _line, module in _imports(path):
            parts = module.split(".")
            private = len(parts) > 2 and parts[2] not in SEARCH_PUBLIC
            if parts[:2] == ["cardvault", "search"] and private:
                wrong.append(f"{path.relative_to(REPO)}: {module}")
    _assert_only_known(wrong)


def _assert_only_known(found: list[str]) -> None:
    assert sorted(set(found) - KNOWN_BREACHES) == []


def test_services_never_build_the_public_api() -> None:
    """The app session is the layer above the services; they take a Vault instead."""
    wrong = [
        f"{path.relative_to(REPO)}: {module}"
        for path, top in _modules()
        if top not in ("app", "api", "cli", "mcp")
        for _, module in _imports(path)
        if module.split(".")[1] in ("api", "app")
    ]
    _assert_only_known(wrong)


def test_known_breaches_still_exist() -> None:
    """A breach that was mended comes off KNOWN_BREACHES, so it cannot come back unnoticed."""
    present = {
        f"{path.relative_to(REPO)}: {module}"
        for path, _ in _modules()
        for _, module in _imports(path)
    }
    assert sorted(KNOWN_BREACHES - present) == []


def test_the_architecture_map_names_every_folder() -> None:
    """docs/architecture.md stays true: every top-level module and folder of cardvault/ has its
    row there, in the layer the import rules give it."""
    doc = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = [line for line in doc.splitlines() if line.startswith("| ") and "`" in line]
    missing = []
    for top in sorted({top for _, top in _modules()}):
        name = f"`{top}.py`" if (PACKAGE / f"{top}.py").exists() else f"`{top}/`"
        row = next((r for r in rows if name in r.split("|")[2]), None)
        if row is None or row.split("|")[1].strip() != str(_layer(top)):
            missing.append(name)
    assert missing == [], f"add or fix these rows in docs/architecture.md: {missing}"


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _target(module: str, known: set[str]) -> str | None:
    """The cardvault module an import names (`from cardvault.x import y` names cardvault.x.y
    when that is a module of its own, else cardvault.x)."""
    while module and module not in known:
        module = module.rpartition(".")[0]
    return module or None


def import_graph() -> dict[str, set[str]]:
    """Every cardvault module and the cardvault modules it imports: at the top, inside
    functions and under TYPE_CHECKING alike (every import node of its AST). `cardvault`
    itself is the package's public face (`open_vault`); `cardvault.__version__`, a constant it
    sets before importing anything, is no edge to it."""
    paths = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    known = set(paths)
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            named: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                named = [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            for module in named:
                if module == "cardvault.__version__":  # a constant set before any import
                    continue
                found = _target(module, known) if module.startswith("cardvault.") else None
                if found is not None and found != name:
                    edges.add(found)
        graph[name] = edges
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


#: Cycles that exist on this branch and are removed by other work, each with who removes it.
#: The test fails on any cycle not listed, and on a listed one that is gone (the list shrinks).
KNOWN_CYCLES: list[list[str]] = []


def test_no_import_cycles() -> None:
    """No module reaches itself through imports, counting those inside functions: each
    concept sits below the ones that use it."""
    found = import_cycles(import_graph())
    assert [c for c in found if c not in KNOWN_CYCLES] == []
    assert [c for c in KNOWN_CYCLES if c not in found] == [], "take it off KNOWN_CYCLES"


def test_the_cycle_check_finds_a_cycle_inside_a_function() -> None:
    """The check is real: a function-level import that closes a loop is a cycle."""
    graph = import_graph()
    assert "cardvault.vault.layout" in graph["cardvault.app.wiring"]
    graph["cardvault.vault.layout"] = {*graph["cardvault.vault.layout"], "cardvault.app.wiring"}
    assert ["cardvault.app.wiring", "cardvault.vault.layout"] in [
        [m for m in group if m in ("cardvault.app.wiring", "cardvault.vault.layout")]
        for group in import_cycles(graph)
    ]


def test_the_import_graph_sees_imports_inside_functions() -> None:
    """The package's `open_vault` imports the app inside the function: an edge all the same."""
    assert "cardvault.app" in import_graph()["cardvault"]


def _front_end_imports() -> set[str]:
    return {
        f"{path.relative_to(REPO)}: {module}"
        for path, top in _modules()
        if top in ("cli", "mcp")
        for _, module in _imports(path, run_time=True)
        if module.split(".")[1] not in FRONT_END_MAY_IMPORT
    }


def test_front_ends_import_only_the_app() -> None:
    """The CLI and the MCP server parse, call one `Session` method and render."""
    assert sorted(_front_end_imports() - FRONT_END_BREACHES) == []


def test_front_end_breaches_still_exist() -> None:
    assert sorted(FRONT_END_BREACHES - _front_end_imports()) == []


def _door_imports() -> set[str]:
    return {
        f"{path.relative_to(REPO)}: {module}"
        for path, top in _modules()
        if top not in ("edits", "app")
        for _, module in _imports(path, run_time=True)
        if module == "cardvault.edits.door"
    }


def test_no_service_calls_the_door() -> None:
    """Services plan; the app holds the door and lands the plan (edits/door.py)."""
    assert sorted(_door_imports()) == []


#: Where a card field's name may still be spelled as a key outside vault/fields.py, as
#: "path: name". The same word as another noun: a review item's `status`, a review question
#: kind or report count named `stale`, the `uses` maintenance step, a verb form, the sections
#: of a context pack (`rule`), a graph node's attribute, the files a host install `created`, a
#: log entry's own correction fields (vault/daily.py, maintain/lessons.py).
FIELD_NAME_OTHER_NOUNS: set[str] = {
    "cardvault/context/pack.py: rule",
    "cardvault/hosts/state.py: created",
    "cardvault/insight/graph.py: tags",
    "cardvault/insight/view.py: stale",
    "cardvault/maintain/asking.py: stale",
    "cardvault/maintain/contradict.py: uses",
    "cardvault/maintain/lessons.py: severity",
    "cardvault/vault/daily.py: domain",
    "cardvault/vault/daily.py: severity",
    "cardvault/maintain/plan.py: uses",
    "cardvault/maintain/run.py: uses",
    "cardvault/mcp/tools.py: status",
    "cardvault/review/words.py: stale",
    "cardvault/vault/decisions.py: status",
    "cardvault/verify/run.py: checked",
    "cardvault/verify/run.py: stale",
    "cardvault/cli/maintain.py: promoted",
    "cardvault/cli/forget.py: topic",
}


def _field_name_keys() -> set[str]:
    """Each "path: name" where a module outside vault/fields.py spells a declared field's name
    as a key (a subscript, the first argument of `.get`/`.pop`/`.setdefault` or of a card's
    `.date`/`.items`, the left of `in`, a dict literal's key, a key `remove=`d from a card) or
    in a list of fields (a tuple, list or set literal naming two or more). The same words
    elsewhere (a status value "promoted", a message) are other nouns."""
    from cardvault.vault.fields import FIELDS

    names = {row.name for row in FIELDS}
    found = set()
    for path, _ in _modules():
        if path == PACKAGE / "vault" / "fields.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            keys: list[ast.expr | None] = []
            if isinstance(node, ast.Subscript):
                keys = [node.slice]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                calls = ("get", "pop", "setdefault", "date", "items")
                keys = node.args[:1] if node.func.attr in calls else []
            elif isinstance(node, ast.keyword) and node.arg == "remove":  # update_card_text's
                keys = list(getattr(node.value, "elts", []))
            elif isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.In | ast.NotIn):
                keys = [node.left]
            elif isinstance(node, ast.Dict):
                keys = list(node.keys)
            elif isinstance(node, ast.Tuple | ast.List | ast.Set):
                named = [e for e in node.elts if isinstance(e, ast.Constant) and e.value in names]
                keys = list(named) if len(named) > 1 else []
            found |= {
                f"{path.relative_to(REPO)}: {key.value}"
                for key in keys
                if isinstance(key, ast.Constant) and key.value in names
            }
    return found


def test_card_fields_are_named_only_in_the_field_table() -> None:
    """A card's fields are declared once (vault/fields.py); every reader and writer names
    them through the table's constants, so adding a field is one row."""
    assert sorted(_field_name_keys() - FIELD_NAME_OTHER_NOUNS) == []


def test_field_name_other_nouns_still_exist() -> None:
    assert sorted(FIELD_NAME_OTHER_NOUNS - _field_name_keys()) == []


def test_test_helpers_live_in_the_support_package() -> None:
    """Helpers are imported from `tests/support/`, fixtures come from conftest by name."""
    tests = REPO / "tests"
    loose = sorted(p.name for p in tests.glob("*_support.py"))
    from_conftest = sorted(
        p.name
        for p in tests.rglob("*.py")
        if p.name != Path(__file__).name and "from tests.conftest import" in p.read_text()
    )
    assert (loose, from_conftest) == ([], [])


#: Words that make a module-level int constant a size limit (`MAX_FILES`, `TAIL_BYTES`).
LIMIT_WORDS = frozenset({"MAX", "LIMIT", "BYTES", "CAP", "SIZE", "BUDGET", "CEILING"})
#: Size-named constants outside cardvault/limits.py that bound no input, as "path: NAME":
#: what cardvault writes or computes (tags on a new card, words in a topic, members of a
#: question, passages and tokens per document, lines a capture logs, items a view shows, one
#: appended ledger line), the range a setting or an export's field accepts (validation, not a
#: read), and fixed sizes of a format or the system (a key, a seal, a file name, a socket path).
LIMIT_NOT_INPUT: set[str] = {
    "cardvault/capture/failure.py: MAX_MESSAGE",
    "cardvault/capture/session.py: MAX_CHARS",
    "cardvault/capture/session.py: MAX_LINES",
    "cardvault/context/pack.py: RESERVE_CAP",
    "cardvault/context/value.py: FREQUENCY_CAP",
    "cardvault/edits/atomic.py: NAME_MAX",
    "cardvault/insight/graph.py: SHARED_PAIR_LIMIT",
    "cardvault/insight/view.py: MEMBER_TEXT_LIMIT",
    "cardvault/maintain/asking.py: MAX_ASK",
    "cardvault/maintain/asking.py: MAX_NEW_QUESTIONS",
    "cardvault/maintain/asking.py: QUEUE_BUDGET",
    "cardvault/maintain/newcard.py: MAX_TAGS",
    "cardvault/maintain/newcard.py: MAX_TAG_LENGTH",
    "cardvault/maintain/promote.py: RULE_LIMIT",
    "cardvault/maintain/similarity.py: MAX_PARTNERS",
    "cardvault/maintain/topic.py: MAX_WORDS",
    "cardvault/mcp/tools.py: MAX_NOTICES",
    "cardvault/portable/format.py: MAX_RULE_CHARS",
    "cardvault/search/embed_sync.py: QUERY_BUDGET",
    "cardvault/search/passages.py: MAX_BODY_CHARS",
    "cardvault/search/passages.py: MAX_PASSAGES",
    "cardvault/search/provenance.py: KEY_BYTES",
    "cardvault/search/provenance.py: SEAL_BYTES",
    "cardvault/search/rerank.py: MAX_TOKENS",
    "cardvault/search/text.py: MAX_QUERY_TERMS",
    "cardvault/serve/protocol.py: _MAX_ADDRESS",
    "cardvault/vault/config.py: MAX_ARCHIVE_DAYS",
    "cardvault/vault/config.py: MAX_CATEGORIES",
    "cardvault/vault/config.py: MAX_CONTEXT_TOKENS",
    "cardvault/vault/config.py: MAX_LOCK_TIMEOUT",
    "cardvault/vault/memory_table.py: MAX_TOPICS",
    "cardvault/vault/slugs.py: MAX_SLUG",
    "cardvault/vault/uses.py: LINE_LIMIT",
    "cardvault/verify/names.py: MAX_NAMES",
}


def size_constants(path: Path) -> set[str]:
    """The "path: NAME" of each module-level constant in `path` named like a size limit
    (LIMIT_WORDS among the parts of its name) whose value is a number, a sum or another name."""
    found = set()
    shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        value = getattr(node, "value", None)
        numeric = isinstance(value, ast.BinOp | ast.Name | ast.Attribute) or (
            isinstance(value, ast.Constant) and type(value.value) is int
        )
        for target in targets:
            name = getattr(target, "id", "")
            if numeric and name.isupper() and LIMIT_WORDS & set(name.split("_")):
                found.add(f"{shown}: {name}")
    return found


def _size_constants() -> set[str]:
    limits = PACKAGE / "limits.py"
    return {found for path, _ in _modules() if path != limits for found in size_constants(path)}


def test_size_limits_live_in_the_one_table() -> None:
    """Every bound on an input is a row of cardvault/limits.py, read through `read_file`:
    a module that reads something new takes a row, it does not grow a constant of its own."""
    assert sorted(_size_constants() - LIMIT_NOT_INPUT) == []
    assert sorted(LIMIT_NOT_INPUT - _size_constants()) == []  # the list only shrinks


def test_the_size_limit_rule_fails_on_a_planted_constant(tmp_path: Path) -> None:
    planted = tmp_path / "reader.py"
    planted.write_text("MAX_READ = 4 << 20\nTAIL_BYTES: int = 65536\nCAPTURE = 3\n")
    assert size_constants(planted) == {f"{planted}: MAX_READ", f"{planted}: TAIL_BYTES"}


#: Modules that open a file for reading themselves, each with why `vault/confine.read_file`
#: (the one open and bounded read of a file cardvault did not write) is not the reader.
OWN_READERS = {
    # the uses ledger cardvault appends in its cache, read on from the last fold's watermark
    "cardvault/vault/uses.py",
    # `current_digest` streams a file the door is about to replace into a hash, whole
    "cardvault/vault/files.py",
}
_OWN_READ = re.compile(r"O_RDONLY \| [^\n]*O_NOFOLLOW|fdopen\([^\n]*\"rb\"|open\([^\n]*\"rb\"\)")


def _own_readers() -> set[str]:
    confine = PACKAGE / "vault" / "confine.py"
    return {
        str(path.relative_to(REPO))
        for path, _ in _modules()
        if path != confine and _OWN_READ.search(path.read_text(encoding="utf-8"))
    }


def test_untrusted_files_are_opened_by_read_file() -> None:
    """No module opens a file to read with flags or a loop of its own: it calls read_file."""
    assert sorted(_own_readers() - OWN_READERS) == []
    assert sorted(OWN_READERS - _own_readers()) == []  # the list only shrinks
