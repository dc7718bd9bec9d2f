"""One tournament live: its runtime and journal, its tables and clocks, its streams to the clients. It imports no
web server, no API and no cluster (docs/architecture.md, "Import rules")."""
