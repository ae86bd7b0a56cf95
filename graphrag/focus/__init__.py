"""Focus mode: a note and a token budget -> the note and its most relevant neighbourhood."""
