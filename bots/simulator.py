"""The accelerated simulator's entry point: ``simulate``, a whole tournament played by bots and watched as asked.

The tournament and its bots are ``bots.simulation.Simulation``, compiled with
mypyc (setup.py). This function stays in a module of its own, as Python:
mypy 2.4.1's compiler cannot build a function whose defaulted parameters are
followed by ``**field``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, Any

from bots.simulation import Progress, Report, Simulation, TextOut
from engine.director import Tournament
from engine.events import Event
from engine.structure import Definition

__all__ = ["Progress", "Report", "Simulation", "simulate"]


def simulate(definition: Definition, players: int, seed: int, *, events_out: IO[bytes] | None = None,
             hands_out: TextOut | None = None, progress: Callable[[Progress], None] | None = None,
             on_event: Callable[[Tournament, Event, float], None] | None = None, progress_every_s: float = 0.25,
             **field: Any) -> Report:
    """A ``Simulation`` of ``players`` bots watched as asked, run to its end; ``field`` as ``Simulation`` takes it
    (mix, people, late_players, reentry_probability, cancel_at_hand, strategies)."""
    simulation = Simulation(definition, players, seed, **field)
    simulation.events_out, simulation.hands_out, simulation.on_event = events_out, hands_out, on_event
    simulation.progress, simulation.progress_every_s = progress, progress_every_s
    return simulation.run()

