"""Settings: one frozen dataclass per section, composed into ``Settings``; ``load_settings`` reads them."""

from graphrag.config.load import load_settings
from graphrag.config.settings import Settings

__all__ = ["Settings", "load_settings"]
