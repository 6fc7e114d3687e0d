"""The cheap gate: text no detector could fire on never imports detect-secrets.

Substring tests and three small regexes screen a plain note in ~0.2 ms; only text that
passes them pays for loading the plugins (see `plugins`).
"""

from __future__ import annotations

import re

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
npm_ hvs. hvb. hvr. dckr_ hf_ gocspx- shpat_ shpca_ shppa_ shpss_ _v1_ dp. pmak- glsa_ glc_ xapp-
sntr dapi atatt3 lin_api_ age-secret-key- q~ nrak- pul- sbp_ gsk_ r8_ pplx- cloudant softlayer ibm
mysql mariadb curl sshpass login redis-cli mongo ldap sqlcmd bcp osql smbclient pass: keytool
htpasswd sudo
"""
FRAGMENTS = (*_FRAGMENT_TEXT.split(), "private key")
# Shapes: AWS key id, sk- keys, SendGrid, Twilio, Discord, Telegram, Mailchimp, URL password.
_SHAPES = re.compile(
    r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}|sk-[\w-]{20}|SG\.[\w-]{22}\."
    r"|(?:AC|SK)[a-z0-9]{32}|[MNO][\w-]{23,25}\.[\w-]{6}\.|\d{8,10}:[\w-]{35}|-us\d"
    r"|://[^\s/@]+@|(?:AKC|AP[\dA-F])[a-zA-Z0-9]{8,}"
)
_HINT = re.compile(r"key|token|secret|pass|pwd|cred|auth|bearer|session|cookie|priv")
_LONG_RUN = re.compile(r"[A-Za-z0-9+/_-]{20,}")


def might_hold_secret(text: str) -> bool:
    """False when no detector could fire: no fragment or shape of a known secret, and no
    credential word beside a long token with a digit (what entropy detection needs)."""
    lower = text.lower()
    return (
        any(fragment in lower for fragment in FRAGMENTS)
        or _SHAPES.search(text) is not None
        or (_HINT.search(lower) is not None and any(map(has_digit, _LONG_RUN.findall(text))))
    )


def has_digit(text: str) -> bool:
    """True when `text` holds a digit."""
    return any(c.isdigit() for c in text)
