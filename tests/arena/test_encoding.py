"""The arena's fast observation message equals the engine's plain form, in every variant, and
survives the trip through a request frame."""

from __future__ import annotations

import marshal

import pytest

from arena.runtime.protocol import encode_pick, observation_message
from engine import Observation, new_game


def through_the_wire(message: dict[str, object]) -> dict[str, object]:
    frame = encode_pick(7, message)
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    request = marshal.loads(frame[4:])
    assert request["id"] == 7 and request["op"] == "pick"
    obs: dict[str, object] = request["obs"]
    return obs


@pytest.mark.parametrize(("players", "variant"), [
    (4, []), (5, ["pass-both-ways", "soy-sauce"]), (2, ["two-player-dummy"]), (3, []),
])
def test_message_matches_to_dict(players: int, variant: list[str]) -> None:
    names = ['ünïcode "quoted" \\ name', "b", "c", "d", "e"][:players]
    for seed in range(3):
        state = new_game(names, seed, variant)
        while not state.over:
            public: dict[str, object] = {}
            for seat in range(players):
                obs = state.observation(seat, time_limit=0.25)
                ours = through_the_wire(observation_message(obs, public))
                assert ours == obs.to_dict()
                assert all(type(c) is str for c in ours["hand"])  # type: ignore[attr-defined]
                assert Observation.from_dict(ours) == Observation.from_dict(obs.to_dict())
            picks: list[object] = [state.legal_picks(s)[-1] for s in range(players)]
            if state.rules.dummy:
                controller = state.controller
                dummy_obs = state.observation(controller, for_dummy_after=picks[controller])
                assert through_the_wire(observation_message(dummy_obs, {})) == dummy_obs.to_dict()
                picks.append(state.legal_dummy_picks(picks[controller])[0])
            state = state.apply(picks)
