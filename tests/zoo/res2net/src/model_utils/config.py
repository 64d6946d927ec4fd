"""Stand-in for the zoo's YAML config: the two fields src/res2net.py reads."""


class _Config:
    net_name = "res2net50"
    optimizer = "Momentum"


config = _Config()
