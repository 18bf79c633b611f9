"""The Python API: a tournament or one game from bot files, the result as a value."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import replay
from tournaments.api import play_game, run_tournament
from tournaments.ranking import ranking_json

BOTS = Path(__file__).resolve().parent / "bots"


def test_run_tournament_returns_the_ranking(tmp_path: Path) -> None:
    ranking = run_tournament([BOTS / "first.py", "random"], cycles=2, seed=3,
                             move_time=0.5, out=tmp_path / "t")
    assert ranking.complete and ranking.to_json()["format"] == "sushi-go-ranking/1"
    assert ranking.tournament.players == (2,) and ranking.games == 4
    assert sorted(b.name for b in ranking.bots) == ["first", "random"]
    assert all(b.time.requests > 0 for b in ranking.bots)
    assert (tmp_path / "t" / "ranking.json").read_text() == ranking_json(ranking)
    again = run_tournament([BOTS / "first.py", "random"], cycles=2, seed=3, move_time=0.5)
    assert again.to_json() == ranking.to_json()
    # Scripts written for the dict the API used to return still read it by key.
    assert ranking["bots"] == ranking.to_json(times=True)["bots"]
    assert ranking["bots"][0]["name"] == ranking.bots[0].name


def test_play_game_returns_a_replayable_record() -> None:
    game = play_game(["random", "greedy", BOTS / "first.py"], seed=7, move_time=0.5)
    assert game.record["players"] == ["random", "greedy", "first"] and game.faults == []
    replay(game.record)


def test_bad_input_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="no such bot file or built-in bot"):
        run_tournament(["nobody"])
    with pytest.raises(ValueError, match="at least 2 bots"):
        run_tournament(["random"])


def test_folder_bots_packages_and_limits(tmp_path: Path) -> None:
    from arena import BotLimits
    from tests.tournaments.folders import learned, zipped
    from tournaments.store.database import StoreError

    bot = learned(tmp_path / "src")
    packed = zipped(bot, tmp_path / "packed.zip")
    game = play_game([bot, packed, "random"], seed=2, move_time=5, packages=["tabulate"])
    assert game.record["players"] == ["learned", "packed", "random"] and game.faults == []
    ranking = run_tournament([bot, packed], cycles=1, seed=2, move_time=5,
                             packages=["tabulate"], out=tmp_path / "t")
    assert ranking.games == 2 and all(sum(b.faults.values()) == 0 for b in ranking.bots)
    assert [p.name for p in ranking.packages or ()] == ["numpy", "tabulate"]
    with pytest.raises(StoreError, match="holds a different tournament .--allow-package"):
        run_tournament([bot, packed], move_time=5, out=tmp_path / "t")
    with pytest.raises(ValueError, match="package 'no-such-package-here' is not installed"):
        play_game([bot, "random"], packages=["no-such-package-here"])
    with pytest.raises(ValueError, match="learned: more than 1 files"):
        play_game([bot, "random"], bot_limits=BotLimits(max_files=1))
