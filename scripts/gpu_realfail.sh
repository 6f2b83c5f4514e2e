#!/usr/bin/env bash
# Make real failures on a machine with an NVIDIA GPU and keep what each printed, for explain's held-back
# scoring: out-of-memory in torch / jax / cupy, no GPU visible, a cuDNN other than the one torch was built
# with (the system copy preloaded), code built for another architecture, an illegal address, libcuda and
# libnvidia-ml made unloadable (bound over by /dev/null in a private mount namespace), device nodes the
# user cannot open, and healthy runs that must stay silent.  Also the nvidia-smi forms gpu_check.sh does
# not keep, and envcheck's own status in each broken state.
#
#   OUT=/tmp/realfail scripts/gpu_realfail.sh     (as root: the namespace and chmod cases need it)
#
# Writes $OUT/realfail.tar.gz: logs/NAME.log (stdout and stderr together, as users paste them; the command
# and its exit status in cmds.txt), smi/NAME.txt, status/NAME.json.  Nothing here runs envcheck on the
# logs: they are scored elsewhere, after labelling.
set -u
OUT=${OUT:?set OUT to a folder}
PY=${PY:-python3}
W=$(mktemp -d)
mkdir -p "$W/logs" "$W/smi" "$W/status"
export PYTHONUNBUFFERED=1
here=$(pwd)

case_() {  # case_ NAME SECONDS CMD...: run CMD with a time limit; the log holds the command and its output
  local name=$1 limit=$2; shift 2
  timeout -k 5 "$limit" "$@" > "$W/logs/$name.log" 2>&1
  local rc=$?
  printf '%s\texit %s\t%s\n' "$name" "$rc" "$*" >> "$W/cmds.txt"
  echo "--- $name: exit $rc: $(tail -c 300 "$W/logs/$name.log" | tr '\n' ' ')"
}
smi() {  # smi NAME ARGS...: one nvidia-smi form
  local name=$1; shift
  { timeout -k 5 30 nvidia-smi "$@" 2>&1; echo "[exit $?]"; } > "$W/smi/$name.txt"
}
st() {  # st NAME [PREFIX...]: envcheck status (text and --json) and a redacted snapshot in a state, from the checkout
  local name=$1; shift
  (cd "$here" && timeout -k 5 60 "$@" "$PY" -m envcheck status --json > "$W/status/$name.json" 2> "$W/status/$name.err")
  echo "--- status $name: exit $?"
  (cd "$here" && timeout -k 5 60 "$@" "$PY" -m envcheck status --color never > "$W/status/$name.txt" 2>&1)
  (cd "$here" && timeout -k 5 120 "$@" "$PY" -m envcheck snapshot "$W/status/$name-snapshot" --archive --redact \
     > /dev/null 2>> "$W/status/$name.err")
  echo "--- snapshot $name: exit $?"
}

# ---- nvidia-smi forms
smi xml -q -x
smi version --version
smi q-memory -q -d MEMORY,COMPUTE
smi query-wide --query-gpu=name,compute_cap,driver_version,memory.total,memory.used,utilization.gpu,temperature.gpu,pstate --format=csv
smi query-nounits --query-gpu=index,name,memory.total --format=csv,nounits
smi bad-field --query-gpu=bogus --format=csv
smi no-such-index -i 5
smi mig-lgi mig -lgi
smi dmon dmon -c 2
smi help-query --help-query-gpu

# ---- torch
case_ torch-oom 120 "$PY" -c 'import torch; x = torch.empty(300 * 2**30, dtype=torch.uint8, device="cuda")'
case_ torch-oom-fraction 120 "$PY" -c 'import torch; torch.cuda.set_per_process_memory_fraction(0.001); a = torch.ones(1024, 1024, 64, device="cuda")'
case_ torch-oom-training 180 "$PY" -c '
import torch
m = torch.nn.Sequential(*[torch.nn.Linear(16384, 16384) for _ in range(8)]).cuda()
opt = torch.optim.Adam(m.parameters())
for step in range(100):
    x = torch.randn(2**17, 16384, device="cuda")
    loss = m(x).square().mean(); loss.backward(); opt.step(); opt.zero_grad()
    print("step", step, "loss", loss.item())
