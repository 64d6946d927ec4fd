"""Kiln's stand-in for the zoo's src/text/__init__.py, which imports its text cleaners (unidecode and inflect, absent
from both environments): it binds the symbol list hparams.py reads, as the zoo's does."""

from src.text.symbols import symbols

__all__ = ["symbols"]
