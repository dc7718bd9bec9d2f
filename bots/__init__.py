"""Players: strategies (pure functions of what a seat can see) and the swarm."""
