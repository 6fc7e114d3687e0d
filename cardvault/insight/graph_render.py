"""Text renderings of a `Graph`: an indented tree, Mermaid, Graphviz DOT. Links are solid arrows;
cards that share tags are joined by a dashed, undirected edge labelled with the tags.
"""

from __future__ import annotations

import json

from cardvault.insight.graph import SHARED_PAIR_LIMIT, Graph, category_counts


def render_tree(graph: Graph) -> str:
    """Categories → tags with card counts, then links, hubs and orphans, as an indented tree."""
    counts = category_counts(graph.nodes)
    lines = [f"cards ({len(graph.nodes)})"]
    categories = list(graph.tag_tree.items())
    for index, (category, tags) in enumerate(categories):
        last_cat = index == len(categories) - 1
        lines.append(f"{'└── ' if last_cat else '├── '}{category} ({counts[category]})")
        pad = "    " if last_cat else "│   "
        tag_items = list(tags.items())
        for number, (tag, count) in enumerate(tag_items):
            branch = "└── " if number == len(tag_items) - 1 else "├── "
            lines.append(f"{pad}{branch}#{tag} ({count})")
    lines += ["", f"links ({len(graph.links)})"]
    lines += [f"  {link.source} → {link.target}" for link in graph.links]
    if graph.unresolved:
        lines += ["", f"unresolved links ({len(graph.unresolved)})"]
        lines += [f"  {link.source} → [[{link.text}]]" for link in graph.unresolved]
    lines += ["", f"cards sharing tags ({len(graph.shared)} pairs)"]
    lines += [f"  {s.a} — {s.b}: {', '.join(s.tags)}" for s in graph.shared]
    if graph.broad_tags:
        lines += ["", f"broad tags (on more than {SHARED_PAIR_LIMIT} cards; pairs not listed)"]
        lines += [f"  #{tag} ({count})" for tag, count in graph.broad_tags.items()]
    lines += ["", "hubs (most connected)"]
    lines += [
        f"  {h.slug}: {h.connections} connected, {h.links_in} links in, {h.links_out} out"
        for h in graph.hubs
    ]
    lines += ["", f"orphans ({len(graph.orphans)})"]
    lines += [f"  {slug}" for slug in graph.orphans]
    return "\n".join(lines) + "\n"


def _mermaid_id(slug: str) -> str:
    # Mermaid ids must avoid hyphens (arrow syntax) and keywords such as `end`.
    return "c_" + slug.replace("-", "_")


def _mermaid_label(text: str) -> str:
    return text.replace('"', "#quot;")


def render_mermaid(graph: Graph) -> str:
    """A Mermaid flowchart: one subgraph per category, links, shared-tag edges."""
    lines = ["graph LR"]
    for number, category in enumerate(graph.tag_tree):
        lines.append(f'  subgraph cat{number}["{_mermaid_label(category)}"]')
        for node in graph.nodes:
            if node.category == category:
                lines.append(f'    {_mermaid_id(node.slug)}["{_mermaid_label(node.topic)}"]')
        lines.append("  end")
    for link in graph.links:
        lines.append(f"  {_mermaid_id(link.source)} --> {_mermaid_id(link.target)}")
    for pair in graph.shared:
        label = _mermaid_label(", ".join(pair.tags))
        lines.append(f'  {_mermaid_id(pair.a)} -.-|"{label}"| {_mermaid_id(pair.b)}')
    if graph.broad_tags:
        lines.append(f"  %% not drawn, tags on many cards: {_broad(graph)}")
    return "\n".join(lines) + "\n"


def _broad(graph: Graph) -> str:
    return ", ".join(f"{tag} ({count})" for tag, count in graph.broad_tags.items())


def _dot(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a quoted, escaped DOT string


def render_dot(graph: Graph) -> str:
    """A Graphviz digraph: one cluster per category, links, dashed shared-tag edges."""
    lines = ["digraph cardvault {", "  rankdir=LR;", "  node [shape=box];"]
    for number, category in enumerate(graph.tag_tree):
        lines.append(f"  subgraph cluster_{number} {{")
        lines.append(f"    label={_dot(category)};")
        for node in graph.nodes:
            if node.category == category:
                lines.append(f"    {_dot(node.slug)} [label={_dot(node.topic)}];")
        lines.append("  }")
    for link in graph.links:
        lines.append(f"  {_dot(link.source)} -> {_dot(link.target)};")
    for pair in graph.shared:
        label = _dot(", ".join(pair.tags))
        lines.append(f"  {_dot(pair.a)} -> {_dot(pair.b)} [dir=none, style=dashed, label={label}];")
    if graph.broad_tags:
        lines.append(f"  // not drawn, tags on many cards: {_broad(graph)}")
    lines.append("}")
    return "\n".join(lines) + "\n"
