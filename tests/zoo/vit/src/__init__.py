"""Kiln's: the zoo's official/cv/VIT/src package marker (its own is the licence header only)."""
