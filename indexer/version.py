"""The indexer's version (stored in every manifest; a new version re-resolves links) and its
chunker's (part of the settings hash: a new one re-parses every note)."""

__version__ = "0.1.0"

# Bumped when the same note would be cut into different chunks (``chunk.py``): an index
# built by an older chunker is re-parsed (``fresh.config_hash``); unchanged chunks keep
# their vectors. Here, not in ``chunk.py``: the freshness check every command runs
# needs the number, not the chunker (its regexes and dataclasses).
CHUNKER_VERSION = 2
