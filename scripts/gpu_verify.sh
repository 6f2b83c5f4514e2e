#!/usr/bin/env bash
# A short verification run on a GPU machine after changes: scripts/gpu_check.sh without its two benchmarks, then
# `status` in each broken state that tests/data/real/h200-580.159.04-broken-states holds (made again here, as root:
# libcuda / libnvidia-ml / the device nodes bound over by /dev/null in a private mount namespace; CUDA_VISIBLE_DEVICES,
# NVIDIA_VISIBLE_DEVICES=void, the toolkit's stub libcuda first). Prints each state's findings; writes $OUT/verify.tar.gz.
set -u
OUT=${OUT:?set OUT to a folder}
PY=${PY:-python3}
export PYTHONUNBUFFERED=1
mkdir -p "$OUT/check"
OUT="$OUT/check" SKIP_SLOW=1 bash scripts/gpu_check.sh > /dev/null 2>&1
echo "gpu_check: $(grep -c ': exit 0$' "$OUT/check/log.txt") steps exit 0; not 0: $(grep -E '^=== .*: exit [1-9]' "$OUT/check/log.txt" | tr '\n' ' ')"
W=$(mktemp -d)
cuda1=$(readlink -f "$(ldconfig -p | awk '/libcuda\.so\.1 /{print $NF; exit}')")
nvml1=$(readlink -f "$(ldconfig -p | awk '/libnvidia-ml\.so\.1 /{print $NF; exit}')")
nodes=$(ls /dev/nvidia[0-9]* /dev/nvidiactl /dev/nvidia-uvm 2>/dev/null | tr '\n' ' ')
stub=$(ls /usr/local/cuda/lib64/stubs/libcuda.so 2>/dev/null | head -1)
mkdir -p "$W/stub" && [ -n "$stub" ] && ln -s "$stub" "$W/stub/libcuda.so.1"
hide=(unshare -m sh -c 'for f in $0; do mount --bind /dev/null "$f" || exit 97; done; exec "$@"')
show() {  # show NAME CMD...: status in a state, its findings' first lines
  local name=$1; shift
  timeout -k 5 60 "$@" "$PY" -m envcheck status --color never > "$W/$name.txt" 2>&1
  echo "=== $name: exit $?"; grep -E "^  (ERROR|WARNING|INFO) |^(OK|NOT OK)" "$W/$name.txt" | cut -c1-150
}
show healthy env
show no-libs "${hide[@]}" "$cuda1 $nvml1"
show no-libcuda "${hide[@]}" "$cuda1"
show null-nodes "${hide[@]}" "$nodes"
show cvd-empty env CUDA_VISIBLE_DEVICES=
show nvd-void env NVIDIA_VISIBLE_DEVICES=void
show stub-libcuda env "LD_LIBRARY_PATH=$W/stub:${LD_LIBRARY_PATH:-}"
tar -C "$OUT" -czf "$OUT/verify.tar.gz" check
tar -C "$W" -czf "$OUT/states.tar.gz" --exclude=stub .
rm -rf "$OUT/check"
ls -la "$OUT"
