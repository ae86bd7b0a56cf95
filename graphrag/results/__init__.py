"""The JSON contract: result dataclasses of every mode, each with ``to_json``."""
