"""How a note's own text is shown: cut at blocks, embeds inlined, properties in YAML's
spelling, and for a question its best passages (docs/architecture.md, "Text shown to a
model")."""

from graphrag.details.excerpt import CUT, excerpt
from graphrag.details.passages import query_details, section_text
from graphrag.details.properties import property_lines
from graphrag.details.text import NoteText

__all__ = ["CUT", "NoteText", "excerpt", "property_lines", "query_details", "section_text"]
