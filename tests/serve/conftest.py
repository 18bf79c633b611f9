"""Fixtures shared by the server's tests."""

from __future__ import annotations

import io
import logging

import pytest


@pytest.fixture
def serve_log():
    """The ``serve`` logger's lines, as text."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("serve")
    saved = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    yield stream
    logger.removeHandler(handler)
    logger.setLevel(saved)
