"""Functions that the API golden probes transform (vmap, jvp, vjp, jacobians, grad).

They live in a module of their own so that MindSpore can read their source (it compiles them) and Kiln runs
the very same code. They use only Tensor operators, so they run on either framework.
"""


def mul(a, b):
    return a * b


def square(a):
    return a * a


def sum_and_double(a):
    return a.sum(0), a * 2


def mul_sum(a, b):
    return (a * b).sum()
