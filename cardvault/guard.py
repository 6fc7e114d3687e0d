"""The secret guard: finds credentials in text bound for the vault, to refuse or redact them.

Every path that writes memory passes its text through `ensure_no_secrets` (refuse) or
`redact_text` (`--redact`); `check` reports `scan_text` findings for stored files. A finding
names the kind of secret and where it is, never the value.

Detection is Yelp's detect-secrets, run in-process line by line without its global settings:
its format plugins (AWS, GitHub, GitLab, Slack, OpenAI, JWT, private key, basic-auth URL,
Stripe, SendGrid, Twilio, PyPI, npm, Discord, Telegram, Mailchimp, Square, Azure storage);
`KeywordDetector`'s config-file regexes (`password=x`, `api_key: x`, `=>`, `:=`); and its
Base64/Hex Shannon entropy, only for 20+ character tokens on a line that names a credential.

Notes are not config files, so on top of that this module adds, each for a corpus case in
tests/fixtures/secrets that detect-secrets 1.5 gets wrong:
- recall: whole private-key blocks (it flags the BEGIN line only, so redaction would leave the
  key), `BEGIN ENCRYPTED PRIVATE KEY`, `github_pat_`, Anthropic `sk-ant-`, OpenAI keys without
  the `T3BlbkFJ` marker, Google `AIza` keys, `redis://:pw@` (no user), "the password is X",
  JWT signatures (its regex stops before them), and lower entropy limits inside credential
  context (a random 32-character key scores ~4.3, under its default 4.5);
- precision: keyword values are vetted (placeholders like `changeme`, `xxx`, `<pw>`; references
  like `${X}`, `os.environ[...]`, `var.x`; settings like `password_min_length`; code such as
  `password = auth`; prose after a colon); AWS's documented `...EXAMPLE` keys are not secrets;
  entropy skips UUIDs, identifiers, digests (commit ids, `sha256:`, `sha512-`, lines that say
  commit/hash/checksum), data URIs, URL paths and SSH public keys.
On the corpus (62 secrets, 78 look-alikes) detect-secrets alone, scanning each case as a .md
file with default settings, finds 40 secrets and flags 20 look-alikes; this guard finds all 62
and flags none.

Importing detect-secrets costs 110-150 ms (mostly `requests`), so it loads only when the text holds
something a detector could fire on; a plain note is screened by substring tests in ~0.2 ms.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from itertools import takewhile
from pathlib import Path
from typing import Any

from cardvault.errors import SecretFoundError


@dataclass(frozen=True)
class SecretFinding:
    """One secret: its kind and its span, `line:start` to `end_line:end` (lines 1-based).

    `end_line` is None for a secret on one line; only private-key blocks span lines.
    """

    kind: str
    line: int
    start: int
    end: int
    end_line: int | None = None


def scan_text(text: str) -> list[SecretFinding]:
    """Every secret in `text`, in reading order."""
    if not _might_hold_secret(text):
        return []
    kit = _kit()
    # Markers of an earlier redaction become `#`s of the same width: never a value or context.
    lines = _MARKER.sub(lambda m: "#" * len(m.group()), text).split("\n")
    findings = _key_blocks(lines, kit)
    for _ in range(3):  # mask what was found and look again, so redacting twice changes nothing
        taken = _regions(findings, lines)
        lines = [_masked(line, taken.get(number, [])) for number, line in enumerate(lines, 1)]
        found = [
            SecretFinding(kind, number, start, end)
            for number, line in enumerate(lines, start=1)
            for start, end, kind in _line_spans(line, kit, taken.get(number, []))
        ]
        if not found:
            break
        findings += found
    return sorted(findings, key=lambda f: (f.line, f.start))


def redact_text(text: str) -> str:
    """`text` with every finding replaced by `[REDACTED:<kind>]`, all else byte-identical."""
    starts = [0]
    for line in text.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    out, cursor = [], 0
    for found in scan_text(text):
        out += [text[cursor : starts[found.line - 1] + found.start], f"[REDACTED:{found.kind}]"]
        cursor = starts[(found.end_line or found.line) - 1] + found.end
    return "".join([*out, text[cursor:]])


def ensure_no_secrets(text: str, where: str | Path, first_line: int = 1) -> None:
    """Raise SecretFoundError naming the kind and `where:line` of the first secret, not its value.

    `first_line` is the file line `text` starts on: with four lines of front matter before a
    body, pass 5 and the body's line 1 is reported as line 5.
    """
    findings = scan_text(text)
    if not findings:
        return
    shift = first_line - 1
    message = f"refusing to write a secret ({findings[0].kind}); the value is not shown"
    if len(findings) > 1:
        lines = ", ".join(str(f.line + shift) for f in findings[1:])
        message += f"; {len(findings) - 1} more (line {lines})"
    raise SecretFoundError(message, path=where, line=findings[0].line + shift)


_MARKER = re.compile(r"\[REDACTED:[^\]\n]*\]")


def _masked(line: str, regions: list[tuple[int, int]]) -> str:
    """`line` with `regions` overwritten by `#`: found secrets are neither values nor context."""
    parts, cursor = [], 0
    for start, end in sorted(regions):
        parts += [line[cursor:start], "#" * (end - max(start, cursor))]
        cursor = max(cursor, end)
    return "".join([*parts, line[cursor:]])


def _regions(findings: list[SecretFinding], lines: list[str]) -> dict[int, list[tuple[int, int]]]:
    """Line number -> the columns findings cover on that line."""
    regions: dict[int, list[tuple[int, int]]] = {}
    for found in findings:
        last = found.end_line or found.line
        for number in range(found.line, last + 1):
            start = found.start if number == found.line else 0
            end = found.end if number == last else len(lines[number - 1])
            regions.setdefault(number, []).append((start, end))
    return regions


# --- The cheap gate: text no detector could fire on never imports detect-secrets ----------

# A fragment of every detector's match, lower-cased (the keyword names expand detect-secrets'
# DENYLIST, and a test keeps them in step). Substring tests are far cheaper than one regex.
_FRAGMENT_TEXT = """
aws ghp_ gho_ ghu_ ghs_ ghr_ github_pat_ glpat- gldt- glft- glsoat- glrt- glcbt- glimt- glptt-
glagent- gloas- gr1348941 xox hooks.slack.com k_live_ eyj putty-user-key-file pypi- _authtoken
sq0csp- accountkey= aiza
api_key apikey auth_key authkey service_key servicekey account_key accountkey db_key dbkey
database_key databasekey priv_key privkey private_key privatekey client_key clientkey db_pass
dbpass database_pass databasepass key_pass keypass password passwd pwd secret contraseña
contrasena passphrase passcode
"""
_FRAGMENTS = (*_FRAGMENT_TEXT.split(), "private key")
# Shapes: AWS key id, sk- keys, SendGrid, Twilio, Discord, Telegram, Mailchimp, URL password.
_SHAPES = re.compile(
    r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}|sk-[\w-]{20}|SG\.[\w-]{22}\."
    r"|(?:AC|SK)[a-z0-9]{32}|[MNO][\w-]{23,25}\.[\w-]{6}\.|\d{8,10}:[\w-]{35}|-us\d"
    r"|://[^\s/@]+@"
)
_HINT = re.compile(r"key|token|secret|pass|pwd|cred|auth|bearer|session|cookie|priv")
_LONG_RUN = re.compile(r"[A-Za-z0-9+/_-]{20,}")


def _might_hold_secret(text: str) -> bool:
    """False when no detector could fire: no fragment or shape of a known secret, and no
    credential word beside a long token with a digit (what entropy detection needs)."""
    lower = text.lower()
    return (
        any(fragment in lower for fragment in _FRAGMENTS)
        or _SHAPES.search(text) is not None
        or (_HINT.search(lower) is not None and any(map(_has_digit, _LONG_RUN.findall(text))))
    )


def _has_digit(text: str) -> bool:
    return any(c.isdigit() for c in text)


@dataclass(frozen=True)
class _Kit:
    """The detect-secrets plugins and regexes in use, built once per process on first need."""

    patterns: tuple[tuple[Any, str], ...]  # (plugin, kind), most specific first
    private_key: Any
    keyword_regexes: dict[re.Pattern[str], int]  # regex -> group holding the value
    base64: Any
    hex: Any


_PLUGINS = (  # (module in detect_secrets.plugins, class, kind), most specific first
    ("aws", "AWSKeyDetector", "AWS access key"),
    ("github_token", "GitHubTokenDetector", "GitHub token"),
    ("gitlab_token", "GitLabTokenDetector", "GitLab token"),
    ("slack", "SlackDetector", "Slack token"),
    ("openai", "OpenAIDetector", "OpenAI API key"),
    ("jwt", "JwtTokenDetector", "JWT"),
    ("stripe", "StripeDetector", "Stripe key"),
    ("sendgrid", "SendGridDetector", "SendGrid API key"),
    ("twilio", "TwilioKeyDetector", "Twilio key"),
    ("pypi_token", "PypiTokenDetector", "PyPI token"),
    ("npm", "NpmDetector", "npm token"),
    ("discord", "DiscordBotTokenDetector", "Discord bot token"),
    ("telegram_token", "TelegramBotTokenDetector", "Telegram bot token"),
    ("mailchimp", "MailchimpDetector", "Mailchimp key"),
    ("square_oauth", "SquareOAuthDetector", "Square OAuth secret"),
    ("azure_storage_key", "AzureStorageKeyDetector", "Azure storage key"),
    ("basic_auth", "BasicAuthDetector", "password in URL"),
)


@lru_cache(maxsize=1)
def _kit() -> _Kit:
    from importlib import import_module

    def plugin(module: str, name: str) -> Any:
        return getattr(import_module(f"detect_secrets.plugins.{module}"), name)()

    keyword = import_module("detect_secrets.plugins.keyword")
    regexes = {
        **keyword.CONFIG_DENYLIST_REGEX_TO_GROUP,  # quotes optional, as in .env and YAML
        keyword.FOLLOWED_BY_ARROW_FUNCTION_SIGN_QUOTES_REQUIRED_REGEX: 4,
        keyword.FOLLOWED_BY_COLON_EQUAL_SIGNS_REGEX: 4,
    }
    return _Kit(
        patterns=tuple((plugin(module, name), kind) for module, name, kind in _PLUGINS),
        private_key=plugin("private_key", "PrivateKeyDetector"),
        keyword_regexes=regexes,
        base64=plugin("high_entropy_strings", "Base64HighEntropyString"),
        hex=plugin("high_entropy_strings", "HexHighEntropyString"),
    )


# --- Private-key blocks -------------------------------------------------------------------

_Block = SecretFinding | None
_ENCRYPTED_KEY = re.compile(r"BEGIN ENCRYPTED PRIVATE KEY")  # PKCS#8; not in detect-secrets
_KEY_END = re.compile(r"-{4,5} ?END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}|Private-MAC: *\w+")
_BODY_LINE = re.compile(r"[>\s]*(?:[A-Za-z0-9+/=]*|[A-Za-z][\w-]*: .*)\s*")


def _key_blocks(lines: list[str], kit: _Kit) -> list[SecretFinding]:
    """Private keys from their BEGIN marker to their END (or their last line of key material)."""
    blocks: list[SecretFinding] = []
    for index, line in enumerate(lines):
        if blocks and index < (blocks[-1].end_line or 0):
            continue
        phrase = next(iter(kit.private_key.analyze_string(line)), None)
        match = re.search(re.escape(phrase), line) if phrase else _ENCRYPTED_KEY.search(line)
        if match is not None:
            start = len(line[: match.start()].rstrip("- "))
            body_from = len(line) - len(line[match.end() :].lstrip("- "))
            block = _key_block(lines, index, start, body_from)
            blocks += [block] if block is not None else []
    return blocks


def _key_block(lines: list[str], index: int, start: int, body_from: int) -> _Block:
    """The key whose header is `lines[index][start:body_from]`; None when no key material."""
    rest = [lines[index][body_from:], *lines[index + 1 :]]
    for offset, text in enumerate(rest):
        end = _KEY_END.search(text)
        chunk = text if end is None else text[: end.start()]
        if not _is_key_body(chunk):
            break
        if end is not None:
            column = end.end() + (body_from if offset == 0 else 0)
            return _key_finding([*rest[:offset], chunk], index, start, index + offset, column)
    if not _is_key_body(rest[0]):
        return None  # a BEGIN line quoted in prose
    body = [rest[0], *takewhile(lambda text: text.strip() and _is_key_body(text), rest[1:])]
    last = index + len(body) - 1  # no END marker: the key runs to its last line of material
    return _key_finding(body, index, start, last, len(lines[last]))


def _is_key_body(text: str) -> bool:
    """Base64 and `Header: value` lines, also as one JSON string with `\\n` escapes."""
    return all(_BODY_LINE.fullmatch(part) for part in text.split("\\n"))


def _key_finding(body: list[str], first: int, start: int, last: int, end: int) -> _Block:
    if sum(len(re.findall(r"[A-Za-z0-9+/]", part)) for part in body) < 40:
        return None
    return SecretFinding("private key", first + 1, start, end, last + 1 if last > first else None)


# --- One line: format plugins and supplements, keyword assignments, entropy in context ----

_Span = tuple[int, int, str]  # start, end, kind
_JWT_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=."

_SUPPLEMENTS = (  # (kind, regex); a group named `v` is the secret, else the whole match
    ("GitHub token", re.compile(r"github_pat_[A-Za-z0-9_]{60,}")),
    ("Anthropic API key", re.compile(r"sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{40,}")),
    ("OpenAI API key", re.compile(r"(?<![\w-])sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{40,}")),
    ("Google API key", re.compile(r"AIza[0-9A-Za-z_-]{35}")),
    ("password in URL", re.compile(r"://:(?P<v>[^\s:/?#\[\]@$]+)@")),
)
_PROSE_PASSWORD = re.compile(  # "the password is Tr0ub4dor&3", "with password Zx9-Lk2"
    r"\b(?:pass(?:word|phrase|code)|pwd)s?(?P<op>\s+(?:is|was)\s*:?|\s*[:=](?!=))?\s*[(`'\"]?"
    r"(?P<v>[^\s`'\"]+)",
    re.I,
)


def _line_spans(line: str, kit: _Kit, taken: list[tuple[int, int]]) -> list[_Span]:
    """Non-overlapping secret spans on `line`, clear of the columns already `taken`.

    A long line is scanned in pieces cut at spaces, each with some preceding text as context,
    because detect-secrets' keyword regexes take quadratic time on long lines.
    """
    spans = []
    for start, end in _pieces(line):
        low = max(0, start - _CONTEXT)  # begin the context at a word, never mid-token
        context = low if low == 0 else line.find(" ", low, start) + 1 or start
        piece = line[context:end]
        if _might_hold_secret(piece):
            found = [*_pattern_spans(piece, kit), *_keyword_spans(piece, kit)]
            found += _entropy_spans(piece, kit)
            spans += [(context + s, context + e, k) for s, e, k in found if context + s >= start]
    mask = bytearray(len(line))
    for start, end in taken:
        mask[start:end] = b"\1" * (end - start)
    free = [(s, e, k) for s, e, k in spans if mask.find(1, s, e) < 0]
    return _merge([(s, e, k) for s, e, k in free if not _is_placeholder(line[s:e])])


_PIECE, _CONTEXT = 2000, 200


def _pieces(line: str) -> list[tuple[int, int]]:
    """`line` as (start, end) pieces of about _PIECE characters, cut only after a space."""
    cuts = [0]
    while len(line) - cuts[-1] > _PIECE:
        space = line.rfind(" ", cuts[-1] + 1, cuts[-1] + _PIECE)
        space = space if space > 0 else line.find(" ", cuts[-1] + _PIECE)  # a token stays whole
        if space < 0:
            break
        cuts.append(space + 1)
    return list(zip(cuts, [*cuts[1:], len(line)], strict=True))


def _pattern_spans(line: str, kit: _Kit) -> list[_Span]:
    spans = []
    for plugin, kind in kit.patterns:
        for value in _plugin_values(plugin, kind, line):
            for m in re.finditer(re.escape(value), line):
                spans.append((m.start(), _extend_jwt(line, m.end(), kind), _refine(kind, value)))
    for kind, regex in _SUPPLEMENTS:
        group = "v" if "v" in regex.groupindex else 0
        spans += [(m.start(group), m.end(group), kind) for m in regex.finditer(line)]
    for m in _PROSE_PASSWORD.finditer(line):
        value = m.group("v").rstrip(".,;:)!?")
        bare_ok = any(c.isdigit() for c in value) and not _looks_like_identifier(value)
        said = m.group("op") or bare_ok  # bare: "with password Zx9-Lk2", not "password v2-flow"
        if said and _looks_like_password(value):
            spans.append((m.start("v"), m.start("v") + len(value), "password"))
    return spans


def _looks_like_password(value: str) -> bool:
    """After "password is", a password mixes letters with digits or symbols; a word is prose."""
    has_other = any(not (c.isalpha() or c == "_") for c in value)  # `confirm_password`: a name
    has_letter = any(c.isalpha() for c in value)
    return len(value) >= 6 and has_letter and has_other and not _is_reference(value)


def _plugin_values(plugin: Any, kind: str, line: str) -> list[str]:
    """What `plugin` reports as secret, but the whole match where it reports only a prefix."""
    if kind in ("GitHub token", "GitLab token"):  # their regexes capture just `ghp`, `glpat`
        return [match.group() for regex in plugin.denylist for match in regex.finditer(line)]
    return [value.split()[0] for value in plugin.analyze_string(line) if value.strip()]


def _extend_jwt(line: str, end: int, kind: str) -> int:
    """detect-secrets' JWT regex stops lazily before the signature; take the signature too."""
    tail = line[end:] if kind == "JWT" else ""
    return end + len(tail) - len(tail.lstrip(_JWT_CHARS))


