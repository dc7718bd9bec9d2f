"""The tournament's state, in parts (engine/state.py holds them): each a class whose fields only its own methods
write, so that every field has one writer and a rule that changes one says so by the method it calls."""
