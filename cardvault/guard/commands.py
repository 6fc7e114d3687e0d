"""Passwords given on a command line: `mysql -pS3cret`, `curl -u deploy:S3cret`, `sshpass -p`.

Notes are full of pasted commands whose password argument no token format or `name=value`
rule sees. Each rule names its tool, so `-p` after `mysql` is a password while `-p 8080` after
`docker run` is a port; a reference (`$MYSQL_PWD`, `<password>`) is no secret.
"""

from __future__ import annotations

import re

from cardvault.guard.finding import Span

# The value: a quoted string or a run of non-space characters, in group `v`.
_VALUE = r"""(?:'(?P<sq>[^'\n]+)'|"(?P<dq>[^"\n]+)"|(?P<v>[^\s'"`|;&<>()]+))"""
# Up to 12 arguments before the flag, on the same command (no pipe, `;` or `&&` in between)
# and not prose: a word ending in `,` `.` `!` `?` ends the command ("ran mysql, then rsync -p").
_ARGS = r"""(?:\s+[^\s|;&]*[^\s|;&,.!?]){0,12}?"""

_RULES = (  # (tool, regex matching from the tool's name to the value)
    (
        "mysql",
        rf"\b(?:mysql\w*|mariadb\w*)(?:-\w+)?{_ARGS}\s-p{_VALUE}",  # -pS3cret: no space
    ),
    ("curl", rf"\bcurl{_ARGS}\s(?:-u\s*|--user[\s=]+)['\"]?[^\s:'\"]*:{_VALUE}"),
    ("sshpass", rf"\bsshpass{_ARGS}\s-p\s*{_VALUE}"),
    (
        "registry login",
        rf"\b(?:docker|podman|buildah|nerdctl|skopeo|helm(?:\s+registry)?|oras|az(?:\s+acr)?)"
        rf"\s+login{_ARGS}\s(?:-p|--password)(?:\s+|=){_VALUE}",
    ),
    ("redis-cli", rf"\bredis-cli{_ARGS}\s(?:-a|--pass)\s+{_VALUE}"),
    (
        "mongo",
        rf"\bmongo(?:sh|dump|restore|import|export)?{_ARGS}\s(?:-p|--password)[\s=]+{_VALUE}",
    ),
    ("ldap", rf"\bldap(?:search|add|modify|delete|passwd|whoami){_ARGS}\s-w\s+{_VALUE}"),
    ("sqlcmd", rf"\b(?:sqlcmd|bcp|osql){_ARGS}\s-P\s*{_VALUE}"),
    ("smbclient", rf"\bsmbclient{_ARGS}\s-U\s*['\"]?[^\s%'\"]+%{_VALUE}"),
    ("openssl", rf"\s-pass(?:in|out)?\s+['\"]?pass:{_VALUE}"),
    ("keytool", rf"\bkeytool{_ARGS}\s-(?:store|key|src|dest)(?:store)?pass\s+{_VALUE}"),
    ("sudo -S", rf"\becho\s+{_VALUE}\s*\|\s*sudo(?:\s+-\w+)*\s+-\w*S\b"),  # pw on stdin
    ("htpasswd", rf"\bhtpasswd\s+-\w*b\w*\s+(?:\S+\s+)?\S+\s+{_VALUE}"),  # [file] user pw
)
_PATTERNS = tuple(re.compile(regex) for _, regex in _RULES)
_REFERENCE = re.compile(r"^[$%]|\$[({]|^<.*>$|^\{.*\}$")  # $VAR, ${VAR}, $(cmd), %VAR%, {{pw}}


def command_spans(line: str) -> list[Span]:
    """Passwords passed as arguments to the tools above, as (start, end, kind)."""
    spans: list[Span] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(line):
            group = next(g for g in ("sq", "dq", "v") if match.group(g) is not None)
            value = match.group(group)
            if len(value) >= 3 and not _REFERENCE.search(value):
                spans.append((match.start(group), match.end(group), "password on a command line"))
    return spans
