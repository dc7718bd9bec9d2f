"""HTTP and websockets of one process: the REST endpoints, the director's commands, the sessions, the metrics. It
imports no cluster: the command line plugs the director's cluster service in."""
