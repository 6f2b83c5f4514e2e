"""Measure what `envcheck.guard` costs per forward pass: a small CNN and an LSTM, with and without.

Usage (torch installed):

    python benchmarks/guard_overhead.py [--runs 2000] [--repeats 7] [--device cpu|cuda] [--threads 1]

For each model, the forward pass (under torch.no_grad, after a warm-up) is timed ``--runs``
times in a row; that is repeated ``--repeats`` times alternating unguarded / guarded, and the
median per-forward time of each is reported with the overhead in microseconds and percent.
No timing is asserted in the test suite: this script only measures.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import time
from typing import Any, Callable, Dict, List

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import envcheck.guard as guard  # noqa: E402


def models(torch: Any) -> Dict[str, Any]:
    nn = torch.nn

    cnn = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))

    class Lstm(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.rnn = nn.LSTM(32, 64, num_layers=2, batch_first=True)
            self.head = nn.Linear(64, 10)

        def forward(self, x: Any) -> Any:
            return self.head(self.rnn(x)[0][:, -1])

    return {"small CNN (3 conv + 3 BN, 8x3x32x32)": (cnn, (8, 3, 32, 32)),
            "LSTM (2 layers, 8x20x32)": (Lstm(), (8, 20, 32))}


def per_forward(fn: Callable[[], Any], runs: int, sync: Callable[[], None]) -> float:
    sync()
    t0 = time.perf_counter()
    for _ in range(runs):
        fn()
    sync()
    return (time.perf_counter() - t0) / runs


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads (1 = steadier numbers)")
    args = ap.parse_args(argv)
    torch = importlib.import_module("torch")
    torch.set_num_threads(args.threads)
    dev = torch.device(args.device)
    sync = (lambda: torch.cuda.synchronize()) if dev.type == "cuda" else (lambda: None)
    print(f"torch {torch.__version__}, device {dev}, {args.threads} thread(s), {args.runs} forwards x "
          f"{args.repeats} repeats, median per forward")
    print(f"{'model':<40} {'layers':>6} {'plain':>10} {'guarded':>10} {'overhead':>10} {'%':>7}")
    for name, (model, shape) in models(torch).items():
        model = model.to(dev).eval()
        x = torch.randn(*shape, device=dev)
        with torch.no_grad():
            def fwd() -> Any:
                return model(x)

            for _ in range(50):
                fwd()
            plain, guarded = [], []
            n_layers = 0
            for _ in range(args.repeats):
                plain.append(per_forward(fwd, args.runs, sync))
                h = guard.install(model)
                n_layers = len(h.layers)
                guarded.append(per_forward(fwd, args.runs, sync))
                h.remove()
        p, g = statistics.median(plain), statistics.median(guarded)
        print(f"{name:<40} {n_layers:>6} {p * 1e6:>8.1f}us {g * 1e6:>8.1f}us {(g - p) * 1e6:>8.1f}us "
              f"{(g - p) / p * 100:>6.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
