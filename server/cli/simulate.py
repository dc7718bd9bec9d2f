"""``mttsim simulate``: a whole tournament played by bots in accelerated time; with ``--runs``, the lab."""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
from pathlib import Path
from typing import Any

import msgspec

from bots.lab import Field, compare, expected_field, lab
from bots.labreport import compare_text, lab_summary, write_compare_html
from bots.labreport import write_html as write_lab_html
from bots.playstats import CountingWriter
from bots.simulator import Progress, Report, simulate
from bots.strategies import parse_mix
from engine.structure import Definition, default_definition, pace_of
from server.cli.common import command, read_definition
from server.cli.stats import print_stats

EXAMPLE = ("  mttsim simulate --players 2000 --seed 7\n"
              "  mttsim simulate --players 100000 --jobs 2\n"
              "  mttsim simulate --players 2000 --runs 8 --report lab.html\n"
              "  mttsim simulate --compare 15min.json 20min.json --players 300 --runs 8 --report compare.html\n"
              "  mttsim simulate --config docs/examples/sunday-mystery.json --json --events-out events.jsonl")


def add(commands: Any) -> None:
    parser = command(commands, "simulate", EXAMPLE, "play a whole tournament with bots, in accelerated time")
    parser.add_argument("--config", help="tournament definition, JSON or TOML (docs/config.md)")
    parser.add_argument("--compare", nargs="+", metavar="DEFINITION",
                        help="two structures or more, each played on the same seeds (--runs, 5 by default): "
                             "their figures side by side with the change in percent, their pictures overlaid")
    parser.add_argument("--players", type=int, help="entries (default: 1000, or max_players of --config)")
    parser.add_argument("--seats", type=int, help="seats per table (overrides the definition)")
    parser.add_argument("--seed", type=int, help="same seed, same tournament (default: a new one, printed)")
    parser.add_argument("--mix", help="bot strategies and weights, e.g. regular=4,tag=1,station=1 "
                                      "(default: regular=1, players as real ones play)")
    parser.add_argument("--stats", action="store_true",
                        help="print how the bots played (VPIP, PFR, 3-bet ...) by table size and strategy")
    parser.add_argument("--deep", type=float, default=0.0, metavar="BB",
                        help="with --stats, count only hands where every stack is above BB big blinds")
    parser.add_argument("--events-out", metavar="PATH", help="write every event as a JSON line")
    parser.add_argument("--hands-out", metavar="PATH", help="write every hand as PHH (.phhs)")
    parser.add_argument("--late", type=int, help="bots that try to register late, at random moments of "
                        "the late registration (default: a tenth of --players, if the definition has it)")
    parser.add_argument("--reentry", type=float, help="the chance a bot that is out re-enters while it may "
                        "(default: 0.5, if the definition has re-entry)")
    parser.add_argument("--entries-per-person", type=int, default=1, metavar="N",
                        help="a multi-entry field: bot1 to botN are one person's entries, botN+1 to bot2N the "
                             "next one's ... (late entries too), up to the definition's entries_per_person")
    parser.add_argument("--json", action="store_true", help="print one JSON report instead of a summary")
    parser.add_argument("--runs", type=int, metavar="N",
                        help="play N seeds from --seed on and report their spread (docs/director.md)")
    parser.add_argument("--jobs", type=int, metavar="J",
                        help="processes playing: one run's tables (default 1; the same seed gives the same "
                             "tournament with any J), or the lab's runs, one per process, a run spread over all J "
                             "when there are fewer runs than J (default: one per core)")
    parser.add_argument("--pace", metavar="live|online|N",
                        help="hands a full table deals in an hour: live (35), online (64) or a number (overrides "
                             "the definition's hands_per_hour, docs/config.md)")
    parser.add_argument("--report", metavar="FILE.html",
                        help="write the runs' report with its pictures, one self-contained file")
    parser.set_defaults(run=run)