def _refine(kind: str, value: str) -> str:
    if kind == "AWS access key" and not re.match(r"A3T|ABIA|ACCA|AKIA|ASIA", value):
        return "AWS secret access key"
    if kind == "Slack token" and value.startswith("https://"):
        return "Slack webhook URL"
    return kind


def _keyword_spans(line: str, kit: _Kit) -> list[_Span]:
    """Values assigned to secret-sounding names, each vetted by `_is_assigned`."""
    spans: list[_Span] = []
    for regex, group in kit.keyword_regexes.items():
        pos = 0
        while (match := regex.search(line, pos)) is not None:
            span = _value_span(line, match, group)
            if span is not None and _is_assigned(line, *span):
                spans.append((*span, _keyword_kind(line[: span[0]])))
            pos = max(pos + 1, span[1] if span else match.end())  # go on after the value
    return spans


def _value_span(line: str, match: re.Match[str], group: int) -> tuple[int, int] | None:
    """The value's columns: whole when quoted, else its first word less end punctuation."""
    start, end = match.span(group)
    if start and line[start - 1] in "'\"`" and line[end : end + 1] == line[start - 1]:
        return start, end
    words = line[start:end].split()
    word = words[0].rstrip(".,;:)]}>`'\"") if words else ""
    return (start, start + len(word)) if word else None


