#!/usr/bin/env bash
# More real failures for explain's held-back scoring, made on a GPU machine whose torch is newer than the compiled
# extensions installed beside it: torchvision 0.20.1, torchaudio 2.5.1 and xformers 0.0.28.post3 (all built for torch
# 2.5.1) from wheels in .whl/ (pip download ... --python-version 3.12), each on a PYTHONPATH of its own; and two NCCL
# ranks on one GPU. Writes $OUT/realfail-ext.tar.gz (logs/NAME.log, cmds.txt), like gpu_realfail.sh.
set -u
OUT=${OUT:?set OUT to a folder}
PY=${PY:-python3}
W=$(mktemp -d)
mkdir -p "$W/logs"
export PYTHONUNBUFFERED=1
case_() {  # case_ NAME SECONDS CMD...
  local name=$1 limit=$2; shift 2
  timeout -k 5 "$limit" "$@" > "$W/logs/$name.log" 2>&1
  local rc=$?
  printf '%s\texit %s\t%s\n' "$name" "$rc" "$*" >> "$W/cmds.txt"
  echo "--- $name: exit $rc: $(tail -c 300 "$W/logs/$name.log" | tr '\n' ' ')"
}
for w in torchvision torchaudio xformers; do
  "$PY" -m pip install -q --no-index --no-deps --no-compile --target "$W/site-$w" .whl/$w-*.whl || echo "install $w failed"
done
PYTHONPATH="$W/site-torchvision" case_ torchvision-0.20.1-on-torch-2.11-nms 120 "$PY" -c '
import torch, torchvision
from torchvision.ops import nms
boxes = torch.tensor([[0, 0, 10, 10], [1, 1, 11, 11]], dtype=torch.float32, device="cuda")
print(nms(boxes, torch.tensor([0.9, 0.8], device="cuda"), 0.5))'
PYTHONPATH="$W/site-torchaudio" case_ torchaudio-2.5.1-on-torch-2.11-import 120 "$PY" -c '
import torch, torchaudio
print(torchaudio.__version__)
print(torchaudio.functional.resample(torch.randn(1, 16000, device="cuda"), 16000, 8000).shape)'
PYTHONPATH="$W/site-xformers" case_ xformers-0.0.28.post3-on-torch-2.11-memory-efficient-attention 120 "$PY" -c '
import torch, xformers.ops as xops
q = torch.randn(1, 128, 8, 64, device="cuda", dtype=torch.float16)
print(xops.memory_efficient_attention(q, q, q).shape)'
cat > "$W/ddp.py" <<'PYEOF'
import os, torch, torch.distributed as dist
dist.init_process_group("nccl")
torch.cuda.set_device(0)  # both ranks on the one GPU
t = torch.ones(4, device="cuda")
dist.all_reduce(t)
print("rank", dist.get_rank(), t.tolist())
dist.destroy_process_group()
PYEOF
case_ nccl-two-ranks-one-gpu 120 "$PY" -m torch.distributed.run --nproc_per_node=2 "$W/ddp.py"
tar -C "$W" -czf "$OUT/realfail-ext.tar.gz" logs cmds.txt
ls -la "$OUT"