def _definition(args: argparse.Namespace, path: str | None = None) -> Definition:
    """The tournament to simulate: a definition file (``path``, or --config), or the default structure for
    --players."""
    path = path or args.config
    definition = read_definition(Path(path)) if path else default_definition(args.players or 1000)
    if args.seats is not None:
        definition = msgspec.structs.replace(definition, seats_per_table=args.seats)
        if not 2 <= args.seats <= 10:
            raise ValueError("--seats must be 2 to 10")
    if args.pace is not None:
        definition = msgspec.structs.replace(definition, hands_per_hour=pace_of(args.pace))
    return definition


def _progress_line(progress: Progress) -> None:
    rate = progress.hands / progress.wall_s if progress.wall_s else 0.0
    done = (progress.players - progress.players_left) / max(progress.players - 1, 1)
    bar = "#" * round(20 * done)
    sys.stderr.write(f"\r[{bar:<20}] {progress.players_left:>7} players left | level {progress.level:>2} | "
                     f"{progress.tables:>5} tables | {progress.hands:>8} hands | {rate:>8,.0f} hands/s ")
    sys.stderr.flush()


def _summary(report: Report, definition: Definition, seed: int) -> str:
    lines = [
        f"{definition.name}: {report.players} players, seed {seed}",
        f"{report.hands:,} hands in {report.wall_s:.2f} s ({report.hands_per_s:,.0f} hands/s), "
        f"{report.simulated_hours:.1f} simulated hours",
        f"{report.tables_broken} tables broken, {report.moves} players moved, "
        f"hand-for-hand at {', '.join(map(str, report.hand_for_hand_at)) or 'none'} players left",
        "money: " + ", ".join(f"{name.replace('_', ' ')} ${report.money[name] / 100:,.2f}"
                              for name in ("paid_in", "prizes", "bounties", "refunds", "fees_kept"))
        + f"; {report.money['rebuys']} re-buys, {report.money['add_ons']} add-ons",
    ]
    if definition.late_registration or definition.reentry:
        lines.append(f"{report.late_registrations} late registrations, {report.reentries} re-entries "
                     f"({len(report.results)} entries in all)")
    paid = [r for r in report.results if r["prize_cents"] > 0]
    for result in paid[:10]:
        lines.append(f"  {result['place']:>4}. {result['player']:<12} ${result['prize_cents'] / 100:,.2f}")
    if len(paid) > 10:
        lines.append(f"  ... {len(paid) - 10} more paid places")
    return "\n".join(lines)


def _field_arguments(args: argparse.Namespace, definitions: list[Definition],
                     ) -> tuple[int, int, float, dict[str, str] | None]:
    """The players, late entries, re-entry chance and who holds which entry (None: one entry a person), each
    checked against the definitions, or the error that says which argument is wrong."""
    definition = definitions[0]
    players = args.players if args.players is not None else definition.max_players
    largest = min(each.max_players for each in definitions)
    if not 2 <= players <= largest:
        raise ValueError(f"--players must be 2 to max_players ({largest})")
    expected = expected_field(definition, players)
    late = args.late if args.late is not None else expected.late
    reentry = args.reentry if args.reentry is not None else expected.reentry
    if late < 0 or not 0 <= reentry <= 1:
        raise ValueError("--late is a number of entries, --reentry a probability from 0 to 1")
    per_person = args.entries_per_person
    if per_person < 1 or per_person > 1 and per_person > (definition.entries_per_person or 1):
        raise ValueError(f"--entries-per-person is at least 1 and at most the definition's entries_per_person "
                         f"({definition.entries_per_person or 1})")
    # botK belongs to person K // N (rounded up): the events name entries, and who holds which follows from this
    people = {f"bot{number}": f"person{(number - 1) // per_person + 1}"
              for number in range(1, players + late + 1)} if per_person > 1 else None
    return players, late, reentry, people