_ASSIGNMENT = re.compile(r"([A-Za-z_][\w.-]*)[\"'\]]*\s*(:=|=>|={1,3}|!==?|:)\s*@?[\"'`]?$")
_SETTING = re.compile(  # `password_min_length: 12`, `secretName: app-tls`: about a secret
    r"ids?|names?|ur[il]|path|file|dir|arn|ref|env|var|type|length|len|min|max|policy|hint|field"
    r"|label|version|count|ttl|expiry|expires|required|enabled|manager|store|provider"
    r"|rotation|reset|prompt"
)


def _is_assigned(line: str, start: int, end: int) -> bool:
    """False for values that are references, settings, code or prose, not a credential."""
    value = line[start:end]
    assignment = _ASSIGNMENT.search(line[max(0, start - 120) : start])
    key, op = assignment.groups() if assignment else ("", "")
    if _SETTING.fullmatch((_words(key) or [""])[-1]):
        return False
    if len(value) < 4 or not any(c.isalpha() for c in value):
        return False
    if start > 0 and line[start - 1] in "'\"`":
        return True
    return not (_is_reference(value) or _is_code_word(value, key, op, line[:start], line[end:]))


def _is_code_word(value: str, key: str, op: str, before: str, after: str) -> bool:
    """A variable, type, comparison or prose word: `password = auth`, `f(secret=secret)`,
    `password: SecretStr`, `if pwd == other`, `Password: see the vault`.

    `DB_PASSWORD=hunter` in an env file stays a secret.
    """
    if op in ("==", "===", "!=", "!=="):
        return True
    if re.fullmatch(r"[A-Za-z_]+", value) is None:
        return False
    if re.fullmatch(r"[a-z]+(?:_[a-z]+)+", value) or value.lower() == key.lower().split(".")[-1]:
        return True
    if op == ":":
        return after.strip() != "" or re.fullmatch(r"(?:[A-Z][a-z]+){2,}", value) is not None
    spaced = before.rstrip("\"'`@").endswith(" ") and value.islower()
    return op == "=" and (spaced or after.lstrip().startswith((",", ")")))


