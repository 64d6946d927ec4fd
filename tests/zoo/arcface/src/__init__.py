"""Kiln's: the zoo's src has no __init__.py (its scripts run from the network's folder)."""
