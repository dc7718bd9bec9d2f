"""The asyncio shell around the engine: one tournament live (tournament/), its storage, the HTTP and websocket API
of a process (api/), the cluster beyond one process (cluster/), and the command line that wires them."""
