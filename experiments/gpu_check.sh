#!/usr/bin/env bash
# Every GPU mode of the benchmarks, the GPU parity checks and the end-to-end run (gpu_e2e.sh), in one run
# of under 16 minutes on one H100/H200 (run it where a GPU is lent; CPU CI never runs it):
#   bash experiments/gpu_check.sh [OUT_DIR]
# Assumes `pip install -e ".[cuda]"` (or jax[cuda] already installed). Each step has its own time limit,
# so a hung step cannot eat the others' time; the outputs go to OUT_DIR (default $OUT or /tmp/gpu_check).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-${OUT:-/tmp/gpu_check}}"
mkdir -p "$out"
status=0
step() {  # step NAME SECONDS COMMAND...
  local name=$1 limit=$2; shift 2
  echo "== $name (limit ${limit}s): $*"
  local start=$SECONDS
  timeout "$limit" "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  tail -n 25 "$out/$name.txt"
  echo "== $name: rc=$rc in $((SECONDS - start))s"
  [ $rc -eq 0 ] || status=1
}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/device.txt"
step parity 60 python experiments/gpu_parity.py
step forward 120 python experiments/bench_forward.py --gpu --repeats 3
step sampler 90 python experiments/bench_sampler.py --gpu --repeats 2
step rollout 150 python experiments/bench_rollout.py --gpu --prompts 128
step plan 60 python -m rlve_jax.plan --config=configs/mesh/gpu1.py:c256 --config.mesh.device_memory_gb=0
step e2e 480 bash experiments/gpu_e2e.sh "$out/e2e"  # RL steps at the 1.5B shape, plan vs peak, vs vLLM
exit $status
