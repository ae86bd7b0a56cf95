"""The simpler searches (semantic, lexical, hybrid, graph, hierarchical) and note lookups."""