def _keyword_kind(before: str) -> str:
    assignment = _ASSIGNMENT.search(before[-120:])
    key = (assignment.group(1) if assignment else before[-60:]).lower()
    if re.search(r"pass|pwd|contrase", key):
        return "password"
    if re.search(r"api_?key", key):
        return "API key"
    return "AWS secret access key" if "aws" in key else "secret"


def _is_reference(value: str) -> bool:
    """Code or config pointing at a secret kept elsewhere: calls, names, URLs, paths, tags."""
    name = re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?::\w+)?", value)  # var.db, mod:fn
    return (
        any(c in value for c in "([")
        or (name is not None and sum(c.isdigit() for c in value) <= 2)
        or "://" in value
        or value.startswith(("/", "./", "../", "~/", "$", "%", "!"))  # `!vault`, `!Ref`
    )


_PLACEHOLDER = re.compile(
    r"<.*>|\{.*\}|%\(\w+\)s|%.*%|\.\.\.|\*+|x+|(?:change|replace)_?me|changeit|example|sample"
    r"|dummy|placeholder|redacted|hidden|masked|todo|tbd|fixme|none|null|nil|true|false|yes|no"
    r"|required|optional|empty|unset|default|test|foo|bar|foobar|value"
    r"|str|string|bytes|secretstr|any|object|bool|int|float|dict|list"  # type annotations
    r"|(?:your|my|insert|enter|replace)[-_].*|.*[-_]here|.*(?:\.\.\.|…)"
    r"|(?:your|my|the)?_?(?:pass(?:word)?|passwd|pwd|secret|token|api_?key)s?",
    re.I,
)


