"""The tournament definition: blind levels, payouts, and what follows from them.

A definition is a JSON or TOML document (docs/config.md) decoded into msgspec
Structs, so a bad file is refused with a message naming the key, such as
"Expected `int`, got `str` - at `$.levels[2].big_blind`". Money is integer
cents; payout percentages are exact decimals (rules.md G.30).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Annotated, Literal

import msgspec

from engine.refunds import RefundPolicy

Positive = Annotated[int, msgspec.Meta(gt=0)]
NonNegative = Annotated[int, msgspec.Meta(ge=0)]


class DefinitionError(ValueError):
    """A tournament definition the rules refuse; the message names the key."""


# Sane bounds on durations: a clock past them is a typing mistake, and a huge one (2^64) would overflow a timer.
ACTION_SECONDS_MAX = 600  # a decision's clock: longer than any room's
HOUR_SECONDS = 3600  # a time bank, its top-up, an offer's or a deal's clock
DAY_MINUTES = 1440  # a level or a break
LEVEL_HANDS_MAX = 10_000


class Level(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A level; ``break_minutes``: a break of so many minutes after it (a director's break row),
    beside any of ``breaks``. Fields keep their order: snapshots pickle them by position."""

    small_blind: NonNegative
    big_blind: Positive
    ante: NonNegative = 0
    bb_ante: bool = False
    minutes: float | None = None
    hands: int | None = None
    break_minutes: Annotated[float, msgspec.Meta(gt=0, le=DAY_MINUTES)] | None = None


