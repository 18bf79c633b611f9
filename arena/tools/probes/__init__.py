"""Probe bots for ``arena bench``'s fairness measurements: plain bot files."""

from __future__ import annotations

from pathlib import Path

__all__ = ["PROBES"]

#: The folder holding the probe bot files.
PROBES = Path(__file__).resolve().parent
