"""Kiln's: the zoo's src/__init__.py imports imdb.py and dataset.py (the CoNLL-2000 and GloVe readers), not vendored."""
