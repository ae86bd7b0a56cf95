"""Query mode: a question and a token budget -> entry notes, related notes, connections."""
