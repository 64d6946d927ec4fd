"""Print the final parameter of every case of optim_rounding_cases.py in every mode under Kiln, as one JSON object
{"NAME-MODE": base64 of the float32 bytes}. test_optim_rounding.py runs it in a process of its own with
`KILN_TIERED=quick` and a fresh cache folder, so every whole program runs its quick tier (LLVM at -O0), which no
executable compiled or stored earlier can stand in for."""

import base64
import json

import kiln
from tests.nn.optim_rounding_cases import NN_CASES, OP_CASES, run

if __name__ == "__main__":
    cases = [(name, mode) for name in NN_CASES for mode in ("pynative", "graph", "train")]
    cases += [(name, mode) for name in OP_CASES for mode in ("pynative", "graph")]
    bits = {f"{n}-{m}": base64.b64encode(run(kiln, n, m).astype("float32").tobytes()).decode() for n, m in cases}
    print(json.dumps(bits))