'
CUDA_VISIBLE_DEVICES= case_ torch-no-visible 120 "$PY" -c 'import torch; print(torch.cuda.is_available()); torch.zeros(1).cuda()'
CUDA_VISIBLE_DEVICES=GPU-00000000-0000-0000-0000-000000000000 case_ torch-bad-uuid 120 "$PY" -c 'import torch; print(torch.cuda.device_count()); x = torch.zeros(1, device="cuda:0")'
case_ torch-ordinal 120 "$PY" -c 'import torch; x = torch.zeros(1, device="cuda:3")'
case_ torch-device-assert 120 "$PY" -c 'import torch; e = torch.nn.Embedding(10, 4).cuda(); print(e(torch.tensor([12], device="cuda")).sum().item())'
case_ torch-deterministic 120 "$PY" -c 'import torch; torch.use_deterministic_algorithms(True); a = torch.randn(64, 64, device="cuda"); print((a @ a).sum().item())'
case_ torch-mixed-devices 120 "$PY" -c 'import torch; m = torch.nn.Linear(4, 4).cuda(); m(torch.randn(2, 4))'
syscudnn=$(ldconfig -p | awk '/libcudnn\.so\.9 /{print $NF; exit}')
echo "system cudnn: $syscudnn"
if [ -n "$syscudnn" ]; then
  LD_PRELOAD=$syscudnn case_ torch-cudnn-preload 120 "$PY" -c 'import torch; print(torch.backends.cudnn.version()); c = torch.nn.Conv2d(3, 8, 3).cuda(); print(c(torch.randn(2, 3, 16, 16, device="cuda")).sum().item())'
  LD_PRELOAD=$syscudnn case_ jax-cudnn-preload 120 "$PY" -c 'import jax, jax.numpy as jnp; x = jnp.ones((1, 8, 8, 3)); k = jnp.ones((3, 3, 3, 4)); print(jax.lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")).sum())'
