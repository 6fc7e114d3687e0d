"""Format detectors: detect-secrets' plugins for known token shapes, plus the shapes it misses.

`_SUPPLEMENTS` holds the providers' documented token formats detect-secrets does not know or
gets wrong, JWT signatures its regex stops before, and "the password is X" in prose.
Passwords on command lines are `commands`' job.
"""

from __future__ import annotations

import re
from typing import Any

from cardvault.guard.finding import Span
from cardvault.guard.gate import has_digit
from cardvault.guard.plugins import Kit
from cardvault.guard.vetting import is_reference
from cardvault.guard.words import looks_like_identifier

_JWT_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=."

_SUPPLEMENTS = (  # (kind, regex); a group named `v` is the secret, else the whole match
    ("GitHub token", re.compile(r"github_pat_[A-Za-z0-9_]{60,}")),
    ("Anthropic API key", re.compile(r"sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{40,}")),
    ("OpenAI API key", re.compile(r"(?<![\w-])sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{40,}")),
    ("Google API key", re.compile(r"AIza[0-9A-Za-z_-]{35}")),
    ("password in URL", re.compile(r"://:(?P<v>[^\s:/?#\[\]@$]+)@")),
    # Prefixed token formats (the providers' documented shapes), none of them in detect-secrets.
    ("npm token", re.compile(r"(?<![\w-])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])")),
    ("HashiCorp Vault token", re.compile(r"(?<![\w.-])hv[sbr]\.[A-Za-z0-9_-]{24,}")),
    ("Docker access token", re.compile(r"dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}")),
    ("Hugging Face token", re.compile(r"(?<![\w-])hf_[A-Za-z0-9]{34,}")),
    ("Google OAuth client secret", re.compile(r"GOCSPX-[A-Za-z0-9_-]{28}")),
    ("Shopify token", re.compile(r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}")),
    ("DigitalOcean token", re.compile(r"do[opr]_v1_[a-f0-9]{64}")),
    ("Doppler token", re.compile(r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}")),
    ("Postman API key", re.compile(r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}")),
    ("Grafana token", re.compile(r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}")),
    ("Slack app token", re.compile(r"xapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{32,}")),
    ("Sentry token", re.compile(r"sntr[ysu]s?_[A-Za-z0-9+/=_]{40,}")),
    ("Databricks token", re.compile(r"(?<![\w-])dapi[a-f0-9]{32}(?:-\d)?(?![\w-])")),
    ("Atlassian API token", re.compile(r"ATATT3[A-Za-z0-9_=-]{150,}")),
    ("Linear API key", re.compile(r"lin_api_[A-Za-z0-9]{40}")),
    (
        "age secret key",
        re.compile(r"AGE-SECRET-KEY-1(?P<v>[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})"),
    ),
    ("Azure AD client secret", re.compile(r"(?<![\w~.-])[\w~.]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])")),
    ("New Relic key", re.compile(r"NRAK-[A-Z0-9]{27}")),
    ("Pulumi token", re.compile(r"(?<![\w-])pul-[a-f0-9]{40}(?![\w-])")),
    ("Supabase token", re.compile(r"(?<![\w-])sbp_[a-f0-9]{40}(?![\w-])")),
    ("Groq API key", re.compile(r"(?<![\w-])gsk_[A-Za-z0-9]{52}(?![\w-])")),
    ("Replicate token", re.compile(r"(?<![\w-])r8_[A-Za-z0-9]{37}(?![\w-])")),
    ("Perplexity API key", re.compile(r"(?<![\w-])pplx-[A-Za-z0-9]{48}(?![\w-])")),
)
_PROSE_PASSWORD = re.compile(  # "the password is Tr0ub4dor&3", "with password Zx9-Lk2"
    r"\b(?:pass(?:word|phrase|code)|pwd)s?(?P<op>\s+(?:is|was)(?:\s+(?:now|still|currently))?"
    r"\s*:?|\s*[:=](?!=))?\s*[(`'\"]?"
    r"(?P<v>[^\s`'\"]+)",
    re.I,
)


def pattern_spans(line: str, kit: Kit) -> list[Span]:
    """Known token formats on `line`: the plugins' matches, the supplements, prose passwords."""
    spans = []
    for plugin, kind in kit.patterns:
        for value in _plugin_values(plugin, kind, line):
            for m in re.finditer(re.escape(value), line):
                spans.append((m.start(), _extend_jwt(line, m.end(), kind), _refine(kind, value)))
    for kind, regex in _SUPPLEMENTS:
        group = "v" if "v" in regex.groupindex else 0
        spans += [(m.start(group), m.end(group), kind) for m in regex.finditer(line)]
    for m in _PROSE_PASSWORD.finditer(line):
        if not m.group("op") and line[m.start("v") - 1] not in " \t(`'\"":
            continue  # `password-reset-2fa`, `passwords.md`: a word goes on, no value follows
        value = m.group("v").rstrip(".,;:)!?")
        bare_ok = any(c.isdigit() for c in value) and not looks_like_identifier(value)
        said = m.group("op") or bare_ok  # bare: "with password Zx9-Lk2", not "password v2-flow"
        if said and _looks_like_password(value):
            spans.append((m.start("v"), m.start("v") + len(value), "password"))
    return spans


def _looks_like_password(value: str) -> bool:
    """After "password is", a password mixes letters with digits or symbols; a word is prose."""
    has_other = any(not (c.isalpha() or c == "_") for c in value)  # `confirm_password`: a name
    has_letter = any(c.isalpha() for c in value)
    return len(value) >= 6 and has_letter and has_other and not is_reference(value)


def _plugin_values(plugin: Any, kind: str, line: str) -> list[str]:
    """What `plugin` reports as secret, but the whole match where it reports only a prefix."""
    if kind in ("GitHub token", "GitLab token"):  # their regexes capture just `ghp`, `glpat`
        return [match.group() for regex in plugin.denylist for match in regex.finditer(line)]
    stripped = (value.strip("=:\"' \t") for value in plugin.analyze_string(line))
    values = [value.split()[0] for value in stripped if value.strip()]
    if kind == "Artifactory token":  # its `AP...` shape also fits capitals: APAC2024ROADMAP
        return [v for v in values if v and any(c.islower() for c in v) and has_digit(v)]
    return [v for v in values if v]  # Artifactory's match keeps the space or `=` before it


def _extend_jwt(line: str, end: int, kind: str) -> int:
    """detect-secrets' JWT regex stops lazily before the signature; take the signature too."""
    tail = line[end:] if kind == "JWT" else ""
    return end + len(tail) - len(tail.lstrip(_JWT_CHARS))


def _refine(kind: str, value: str) -> str:
    """A finer kind where one plugin finds two: AWS key id vs. secret, Slack token vs. webhook."""
    if kind == "AWS access key" and not re.match(r"A3T|ABIA|ACCA|AKIA|ASIA", value):
        return "AWS secret access key"
    if kind == "Slack token" and value.startswith("https://"):
        return "Slack webhook URL"
    return kind
