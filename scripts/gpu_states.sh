#!/usr/bin/env bash
# envcheck in the GPU states a process can be put in without touching the machine: GPUs hidden by
# CUDA_VISIBLE_DEVICES (empty, an unknown UUID, an index past the last GPU), the CUDA toolkit's stub libcuda found
# first (a libcuda.so.1 link to it on LD_LIBRARY_PATH), and NVIDIA_VISIBLE_DEVICES=void. For each: `status` (text),
# a redacted snapshot, and torch's own words in the same state (logs/, for explain's held-back scoring); then
# `smoke` and `run` (a real out-of-memory) in the healthy state. Writes $OUT/states.tar.gz.
set -u
OUT=${OUT:?set OUT to a folder}
PY=${PY:-python3}
W=$(mktemp -d)
mkdir -p "$W/logs" "$W/status"
export PYTHONUNBUFFERED=1
stub=$(ls /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda/targets/x86_64-linux/lib/stubs/libcuda.so 2>/dev/null | head -1)
mkdir -p "$W/stub" && [ -n "$stub" ] && ln -s "$stub" "$W/stub/libcuda.so.1"
echo "stub: $stub"
state() {  # state NAME VAR=VALUE...: status, snapshot and torch in that environment
  local name=$1; shift
  env "$@" timeout -k 5 60 "$PY" -m envcheck status --color never > "$W/status/$name.txt" 2>&1
  echo "=== $name: status exit $?"; sed -n '/Findings/,$p' "$W/status/$name.txt" | grep -E "^  (ERROR|WARNING|INFO)|^(OK|NOT OK)" | cut -c1-160
  env "$@" timeout -k 5 120 "$PY" -m envcheck snapshot "$W/status/$name-snapshot" --archive --redact > /dev/null 2>&1
  env "$@" timeout -k 5 120 "$PY" -c 'import torch; print(torch.__version__, torch.cuda.is_available(), torch.cuda.device_count()); x = torch.ones(2, device="cuda"); print(x.sum().item())' > "$W/logs/torch-$name.log" 2>&1
  echo "torch: exit $? $(tail -n 1 "$W/logs/torch-$name.log" | cut -c1-200)"
}
state cvd-empty CUDA_VISIBLE_DEVICES=
state cvd-bad-uuid CUDA_VISIBLE_DEVICES=GPU-00000000-0000-0000-0000-000000000000
state cvd-index-past CUDA_VISIBLE_DEVICES=1
state cvd-minus-one CUDA_VISIBLE_DEVICES=-1
state stub-libcuda "LD_LIBRARY_PATH=$W/stub:${LD_LIBRARY_PATH:-}"
state nvd-void NVIDIA_VISIBLE_DEVICES=void
CUDA_VISIBLE_DEVICES= timeout -k 5 300 "$PY" -m envcheck smoke --framework torch --device cuda --color never > "$W/status/smoke-cvd-empty.txt" 2>&1
echo "=== smoke with no GPU visible: exit $?"; tail -n 8 "$W/status/smoke-cvd-empty.txt"
timeout -k 5 120 "$PY" -m envcheck run -- "$PY" -c 'import torch; x = torch.empty(300 * 2**30, dtype=torch.uint8, device="cuda")' > "$W/status/run-oom.txt" 2>&1
echo "=== run on an out-of-memory: exit $?"; tail -n 25 "$W/status/run-oom.txt" | cut -c1-200
tar -C "$W" -czf "$OUT/states.tar.gz" logs status
ls -la "$OUT"
