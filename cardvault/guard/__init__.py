"""The secret guard: finds credentials in text bound for the vault, to refuse or redact them.

Every path that writes memory passes its text through `ensure_no_secrets` (refuse) or
`redact_text` (`--redact`); `check` reports `scan_text` findings for stored files. A finding
names the kind of secret and where it is, never the value.

Detection is Yelp's detect-secrets, run in-process line by line without its global settings:
its format plugins (AWS, GitHub, GitLab, Slack, OpenAI, JWT, private key, basic-auth URL,
Stripe, SendGrid, Twilio, PyPI, npm, Discord, Telegram, Mailchimp, Square, Azure storage,
Artifactory, Cloudant, IBM Cloud IAM, IBM COS HMAC, SoftLayer); `KeywordDetector`'s config-file
regexes (`password=x`, `api_key: x`, `=>`, `:=`); and its Base64/Hex Shannon entropy, only for
20+ character tokens on a line that names a credential.

Notes are not config files, so on top of that this package adds, each for a corpus case in
tests/fixtures/secrets that detect-secrets 1.5 gets wrong:
- recall: whole private-key blocks (it flags the BEGIN line only, so redaction would leave the
  key), `BEGIN ENCRYPTED PRIVATE KEY`, `github_pat_`, Anthropic `sk-ant-`, OpenAI keys without
  the `T3BlbkFJ` marker, Google `AIza` keys, `redis://:pw@` (no user), "the password is X",
  JWT signatures (its regex stops before them), lower entropy limits inside credential
  context (a random 32-character key scores ~4.3, under its default 4.5), prefixed token
  formats it does not know (npm `npm_`, HashiCorp Vault `hvs.`, Docker `dckr_pat_`, Hugging
  Face, Google OAuth secrets and two dozen more: `patterns`), and passwords passed on command
  lines (`mysql -pX`, `curl -u user:X`, `sshpass -p X`, `docker login -p X`...: `commands`);
- precision: keyword values are vetted (placeholders like `changeme`, `xxx`, `<pw>`; references
  like `${X}`, `os.environ[...]`, `var.x`; settings like `password_min_length`; code such as
  `password = auth`; prose after a colon); AWS's documented `...EXAMPLE` keys are not secrets;
  entropy skips UUIDs, identifiers, digests (commit ids, `sha256:`, `sha512-`, lines that say
  commit/hash/checksum), data URIs, URL paths, SSH and age public keys.
On the corpus (93 secret notes, 93 look-alikes) detect-secrets alone, scanning each case as a
.md file with default settings, finds 44 and flags 21 look-alikes; this guard finds all 93 and
flags none (`python benchmarks/guard_corpus.py`; the rules were written against the corpus, so
these are training-set numbers; docs/hostile-input.md gives the held-out measurement).

Importing detect-secrets costs 110-150 ms (mostly `requests`), so it loads only when the text holds
something a detector could fire on; a plain note is screened by substring tests in ~0.2 ms.

Modules: `finding` (SecretFinding), `gate` (the cheap pre-screen), `plugins` (the detect-secrets
adapter, loaded lazily), `keyblocks` (private-key blocks), `patterns` (token formats),
`commands` (passwords on command lines),
`keywords` (keyword assignments), `entropy` (entropy in credential context), `vetting`
(references and placeholders), `words` (how a line is read), `line` (all detectors on one line),
`scan` (`scan_text`, `secrets_added`), `redact` (`redact_text`), `refuse` (`ensure_no_secrets`);
`words.looks_random` judges a bare token with no context (a file name, a query).
"""

from cardvault.guard.finding import SecretFinding
from cardvault.guard.gate import FRAGMENTS as _FRAGMENTS  # noqa: F401 - a test checks it
from cardvault.guard.redact import redact_text
from cardvault.guard.refuse import ensure_no_secrets
from cardvault.guard.scan import scan_text, secrets_added
from cardvault.guard.words import looks_random

__all__ = [
    "SecretFinding",
    "ensure_no_secrets",
    "looks_random",
    "redact_text",
    "scan_text",
    "secrets_added",
]
