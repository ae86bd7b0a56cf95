"""Where the test data lives, and writing files into a vault under test."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_VAULT = ROOT / "sample_vault"
SHARED_VAULTS = ROOT.parent / "shared" / "vaults"


def write(vault: Path, rel: str, text: str | bytes) -> Path:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path
