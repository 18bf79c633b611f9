"""A short load on a real server (the 5-minute one is benchmarks/serve_load.py): readers and
submitters at once while games are played; every answer is one the load asked for, and every
bot the server accepted is in the league once, as sent."""

from __future__ import annotations

from tests.serve.load import check_entries, run_load
from tests.serve.server import FIRST, Server, submit


def test_a_short_load_loses_nothing_and_enters_nothing_twice(tmp_path):
    lg = tmp_path / "lg"
    server = Server(lg)
    try:
        organiser = server.organiser or ""
        for name in ("p1", "p2", "p3", "p4"):                  # a field that plays
            path = tmp_path / f"{name}.py"
            path.write_text(FIRST + f"# {name}\n")
            assert submit(server.url, path, server.participant(name, organiser)
                          ).returncode == 0
        server.wait_games(4)
        tokens = {name: server.participant(name, organiser) for name in ("s1", "s2")}
        report = run_load(server.url, tokens, ["p1", "p2", "p3", "p4"], readers=10,
                          seconds=10, think=0.25, every=1)
        assert report.unexpected() == []
        assert sum(report.statuses["submit"].values()) >= 6
        assert report.statuses["submit"][201] >= 2 and report.statuses["submit"][422] >= 1
        assert report.statuses["submit"][401] == 2
        assert sum(len(v) for v in report.latencies.values()) >= 100
        before = {(f"p{i}", 1) for i in range(1, 5)}
        assert check_entries(lg, report, before) == []
        assert server.get("/api/status")[1]["playing"] is True
    finally:
        server.stop()
