"""Time of ``envcheck snapshot --redact`` (the redaction step alone, in process) on an 8-file snapshot
whose environ.json PATH names N user folders (issue 18: 25,000 took 24 s; it must be linear).

    python benchmarks/redact_many_users.py [N ...]
"""

from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from envcheck.snapshot.redact import redact_files  # noqa: E402


def snapshot(n: int):
    path = ":".join(f"/home/u{i:05d}x/bin" for i in range(n))
    return [
        ("meta.json", json.dumps({"schema": "envcheck/snapshot/1", "hostname": "gpu-node-17.example.org"}).encode()),
        ("environ.json", json.dumps({"PATH": path, "LD_LIBRARY_PATH": "/scratch/u00001x/lib"}).encode()),
        ("python.json", json.dumps({"version": "3.11.7", "executable": "/home/u00001x/venv/bin/python"}).encode()),
        ("packages.json", json.dumps({"torch": "2.5.1"}).encode()),
        ("requires.json", json.dumps({"torch": ["nvidia-cudnn-cu12==9.1.0.70"]}).encode()),
        ("nvidia-smi.txt", b"GPU 0: NVIDIA H100 (UUID: GPU-8a6c1e2f-3b4d-5e6f-7a8b-9c0d1e2f3a4b)\n" * 8),
        ("libraries.txt", b"/home/u00002x/lib/libcudart.so.12\n" * 50),
        ("proc-driver-version.txt", b"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15\n"),
    ]


def main(argv):
    for n in [int(a) for a in argv] or [1000, 5000, 25000]:
        files = snapshot(n)
        t0 = time.perf_counter()
        _, counts = redact_files(files)
        dt = time.perf_counter() - t0
        print(f"{n:>7} user folders: {dt:.3f} s  {counts}")


if __name__ == "__main__":
    main(sys.argv[1:])
