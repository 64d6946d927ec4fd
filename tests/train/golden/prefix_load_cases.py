"""Checkpoints whose names carry a prefix the network's do not, for `load_param_into_net` without strict_load:
shared by make_prefix_load_goldens_mindspore.py (MindSpore's answers) and test_checkpoint.py (Kiln's).

The network (`NAMES`, in its parameter order) is two cells `fc` and `conv`, each with a `weight` and a `bias` of
shape (2,), all zeros before loading; an entry `name: v` of a case is a checkpoint Parameter filled with v.
"""

NAMES = ("fc.weight", "fc.bias", "conv.weight", "conv.bias")

CASES = {
    # the zoo's SRGAN: a loss cell's checkpoint (`x.` before every name) also holds Adam's `m.x.` moments
    "one_prefix_among_longer_ones": (
        {"x.fc.weight": 1, "x.fc.bias": 2, "m.x.fc.weight": 3, "x.conv.weight": 4, "x.conv.bias": 5},
        False,
    ),
    # the first entry ending with the first missing name sets the prefix; the rest are found with another
    "first_entry_wins_then_search_again": (
        {"m.x.fc.weight": 3, "x.fc.weight": 1, "x.fc.bias": 2, "x.conv.weight": 4},
        False,
    ),
    "two_prefixes": ({"a.fc.weight": 1, "a.fc.bias": 2, "b.conv.weight": 4, "b.conv.bias": 5}, False),
    # a checkpoint name shorter than the network's is not matched
    "shorter_names": ({"weight": 1, "bias": 2}, False),
    # the suffix is a plain string one: `x` is a prefix of `xfc.weight`
    "prefix_without_a_dot": ({"xfc.weight": 1, "xfc.bias": 2}, False),
    "strict_load_matches_exactly": ({"x.fc.weight": 1}, True),
    "exact_and_prefixed": ({"fc.weight": 1, "x.fc.bias": 2, "y.conv.weight": 3}, False),
}
