#!/usr/bin/env bash
# One end-to-end GPU run, under 8 minutes on one H100/H200 (CPU CI never runs it):
#   bash experiments/gpu_e2e.sh [OUT_DIR]
# A few RL steps of the c256 recipe at the Qwen2.5-1.5B shape (random weights) with long responses, the
# plan's peak against the measured one, then vLLM (from the package registry) against the engine on the
# same prompts and lengths: experiments/gpu_e2e.py prints the table. Needs `pip install -e ".[cuda]"`.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-${OUT:-/tmp/gpu_e2e}}"
mkdir -p "$out"
python -c "import vllm" 2>/dev/null || timeout 240 pip install -q vllm > "$out/pip_vllm.txt" 2>&1 \
  || echo "vllm did not install (see $out/pip_vllm.txt): the vLLM column will fail"
timeout 420 python experiments/gpu_e2e.py --out "$out" 2>&1 | tee "$out/gpu_e2e.txt"
exit "${PIPESTATUS[0]}"