def _is_placeholder(value: str) -> bool:
    """Templates, examples and filler: `<pw>`, `xxxx`, `changeme`, `sk-...`, `your-key-here`."""
    return (
        _PLACEHOLDER.fullmatch(value.strip("'\"`")) is not None
        or "EXAMPLE" in value  # AWS documents AKIAIOSFODNN7EXAMPLE and ...EXAMPLEKEY
        or re.search(r"(.)\1{7}", value) is not None
        or (value.replace("-", "_").isidentifier() and _vocabulary(_words(value), _CREDENTIAL))
    )  # the last: `fal-ai-api-key`, `MY_TOKEN`, words that name a secret instead of being one


# --- Entropy in credential context --------------------------------------------------------

_CREDENTIAL = re.compile(
    r"keys?|tokens?|secrets?|passw(?:or)?d|pwd|passphrase|cred(?:ential)?s?|auth"
    r"|authorization|bearer|session(?:id)?|cookie|private|api_?key"
)
_DIGEST = re.compile(
    r"commit|sha\d*|md5|(?:md5|sha\d+)sum|digest|checksum|hash|fingerprint|rev|revision|oid"
    r"|etag|integrity|gpg|pgp"
)
_CANDIDATE = re.compile(r"[A-Za-z0-9+/_-]{20,}={0,2}")
_BASE64_LIMIT = 3.3  # detect-secrets defaults, 4.5 and 3.0, miss short keys; context is
_HEX_LIMIT = 3.0  # required here, so the limit can be lower
_EXPLAINED_BEFORE = re.compile(  # data URI, digest prefix, SSH public key
    r"(?:data:[\w/+.-]*;base64,|(?:sha\d*|md5|blake2[bs]?)[:=-]"
    r"|(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+) +)$",
    re.I,
)
_CREDENTIAL_QUERY = re.compile(r"[?&;][\w-]*(?:key|token|secret|pass\w*|auth|sig|session)=$", re.I)


