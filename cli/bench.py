"""``arena bench``: engine and arena speed on this machine, and the fair share of a core."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from tabulate import tabulate

from arena import (
    PLAYER_COUNTS,
    ArenaOptions,
    SandboxMode,
    SandboxUnavailable,
    api_games_per_s,
    arena_overhead,
    check_sandbox,
    fanout_round_trip_us,
    language_costs,
    pipe_round_trip_us,
    playout_games_per_s,
)
from tournaments import SITUATIONS, core_share

__all__ = ["bench_command"]


def bench_command(
    json_out: Annotated[bool, typer.Option("--json", help="End with one line of JSON.")] = False,
    quick: Annotated[bool, typer.Option(help="Fewer games per measurement.")] = False,
    fairness: Annotated[bool, typer.Option(
        help="Also measure the core share of a thinking probe bot in real runs (about a "
        "minute; 20 s with --quick).")] = True,
    bots: Annotated[list[Path] | None, typer.Option(
        "--bot", help="Also measure this bot's game start and request round trip next to a "
        "trivial Python bot (repeatable: e.g. a C and a Rust bot's folders).",
        metavar="PATH")] = None,
) -> None:
    """Measure engine and arena speed on this machine and print a table."""
    scale = 5 if quick else 1
    api = {str(n): round(api_games_per_s(n, games=200 // scale), 1) for n in PLAYER_COUNTS}
    playout = {str(n): round(playout_games_per_s(n, games=1000 // scale), 1)
               for n in PLAYER_COUNTS}
    result: dict[str, object] = {"api_games_per_s": api, "playout_games_per_s": playout}
    rows = [[n, api[str(n)], playout[str(n)]] for n in PLAYER_COUNTS]
    typer.echo(tabulate(rows, headers=["players", "API games/s", "playout games/s"]))
    sandbox = SandboxMode.BWRAP
    try:
        check_sandbox(ArenaOptions(sandbox=SandboxMode.BWRAP))
    except SandboxUnavailable as err:
        sandbox = SandboxMode.NONE
        typer.echo(f"note: arena measured without a sandbox ({err})", err=True)
    round_trip = pipe_round_trip_us(repeats=3 if quick else 5)
    fanout = fanout_round_trip_us(repeats=3 if quick else 5)
    arena = arena_overhead(games=20 // scale, repeats=3 if quick else 5, sandbox=sandbox)
    result["pipe_round_trip_us"] = round(round_trip, 1)
    result["arena_turn_overhead_us"] = round(arena["arena_turn_overhead_us"], 1)
    result["arena_turn_us"] = round(arena["arena_turn_us"], 1)
    result["fanout_round_trip_us"] = round(fanout, 1)
    result["bot_start_ms"] = round(arena["bot_start_ms"], 1)
    result["bot_load_ms"] = round(arena["bot_load_ms"], 1)
    result["bot_load_numpy_ms"] = round(arena["bot_load_numpy_ms"], 1)
    result["game_ms"] = round(arena["game_ms"], 1)
    result["arena_sandbox"] = sandbox
    typer.echo("")
    typer.echo(tabulate([
        ["raw JSON round trip to a child Python", f"{round_trip:.1f} us"],
        ["same, to 4 children at once", f"{fanout:.1f} us"],
        [f"arena turn, 4 trivial bots ({sandbox})", f"{arena['arena_turn_us']:.1f} us"],
        ["bare engine turn", f"{arena['bare_turn_us']:.1f} us"],
        ["arena overhead per turn", f"{arena['arena_turn_overhead_us']:.1f} us "
         f"({arena['arena_turn_overhead_us'] / round_trip:.1f}x round trip)"],
        ["sandbox boot (runner ready, ahead of need)", f"{arena['bot_start_ms']:.1f} ms"],
        ["bot load into a booted sandbox", f"{arena['bot_load_ms']:.1f} ms"],
        ["same, a bot that imports numpy", f"{arena['bot_load_numpy_ms']:.1f} ms"],
        ["whole 4-player game, fresh processes", f"{arena['game_ms']:.1f} ms"],
    ], headers=["arena", "time"]))
    if bots:
        result["languages"] = _languages(bots, sandbox, quick=quick)
    if fairness:
        result["core_share"] = _fairness(sandbox, games=2 if quick else 6)
    if json_out:
        typer.echo(json.dumps(result))


def _fairness(sandbox: SandboxMode, *, games: int) -> dict[str, dict[str, float]]:
    """The probe's core share in each situation of :data:`tournaments.fairness.SITUATIONS`."""
    shares: dict[str, dict[str, float]] = {}
    rows = []
    for situation in SITUATIONS:
        share = core_share(situation, games=games, sandbox=sandbox)
        shares[situation] = {"mean": round(share.mean, 3), "p5": round(share.p5, 3),
                             "cores_busy": round(share.busy, 3), "picks": share.picks}
        rows.append([situation, f"{share.mean:.2f}", f"{share.p5:.2f}", f"{share.busy:.0%}"])
    typer.echo("")
    typer.echo(tabulate(rows, headers=["a probe spinning 60% of its 0.2 s move time",
                                       "core share", "5th pct", "cores busy"]))
    return shares


def _languages(bots: list[Path], sandbox: SandboxMode, *, quick: bool
               ) -> dict[str, dict[str, float]]:
    """Each bot's game start and request round trip, next to a trivial Python bot's."""
    from arena import BotFilesError, BotLoadError, program_language, read_bot, resolve_bots

    named = []
    for path in bots:
        try:
            resolve_bots([str(path)])
            files = read_bot(path)
        except (BotLoadError, BotFilesError) as err:
            typer.echo(f"error: {err}", err=True)
            raise typer.Exit(2) from None
        found = program_language(files.files)
        language = "Python" if found is None else found[0]
        named.append((f"{language}: {path.name}", path))
    try:
        costs = language_costs(named, games=2 if quick else 4, repeats=2 if quick else 3,
                               sandbox=sandbox)
    except RuntimeError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from None
    typer.echo("")
    typer.echo(tabulate(
        [[("Python: a trivial bot" if name == "python" else name), f"{c['start_ms']:.1f} ms",
          f"{c['request_us']:.0f} us"] for name, c in costs.items()],
        headers=[f"bot ({sandbox})", "game start (load)", "per request (round trip)"]))
    return {name: {k: round(v, 1) for k, v in c.items()} for name, c in costs.items()}
