#!/usr/bin/env bash
# Run envcheck for real on a machine with an NVIDIA GPU and keep what it printed.
#
#   OUT=/tmp/gpu-check scripts/gpu_check.sh
#
# Writes into $OUT: log.txt (every command and its output), envcheck.json (status --deep --json),
# snapshot.tar.gz (envcheck snapshot --deep --archive), captures.tar.gz (the raw tool outputs
# below, for the parser tests: nvidia-smi in each form, nvcc, collect_env), smoke.json.
# Each step has its own time limit; a failing step is recorded, not fatal.
set -u
OUT=${OUT:?set OUT to a folder}
PY=${PY:-python3}
export PYTHONUNBUFFERED=1
# (PYTHONPYCACHEPREFIX was tried on the H200 on 2026-11-27: it moved the standard library's compiled modules too and
# made even `python -c pass` cost 282 ms there; the timing below is the checkout's, as it runs)
mkdir -p "$OUT/cap"
# the scripts under scripts/ and benchmarks/ import envcheck from this checkout (their own folder is sys.path[0])
export PYTHONPATH="$(pwd)${PYTHONPATH:+:$PYTHONPATH}"
exec > >(tee "$OUT/log.txt") 2>&1

step() {  # step NAME SECONDS CMD...: run CMD, keep its output in cap/NAME.txt, print its exit status
  local name=$1 limit=$2; shift 2
  echo "=== $name: $*"
  timeout -k 5 "$limit" "$@" > "$OUT/cap/$name.txt" 2> "$OUT/cap/$name.err"
  local rc=$?
  head -c 6000 "$OUT/cap/$name.txt"; head -c 3000 "$OUT/cap/$name.err"
  echo "=== $name: exit $rc"
}

step uname 5 uname -a
step python-version 5 "$PY" -VV
step nvidia-smi 20 nvidia-smi
step nvidia-smi-q 30 nvidia-smi -q
step nvidia-smi-L 20 nvidia-smi -L
step nvidia-smi-csv 20 nvidia-smi --query-gpu=index,name,driver_version,memory.total,compute_cap,pci.bus_id,uuid --format=csv
step nvidia-smi-csv-noheader 20 nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader,nounits
step nvidia-smi-topo 20 nvidia-smi topo -m
step proc-driver-version 5 cat /proc/driver/nvidia/version
step nvcc 20 nvcc --version
step ldconfig-cuda 20 sh -c 'ldconfig -p | grep -E "libcuda|libcudnn|libcudart|libnvidia-ml|libnccl"'
step pip-list 60 "$PY" -m pip list --format=freeze
step collect-env 120 "$PY" -m torch.utils.collect_env

step envcheck-version 30 "$PY" -m envcheck --version
step status 60 "$PY" -m envcheck status --color never
step status-json 60 "$PY" -m envcheck status --json
step status-deep 180 "$PY" -m envcheck status --deep --color never
step status-deep-json 180 "$PY" -m envcheck status --deep --json
cp "$OUT/cap/status-deep-json.txt" "$OUT/envcheck.json"
step status-require-gpu 60 "$PY" -m envcheck status --require-gpu --quiet
step status-prometheus 60 "$PY" -m envcheck status --prometheus
step snapshot 240 "$PY" -m envcheck snapshot "$OUT/snapshot" --deep --archive
step replay 60 "$PY" -m envcheck status --snapshot "$OUT/snapshot.tar.gz" --color never
step smoke 300 "$PY" -m envcheck smoke --device cuda --json
cp "$OUT/cap/smoke.txt" "$OUT/smoke.json"
step smoke-text 300 "$PY" -m envcheck smoke --framework torch --device cuda --color never
step guard 180 "$PY" scripts/gpu_guard_check.py
step explain-collect-env 30 "$PY" -m envcheck explain "$OUT/cap/collect-env.txt"
step run-ok 120 "$PY" -m envcheck run -- "$PY" -c 'import torch; print(torch.ones(2, device="cuda").sum().item())'
step run-fail 120 "$PY" -m envcheck run -- "$PY" -c 'import torch; torch.backends.cudnn.enabled=True; torch.nn.functional.conv2d(torch.ones(1,3,8,8,device="cuda"), torch.ones(4,5,3,3,device="cuda"))'
step fix-plan 60 "$PY" -m envcheck fix --color never
if [ -z "${SKIP_SLOW:-}" ]; then  # (SKIP_SLOW=1: a verification run short of device time leaves the two benchmarks out)
step status-cpu 60 "$PY" benchmarks/status_cpu.py --top 25
step guard-overhead 240 "$PY" benchmarks/guard_overhead.py --framework torch --device cuda --runs 200 --blocks 10 --resnet-runs 40 --resnet-batch 64
fi

# start-up cost beside a bare interpreter (the benchmark's measure, 10 runs each)
echo "=== timing"
"$PY" - "$PY" <<'PYEOF'
import subprocess, sys, time
py = sys.argv[1]
for what in (["-c", "pass"], ["-m", "envcheck", "status", "--quiet"]):
    runs = []
    for _ in range(10):
        t = time.perf_counter(); subprocess.run([py, *what], capture_output=True); runs.append(time.perf_counter() - t)
    runs.sort()
    print(" ".join(what), "median %.1f ms, min %.1f ms" % (runs[5] * 1e3, runs[0] * 1e3))
PYEOF

tar -C "$OUT" -czf "$OUT/captures.tar.gz" cap
rm -rf "$OUT/cap" "$OUT/snapshot"
ls -la "$OUT"
