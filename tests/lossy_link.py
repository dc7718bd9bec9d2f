"""A slow, lossy link in user space, for a network's faults where the kernel has no ``netem``: a TCP relay that
holds every piece of data ``--delay`` seconds each way, with ``--jitter`` more or less, and, with probability
``--loss`` a piece, as long again as TCP waits to send a lost segment again (its minimum retransmission timeout,
200 ms, plus a round trip), the pieces behind it waiting their turn as TCP's do.

It is an approximation of loss, made at the level where our processes see it (late bytes, never missing ones):
what a lost packet costs a TCP connection is that wait. With ``--while-exists PATH`` the link is slow and lossy
only while that file exists, so that a test says when the fault starts and ends. Run on a host of
tests/netns.py:

    python -m tests.lossy_link --listen 127.0.0.1:14222 --to 10.213.0.10:4222 --delay 0.2 --loss 0.02
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from collections.abc import Callable
from pathlib import Path

RETRANSMISSION_SECONDS = 0.2  # Linux's minimum retransmission timeout


async def carry(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float, jitter: float,
                loss: float, rng: random.Random, on: Callable[[], bool]) -> None:
    """One direction: each piece leaves at its own time, never before the one read before it."""
    due: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def send() -> None:
        while True:
            at, data = await due.get()
            if not data:
                break
            await asyncio.sleep(max(0.0, at - time.monotonic()))
            writer.write(data)
            await writer.drain()
        writer.close()

    sending = asyncio.create_task(send())
    last = 0.0
    try:
        while data := await reader.read(65536):
            wait = 0.0
            if on():
                wait = max(0.0, delay + rng.uniform(-jitter, jitter))
                if rng.random() < loss:
                    wait += RETRANSMISSION_SECONDS + 2 * delay
            last = max(last, time.monotonic() + wait)
            due.put_nowait((last, data))
    except ConnectionError:
        pass
    due.put_nowait((last, b""))
    await sending


async def relay(listen: tuple[str, int], to: tuple[str, int], delay: float, jitter: float, loss: float,
                seed: int, switch: Path | None = None) -> None:
    rng = random.Random(seed)

    def on() -> bool:
        return switch is None or switch.exists()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*to)
        except OSError:
            writer.close()
            return
        await asyncio.gather(carry(reader, upstream_writer, delay, jitter, loss, rng, on),
                             carry(upstream_reader, writer, delay, jitter, loss, rng, on), return_exceptions=True)

    server = await asyncio.start_server(connection, *listen)
    async with server:
        await server.serve_forever()


def address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host, int(port)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", type=address, required=True)
    parser.add_argument("--to", type=address, required=True)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--jitter", type=float, default=0.0)
    parser.add_argument("--loss", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--while-exists", type=Path, help="slow and lossy only while this file exists")
    args = parser.parse_args()
    asyncio.run(relay(args.listen, args.to, args.delay, args.jitter, args.loss, args.seed, args.while_exists))


if __name__ == "__main__":
    main()
