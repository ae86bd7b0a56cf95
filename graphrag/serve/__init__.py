"""Serving a vault: the HTTP app and its guard, live index updates, the MCP server."""
