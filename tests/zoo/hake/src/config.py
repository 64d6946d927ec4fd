"""Kiln's stand-in for the zoo's src/config.py, which parses default_config.yaml and the command line at import:
the one field src/utils.py reads (default_config.yaml's random_seed)."""


class Config:
    """The zoo's configuration namespace, reduced to what the vendored sources read."""

    random_seed = 1122


config = Config()
