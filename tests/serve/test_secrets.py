"""A league's seed is its secret while games can be played with it: a participant who reads
everything the server shows (the API, every page, every replay, their bot's log), a site
published mid-season and ``arena rank`` tries to predict the next deal, and fails; once the
league is closed the seed is published, and the same attack then succeeds (so the test would
see a leak)."""

from __future__ import annotations

import re
import time

import pytest
from starlette.testclient import TestClient

from arena import ArenaOptions, SandboxMode, tournament_secret
from publish.site import write_site
from serve.app import make_app
from serve.pages import page_routes
from serve.service import Competition
from serve.status import GameMonitor
from tests.serve.test_api import FIRST, LAST, bearer, participant, submit
from tests.tournaments.fake_pool import fake_pool
from tournaments import LocalExecutor, new_league, play_batch, ranking_json, ranking_table
from tournaments.league import league_seed
from tournaments.settings import LEAGUE_SEED_BITS
from tournaments.store.league import LeagueStore

MIDDLE = b"def pick(obs):\n    return obs.hand[len(obs.hand) // 2]\n"


@pytest.fixture
def season(tmp_path):
    folder = tmp_path / "lg"
    new_league(folder, players=(3,))                 # a seed drawn at random, as serve does
    comp = Competition(folder, ArenaOptions(sandbox=SandboxMode.NONE, move_time=2,
                                            log_dir=folder / "logs"))
    organiser = comp.accounts.ensure_organiser()
    monitor = GameMonitor(folder, comp.season, starter=None)       # never started
    client = TestClient(make_app(comp, monitor, page_routes(comp, monitor, starter=FIRST)),
                        raise_server_exceptions=False)
    client.organiser, client.folder = organiser, folder
    yield client
    comp.close()


def play(folder, games: int) -> None:
    executor = LocalExecutor(ArenaOptions(), 1, pool_factory=fake_pool)
    with LeagueStore.open(folder, write=True) as store:
        play_batch(store, executor, games=games)


def everything_shown(client, token: str, bot: str) -> str:
    """All a participant can fetch: the API, the pages, every replay, their bot's log."""
    texts = []
    for path in ("/api/ranking", "/api/status", "/api/season", "/api/limits", "/index.html",
                 "/games/index.html", "/submit"):
        reply = client.get(path)
        assert reply.status_code == 200, (path, reply.text)
        texts.append(reply.text)
    texts += [client.get(f"/bots/{name}").text
              for name in set(re.findall(r'href="bots/([^"]+\.html)"', texts[4]))]
    games = client.get("/api/ranking").json()["games"]
    for n in range(1, games + 1):
        reply = client.get(f"/games/game-{n}.html")
        assert reply.status_code == 200
        texts.append(reply.text)
    texts.append(client.get(f"/api/bots/{bot}/log", headers=bearer(token)).text)
    return "\n".join(texts)


def guesses(shown: str, deal: int) -> set[int]:
    """Every deal seed the attacker can derive for ``deal`` from the numbers shown: each
    number as the league's seed (under today's derivation and the old 32-bit one), and each
    as the deal's seed itself."""
    found = set()
    for text in re.findall(r"\d+", shown):
        n = int(text[:60])
        found |= {n, league_seed(n, deal), league_seed(n, deal) >> 32}
    return found


def test_nothing_a_participant_can_fetch_predicts_the_next_deal(season, tmp_path):
    tokens = {name: participant(season, name) for name in ("alice", "bob", "carol")}
    for (name, token), bot in zip(tokens.items(), (FIRST, LAST, MIDDLE), strict=True):
        assert submit(season, token, bot, f"{name}_bot.py").status_code == 201
    play(season.folder, 12)
    with LeagueStore.open(season.folder) as store:
        seed = store.config().seed
        deals = max(g.deal for g in store.batches.planned()) + 1
        shown_seeds = [g.seed for g in store.games()]
        ranking = store.ranking()
    assert seed.bit_length() > LEAGUE_SEED_BITS - 16              # drawn from 128 bits
    # The deal seeds shown with each game's record are 64-bit hashes of the league's seed.
    assert all(s < 1 << 64 for s in shown_seeds) and max(shown_seeds) >= 1 << 32

    shown = everything_shown(season, tokens["alice"], "alice_bot")
    site = tmp_path / "site"
    write_site(season.folder, site, replays=None, warn=False)      # published mid-season
    shown += "\n".join(p.read_text(encoding="utf-8", errors="replace")
                       for p in site.rglob("*") if p.is_file())
    shown += ranking_json(ranking) + ranking_table(ranking)       # arena rank
    assert str(seed) not in shown and tournament_secret(seed).hex() not in shown
    with LeagueStore.open(season.folder) as store:     # nor in a log line or error showing them
        config = store.config()
    options = config.arena_options(ArenaOptions(sandbox=SandboxMode.NONE))
    assert str(seed) not in repr(config) and repr(tournament_secret(seed)) not in repr(options)
    assert ranking.tournament.seed is None and "kept secret" in shown

    predicted = guesses(shown, deals)
    play(season.folder, 6)
    with LeagueStore.open(season.folder) as store:
        upcoming = {g.seed for g in store.batches.planned() if g.deal == deals}
    assert upcoming and not upcoming & predicted, "the next deal was predicted"

    with LeagueStore.open(season.folder, write=True) as store:     # arena league close
        store.close_league()
    deadline = time.monotonic() + 10                # the leaderboard served is cached briefly
    while (published := season.get("/api/ranking").json()["tournament"]["seed"]) is None:
        assert time.monotonic() < deadline, "the closed league's seed was not published"
        time.sleep(0.1)
    assert published == seed                                      # now it is shown ...
    assert upcoming <= guesses(str(published), deals)             # ... and the attack works
    with (LeagueStore.open(season.folder, write=True) as store,
          pytest.raises(ValueError, match="no more games in this league: the league was closed")):
        play_batch(store, LocalExecutor(ArenaOptions(), 1, pool_factory=fake_pool), games=3)


def test_serving_a_league_whose_seed_could_be_searched_draws_a_secret_one(tmp_path, capsys):
    from cli.serve import _prepare

    folder = tmp_path / "lg"
    new_league(folder, players=(3,), seed=11)            # an organiser's test league
    _prepare(folder, None, None, None, None)
    with LeagueStore.open(folder) as store:
        drawn = store.config().seed
    assert drawn != 11 and drawn.bit_length() > LEAGUE_SEED_BITS - 16
    assert "games from now on follow a new, secret one" in capsys.readouterr().out
    _prepare(folder, None, None, None, None)              # a strong seed stays as it is
    with LeagueStore.open(folder) as store:
        assert store.config().seed == drawn
    assert "secret one" not in capsys.readouterr().out
