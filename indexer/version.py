"""The indexer's version (stored in every manifest; a new version re-resolves links), its
chunker's (part of the settings hash: a new one re-parses every note) and its link
resolution rules' (in every manifest: a new one re-resolves links)."""

__version__ = "0.1.0"

# Bumped when the same note would be cut into different chunks (``chunk.py``): an index
# built by an older chunker is re-parsed (``fresh.config_hash``); unchanged chunks keep
# their vectors. Here, not in ``chunk.py``: the freshness check every command runs
# needs the number, not the chunker (its regexes and dataclasses).
CHUNKER_VERSION = 2

# Bumped when the same link in the same vault could resolve differently (``resolve.py``):
# an index whose manifest names another version (or none) resolves every stored link again
# on its next update, even of an unchanged vault, without re-parsing or re-embedding
# (``build.build_index``; ``fresh.index_is_current`` says it is not current).
# 2: Dendron's ``[[label|target]]`` and ``dendron://vault/`` links.
RESOLVE_VERSION = 2
