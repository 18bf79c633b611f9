"""The arena's fast observation encoding equals the engine's JSON form, in every variant."""

from __future__ import annotations

import json

import pytest

from arena.game import encode_observation
from engine import Observation, new_game


@pytest.mark.parametrize(("players", "variant"), [
    (4, []), (5, ["pass-both-ways", "soy-sauce"]), (2, ["two-player-dummy"]), (3, []),
])
def test_encoding_matches_to_dict(players: int, variant: list[str]) -> None:
    names = ['ünïcode "quoted" \\ name', "b", "c", "d", "e"][:players]
    for seed in range(3):
        state = new_game(names, seed, variant)
        while not state.over:
            public: list[str] = []
            for seat in range(players):
                obs = state.observation(seat, time_limit=0.25)
                ours = json.loads(encode_observation(obs, public))
                assert ours == json.loads(json.dumps(obs.to_dict()))
                assert Observation.from_dict(ours) == Observation.from_dict(obs.to_dict())
            picks: list[object] = [state.legal_picks(s)[-1] for s in range(players)]
            if state.rules.dummy:
                controller = state.controller
                dummy_obs = state.observation(controller, for_dummy_after=picks[controller])
                ours = json.loads(encode_observation(dummy_obs, []))
                assert ours == json.loads(json.dumps(dummy_obs.to_dict()))
                picks.append(state.legal_dummy_picks(picks[controller])[0])
            state = state.apply(picks)
