"""The indexer's version: stored in every manifest; a new version re-resolves links."""

__version__ = "0.1.0"
