"""List the CUDA targets compiled into a wheel: the SASS (cubin) and PTX entries of every shared object in it.

How compat_matrix/jax.toml's wheel-read architecture lists were taken (its [meta].notes):

    pip download --no-deps --only-binary=:all: --python-version 3.12 \
        --platform manylinux_2_27_x86_64 --platform manylinux2014_x86_64 jax-cuda13-plugin==0.11.2
    pip download --no-deps --only-binary=:all: nvidia-cuda-cuobjdump      # NVIDIA's cuobjdump, from PyPI
    python scripts/wheel_cuda_arch.py --cuobjdump PATH/nvidia/cu13/bin/cuobjdump jax_cuda13_plugin-0.11.2-*.whl

Each ``.so`` member is extracted to a temporary directory and read with ``cuobjdump --list-elf --list-ptx``;
the printout is, per wheel, every member with device code and the union of their targets, written the
matrix's way: SASS ``sm_XY`` as compute_capabilities "X.Y", PTX ``compute_XY`` as ptx "X.Y". Arch-specific
targets (``sm_90a``, ``sm_100f``) are printed as they are and left out of the matrix form.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from typing import Dict, List, Set, Tuple

_ENTRY = re.compile(r"\.(sm_(\d+)([af]?))\.(cubin|ptx)\b")


def _cc(digits: str) -> str:
    return f"{digits[:-1]}.{digits[-1]}"


def read_so(cuobjdump: str, path: str) -> Tuple[Set[str], Set[str], Set[str]]:
    """(SASS ccs, PTX ccs, arch-specific entries) of one shared object."""
    out = subprocess.run([cuobjdump, "--list-elf", "--list-ptx", path], capture_output=True, text=True,
                         timeout=600, check=False).stdout
    sass: Set[str] = set()
    ptx: Set[str] = set()
    special: Set[str] = set()
    for m in _ENTRY.finditer(out):
        name, digits, suffix, kind = m.group(1), m.group(2), m.group(3), m.group(4)
        if suffix:
            special.add(f"{name}.{kind}")
        elif kind == "cubin":
            sass.add(_cc(digits))
        else:
            ptx.add(_cc(digits))
    return sass, ptx, special


def _key(cc: str) -> Tuple[int, int]:
    a, b = cc.split(".")
    return int(a), int(b)


def read_wheel(cuobjdump: str, wheel: str) -> Dict[str, object]:
    members: Dict[str, List[str]] = {}
    sass: Set[str] = set()
    ptx: Set[str] = set()
    special: Set[str] = set()
    with zipfile.ZipFile(wheel) as zf, tempfile.TemporaryDirectory() as tmp:
        for info in zf.infolist():
            if not re.search(r"\.so(\.\d+)*$", info.filename):
                continue
            target = os.path.join(tmp, "member.so")
            with zf.open(info) as src, open(target, "wb") as dst:
                while True:
                    chunk = src.read(1 << 20)
                    if not chunk:
                        break
                    dst.write(chunk)
            s, p, x = read_so(cuobjdump, target)
            os.unlink(target)
            if s or p or x:
                members[info.filename] = sorted(s, key=_key) + [f"ptx {c}" for c in sorted(p, key=_key)] + sorted(x)
            sass |= s
            ptx |= p
            special |= x
    return {"wheel": os.path.basename(wheel), "members": members,
            "compute_capabilities": sorted(sass, key=_key), "ptx": sorted(ptx, key=_key), "arch_specific": sorted(special)}


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cuobjdump", default="cuobjdump")
    ap.add_argument("wheels", nargs="+")
    args = ap.parse_args(argv)
    for w in args.wheels:
        r = read_wheel(args.cuobjdump, w)
        print(r["wheel"])
        for name, entries in sorted(r["members"].items()):  # type: ignore[attr-defined]
            print(f"  {name}: {' '.join(entries)}")
        print(f"  compute_capabilities = {r['compute_capabilities']}  ptx = {r['ptx']}"
              + (f"  arch-specific: {r['arch_specific']}" if r["arch_specific"] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
