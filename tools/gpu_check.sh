#!/bin/bash
# Kiln on an NVIDIA GPU in one call (about 7 minutes on an H200): the tests that failed there in session 20 (host
# steps in compiled programs, TF32 matmuls, errors a GPU reports at a read), with JAX_PLATFORMS=cuda and cuda,cpu;
# a cut slice of pynative/_compiler/_backend/nn; three long tracebacks; benchmarks transformer (float32 and TF32
# matmuls), graph and firstcall; tools/gpu_probe.py (precision errors and costs, the MLP forward's per-call cost,
# where the warm first GRAPH step goes).
#
#   bash tools/gpu_check.sh            from a folder holding kiln/, tests/, benchmarks/, tools/ and pyproject.toml
#   DRY=1 bash tools/gpu_check.sh      the same on the CPU (JAX_PLATFORMS left alone): checks the script itself
#
# Everything goes to $OUT (default /tmp/gpu_check): log.txt (the summary), tests_*.txt, tb_long.txt, bench.txt,
# probe.txt. Each step has its own time limit (seconds, the T_* variables); a step that runs out is reported and the
# next one runs. Kiln adds JAX's CPU platform to JAX_PLATFORMS itself (host callbacks run on it): cuda alone works.
set -o pipefail
cd "$(dirname "$0")/.." || exit 1
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false KILN_CORPUS_PROGRAMS=50
OUT=${OUT:-/tmp/gpu_check}
mkdir -p "$OUT"
PY=${PY:-python3}
LOG=$OUT/log.txt
N=${N:-8}
T_FILES=${T_FILES:-65} T_FILES2=${T_FILES2:-40} T_SLICE=${T_SLICE:-55} T_TB=${T_TB:-30}
cuda() { if [ -z "$DRY" ]; then echo "$1"; else echo "${JAX_PLATFORMS:-}"; fi; }
{
    date -u
    nvidia-smi -L
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,memory.used --format=csv
    $PY -c "import jax, jaxlib; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__, jax.devices())"
    nproc
} 2>&1 | tee "$LOG"
timeout_opt=$($PY -c "import pytest_timeout" 2>/dev/null && echo "--timeout=60")
FILES="tests/_compiler/frontend/ast/test_host_step_shapes.py tests/_compiler/frontend/ast/test_jit_fallback.py
 tests/_compiler/heldout/test_heldout_programs.py tests/pynative/test_lazy_errors.py tests/core/test_gpu.py
 tests/_backend/test_async_host_steps.py tests/_backend/test_precision.py tests/_backend/test_platforms.py
 tests/_backend/test_callbacks.py tests/device_context"
tests() {  # tests NAME PLATFORMS LIMIT PATHS...
    local name=$1 plat=$2 limit=$3
    shift 3
    echo "== tests $name, JAX_PLATFORMS=$plat, limit ${limit}s" | tee -a "$LOG"
    # shellcheck disable=SC2086
    JAX_PLATFORMS=$plat timeout -s INT -k 15 "$limit" $PY -m pytest -p no:cacheprovider -n "$N" -rfE --tb=short \
        $timeout_opt "$@" >"$OUT/tests_$name.txt" 2>&1
    echo "pytest rc $?" | tee -a "$OUT/tests_$name.txt" "$LOG"
    grep -E "^(FAILED|ERROR) " "$OUT/tests_$name.txt" | cut -c1-200 | tee -a "$LOG"
    grep -E "(passed|failed).* in " "$OUT/tests_$name.txt" | tail -1 | tee -a "$LOG"
}
# shellcheck disable=SC2086
tests cuda "$(cuda cuda)" "$T_FILES" $FILES
# shellcheck disable=SC2086
tests cudacpu "$(cuda cuda,cpu)" "$T_FILES2" $FILES
tests slice "$(cuda cuda)" "$T_SLICE" tests/pynative tests/_compiler tests/_backend tests/nn
# full tracebacks of (up to) three failures of the first run
mapfile -t ids < <(grep -hE "^FAILED " "$OUT/tests_cuda.txt" "$OUT/tests_slice.txt" | sed -E 's/^FAILED //; s/ - .*//' |
    sort -u | head -3)  # (a test id may hold spaces: one array element each)
if [ ${#ids[@]} -gt 0 ]; then
    echo "== long tracebacks: ${ids[*]}" | tee -a "$LOG"
    JAX_PLATFORMS=$(cuda cuda) timeout -s INT -k 10 "$T_TB" $PY -m pytest -p no:cacheprovider -p no:xdist --tb=long -rfE \
        "${ids[@]}" >"$OUT/tb_long.txt" 2>&1
fi
bench() {  # bench NAME LIMIT ARGS...
    local name=$1 limit=$2
    shift 2
    echo "== benchmark $name $*, limit ${limit}s" | tee -a "$LOG" "$OUT/bench.txt"
    JAX_PLATFORMS=$(cuda cuda) timeout -s INT -k 10 "$limit" $PY -m benchmarks "$name" -- "$@" >>"$OUT/bench.txt" 2>&1
    echo "$name rc $?" | tee -a "$LOG" "$OUT/bench.txt"
}
bench transformer "${T_TRANSFORMER:-45}" --repeat 3 --steps 10
echo "== benchmark transformer with matmul_allow_tf32(True) (the old default), limit ${T_TF32:-40}s" | tee -a "$LOG" "$OUT/bench.txt"
KILN_CACHE_DIR=off JAX_PLATFORMS=$(cuda cuda) timeout -s INT -k 10 "${T_TF32:-40}" $PY -c "
import sys, runpy, kiln
kiln.device_context.gpu.op_precision.matmul_allow_tf32(True)
sys.argv = ['bench_transformer', '--repeat', '3', '--steps', '10']
runpy.run_module('benchmarks.bench_transformer', run_name='__main__')" >>"$OUT/bench.txt" 2>&1
echo "transformer tf32 rc $?" | tee -a "$LOG" "$OUT/bench.txt"
bench graph "${T_GRAPH:-40}" --repeat 3
bench firstcall "${T_FIRSTCALL:-45}" --tries 1 --no-steady --cases "Kiln GRAPH_MODE,JAX jax.jit"
echo "== probe" | tee -a "$LOG"
JAX_PLATFORMS=$(cuda cuda) timeout -s INT -k 10 "${T_PROBE:-75}" $PY tools/gpu_probe.py all >"$OUT/probe.txt" 2>&1
echo "probe rc $?" | tee -a "$LOG"
grep -E "^(matmul_allow|transformer step|MLP forward|Dense|per call|ratios|host time|--- |RESULT)" "$OUT/probe.txt" | cut -c1-220 | tee -a "$LOG"
grep -E "^(transformer|\(a\)|first Graph|.*GRAPH_MODE|.*jax.jit|.*@jit|first-step)" "$OUT/bench.txt" | cut -c1-200 | tee -a "$LOG"
date -u | tee -a "$LOG"
