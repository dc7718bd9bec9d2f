"""Beyond one process: the bus's messages and NATS, the director's service, the table workers, the gateways and
``mttsim cluster``."""