def _entropy_spans(line: str, kit: _Kit) -> list[_Span]:
    """Random-looking tokens on a line whose other words name a credential."""
    tokens = [match.span() for match in _CANDIDATE.finditer(line)]
    words = [(m.start(), m.end(), m.group().lower()) for m in _WORD.finditer(line)]
    credentials = [(s, e) for s, e, word in words if _CREDENTIAL.fullmatch(word)]
    if not tokens or not credentials:
        return []
    digests = [(s, e) for s, e, word in words if _DIGEST.fullmatch(word)]
    in_token = bytearray(len(line))
    for start, end in tokens:
        in_token[start:end] = b"\1" * (end - start)
    labels = [(e, word) for s, e, word in words if not in_token[s]]  # words, not other tokens
    label_ends = [e for e, _ in labels]
    spans = []
    for start, end in tokens:
        value = line[start:end]
        if not _outside(credentials, start, end) or _explained(line, start, end):
            continue
        if re.fullmatch(r"[0-9a-fA-F]+", value):
            prior = [word for _, word in labels[: bisect_right(label_ends, start)][-2:]]
            unlabelled = len(value) in (32, 40, 64, 128) and not _vocabulary(prior, _CREDENTIAL)
            if unlabelled or _outside(digests, start, end):
                continue  # a commit id or checksum (MD5, SHA-1, SHA-256, SHA-512 sized)
            if _is_random(value, kit.hex, _HEX_LIMIT):
                spans.append((start, end, "high-entropy secret"))
        elif _is_random(value, kit.base64, _BASE64_LIMIT):
            spans.append((start, end, "high-entropy secret"))
    return spans


