"""One game: what is asked of each seat, the turn loop, and what every outcome means.

Owns the game's side of the arena: :mod:`~arena.game.loop` (the turn loop, questions, seats
started and restarted), :mod:`~arena.game.seats`, :mod:`~arena.game.classify` (the one fault
classifier: what happened to a request, as the runtime reports it, becomes a fault or an
answer), :mod:`~arena.game.faults` (the fault policy: kinds, substitutes, restarts, barring),
:mod:`~arena.game.budget` (the time rule) and :mod:`~arena.game.result`. It holds no file
descriptor and starts no process: it asks through its host (the pool) and the runtime's jobs.

May import: ``engine``, :mod:`arena.runtime` (jobs, replies, processes, the hub),
:mod:`arena.botfiles`.
"""