fi
case_ healthy-torch-train 180 "$PY" -c '
import torch, warnings
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.LazyLinear(10)).cuda()
opt = torch.optim.SGD(m.parameters(), lr=0.01)
print("device", torch.cuda.get_device_name(0), "torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())
for epoch in range(3):
    for step in range(20):
        x = torch.randn(32, 3, 32, 32, device="cuda"); y = torch.randint(0, 10, (32,), device="cuda")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(m(x), y)
        loss.backward(); opt.step(); opt.zero_grad()
    print(f"epoch {epoch} loss {loss.item():.4f} mem {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB")
'

# ---- jax, cupy
case_ jax-oom 120 "$PY" -c 'import jax.numpy as jnp; x = jnp.zeros((300 * 2**30,), jnp.uint8); print(x.sum())'
CUDA_VISIBLE_DEVICES= JAX_PLATFORMS=cuda case_ jax-no-visible 120 "$PY" -c 'import jax; print(jax.devices())'
CUDA_VISIBLE_DEVICES= case_ jax-fallback-cpu 120 "$PY" -c 'import jax; print(jax.devices())'
case_ healthy-jax 120 "$PY" -c 'import jax, jax.numpy as jnp; print(jax.devices()); x = jnp.ones((1024, 1024)); print((x @ x).sum())'
case_ cupy-oom 120 "$PY" -c 'import cupy; x = cupy.empty(300 * 2**30, dtype=cupy.uint8)'
CUDA_VISIBLE_DEVICES= case_ cupy-no-visible 120 "$PY" -c 'import cupy; print(cupy.zeros(1))'

# ---- code built for another architecture, and a bad address
cat > "$W/k.cu" <<'CU'
#include <cstdio>
__global__ void k(int *p, long off) { p[off] = 1; }
int main(int argc, char **argv) {
  int *d; cudaMalloc(&d, 4);
  long off = argc > 1 ? 1L << 40 : 0;
  k<<<1, 1>>>(d, off);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { fprintf(stderr, "CUDA error: %s (%s) at %s:%d\n", cudaGetErrorString(e), cudaGetErrorName(e), __FILE__, __LINE__); return 1; }
  puts("ok"); return 0;
}
CU
if (cd "$W" && nvcc -gencode arch=compute_80,code=sm_80 -o k80 k.cu && nvcc -o knat k.cu && nvcc -cubin -arch=sm_80 -o k80.cubin k.cu) > "$W/nvcc.txt" 2>&1; then
  case_ nvcc-sm80-on-sm90 30 "$W/k80"
  case_ nvcc-illegal-address 30 "$W/knat" bad
  case_ cupy-cubin-sm80 120 "$PY" -c "import cupy; m = cupy.RawModule(path='$W/k80.cubin'); f = m.get_function('_Z1kPil'); a = cupy.zeros(1, dtype=cupy.int32); f((1,), (1,), (a, cupy.int64(0))); print(a)"
else
  cat "$W/nvcc.txt"
fi
case_ nvcc-sm35 60 sh -c "cd '$W' && nvcc -arch=sm_35 -o k35 k.cu"

# ---- libcuda / libnvidia-ml made unloadable, device nodes unusable (private mount namespaces)
cuda1=$(readlink -f "$(ldconfig -p | awk '/libcuda\.so\.1 /{print $NF; exit}')")
nvml1=$(readlink -f "$(ldconfig -p | awk '/libnvidia-ml\.so\.1 /{print $NF; exit}')")
echo "libcuda: $cuda1  libnvidia-ml: $nvml1"
# hide WHAT CMD...: run CMD with each file of WHAT (space-separated) bound over by /dev/null
hide=(unshare -m sh -c 'for f in $0; do mount --bind /dev/null "$f" || exit 97; done; exec "$@"')
case_ torch-no-libcuda 120 "${hide[@]}" "$cuda1" "$PY" -c 'import torch; print(torch.cuda.is_available()); torch.zeros(1).cuda()'
case_ smi-no-libnvml 60 "${hide[@]}" "$nvml1" nvidia-smi
case_ smi-no-libcuda-nvml 60 "${hide[@]}" "$cuda1 $nvml1" nvidia-smi
st no-libcuda-nvml "${hide[@]}" "$cuda1 $nvml1"
nodes=$(ls /dev/nvidia[0-9]* /dev/nvidiactl /dev/nvidia-uvm 2>/dev/null | tr '\n' ' ')
echo "device nodes: $nodes"
case_ torch-null-nodes 120 "${hide[@]}" "$nodes" "$PY" -c 'import torch; print(torch.cuda.is_available()); torch.zeros(1).cuda()'
case_ smi-null-nodes 60 "${hide[@]}" "$nodes" nvidia-smi
st null-nodes "${hide[@]}" "$nodes"
ls -l /dev/nvidia* > "$W/smi/dev-modes.txt" 2>&1
chmod 600 /dev/nvidia*
case_ torch-nodes-denied 120 setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp "$PY" -c 'import torch; print(torch.cuda.is_available()); torch.zeros(1).cuda()'
case_ smi-nodes-denied 60 setpriv --reuid=65534 --regid=65534 --clear-groups nvidia-smi
st nodes-denied setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp
chmod 666 /dev/nvidia*
ls -l /dev/nvidia* >> "$W/smi/dev-modes.txt" 2>&1

tar -C "$W" -czf "$OUT/realfail.tar.gz" logs smi status cmds.txt nvcc.txt
ls -la "$OUT"
