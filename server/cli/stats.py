"""``mttsim stats``: how hands were played (VPIP, PFR, 3-bet ...), from PHH files."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bots.playstats import Counts, hands_of
from bots.playstats import table as stats_table
from server.cli.common import command

EXAMPLE = ("  mttsim stats run.phhs --deep 40     # run.phhs from mttsim simulate ... --hands-out run.phhs\n"
           "  mttsim simulate --players 600 --seats 6 --seed 1 --stats --mix regular=1,station=1")


def add(commands: Any) -> None:
    parser = command(commands, "stats", EXAMPLE, "how hands were played (VPIP, PFR, 3-bet ...), from PHH files")
    parser.add_argument("files", nargs="+", metavar="FILE", help="hand histories, .phh or .phhs")
    parser.add_argument("--deep", type=float, default=0.0, metavar="BB",
                        help="count only hands where every stack is above BB big blinds")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """``mttsim stats FILE...``: the real-play statistics of hand histories, as docs/swarm.md defines them."""
    counts = Counts()
    try:
        for path in args.files:
            for hand in hands_of(Path(path).read_text()):
                counts.add(hand, deep_bb=args.deep or None)
    except (OSError, ValueError) as error:
        print(f"mttsim stats: {error}", file=sys.stderr)
        return 2
    print_stats(counts, as_json=args.json)
    return 0


def print_stats(counts: Counts, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps({group: counts.rows(group) for group in ["all", *counts.groups()]}))
    else:
        print(stats_table(counts))
