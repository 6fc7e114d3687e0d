"""A card's frontmatter fields, declared once: the one place their names are spelled.

Each row of FIELDS gives, for one key: its type (what `check` accepts, vault/schema.py), whether
a card must have it, its place in a new card (the row order), how two clones' values merge
(`sync`, sync/merge_card.py), what a merge of duplicate cards makes of it (`fold`,
maintain/merge.py and portable/fold.py), who writes it besides a person (`by`), and whether a
note's own key of that name is kept as `note_<key>` on import. Export carries every key as it
is, so a new row changes no export version. A key not in the table is the user's: kept byte for
byte, merged only where one side alone changed it. Readers look the table up when they run, so
a row added is read by every one of them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Types (what the schema check accepts; vault/schema.py holds the checks).
TEXT, LINE, A_CATEGORY, TAG_LIST, LIST = "text", "line", "a category", "tag list", "list"
DATE, DATE_OR_FLAG, COUNT, FRACTION, CHOICE = "date", "date-or-flag", "count", "fraction", "choice"
ANY = "any"  # not checked

# How two clones' values merge when both sides changed the key (sync/merge_card.py).
CONFLICT, UNION, EARLIEST, LATEST = "conflict", "union", "earliest", "latest"
SIGHTINGS, SUM, MARK, RECORD = "sightings", "sum", "mark", "record"

# What maintenance's merge of cards into a survivor makes of the key (maintain/merge.py);
# UNION, EARLIEST, LATEST and SIGHTINGS as above, over every card of the merge.
KEEP = "keep"  # the survivor's own value
FIRST = "first"  # the survivor's, else the first card's that has one
HIGHEST = "highest"  # the highest of the choices any card has
PROMOTION = "promotion"  # promoted when any card is, with that card's promotion date
NAMES = "names"  # set by the merge itself: the merged cards' slugs (and topics)

# Who writes the key besides a person (sync/merge_card.py): READ and VERIFY are bookkeeping (a
# card removed on one clone and only counted or checked on the other stays removed); what READ
# and FOLD write is carried into the card a card was merged into; MERGE is the merge's record.
READ, VERIFY, FOLD, MERGE = "read", "verify", "fold", "merge"

# The names, each spelled here once.
TOPIC, CATEGORY, TAGS, CREATED, UPDATED = "topic", "category", "tags", "created", "updated"
STATUS, SEEN, IMPACT, DOMAIN, SEVERITY = "status", "seen", "impact", "domain", "severity"
RULE, SOURCES, ALIASES, MERGED_FROM = "rule", "sources", "aliases", "merged_from"
PROMOTED, DEMOTED, LAST_USED, USES = "promoted", "demoted", "last_used", "uses"
STALE, CHECKED, LEARNED_BY, PRIVATE = "stale", "checked", "learned_by", "private"
IMPORTED, IMPORTED_FROM, DISTILLED = "imported", "imported_from", "distilled"

STATUSES = ("active", "promoted", "archived")
SEVERITIES = ("low", "medium", "high")


@dataclass(frozen=True)
class Field:
    """One frontmatter key (see the module docstring for each column)."""

    name: str
    type: str = ANY
    required: bool = False
    sync: str = CONFLICT
    fold: str = KEEP
    by: str = ""
    note_key: bool = True  # a note's own key of this name is kept as `note_<name>` on import
    default: Any = None  # the value a card without the key is read as
    choices: tuple[str, ...] = ()
    expect: str = ""  # what the schema's message says the value must be, when not the type's
    block: bool = False  # written one item a line (each addition its own diff line)


FIELDS: tuple[Field, ...] = (
    Field(TOPIC, TEXT, required=True),
    Field(CATEGORY, A_CATEGORY, required=True),
    Field(TAGS, TAG_LIST, required=True, sync=UNION, fold=UNION, by=FOLD),
    Field(CREATED, DATE, required=True, sync=EARLIEST, fold=EARLIEST),
    Field(UPDATED, DATE, required=True, sync=LATEST, fold=LATEST, by=FOLD),
    Field(STATUS, CHOICE, by=FOLD, fold=PROMOTION, choices=STATUSES, default="active"),
    Field(SEEN, COUNT, sync=SIGHTINGS, fold=SIGHTINGS, by=FOLD, default=1),
    Field(IMPACT, FRACTION),
    Field(DOMAIN, note_key=False),
    Field(SEVERITY, CHOICE, fold=HIGHEST, choices=SEVERITIES),
    Field(RULE, LINE, fold=FIRST, by=FOLD, expect="text (the one-line rule to promote)"),
    Field(SOURCES, LIST, sync=UNION, fold=UNION, by=FOLD, block=True),
    Field(ALIASES, LIST, sync=UNION, fold=NAMES, by=MERGE, block=True),
    Field(MERGED_FROM, LIST, sync=UNION, fold=NAMES, by=MERGE, block=True),
    Field(PROMOTED, DATE_OR_FLAG, sync=LATEST, by=FOLD),
    Field(DEMOTED, note_key=False),
    Field(LAST_USED, DATE, sync=LATEST, fold=LATEST, by=READ),
    Field(USES, sync=SUM, by=READ, note_key=False, default=0),
    Field(STALE, sync=MARK, by=VERIFY, note_key=False),
    Field(CHECKED, sync=RECORD, by=VERIFY, note_key=False),
    Field(LEARNED_BY),
    Field(PRIVATE),
    Field(IMPORTED),  # the day a folder import wrote it: no archiving for age until
    # `archive_days` after it (maintain/archive.py)
    Field(IMPORTED_FROM),
    Field(DISTILLED, TEXT, expect="text (the digest maintain wrote)"),
)

_UNKNOWN = Field("")


def field(name: str) -> Field:
    """The row of `name`; for a key not in the table, a row that merges as a conflict, is
    not checked and is carried as it is."""
    return next((row for row in FIELDS if row.name == name), _UNKNOWN)


def names(**having: Any) -> frozenset[str]:
    """The names of the fields whose columns have the given values (`names(sync=UNION)`)."""
    return frozenset(
        row.name for row in FIELDS if all(getattr(row, k) == v for k, v in having.items())
    )


def in_order(meta: Mapping[str, Any]) -> dict[str, Any]:
    """`meta` with its declared keys in the table's order, then its other keys as given."""
    rank = {row.name: n for n, row in enumerate(FIELDS)}
    return dict(sorted(meta.items(), key=lambda kv: rank.get(kv[0], len(rank))))


def rank(name: str, value: Any) -> int:
    """Where `value` stands among the choices of field `name` (-1 when not one of them)."""
    choices = field(name).choices
    return choices.index(value) if value in choices else -1
