"""The pure core of mttsim: the rules of poker and of tournaments.

Commands in, events out. Nothing here touches asyncio, sockets, clocks or
files; randomness comes only from an RNG the caller hands in, and time only as
numbers the caller passes. The real-time server and the accelerated simulator
both drive this same package.
"""
