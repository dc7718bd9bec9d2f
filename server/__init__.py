"""The asyncio shell around the engine: server, simulator, command line."""
