"""The secret guard: finds credentials in text bound for the vault, to refuse or redact them.

Every path that writes memory passes its text through `ensure_no_secrets` (refuse) or
`redact_text` (`--redact`); `check` reports `scan_text` findings for stored files. A finding
names the kind of secret and where it is, never the value; what it finds and misses is in
docs/hostile-input.md.

Detection is Yelp's detect-secrets run in-process line by line, plus the detectors of this
package for what notes need that it gets wrong. Importing it costs 110-150 ms, so it loads only
when the cheap pre-screen (`gate`) finds something a detector could fire on.
"""

from cardvault.guard.finding import SecretFinding
from cardvault.guard.gate import FRAGMENTS as _FRAGMENTS  # noqa: F401 - a test checks it
from cardvault.guard.scan import ensure_no_secrets, redact_text, scan_text, secrets_added
from cardvault.guard.words import looks_random

__all__ = [
    "SecretFinding",
    "ensure_no_secrets",
    "looks_random",
    "redact_text",
    "scan_text",
    "secrets_added",
]
