"""Which stored vectors this machine made: a keyed digest ("seal") of each one.

A row's checksum (vector_store.py) catches damage, but anyone can compute it: an index
committed to a shared repository could carry a vector that is not its text's, so that a card
ranks first for questions it does not answer. So each vector also carries a seal, a keyed
BLAKE2b digest of the model's id, the text's digest and the vector's bytes, under a key only
this user's machine cache holds (`<cache>/vector-key`, mode 0600). An index that is not the file
it was created as (a copy, a checkout) keeps only the vectors whose seal holds; without a key
(the cache cannot be written) it keeps none.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
from pathlib import Path

from cardvault.errors import CardvaultError
from cardvault.vault.cache import machine_cache
from cardvault.vault.confine import read_file

KEY_FILE = "vector-key"
KEY_BYTES = 32
SEAL_BYTES = 16
_keys: dict[Path, bytes] = {}


def machine_key() -> bytes | None:
    """This user's vector key (made now if there is none), or None when the machine cache
    cannot hold one."""
    path = machine_cache() / KEY_FILE
    known = _keys.get(path)
    if known is not None:
        return known
    key = _read_key(path)
    if key is None:
        with contextlib.suppress(OSError):
            _make_key(path)
        key = _read_key(path)
    if key is not None:
        _keys[path] = key
    return key


def seal(key: bytes, model_id: str, text_hash: str, row: bytes) -> bytes:
    """The seal of one stored vector: what it embeds (model, text digest) and its bytes."""
    digest = hashlib.blake2b(key=key, digest_size=SEAL_BYTES, person=b"cardvault-vec1")
    digest.update(model_id.encode("utf-8", "replace") + b"\0")
    digest.update(text_hash.encode("utf-8", "replace") + b"\0")
    digest.update(row)
    return digest.digest()


def sealed(key: bytes | None, model_id: str, text_hash: object, row: bytes, found: object) -> bool:
    """Whether `found` (a stored seal, or anything else a database holds) is the seal of this
    vector of the text whose digest is `text_hash` under `key`."""
    if key is None or not isinstance(found, bytes) or len(found) != SEAL_BYTES:
        return False
    if not isinstance(text_hash, str):
        return False
    return secrets.compare_digest(found, seal(key, model_id, text_hash, row))


def _read_key(path: Path) -> bytes | None:
    """The key in `path` when it is this user's own regular file of the right size."""
    try:
        key, _, info = read_file(path, KEY_BYTES)
    except (OSError, CardvaultError):
        return None
    getuid = getattr(os, "getuid", None)
    if getuid is not None and info.st_uid != getuid():
        return None
    return key if len(key) == KEY_BYTES else None


def _make_key(path: Path) -> None:
    """Write a new key under a temporary name, then link it into place: a process that loses
    the race keeps the winner's key, and no reader ever sees half a key."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{KEY_FILE}.{os.getpid()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(tmp, flags, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(secrets.token_bytes(KEY_BYTES))
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileExistsError):
            os.link(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
