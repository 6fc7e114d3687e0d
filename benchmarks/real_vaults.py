"""Real vaults through import and one `maintain`: is anything of the notes' owners damaged?

    python benchmarks/real_vaults.py [--sets a,b] [--json out.json] [--keep DIR]

For every set in `shared/data/real-vaults/` (its README.md says what each is; the folder is only
read, never copied into the repository), in a fresh temporary vault (`cardvault init` and
`cardvault import` through the real CLI, the global vault in a temporary `CARDVAULT_HOME`):

- import fidelity: notes whose body arrived byte-identical (the card's body against the note's
  text without its frontmatter), and those identical but for their `[[links]]` (import turns a
  link into the vault's form: `[[Note Title]]` → `[[note-title|Note Title]]`);
- a search check written from the notes themselves: for every imported note one query from its
  own sentences (its longest prose sentence, cut to 16 words) and one from its title; the rank
  of the card holding the note (its own, or the one it was merged into) before and after
  `maintain` (hits in the first 3 and 10, and the queries that were found before and not after);
- one `maintain`: every merge (both titles and the first lines of both texts, and whether the
  two bodies were identical), imported cards whose body was rewritten or removed, AGENTS.md rules
  added, lessons distilled (new cards), review questions asked per 100 cards (by kind).

It prints one table and, with `--json`, writes every detail. Slow (the model embeds every note
and every query): about a minute per set on two cores.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from data_path import shared_data

#: What to import of a set (folders relative to the set), where it is not the set itself.
SOURCES = {"claude-memory-koenvue-ko": (".claude/memory", "docs")}
QUERY_WORDS = 16
MIN_QUERY_WORDS = 5
_RULES = re.compile(r"<!-- cardvault:begin rules -->(.*?)<!-- cardvault:end rules -->", re.S)
_LINK = re.compile(r"\[\\?\[[^\]\n]*\]\]")  # [[a link]], and [\[one]] import left unresolved
_MERGED = re.compile(r"^merged (\S+) → (\S+)$")


def cli(vault: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`cardvault ARGS` in `vault` (the checkout's code), failing loudly."""
    env = {**os.environ, "CARDVAULT_HOME": str(home), "CARDVAULT_VAULT": str(vault)}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    done = subprocess.run(
        [sys.executable, "-m", "cardvault", *args],
        cwd=vault,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"cardvault {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done


def body_of(text: str) -> str:
    """A note's text after its frontmatter (all of it when it has none)."""
    if text.startswith("---\n") or text.startswith("---\r\n"):
        end = re.search(r"\r?\n---[ \t]*(\r?\n|$)", text[3:])
        if end is not None:
            return text[3 + end.end() :]
    return text


def prose_sentence(body: str) -> str | None:
    """The note's longest prose sentence (no heading, code, table or link list), cut short."""
    best: list[str] = []
    in_code = False
    for line in body.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code or stripped.startswith(("#", "|", ">", "<", "![", "---")):
            continue
        for sentence in re.split(r"(?<=[.!?。！？])\s+", stripped.lstrip("-*0123456789. ")):
            words = re.sub(r"[\[\]()*`_]", " ", sentence).split()
            if len(words) > len(best) or (not best and len(sentence) >= 12):
                best = words
    if len(best) >= MIN_QUERY_WORDS or (best and len("".join(best)) >= 12):
        return " ".join(best[:QUERY_WORDS])
    return None


def card_texts(vault: Path) -> dict[str, tuple[str, str]]:
    """Every live card: path → (topic, body)."""
    from cardvault.vault.card import parse_card

    found = {}
    for path in sorted((vault / "memory" / "cards").rglob("*.md")):
        card = parse_card(path.read_text(encoding="utf-8"), path)
        found[path.relative_to(vault).as_posix()] = (card.topic, card.body)
    return found


def first_line(body: str) -> str:
    return next((line.strip() for line in body.splitlines() if line.strip()), "")[:100]


def rules(vault: Path) -> list[str]:
    text = (
        (vault / "AGENTS.md").read_text(encoding="utf-8") if (vault / "AGENTS.md").exists() else ""
    )
    found = _RULES.search(text)
    lines = found.group(1).splitlines() if found else []
    return [line.strip() for line in lines if line.strip().startswith("- ")]


def ranks(vault: Path, queries: list[dict[str, Any]], moved: dict[str, str], key: str) -> None:
    """Each query's rank (1-based, None past 10) of the card now holding its note."""
    from cardvault.api import open_vault

    with open_vault(vault) as session:
        for query in queries:
            holder = moved.get(query["card"], query["card"])
            hits = [h.path for h in session.search(query["text"], k=10)]
            paths = [Path(p).as_posix() for p in hits]
            target = (vault / holder).as_posix()
            query[key] = next(
                (n for n, p in enumerate(paths, 1) if p in (holder, target)),
                None,
            )


def run_set(root: Path, name: str, scratch: Path, import_only: bool = False) -> dict[str, Any]:
    start = time.perf_counter()
    vault, home = scratch / name / "vault", scratch / name / "home"
    home.mkdir(parents=True)
    vault.parent.mkdir(parents=True, exist_ok=True)
    cli(vault.parent, home, "init", str(vault), "--quiet")
    imported: list[dict[str, Any]] = []
    entries = 0
    for part in SOURCES.get(name, ("",)):
        source = root / name / part if part else root / name
        done = cli(vault, home, "import", str(source), "--partial", "--json")
        outcome = json.loads(done.stdout)
        entries += outcome.get("counts", {}).get("log_entries", 0)
        for card in outcome.get("cards", []):
            if card.get("outcome") == "new":
                imported.append({**card, "source": str(source / card["note"])})
    identical, but_links = [], []
    for card in imported:  # blank lines around the body aside (a card's body starts at its text)
        note = body_of(Path(card["source"]).read_text(encoding="utf-8")).strip("\r\n")
        mine = card_texts_one(vault / card["card"]).strip("\r\n")
        identical.append(mine == note)
        but_links.append(_LINK.sub("[[]]", mine) == _LINK.sub("[[]]", note))
    before = card_texts(vault)
    queries: list[dict[str, Any]] = []
    for card in imported:
        topic, body = before.get(card["card"], ("", ""))
        sentence = prose_sentence(body)
        if sentence:
            queries.append({"kind": "sentence", "card": card["card"], "text": sentence})
        if topic.strip():
            queries.append({"kind": "title", "card": card["card"], "text": topic})
    if import_only:
        return {"set": name, "notes": len(imported), "identical": sum(identical),
                "identical_but_links": sum(but_links)}  # fmt: skip
    ranks(vault, queries, {}, "before")
    rules_before = rules(vault)
    maintained = time.perf_counter()
    done = cli(vault, home, "maintain", "--json")
    outcome = json.loads(done.stdout)
    maintain_seconds = time.perf_counter() - maintained
    after = card_texts(vault)
    merges, moved = _merges(outcome, before)
    ranks(vault, queries, moved, "after")
    asked = json.loads(cli(vault, home, "review", "--json").stdout or "[]")
    kinds: dict[str, int] = {}
    for item in asked:
        kinds[item["kind"]] = kinds.get(item["kind"], 0) + 1
    own = {c["card"] for c in imported}
    rewritten = sorted(p for p in own if p in after and after[p][1] != before[p][1])
    removed = sorted(p for p in own if p not in after)
    distilled = sorted(p for p in after if p not in before)
    new_rules = [r for r in rules(vault) if r not in rules_before]
    return {
        "set": name,
        "notes": len(imported),
        "log_entries": entries,
        "identical": sum(identical),
        "identical_but_links": sum(but_links),
        "not_identical": [
            c["note"] for c, same in zip(imported, but_links, strict=True) if not same
        ],
        "cards_before": len(before),
        "merges": merges,
        "identical_merges": sum(1 for m in merges if m["identical"]),
        "imported_rewritten": rewritten,
        "imported_removed": removed,
        "rules_added": new_rules,
        "distilled": distilled,
        "questions": len(asked),
        "questions_by_kind": kinds,
        "questions_per_100": round(100 * len(asked) / max(1, len(before)), 1),
        "queries": queries,
        "counts": outcome.get("counts", {}),
        "maintain_seconds": round(maintain_seconds, 1),
        "seconds": round(time.perf_counter() - start, 1),
    }


def card_texts_one(path: Path) -> str:
    from cardvault.vault.card import parse_card

    return parse_card(path.read_text(encoding="utf-8"), path).body


def _merges(
    outcome: dict[str, Any], before: dict[str, tuple[str, str]]
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Every merge of the run (from its changes), and where each merged-away card went."""
    by_slug: dict[str, list[str]] = {}
    for path in before:
        by_slug.setdefault(Path(path).stem, []).append(path)
    survivors: dict[str, str] = {}
    gone: dict[str, str] = {}
    for change in outcome.get("changes", []):
        if change.get("step") != "merge":
            continue
        for line in change.get("reason", "").splitlines():
            found = _MERGED.match(line.strip())
            if found is None:
                continue
            if change["kind"] == "DeleteFile":
                gone[change["paths"][0]] = found.group(2)
            elif change["kind"] == "WriteFile":
                survivors[found.group(2)] = change["paths"][0]
    merges, moved = [], {}
    for path, slug in gone.items():
        keep = survivors.get(slug) or (by_slug.get(slug) or [slug])[0]
        moved[path] = keep
        left, right = before.get(keep, ("?", "")), before.get(path, ("?", ""))
        merges.append(
            {
                "survivor": keep,
                "merged": path,
                "titles": [left[0], right[0]],
                "first_lines": [first_line(left[1]), first_line(right[1])],
                "identical": " ".join(left[1].split()) == " ".join(right[1].split()),
            }
        )
    return merges, moved


def summary(result: dict[str, Any]) -> dict[str, Any]:
    queries = result["queries"]

    def hits(key: str, top: int) -> int:
        return sum(1 for q in queries if q.get(key) is not None and q[key] <= top)

    lost = [q for q in queries if q["before"] is not None and q["after"] is None]
    return {
        "set": result["set"],
        "notes": result["notes"],
        "identical (but links)": f"{result['identical']} ({result['identical_but_links']})",
        "merges": f"{len(result['merges'])} ({result['identical_merges']} identical)",
        "rewritten": len(result["imported_rewritten"]),
        "removed": len(result["imported_removed"]),
        "rules": len(result["rules_added"]),
        "distilled": len(result["distilled"]),
        "q/100": result["questions_per_100"],
        "queries": len(queries),
        "top3 before→after": f"{hits('before', 3)}→{hits('after', 3)}",
        "top10 before→after": f"{hits('before', 10)}→{hits('after', 10)}",
        "lost": len(lost),
        "s": result["seconds"],
    }


def table(rows: list[dict[str, Any]]) -> str:
    heads = list(rows[0])
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    lines += ["| " + " | ".join(str(r[h]) for h in heads) + " |" for r in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", help="comma-separated set names (default: every set)")
    parser.add_argument("--json", type=Path, help="write every detail here")
    parser.add_argument("--keep", type=Path, help="build the vaults here and keep them")
    parser.add_argument("--import-only", action="store_true", help="import fidelity alone")
    args = parser.parse_args()
    root = shared_data() / "real-vaults"
    names = sorted(p.name for p in root.iterdir() if p.is_dir() and p.name != "LICENSES")
    if args.sets:
        names = [n for n in names if n in args.sets.split(",")]
    results = []
    with tempfile.TemporaryDirectory(prefix="cv-real-") as tmp:
        scratch = args.keep or Path(tmp)
        for name in names:
            print(f"{name} ...", file=sys.stderr, flush=True)
            results.append(run_set(root, name, scratch, args.import_only))
            for merge in results[-1].get("merges", []):
                print(
                    f"  merged {merge['merged']} → {merge['survivor']}: "
                    f"{merge['titles'][1]!r} into {merge['titles'][0]!r}",
                    file=sys.stderr,
                )
    print(table(results if args.import_only else [summary(r) for r in results]))
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