def _outside(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """True when one of `spans` lies outside the columns `start:end`."""
    return any(e <= start or s >= end for s, e in spans)


def _is_random(value: str, plugin: Any, limit: float) -> bool:
    from detect_secrets.filters.heuristic import is_potential_uuid, is_sequential_string

    if not (_has_digit(value) and any(c.isalpha() for c in value)):
        return False
    if _looks_like_identifier(value) or is_potential_uuid(value) or is_sequential_string(value):
        return False
    return bool(plugin.calculate_shannon_entropy(value) > limit)


def _looks_like_identifier(value: str) -> bool:
    """Words and a number or two joined up: `Sam2VideoSession`, `use_l2norm_in_kernel`.

    Random tokens break into many one- and two-character runs and scatter their digits.
    """
    runs = re.findall(r"[A-Z][a-z]+|[a-z]+|[A-Z]+(?![a-z])|\d+", value)
    snake_case = re.fullmatch(r"[a-z0-9]+(?:[-_][a-z0-9]+)+", value) is not None
    long_runs = sum(map(len, runs)) >= 3 * len(runs)
    return sum(run.isdigit() for run in runs) <= 2 and (snake_case or long_runs)


def _explained(line: str, start: int, end: int) -> bool:
    """True for a digest, data URI, SSH public key, URL path, example or id-like setting."""
    before = line[max(0, start - 120) : start]
    if line.startswith(("...", "…"), end) or _EXPLAINED_BEFORE.search(before):
        return True
    if re.match(r"sha\d+-", line[start:end], re.I):
        return True
    url = before[max(before.rfind(" "), before.rfind("("), before.rfind('"')) + 1 :]
    if "://" in url and not _CREDENTIAL_QUERY.search(before):
        return True
    assignment = _ASSIGNMENT.search(before)
    label = _words(assignment.group(1) if assignment else before[-20:])[-1:]
    return label in (["id"], ["ids"], ["name"], ["uuid"])  # `client_id: X`, `--job-id X`


_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")


def _words(text: str) -> list[str]:
    """Lower-case words, splitting camelCase and snake_case: `apiKeyId` -> api, key, id."""
    return [match.group().lower() for match in _WORD.finditer(text)]


def _vocabulary(words: list[str], vocabulary: re.Pattern[str]) -> bool:
    return any(vocabulary.fullmatch(word) for word in words)


def _merge(spans: list[_Span]) -> list[_Span]:
    """Overlapping spans become one, named by the most specific detector (listed first)."""
    ranked = sorted((s, e, rank, kind) for rank, (s, e, kind) in enumerate(spans) if e > s)
    merged: list[list[Any]] = []
    for start, end, rank, kind in ranked:
        if merged and start < merged[-1][1]:
            last = merged[-1]
            last[1] = max(last[1], end)
            if rank < last[2]:
                last[2:] = [rank, kind]
        else:
            merged.append([start, end, rank, kind])
    return [(s, e, kind) for s, e, _, kind in merged]
