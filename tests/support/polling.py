"""Waiting for something another thread or process does."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest


def wait_until(check: Callable[[], Any], timeout: float = 10.0, step: float = 0.1) -> Any:
    """Poll ``check`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"not true within {timeout} s: {check.__doc__ or check}")
        time.sleep(step)
