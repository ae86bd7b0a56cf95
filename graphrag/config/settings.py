"""``Settings``: every section's dataclass, composed; built by ``graphrag.config.load``."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from graphrag.config.details import DetailsSettings
from graphrag.config.focus import FocusSettings
from graphrag.config.llm import LLMSettings
from graphrag.config.query import QuerySettings
from graphrag.config.server import ServerSettings
from indexer.config import EmbeddingSettings, IndexConfig, IndexSettings


@dataclass(frozen=True)
class Settings:
    index: IndexSettings = field(default_factory=IndexSettings)
    embedding: EmbeddingSettings = field(default_factory=EmbeddingSettings)
    focus: FocusSettings = field(default_factory=FocusSettings)
    query: QuerySettings = field(default_factory=QuerySettings)
    details: DetailsSettings = field(default_factory=DetailsSettings)
    server: ServerSettings = field(default_factory=ServerSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)

    @property
    def index_config(self) -> IndexConfig:
        return IndexConfig(index=self.index, embedding=self.embedding)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)
