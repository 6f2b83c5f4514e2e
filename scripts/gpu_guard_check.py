"""envcheck.guard on a real CUDA device: what the guard refuses, what cuDNN itself does with the same
inputs, and the guard's cost per forward pass.  Run by scripts/gpu_check.sh; prints one line a case."""

from __future__ import annotations

import time

import torch

import envcheck.guard as guard

dev = torch.device("cuda")
print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(),
      "device", torch.cuda.get_device_name(0), "cc", torch.cuda.get_device_capability(0))


def model() -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.BatchNorm2d(32), torch.nn.ReLU(),
        torch.nn.Conv2d(32, 64, 3, stride=2, padding=1), torch.nn.BatchNorm2d(64), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(64, 10),
    ).to(dev)


cases = {
    "good": torch.randn(8, 3, 32, 32, device=dev),
    "empty-batch": torch.randn(0, 3, 32, 32, device=dev),
    "channels": torch.randn(8, 4, 32, 32, device=dev),
    "too-small": torch.randn(8, 3, 1, 1, device=dev)[:, :, :0, :],
    "int-input": torch.ones(8, 3, 32, 32, device=dev, dtype=torch.int32),
}

for name, x in cases.items():
    m = model()
    try:
        m(x)
        raw = "ok"
    except Exception as e:  # noqa: BLE001 - we record what torch/cuDNN raise on the GPU
        raw = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    h = guard.install(m)
    try:
        m(x)
        got = "ok"
    except guard.GuardError as e:
        got = f"GuardError check={e.check} layer={e.layer}"
    except Exception as e:  # noqa: BLE001
        got = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    finally:
        h.remove()
    print(f"case {name}: unguarded -> {raw} | guarded -> {got}")

# LSTM through cuDNN
lstm = torch.nn.LSTM(16, 32, batch_first=True).to(dev)
h = guard.install(lstm)
lstm(torch.randn(4, 7, 16, device=dev))
try:
    lstm(torch.randn(4, 0, 16, device=dev))
    print("case lstm-empty: guarded -> ok")
except guard.GuardError as e:
    print(f"case lstm-empty: guarded -> GuardError check={e.check} layer={e.layer}")
h.remove()


def bench(m: torch.nn.Module, x: torch.Tensor, n: int = 300) -> float:
    with torch.no_grad():
        for _ in range(20):
            m(x)
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(n):
            m(x)
        torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e6


m = model().eval()
x = torch.randn(64, 3, 64, 64, device=dev)
plain = min(bench(m, x) for _ in range(3))
h = guard.install(m)
guarded = min(bench(m, x) for _ in range(3))
h.remove()
print(f"overhead small CNN batch 64 on {torch.cuda.get_device_name(0)}: plain {plain:.1f} us, guarded "
      f"{guarded:.1f} us per forward ({(guarded / plain - 1) * 100:+.1f}%)")
