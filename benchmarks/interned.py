"""CPython 3.11's table of interned strings, read in place: how full it is.

``sys.intern`` (and pathlib, which interns every part of every path it parses) adds a
string to one dict of the interpreter's; a string interned and freed again leaves its
entry behind, and when the entries run out the table is rebuilt, at twice the slots if
more than a third of them are alive (131,072 -> 262,144 slots: +1.8 MB in a server).
No API tells how full it is, so this reads the dict itself: the ``interned`` symbol's
offset (``nm``) in the library or executable holding the interpreter, plus where that
is mapped. Used by ``soak_probe.py``, ``soak_replica.py`` and the tests of what a
server interns; ``interned_table()`` is empty wherever it cannot be read (no ``nm``, a
stripped build, not Linux, another Python).
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

_ADDRESS: list[int | None] = []


def _address() -> int | None:
    try:
        with open("/proc/self/maps", encoding="utf-8") as fh:
            maps = [line.split() for line in fh]
    except OSError:
        return None
    bases: dict[str, int] = {}
    for fields in maps:
        if len(fields) >= 6 and fields[5] not in bases and int(fields[2], 16) == 0:
            bases[fields[5]] = int(fields[0].split("-")[0], 16)
    exe = os.path.realpath("/proc/self/exe")
    owner = next((f for f in bases if "libpython3" in f.rsplit("/", 1)[-1]), exe)
    if owner not in bases:
        return None
    try:
        out = subprocess.run(["nm", owner], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[2] == "interned" and fields[1] in "bBdD":
            return bases[owner] + int(fields[0], 16)
    return None


def interned_table() -> dict[str, int]:
    """``used`` (strings alive), ``slots``, and ``entries`` added since the table was last
    rebuilt (alive or dead: ``entries - used`` are names interned and freed again); {}
    where unknown."""
    if not _ADDRESS:
        _ADDRESS.append(_address() if sys.version_info[:2] == (3, 11) else None)
    where = _ADDRESS[0]
    table = ctypes.c_void_p.from_address(where).value if where is not None else None
    if not table:
        return {}
    # PyDictObject: refcount, type, ma_used, version, ma_keys; PyDictKeysObject:
    # refcount, log2 of the size (uint8) ..., dk_usable, dk_nentries.
    keys = ctypes.c_void_p.from_address(table + 32).value or 0
    return {
        "used": ctypes.c_ssize_t.from_address(table + 16).value,
        "slots": 1 << ctypes.c_uint8.from_address(keys + 8).value,
        "entries": ctypes.c_ssize_t.from_address(keys + 24).value,
    }