class Payout(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """``percent`` of the prize pool to each single place in ``places`` ('1' or '11-20')."""

    places: str
    percent: float


class Breaks(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A break of ``minutes`` after every ``every_levels`` levels, or every hour of the tournament at
    ``at_minute`` (synchronised breaks: all tables together, hands in progress finish first). The fields keep
    their order: snapshots pickle them by position."""

    every_levels: Positive | None = None
    minutes: Annotated[float, msgspec.Meta(gt=0, le=DAY_MINUTES)] = 5.0
    at_minute: Annotated[float, msgspec.Meta(ge=0, lt=60)] | None = None


class TimeBank(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """Every player's time bank: ``seconds`` at the start, ``add_seconds`` more at the start of every
    ``every_levels``-th level after the first."""

    seconds: Annotated[float, msgspec.Meta(ge=0, le=HOUR_SECONDS)]
    add_seconds: Annotated[float, msgspec.Meta(ge=0, le=HOUR_SECONDS)] = 0.0
    every_levels: Positive = 1


class Rebuys(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """The re-buy period is levels 1..``levels`` (rules.md F.25).

    ``allowed_at``: ``zero`` offers a re-buy only to a player who busts;
    ``starting_stack`` also lets a player re-buy between hands while at or
    below the starting stack (PokerStars style). A bust is offered the
    re-buy for ``offer_seconds``; silence is a no.
    """

    levels: Positive
    price_cents: NonNegative
    chips: Positive
    fee_cents: NonNegative = 0
    max_count: Positive = 1
    allowed_at: Literal["zero", "starting_stack"] = "zero"
    offer_seconds: Annotated[float, msgspec.Meta(gt=0, le=HOUR_SECONDS)] = 20.0


class AddOn(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """Offered to every player left when the re-buy period ends, for ``offer_seconds`` (rules.md F.26)."""

    price_cents: NonNegative
    chips: Positive
    fee_cents: NonNegative = 0
    offer_seconds: Annotated[float, msgspec.Meta(gt=0, le=HOUR_SECONDS)] = 60.0


class Envelope(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """``count`` mystery bounties of ``cents`` each."""

    cents: Positive
    count: Positive = 1


class Bounty(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """``cents`` of each buy-in put on the entry's head (rules.md J.40); the rest goes to the prize pool.

    A knockout pays ``100 - progressive_percent`` percent of the victim's
    bounty in cash and adds the rest to the winner's own bounty:
    ``progressive_percent = 0`` is a classic headhunter, 50 a progressive
    knockout (PKO). With ``mystery`` the bounties are envelopes instead
    (engine/bounties.py): ``cents`` of each buy-in go to the envelopes, and
    from ``from_players_left`` players left each knockout draws one at random.
    """

    cents: Positive
    progressive_percent: Annotated[int, msgspec.Meta(ge=0, le=100)] = 50
    mystery: Annotated[list[Envelope], msgspec.Meta(min_length=1)] | None = None
    from_players_left: Annotated[int, msgspec.Meta(ge=2)] | None = None


class Satellite(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """Prizes are seats (tickets) worth ``seat_value_cents``, the target tournament's buy-in and fee (K.44).

    ``target`` names the tournament (its id on the server) the winners are
    registered into; the server checks the seat's value against its entry
    when the satellite is created. ``difference`` is the director's choice
    where the two differ: ``equal`` refuses the satellite; ``settled`` sends
    each seat as the target's entry, the rest of a seat worth more paid to its
    winner in cash and a seat worth less topped up by the house, each on the
    record (engine/delivery.py).
    """

    seat_value_cents: Positive
    target: str | None = None
    difference: Literal["equal", "settled"] = "equal"


class Flight(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A Day-1 flight (rules.md L.47): it stops when level ``stop_level`` ends, or at the end of the hand in which
    players left fall to ``stop_share_percent`` of the entries; survivors carry their stacks to ``final``."""

    final: str | None = None
    stop_level: Positive | None = None
    stop_share_percent: Annotated[float, msgspec.Meta(gt=0, lt=100)] | None = None


class Final(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """The final of flights (L.47-L.48): ``forward`` is ``best`` (a person's largest stack counts, never summed)
    or ``first`` (the first stack a person qualifies with); ``direct_buy_in`` lets players buy straight in."""

    forward: Literal["best", "first"] = "best"
    direct_buy_in: bool = True


class LateRegistration(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """Registration stays open while the tournament runs, until level ``until_level`` ends (or earlier: at
    capacity, on the bubble, or when the re-buy period ends; rules.md F.24). Late entries start with
    ``stack`` chips, the starting stack unless given (A.2)."""

    until_level: Positive
    stack: Positive | None = None


class Reentry(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """An eliminated person may buy a new entry, ``max_count`` times, until level ``until_level`` ends (or
    earlier, as late registration closes; rules.md F.27). A re-entry starts with the late registration's stack."""

    until_level: Positive
    max_count: Positive = 1


class PayoutRule(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A prize table sized from the field, as rooms and live series publish theirs (docs/config.md,
    ``rule_prizes``): about ``paid_percent`` of the entries are paid, in bands of places that share one
    amount, the last band gets ``min_cash_multiple`` times the buy-in, and the rest of the pool falls off from
    first place by ``curve`` (the steepness of the fall below the final table; second place is about 0.62 of
    first whatever it is)."""

    paid_percent: Annotated[float, msgspec.Meta(gt=0, le=100)] = 15.0
    min_cash_multiple: Annotated[float, msgspec.Meta(ge=0)] = 1.5
    curve: Annotated[float, msgspec.Meta(gt=0, le=4)] = 1.4


class Definition(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    name: str
    seats_per_table: Annotated[int, msgspec.Meta(ge=2, le=10)]
    starting_stack: Positive
    buy_in_cents: NonNegative
    fee_cents: NonNegative
    min_players: Annotated[int, msgspec.Meta(ge=2)]
    max_players: Positive
    levels: Annotated[list[Level], msgspec.Meta(min_length=1)]
    payouts: list[Payout] = []  # a fixed prize table; or a payout_rule, sized from the field
    breaks: Breaks | None = None
    hand_for_hand_min_jump_cents: Positive = 1
    hand_for_hand_ties: Literal["pokerstars", "wsop", "tda"] = "pokerstars"
    action_seconds: Annotated[float, msgspec.Meta(gt=0, le=ACTION_SECONDS_MAX)] = 15.0
    time_bank_seconds: Annotated[float, msgspec.Meta(ge=0, le=HOUR_SECONDS)] = 30.0
    time_bank: TimeBank | None = None  # with top-ups, in place of time_bank_seconds
    disconnect_grace_seconds: Annotated[float, msgspec.Meta(ge=0, le=600)] = 0.0  # a disconnected player's extra time
    # ... at most once in this long
    disconnect_grace_every_minutes: Annotated[float, msgspec.Meta(gt=0, le=DAY_MINUTES)] = 60.0
    added_cents: NonNegative = 0
    rebuys: Rebuys | None = None
    add_on: AddOn | None = None
    deals: bool = False
    deal_seconds: Annotated[float, msgspec.Meta(gt=0, le=HOUR_SECONDS)] = 30.0
    refund_policy: RefundPolicy = msgspec.field(default_factory=RefundPolicy)
    bounty: Bounty | None = None
    satellite: Satellite | None = None
    entries_per_person: Positive | None = None  # multi-entry (M.50); None sets no limit in the engine
    flight: Flight | None = None
    final: Final | None = None
    # Announced ahead (rules.md F.23, Waiting): seconds since the epoch. Without registration_opens_at the
    # tournament opens for registration when it is created; without starts_at the admin starts it.
    registration_opens_at: float | None = None
    starts_at: float | None = None
    late_registration: LateRegistration | None = None
    reentry: Reentry | None = None
    payout_rule: PayoutRule | None = None  # in place of payouts: the prize table follows the entries
    # The pace the simulator, the lab, the generator's fit and the plan play at: hands a full table deals in an
    # hour (fewer seated deal faster). None: online, about 64 at nine seated (docs/config.md). The real-time
    # server's clocks do not read it.
    hands_per_hour: Annotated[float, msgspec.Meta(ge=5, le=300)] | None = None

    @property
    def late_stack(self) -> int:
        """The stack a late entry or a re-entry starts with (A.2)."""
        late = self.late_registration
        return late.stack if late is not None and late.stack is not None else self.starting_stack

    @property
    def starting_bank_seconds(self) -> float:
        """Every player's time bank at the start."""
        return self.time_bank.seconds if self.time_bank is not None else self.time_bank_seconds

    def __post_init__(self) -> None:
        # Before any rule reads them: nan and inf (which TOML and JSON readers take as floats) and integers the
        # journal cannot hold are refused naming their key, not in the words of whatever met them first.
        check_numbers(msgspec.to_builtins(self), "$")
        if self.min_players > self.max_players:
            raise DefinitionError("min_players: must not exceed max_players")
        if self.bounty is not None and self.bounty.cents > self.buy_in_cents:
            raise DefinitionError("bounty.cents: the bounty is part of the buy-in, so at most buy_in_cents")
        if self.bounty is not None and (self.bounty.mystery is None) != (self.bounty.from_players_left is None):
            raise DefinitionError("bounty: a mystery bounty gives both mystery and from_players_left")
        if self.satellite is not None and self.deals:
            raise DefinitionError("deals: a satellite has no deals (rules.md K.45)")
        if self.flight is not None:
            if (self.flight.stop_level is None) == (self.flight.stop_share_percent is None):
                raise DefinitionError("flight: give exactly one of stop_level or stop_share_percent")
            if self.satellite is not None or self.deals or self.bounty is not None or self.final is not None:
                raise DefinitionError("flight: a flight pays no prizes, so no satellite, deals, bounty or final")
            if self.flight.stop_level is not None and self.flight.stop_level > len(self.levels):
                raise DefinitionError(f"flight.stop_level: {self.flight.stop_level} is beyond the "
                                      f"{len(self.levels)} levels defined")
        if self.satellite is not None and self.rebuys is not None:
            raise DefinitionError("rebuys: not offered in a satellite here, whose seats are set by the buy-ins")
        if (self.registration_opens_at is not None and self.starts_at is not None
                and self.starts_at < self.registration_opens_at):
            raise DefinitionError("starts_at: must not come before registration_opens_at")
        if self.add_on is not None and self.rebuys is None:
            raise DefinitionError("add_on: is offered at the end of the re-buy period, so it needs rebuys")
        if self.breaks is not None and (self.breaks.every_levels is None) == (self.breaks.at_minute is None):
            raise DefinitionError("breaks: give exactly one of every_levels or at_minute")
        if self.breaks is not None and self.breaks.at_minute is not None and self.breaks.minutes >= 60:
            raise DefinitionError("breaks.minutes: an hourly break lasts less than the hour")
        if self.time_bank is not None and self.time_bank_seconds != 30.0:
            raise DefinitionError("time_bank: give time_bank (with top-ups) or time_bank_seconds, not both")
        for key, window in (("late_registration", self.late_registration), ("reentry", self.reentry)):
            if window is not None and window.until_level > len(self.levels):
                raise DefinitionError(f"{key}.until_level: {window.until_level} is beyond the "
                                      f"{len(self.levels)} levels defined")
        if self.late_registration is not None and self.final is not None and not self.final.direct_buy_in:
            raise DefinitionError("late_registration: this final takes only qualified stacks, no direct buy-in")
        for number, level in enumerate(self.levels):
            where = f"levels[{number}]"
            if level.small_blind > level.big_blind:
                raise DefinitionError(f"{where}.small_blind: must not exceed big_blind")
            if (level.minutes is None) == (level.hands is None):
                raise DefinitionError(f"{where}: give exactly one of minutes or hands")
            if (level.minutes is not None and level.minutes <= 0) or (level.hands is not None and level.hands <= 0):
                raise DefinitionError(f"{where}: a level lasts a positive number of minutes or hands")
            if (level.minutes is not None and level.minutes > DAY_MINUTES) or (
                    level.hands is not None and level.hands > LEVEL_HANDS_MAX):
                raise DefinitionError(f"{where}: a level lasts at most {DAY_MINUTES:,} minutes (a day) or "
                                      f"{LEVEL_HANDS_MAX:,} hands")
        if bool(self.payouts) == (self.payout_rule is not None):
            raise DefinitionError("payouts: give the prize table (payouts) or a payout_rule, one of them")
        if self.payouts:
            prize_table(self.payouts)  # raises on bad places or percentages


MAX_NESTING = 32  # brackets deep: a definition needs 4; a parser recursing on 100,000 would fail with no answer
# The largest integer a browser's JSON keeps exact (Number.MAX_SAFE_INTEGER): a definition's amount past it would
# be shown wrong in the client, so it is refused, though the journal (msgpack) and SQLite hold 64 bits.
JSON_SAFE = (-(2**53 - 1), 2**53 - 1)


def nesting_depth(text: str | bytes) -> int:
    """How deep JSON or TOML brackets nest, strings skipped: checked before a parser recurses into them."""
    data = text.encode() if isinstance(text, str) else text
    depth = deepest = 0
    quote = 0
    escaped = False
    for byte in data:
        if quote:
            if escaped:
                escaped = False
            elif byte == 0x5C and quote == 0x22:  # a backslash escapes only in "..." strings
                escaped = True
            elif byte == quote:
                quote = 0
        elif byte in (0x22, 0x27):
            quote = byte
        elif byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def refund_kind(definition: Definition) -> Literal["regular", "freeroll", "satellite"]:
    """The kind the refund policies tell apart (rules.md I.39): a freeroll is free to enter with money added."""
    if definition.satellite:
        return "satellite"
    return "freeroll" if definition.buy_in_cents == 0 and definition.added_cents else "regular"


def load_definition(text: str | bytes, *, toml: bool = False) -> Definition:
    """Decode and check a definition; DefinitionError names the offending key.

    Numbers must be finite and within 2^53 - 1 (``Definition.__post_init__``):
    an infinite level, or an amount the client would show wrong, is refused
    before anything is created.
    """
    if nesting_depth(text) > MAX_NESTING:
        raise DefinitionError(f"nested deeper than {MAX_NESTING} brackets")
    decode = msgspec.toml.decode if toml else msgspec.json.decode
    try:
        definition = decode(text, type=Definition)
    except msgspec.ValidationError as error:
        # __post_init__ errors arrive wrapped; both kinds name their key.
        raise DefinitionError(str(error)) from None
    except msgspec.DecodeError as error:
        raise DefinitionError(f"not valid {'TOML' if toml else 'JSON'}: {error}") from None
    return definition


def check_numbers(value: object, path: str) -> None:
    """Every number under ``value`` finite and exact in a browser's JSON; DefinitionError names the first that is
    not."""
    if isinstance(value, bool):
        return
    if isinstance(value, float) and not math.isfinite(value):
        raise DefinitionError(f"{path}: {value} is not a finite number")
    if isinstance(value, int) and not JSON_SAFE[0] <= value <= JSON_SAFE[1]:
        raise DefinitionError(f"{path}: {value} is past 2^53 - 1, the largest integer a browser's JSON keeps exact")
    if isinstance(value, dict):
        for key, item in value.items():
            check_numbers(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            check_numbers(item, f"{path}[{index}]")


def _place_range(places: str) -> range:
    first, _, last = places.partition("-")
    try:
        start, stop = int(first), int(last or first)
    except ValueError:
        raise DefinitionError(f"payouts: places {places!r} must be like '1' or '11-20'") from None
    if not 1 <= start <= stop:
        raise DefinitionError(f"payouts: places {places!r} must count up from 1")
    return range(start, stop + 1)


def prize_table(payouts: list[Payout]) -> list[Fraction]:
    """Each paid place's exact share of the pool, place 1 first."""
    shares: dict[int, Fraction] = {}
    for payout in payouts:
        share = Fraction(str(payout.percent)) / 100
        if share <= 0:
            raise DefinitionError(f"payouts: places {payout.places!r} need a positive percent")
        for place in _place_range(payout.places):
            if place in shares:
                raise DefinitionError(f"payouts: place {place} is paid twice")
            shares[place] = share
    if sorted(shares) != list(range(1, len(shares) + 1)):
        raise DefinitionError("payouts: paid places must run 1, 2, 3 ... without gaps")
    table = [shares[place] for place in range(1, len(shares) + 1)]
    if sum(table) != 1:
        raise DefinitionError(f"payouts: percentages add up to {float(sum(table) * 100):g}%, not 100%")
    if any(a < b for a, b in zip(table, table[1:])):
        raise DefinitionError("payouts: a better place must never pay less than a worse one")
    return table


def prizes_cents(payouts: list[Payout], pool_cents: int, entrants: int | None = None) -> list[int]:
    """Prize per place in cents, place 1 first; leftover cents go to first (rules.md G.30).

    When the table pays more places than there are ``entrants``, the places
    nobody can finish in are dropped and the others' shares scaled up in
    proportion, so the whole pool is still paid (a decision: docs/config.md).
    """
    shares = prize_table(payouts)
    if entrants is not None and entrants < len(shares):
        shares = shares[:entrants]
        scale = sum(shares)
        shares = [share / scale for share in shares]
    prizes = [math.floor(share * pool_cents) for share in shares]
    prizes[0] += pool_cents - sum(prizes)
    return prizes


SECOND_OF_FIRST = 0.62  # second place's prize over first's, as WSOP and the rooms publish (0.6-0.67)
TABLES_PER_WIDTH = 20  # bands of one table's worth of places for this many bands, then twice as wide, and so on


def paid_bands(target: int, seats: int) -> list[tuple[int, int]]:
    """The places paid as bands ``(first place, last place)`` sharing one amount each, for about ``target``
    places paid at tables of ``seats``: the final table's places one by one, then a table's worth of places a
    band (the seed's example: at ten seats, 11-20, 21-30, 31-40), twice as wide after ``TABLES_PER_WIDTH`` bands,
    and so on. The places paid end where a band ends, the band end nearest ``target`` (ties up): 35 of a
    350-player field at ten seats pays 40, so hand-for-hand comes at 41, 31, 21 and 11 left (rules.md D.14)."""
    if target <= seats:
        return [(place, place) for place in range(1, target + 1)]
    bands = [(place, place) for place in range(1, seats + 1)]
    last, count = seats, 0
    while last < target:
        width = seats * 2 ** (count // TABLES_PER_WIDTH)
        if target - last < last + width - target:  # the nearer end is this band's start (ties: go on)
            break
        bands.append((last + 1, last + width))
        last, count = last + width, count + 1
    return bands


def rule_prizes(rule: PayoutRule, pool_cents: int, entrants: int, buy_in_cents: int, seats: int = 9) -> list[int]:
    """The prize per place in cents by ``rule``, place 1 first, summing to ``pool_cents`` exactly.

    The places paid come in bands (``paid_bands``), each place of a band paid
    the same. A band gets its places' mean weight, ``((1 + c) / (place + c)) **
    curve`` (``c`` such that second place weighs ``SECOND_OF_FIRST`` of
    first), times the one factor that makes the table add up to the pool,
    and never less than the min-cash, ``min_cash_multiple`` times the buy-in
    (lowered as far as it must be for the places paid to share the pool). So
    a final table keeps the rooms' shape (three places paid share 49/30/21)
    and a large field's last bands pay the min-cash: at 1,000 entries of
    $10, 153 paid in 25 amounts, first 17% of the pool, second 0.62 of first,
    the min-cash 1.5x. Leftover cents go to first.
    """
    target = max(1, min(entrants, round(entrants * rule.paid_percent / 100)))
    bands = paid_bands(target, seats)
    paid = bands[-1][1]
    if paid == 1 or pool_cents == 0:
        return [pool_cents]
    min_cash = min(int(buy_in_cents * rule.min_cash_multiple), pool_cents // paid)
    ratio = SECOND_OF_FIRST ** (1 / rule.curve)
    shift = (2 * ratio - 1) / (1 - ratio)
    widths = [last - first + 1 for first, last in bands]
    means = [sum(((1 + shift) / (place + shift)) ** rule.curve for place in range(first, last + 1)) / width
             for (first, last), width in zip(bands, widths)]
    # The bands above the min-cash are the first ``above``: the most for which the factor that shares the rest of
    # the pool among them by weight still pays the last of them at least the min-cash.
    above, factor = 1, 0.0
    for count in range(len(bands), 0, -1):
        weighed = sum(mean * width for mean, width in zip(means[:count], widths[:count]))
        factor = (pool_cents - min_cash * sum(widths[count:])) / weighed
        if factor * means[count - 1] >= min_cash:
            above = count
            break
    prizes: list[int] = []
    for index, (mean, width) in enumerate(zip(means, widths)):
        prizes += [math.floor(factor * mean) if index < above else min_cash] * width
    prizes[0] += pool_cents - sum(prizes)
    return prizes


def satellite_prizes(pool_cents: int, seat_value_cents: int) -> tuple[list[int], int]:
    """The prize per place and the number of seats: floor(pool / seat) seats, the rest in cash to the next place.

    With less than one seat in the pool, the winner takes the pool in cash (Decision).
    """
    seats, rest = divmod(pool_cents, seat_value_cents)
    if seats == 0:
        return [pool_cents], 0
    return [seat_value_cents] * seats + ([rest] if rest else []), seats


def hand_for_hand_points(prizes: list[int], min_jump_cents: int = 1) -> list[int]:
    """Players-left counts N where the next bust (place N) changes prize money enough (rules.md D.14).

    The next bust takes place N; hand-for-hand is due when the place above it
    pays at least ``min_jump_cents`` more. The director adds the other
    condition: only while two or more tables play.
    """
    def prize(place: int) -> int:
        return prizes[place - 1] if place <= len(prizes) else 0

    return [n for n in range(len(prizes) + 1, 1, -1) if prize(n - 1) - prize(n) >= min_jump_cents]


# ------------------------------------------------------------------- the pace a room deals at

LIVE_HANDS_PER_HOUR = 35.0  # a live table of nine: 30-40 (WSOP dealers 15-20 hands a half-hour)
ONLINE_HANDS_PER_HOUR = 64.0  # what the simulator's own clock deals at nine seated, as online rooms do (60-80)
PACES: dict[str, float | None] = {"live": LIVE_HANDS_PER_HOUR, "online": None}


def pace_of(text: str) -> float | None:
    """``live``, ``online`` or a number of hands an hour, as ``--pace`` takes it: the ``hands_per_hour`` of a
    definition (None: online); ValueError naming what is wrong."""
    if text in PACES:
        return PACES[text]
    try:
        hands = float(text)
    except ValueError:
        raise ValueError(f"--pace: live, online or hands an hour at a full table, not {text!r}") from None
    if not 5 <= hands <= 300:
        raise ValueError(f"--pace: between 5 and 300 hands an hour, not {text}")
    return hands


# ------------------------------------------------------------------- defaults

_BLINDS = (
    (25, 50), (50, 100), (75, 150), (100, 200), (150, 300), (200, 400), (300, 600), (400, 800),
    (500, 1000), (600, 1200), (800, 1600), (1000, 2000), (1500, 3000), (2000, 4000), (3000, 6000),
    (4000, 8000), (5000, 10000), (6000, 12000), (8000, 16000), (10000, 20000), (15000, 30000),
    (20000, 40000), (30000, 60000), (40000, 80000), (50000, 100000), (60000, 120000),
    (80000, 160000), (100000, 200000), (150000, 300000), (200000, 400000), (300000, 600000),
    (400000, 800000), (500000, 1000000), (600000, 1200000), (800000, 1600000), (1000000, 2000000),
)


def default_levels(minutes: float = 10.0) -> list[Level]:
    """A standard schedule for a 10,000-chip stack; the big-blind ante starts at level 3."""
    return [
        Level(sb, bb, ante=bb if number >= 2 else 0, bb_ante=number >= 2, minutes=minutes)
        for number, (sb, bb) in enumerate(_BLINDS)
    ]


def default_payouts(entrants: int) -> list[Payout]:
    """Tiered payouts for a field: about 15% paid, places 1-10 one by one, then tiers of ten (11-20 ...).

    Shares fall off as a power of the place (a common shape of online
    schedules). Within a tier every place gets the tier's average. Percentages
    are kept to three decimals, and first place takes the rounding. In a field
    so large (over about 60,000) that the last tiers' shares round below
    0.001%, those tiers get 0.001% and the tiers above share the rest in the
    same proportions: a long tail of minimum cashes never eats the top prizes.
    """
    if entrants < 2:
        raise ValueError("a tournament needs at least two entrants")
    paid = 1 if entrants <= 3 else 2 if entrants <= 6 else 3 if entrants <= 10 else max(3, round(entrants * 0.15))
    if paid > 10:
        paid = 10 + math.ceil((paid - 10) / 10) * 10  # whole tiers of ten after place 10
    groups: list[range] = [range(p, p + 1) for p in range(1, min(paid, 10) + 1)]
    groups += [range(start, start + 10) for start in range(11, paid + 1, 10)]
    weight = [1 / place**1.1 for place in range(1, paid + 1)]
    averages = [sum(weight[p - 1] for p in group) / len(group) for group in groups]
    weights_above = list(itertools.accumulate(average * len(group) for average, group in zip(averages, groups)))
    places_above = list(itertools.accumulate(len(group) for group in groups))
    above = len(groups)  # the tiers above the floored ones (averages fall, so the floored tiers are the last)
    while True:
        budget = 100_000 - (paid - places_above[above - 1]) if above else 0  # percent * 1000
        if budget <= 0:
            raise ValueError(f"{paid} paid places at 0.001% each are more than the pool: "
                             f"give the payouts of a field of {entrants} explicitly")
        total = weights_above[above - 1]
        if round(averages[above - 1] / total * budget) >= 1:
            break
        above -= 1
    floored = len(groups) - above
    thousandths = [round(average / total * budget) for average in averages[:above]] + [1] * floored
    thousandths[0] += 100_000 - sum(t * len(g) for t, g in zip(thousandths, groups))
    return [
        Payout(places=str(g.start) if len(g) == 1 else f"{g.start}-{g.stop - 1}", percent=t / 1000)
        for g, t in zip(groups, thousandths)
    ]


def default_definition(players: int, seats_per_table: int = 9) -> Definition:
    """A $10+$1 tournament for ``players`` with the default structure and tiered payouts."""
    return Definition(
        name=f"{players}-player simulation", seats_per_table=seats_per_table, starting_stack=10_000,
        buy_in_cents=1_000, fee_cents=100, min_players=2, max_players=max(players, 2),
        levels=default_levels(), payouts=default_payouts(players),
    )


# ------------------------------------------------------------------ structures from a few numbers

Speed = Literal["regular", "turbo", "hyper"]
LEVEL_MINUTES: dict[str, float] = {"regular": 10.0, "turbo": 5.0, "hyper": 3.0}
STARTING_BIG_BLINDS: dict[str, int] = {"regular": 100, "turbo": 60, "hyper": 30}
# The largest step a big blind takes from one level to the next, by speed: directors' templates climb 20-50% a
# level, a hyper up to a doubling (docs/config.md). A structure that cannot reach the end in the hours asked at
# these steps takes longer, and says so.
MAX_STEP_BY_SPEED: dict[str, float] = {"regular": 1.5, "turbo": 1.5, "hyper": 2.0}
_NICE = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)
ENDING_AVERAGE_BIG_BLINDS = 20  # the field's chips over the big blind at the requested end, calibrated (docs/config.md)
EXTRA_LEVELS = 8  # levels after the requested end, so that a slow field never sits on the last one
ROOM_TO_GROW = 10  # a generated structure's cap, unless the director sets one: never the field expected


class EventOptions(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True):
    """What an event needs beside its field, length and stack; each default is what a generated
    structure had before the options."""

    name: str | None = None  # default: the players, hours and speed
    minutes: Annotated[float, msgspec.Meta(gt=0, le=240)] | None = None  # a level's length (default: the speed's)
    seats: Annotated[int, msgspec.Meta(ge=2, le=10)] = 9
    buy_in_cents: Annotated[int, msgspec.Meta(ge=0)] = 1_000
    fee_cents: Annotated[int, msgspec.Meta(ge=0)] = 100
    late_levels: Positive | None = None  # late registration open until this level ends
    reentry_levels: Positive | None = None  # re-entry open until this level ends ...
    reentries: Positive = 1  # ... this many times a person
    breaks: Breaks = Breaks(at_minute=55, minutes=5)
    ante: Literal["bb", "classic", "none"] = "bb"
    hands_per_hour: Annotated[float, msgspec.Meta(ge=5, le=300)] | None = None  # the pace (None: online)
    max_players: Positive | None = None  # the field's cap, the director's (None: ten times the field expected)


def nice_blind(value: float) -> int:
    """The nearest of the round numbers blinds are made of (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of
    ten), even, so that the small blind is half of it."""
    exponent = 10 ** math.floor(math.log10(max(value, 1.0)))
    best = min((mantissa * exponent for mantissa in _NICE), key=lambda nice: abs(math.log(nice / value)))
    return max(2, int(round(best / 2)) * 2)


MIN_STEP = 1.2  # the smallest step the round numbers make


def _round_blinds_near(value: float) -> list[int]:
    """``nice_blind``'s round numbers, even, from a tenth of ``value``'s power of ten to ten times it."""
    exponent = 10 ** math.floor(math.log10(max(value, 2.0)))
    return sorted({max(2, int(round(mantissa * scale / 2)) * 2) for scale in (exponent / 10, exponent, exponent * 10)
                   for mantissa in _NICE})


def nice_at_most(limit: float) -> int:
    """The largest round blind not above ``limit`` (at least 2)."""
    return max([2, *(blind for blind in _round_blinds_near(limit) if blind <= limit)])


def nice_above(value: int) -> int:
    """The smallest round blind above ``value``: the next level's when the curve is flatter than the round
    numbers (a tiny blind, or the gentle levels after the requested end)."""
    return min(blind for blind in _round_blinds_near(value) if blind > value)


def playing_share(breaks: Breaks | None, minutes: float) -> float:
    """The share of the clock that is play, the breaks taken out."""
    if breaks is None:
        return 1.0
    if breaks.at_minute is not None:
        return (60 - breaks.minutes) / 60
    every = breaks.every_levels or 1
    return every * minutes / (every * minutes + breaks.minutes)


def levels_for_hours(hours: float, minutes: float, breaks: Breaks | None = None) -> int:
    """The levels of ``minutes`` played in ``hours``, the breaks taken out."""
    return max(2, round(hours * 60 * playing_share(breaks, minutes) / minutes))


def levels_climbing(first: float, last: float, step: float) -> int:
    """The fewest levels from a big blind of ``first`` to ``last`` whose big blind grows at most ``step`` a level."""
    return 2 if last <= first else max(2, 1 + math.ceil(math.log(last / first) / math.log(step) - 1e-9))


def structure_hours(players: int, hours: float, stack: int, speed: Speed = "regular",
                    options: EventOptions | None = None) -> float:
    """How long ``generate_structure``'s levels take to the field's end: ``hours``, or, where the big blind would
    have to climb more than the speed's step a level to get there, the shortest that does not (to 0.1 h)."""
    options = options or EventOptions()
    minutes = options.minutes or LEVEL_MINUTES[speed]
    first, last = stack / STARTING_BIG_BLINDS[speed], players * stack / ENDING_AVERAGE_BIG_BLINDS
    needed = levels_climbing(first, last, MAX_STEP_BY_SPEED[speed])
    if needed <= levels_for_hours(hours, minutes, options.breaks):
        return hours
    return math.ceil(needed * minutes / 60 / playing_share(options.breaks, minutes) * 10) / 10


def generate_structure(players: int, hours: float, stack: int, *, speed: Speed = "regular",
                       ante: Literal["bb", "classic", "none"] | None = None, options: EventOptions | None = None,
                       climb: float = 1.0) -> Definition:
    """A whole definition from a few numbers: levels whose big blind grows geometrically from the starting
    stack's ``STARTING_BIG_BLINDS`` to the point where the field's chips are ``ENDING_AVERAGE_BIG_BLINDS`` big
    blinds at ``hours`` (when about one player is left), never more than the speed's step a level; antes from
    level 3 (a big-blind ante, a classic one of an eighth of the big blind, or none); the event's ``options``
    (level length, seats, buy-in and fee, late registration and re-entry, breaks: by default a 5-minute break at
    :55 of every hour); and the payouts by the field's size (``PayoutRule``: ~15% paid whatever the field turns
    out to be, not a table frozen for ``players``). ``climb`` scales each level's step: the lab fits it so that
    the simulated field ends at the hours asked (``bots.lab.fit_structure``), at the pace the options give
    (``hands_per_hour``)."""
    options = options or EventOptions()
    ante = ante or options.ante
    if players < 2 or hours <= 0 or stack < 100 or climb <= 0:
        raise DefinitionError("structure: at least 2 players, a positive number of hours, a stack of 100 or more")
    step = MAX_STEP_BY_SPEED[speed]
    minutes = options.minutes or LEVEL_MINUTES[speed]
    first = stack / STARTING_BIG_BLINDS[speed]
    last = players * stack / ENDING_AVERAGE_BIG_BLINDS
    levels_to_end = max(levels_for_hours(hours, minutes, options.breaks), levels_climbing(first, last, step))
    if last <= first or (last / first) ** (1 / (levels_to_end - 1)) < MIN_STEP:
        # Flatter than the round numbers can climb (a long event, a small field): fewer, longer levels, as a
        # director would lengthen them, rather than steps of no change (a length given is kept).
        levels_to_end = levels_climbing(first, last, MIN_STEP)
        if options.minutes is None:
            minutes = max(minutes, round(hours * 60 * playing_share(options.breaks, minutes) / levels_to_end))
    growth = (last / first) ** (1 / (levels_to_end - 1)) if last > first else MIN_STEP
    growth = min(step, max(1.01, growth ** climb))
    big_blinds: list[int] = []
    for number in range(levels_to_end + EXTRA_LEVELS):
        late = max(0, number - levels_to_end + 1)  # after the requested end, gentler steps
        blind = nice_blind(first * growth ** (number - late) * min(growth, 1.5) ** late)
        if big_blinds and blind > step * big_blinds[-1]:  # rounded up past the step: the round number below
            blind = nice_at_most(step * big_blinds[-1])
        big_blinds.append(blind if not big_blinds or blind > big_blinds[-1] else nice_above(big_blinds[-1]))
    levels = [Level(small_blind=bb // 2, big_blind=bb, minutes=minutes,
                    ante=0 if ante == "none" or number < 2 else bb if ante == "bb" else max(1, bb // 8),
                    bb_ante=ante == "bb" and number >= 2)
              for number, bb in enumerate(big_blinds)]
    made = structure_hours(players, hours, stack, speed, options)
    name = options.name or f"{players} players, {hours:g} h {speed}"
    if made > hours and options.name is None:
        name = (f"{players} players, {made:g} h {speed} (the shortest that climbs at most {step:g}x a level; "
                f"{hours:g} h asked)")
    return Definition(
        name=name, seats_per_table=options.seats, starting_stack=stack,
        buy_in_cents=options.buy_in_cents, fee_cents=options.fee_cents, min_players=2,
        max_players=options.max_players or ROOM_TO_GROW * players, hands_per_hour=options.hands_per_hour,
        levels=levels, payout_rule=PayoutRule(), breaks=options.breaks,
        late_registration=LateRegistration(until_level=options.late_levels) if options.late_levels else None,
        reentry=Reentry(until_level=options.reentry_levels, max_count=options.reentries)
        if options.reentry_levels else None,
    )


def break_after(definition: Definition, number: int) -> float:
    """The minutes of break after level ``number`` (from 0): every ``every_levels`` levels, and the level's own
    break row, together (an hourly break falls inside a level instead: ``level_starts`` counts it)."""
    breaks = definition.breaks
    minutes = definition.levels[number].break_minutes or 0.0
    if breaks is not None and breaks.every_levels is not None and (number + 1) % breaks.every_levels == 0:
        minutes += breaks.minutes
    return minutes


def level_starts(definition: Definition) -> list[float | None]:
    """When each level begins, in minutes on the tournament's clock (breaks included, as the director keeps
    them: after every ``every_levels`` levels, or at ``at_minute`` of each hour, the level's clock standing
    still meanwhile); None from the first level counted in hands on, whose length no clock knows."""
    breaks = definition.breaks
    hourly = breaks is not None and breaks.at_minute is not None
    next_break = (breaks.at_minute or 60.0) if breaks is not None and hourly else math.inf
    starts: list[float | None] = []
    clock: float | None = 0.0
    for number, level in enumerate(definition.levels):
        starts.append(clock)
        if clock is None or level.minutes is None:
            clock = None
            continue
        ends = clock + level.minutes
        while breaks is not None and next_break < ends:  # a synchronised break inside the level lengthens it
            ends += breaks.minutes
            next_break += 60.0
        ends += break_after(definition, number)
        clock = ends
    return starts
