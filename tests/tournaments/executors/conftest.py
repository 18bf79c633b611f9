"""One two-node Ray cluster for every test of this folder that asks for it
(tests/tournaments/executors/cluster.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.tournaments.executors.cluster import Cluster, two_nodes


@pytest.fixture(scope="package")
def cluster() -> Iterator[Cluster]:
    """A head and a second node on 127.0.0.1, started once and stopped after the folder."""
    with two_nodes() as started:
        yield started
