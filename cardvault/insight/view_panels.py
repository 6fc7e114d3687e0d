"""The Stats and Review tabs of `cardvault view`'s page, as static HTML (every text escaped):
`VaultStats` as `cardvault stats` computes it, and each pending decision as `cardvault review`
words it (review/words.py).
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from cardvault.insight.card_html import card_href
from cardvault.insight.stats import VaultStats
from cardvault.insight.view import VaultView, ViewQuestion

LARGEST_SHOWN = 10
OVER_LISTED = 50


def escaped(text: object) -> str:
    """`text` safe as HTML text and as a quoted attribute value."""
    return html.escape(str(text), quote=True)


_e = escaped


def _meter(used: int, budget: int) -> str:
    """A meter of `used` against `budget` (red past 90 %) and the share in words."""
    if budget <= 0:
        return "no budget set"
    state = '<span class="over">over</span>' if used > budget else f"{100 * used // budget}%"
    high = max(1, budget * 9 // 10)
    return (
        f'<meter min="0" max="{budget}" value="{min(used, budget)}" low="{high}" high="{high}" '
        f'optimum="0"></meter> {state}'
    )


def _rows(pairs: Iterable[tuple[object, object]]) -> str:
    return "".join(f'<tr><td>{_e(k)}</td><td class="n">{_e(v)}</td></tr>' for k, v in pairs)


def stats_html(s: VaultStats) -> str:
    """The Stats tab: `cardvault stats`' figures, budgets first."""
    average = s.total_tokens // s.cards if s.cards else 0
    over = s.over_budget
    over_list = ", ".join(
        f'<a href="{_e(card_href(c.path))}">{_e(c.slug)}</a>' for c in over[:OVER_LISTED]
    )
    more = f" and {len(over) - OVER_LISTED} more" if len(over) > OVER_LISTED else ""
    parts = [
        "<h3>Budgets</h3><table>",
        f"<tr><td>MEMORY.md</td><td>{_memory_md(s)}</td></tr>",
        f"<tr><td>card tokens (each of {s.card_token_budget})</td><td>"
        f'<span class="{"over" if over else "okay"}">{len(over)} over budget</span>; '
        f"{s.total_tokens} in all, {average} per card</td></tr></table>",
        f'<p class="meta">over budget: {over_list}{more}</p>' if over else "",
        "<h3>Largest cards</h3><table>",
        *(
            f'<tr><td><a href="{_e(card_href(c.path))}">{_e(c.slug)}</a></td>'
            f'<td class="n">{c.tokens}</td><td>{_meter(c.tokens, s.card_token_budget)}</td></tr>'
            for c in s.card_sizes[:LARGEST_SHOWN]
        ),
        "</table>",
        "<h3>Tiers</h3><table><tr><th>tier</th><th>part</th><th>size</th><th>limit</th></tr>",
        *(
            f"<tr><td>{_e(p.tier)}</td><td>{_e(p.part)}</td><td>{p.size} {_e(p.unit)}</td>"
            f"<td>{_e(p.limit if p.limit else 'none')}"
            f"{_e(' (' + str(p.over_items) + ' over)') if p.over_items else ''}</td></tr>"
            for p in s.tiers
        ),
        "</table><h3>Cards</h3><table>",
        _rows(
            [
                ("live", s.cards),
                ("archived", s.archived),
                ("promoted", s.promoted),
                ("rules in AGENTS.md", s.rules),
            ]
        ),
        "</table><h3>By category</h3><table>",
        _rows(s.by_category.items()),
        "</table><h3>By status</h3><table>",
        _rows(s.by_status.items()),
        f"</table><h3>Tags ({len(s.tags)})</h3><table>",
        _rows(list(s.tags.items())[:20]),
        "</table>",
        _logs_and_index(s),
    ]
    if s.problems:
        problems = "".join(f"<li>{_e(p)}</li>" for p in s.problems)
        parts.append(f'<h3>Not read</h3><ul class="problems">{problems}</ul>')
    return "".join(parts)


def _memory_md(s: VaultStats) -> str:
    if s.memory_md_bytes is None:
        return '<span class="over">missing</span>'
    return (
        f"{s.memory_md_bytes} of {s.memory_byte_budget} bytes "
        f"{_meter(s.memory_md_bytes, s.memory_byte_budget)}"
    )


def _logs_and_index(s: VaultStats) -> str:
    logs = s.logs
    span = f"{logs.first_day} to {logs.last_day}" if logs.first_day else "none"
    run = s.last_maintenance
    index = s.index
    if not index.exists:
        state = "not built"
    elif index.fresh:
        state = f"up to date ({index.indexed} files)"
    else:
        state = f"{index.behind} file(s) behind"
    return (
        "<h3>Daily logs, maintenance, search</h3><table>"
        + _rows(
            [
                ("days", f"{logs.days} ({span})"),
                ("entries", logs.entries),
                ("with a lesson signal", logs.signal_entries),
                ("undistilled", len(logs.undistilled)),
                ("memory decisions pending", s.review_pending),
                ("last maintenance", f"{run.date} {run.subject}" if run else "never"),
                ("search index", state),
            ]
        )
        + "</table>"
    )


def review_html(view: VaultView) -> str:
    """The Review tab: each pending decision, or a line saying there is none."""
    if not view.questions:
        return '<p class="hint">No memory decisions pending.</p>'
    cards = {card.path for card in view.cards}
    return "".join(_question(q, cards) for q in view.questions)


def _where(place: str, cards: set[str]) -> str:
    """A member's place; a link to the card when it names one of this vault's cards."""
    return f'<a href="{_e(card_href(place))}">{_e(place)}</a>' if place in cards else _e(place)


def _question(q: ViewQuestion, cards: set[str]) -> str:
    members = "".join(
        f"<li><code>{_where(m.where, cards)}{' → ' + _where(m.card, cards) if m.card else ''}"
        f"</code><blockquote>{_e(m.text)}</blockquote></li>"
        for m in q.members
    )
    answers = "".join(
        f"<li><code>{_e(command)}</code> {_e(meaning)}</li>" for command, meaning in q.answers
    )
    also = f"<li>{_e(q.also)}</li>" if q.also else ""
    return (
        f'<div class="question"><h3>{_e(q.question)}</h3><p class="meta">asked {_e(q.asked)}'
        f' · <code class="id">{_e(q.id)}</code></p><ol>{members}</ol>'
        f'<p class="why">Why asked: {_e(q.evidence)}</p>'
        f'<ul class="answers">{answers}{also}</ul></div>\n'
    )