def run(args: argparse.Namespace) -> int:
    """Play a whole tournament with bots in accelerated time (``mttsim simulate``)."""
    try:
        if args.compare is not None and (len(args.compare) < 2 or args.config):
            raise ValueError("--compare takes two definitions or more, in place of --config")
        definitions = [_definition(args, path) for path in args.compare or [None]]
        mix = parse_mix(args.mix) if args.mix else None
        players, late, reentry, people = _field_arguments(args, definitions)
    except (OSError, ValueError) as error:
        print(f"mttsim simulate: {error}", file=sys.stderr)
        return 2
    definition = definitions[0]
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    if args.runs is not None or args.report or args.compare:
        if people is not None:
            print("mttsim simulate: --entries-per-person plays one run, not the lab's --runs", file=sys.stderr)
            return 2
        return _lab(args, definitions, Field(players, mix, late, reentry), seed)
    jobs = args.jobs if args.jobs is not None else 1
    if jobs < 1 or jobs > 1 and (args.hands_out or args.stats):
        print("mttsim simulate: --jobs is a number from 1; --hands-out and --stats read every hand where the "
              "director is, so they play in one process (--jobs 1)", file=sys.stderr)
        return 2
    show_progress = sys.stderr.isatty() and not args.json
    strategies: dict[str, str] = {}
    counted = CountingWriter(strategies, args.deep or None) if args.stats else None
    with contextlib.ExitStack() as files:
        events_out = files.enter_context(open(args.events_out, "wb")) if args.events_out else None
        hands_out = files.enter_context(open(args.hands_out, "w", encoding="utf-8")) if args.hands_out else None
        if counted is not None:
            counted.also = hands_out
        report = simulate(definition, players, seed, mix=mix, events_out=events_out,
                          hands_out=counted if counted is not None else hands_out,
                          progress=_progress_line if show_progress else None, late_players=late,
                          reentry_probability=reentry, strategies=strategies, people=people, jobs=jobs)
    if show_progress:
        sys.stderr.write("\n")
    if args.json:
        sys.stdout.write(msgspec.json.encode(report).decode() + "\n")
    else:
        print(_summary(report, definition, seed))
    if counted is not None:
        print_stats(counted.counts, as_json=args.json)
    return 0


def _lab(args: argparse.Namespace, definitions: list[Definition], field: Field, seed: int) -> int:
    """``mttsim simulate --runs N``: N seeds from --seed on, the distribution over them, and the report; with
    ``--compare``, each structure's on the same seeds, side by side."""
    runs = args.runs or (5 if args.compare else 1)
    if runs < 1 or (args.jobs is not None and args.jobs < 1):
        print("mttsim simulate: --runs and --jobs are numbers from 1", file=sys.stderr)
        return 2
    if args.events_out or args.hands_out:
        print("mttsim simulate: --events-out and --hands-out write one run: leave out --runs", file=sys.stderr)
        return 2
    seeds = range(seed, seed + runs)
    settings = {"players": field.players, "runs": runs, "seeds": f"{seed} to {seed + runs - 1}",
                "config": ", ".join(args.compare) if args.compare else args.config or "the default structure",
                "mix": args.mix or "the default mix", "late entries": field.late, "re-entry chance": field.reentry}
    if args.compare:
        fields = [Field(field.players, field.mix,
                        args.late if args.late is not None else expected_field(each, field.players).late,
                        args.reentry if args.reentry is not None else expected_field(each, field.players).reentry)
                  for each in definitions]
        comparison = compare(definitions, fields, seeds, jobs=args.jobs)
        if args.report:
            write_compare_html(args.report, comparison, settings)
        said = msgspec.json.encode(comparison).decode() if args.json else compare_text(comparison)
    else:
        report = lab(definitions[0], field, seeds, jobs=args.jobs)
        if args.report:
            write_lab_html(args.report, report, settings)
        said = msgspec.json.encode(report).decode() if args.json else lab_summary(report)
    print(said)
    if args.report and not args.json:
        print(f"report: {args.report}")
    return 0
