"""Settings: one frozen dataclass per section, composed into ``Settings``; ``load_settings`` reads them."""

from graphrag.config.load import Settings, load_settings

__all__ = ["Settings", "load_settings"]
