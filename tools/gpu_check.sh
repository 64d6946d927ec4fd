#!/bin/bash
# Kiln on an NVIDIA GPU in one call: the device, a GPU slice of the tests, the benchmarks, the conv check.
#
#   bash tools/gpu_check.sh            from a folder holding kiln/, tests/, benchmarks/ and pyproject.toml
#   DRY=1 bash tools/gpu_check.sh      the same on the CPU (JAX_PLATFORMS left alone): checks the script itself
#
# Everything goes to $OUT (default /tmp/gpu_check): log.txt (all but the tests), tests.txt, and one file per
# benchmark. Each step has its own time limit (seconds, the T_* variables) so the whole run ends in about 7 minutes
# on an H200 machine; a step that runs out is reported and the next one runs.
set -o pipefail
cd "$(dirname "$0")/.." || exit 1
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 KILN_CORPUS_PROGRAMS=50
# one JAX process per pytest worker and per benchmark: none may take 75% of the GPU's memory up front
export XLA_PYTHON_CLIENT_PREALLOCATE=false
# cuda first (the default device), cpu beside it: Kiln's host steps (io_callback: asnumpy, print, data-dependent
# shapes in a compiled program) need JAX's CPU platform; JAX_PLATFORMS=cuda alone failed 41 more tests (session 20)
[ -z "$DRY" ] && export JAX_PLATFORMS=cuda,cpu
OUT=${OUT:-/tmp/gpu_check}
mkdir -p "$OUT"
PY=${PY:-python3}
TESTS=${TESTS:-tests/core/test_gpu.py tests/_prims/nn/test_conv.py tests/pynative tests/_compiler tests/nn tests/ops}
T_TESTS=${T_TESTS:-150} T_CONV=${T_CONV:-70} T_PYNATIVE=${T_PYNATIVE:-55} T_TRANSFORMER=${T_TRANSFORMER:-60}
T_GRAPH=${T_GRAPH:-50} T_FIRSTCALL=${T_FIRSTCALL:-60}

{
    date -u
    nvidia-smi -L
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.used,temperature.gpu --format=csv
    $PY -c "import jax, jaxlib; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__, jax.devices())"
    $PY -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"
    nproc
} 2>&1 | tee "$OUT/log.txt"

# Tests: -vv (pyproject's -q takes one v back) lists every result as it comes, so a slice cut by its time limit still says what passed and failed
# (SIGINT first: pytest then prints its summary of what ran).
timeout_opt=$($PY -c "import pytest_timeout" 2>/dev/null && echo "--timeout=60")
echo "== tests ($TESTS), limit ${T_TESTS}s" | tee -a "$OUT/log.txt"
# shellcheck disable=SC2086
timeout -s INT -k 20 "$T_TESTS" $PY -m pytest -p no:cacheprovider -n 4 -vv -rfE --tb=short $timeout_opt $TESTS \
    >"$OUT/tests.txt" 2>&1
echo "pytest rc $?" | tee -a "$OUT/tests.txt" "$OUT/log.txt"

bench() {  # bench NAME LIMIT ARGS...: one benchmark, its output to $OUT/NAME.txt and the log
    local name=$1 limit=$2
    shift 2
    echo "== benchmark $name $*, limit ${limit}s" | tee -a "$OUT/log.txt"
    timeout -s INT -k 10 "$limit" $PY -m benchmarks "$name" -- "$@" 2>&1 | tee "$OUT/$name.txt" | tee -a "$OUT/log.txt"
    echo "$name rc $?" | tee -a "$OUT/log.txt"
}
bench conv "$T_CONV" --versus-lax --layers "${CONV_LAYERS:-lenet,thin,resnet}" --batch 32 --repeat 5
bench pynative "$T_PYNATIVE" --repeat 3 --steps 10
bench transformer "$T_TRANSFORMER" --repeat 3 --steps 10
bench graph "$T_GRAPH" --repeat 3
bench firstcall "$T_FIRSTCALL" --tries 1 --no-steady \
    --cases "Kiln PyNative,KILN_LAZY=0,Kiln GRAPH_MODE,graph cache off,JAX jax.jit"

echo "== summary"
grep -E "^(FAILED|ERROR) " "$OUT/tests.txt" | cut -c1-220 | head -60
echo "tests: $(grep -c ' PASSED ' "$OUT/tests.txt") passed, $(grep -c ' FAILED ' "$OUT/tests.txt") failed," \
    "$(grep -c ' SKIPPED ' "$OUT/tests.txt") skipped, $(grep -c ' ERROR ' "$OUT/tests.txt") errors (lines of -v)"
grep -E "passed|failed" "$OUT/tests.txt" | tail -2
date -u
