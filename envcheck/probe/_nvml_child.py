"""Run in a child process (``python -I -S _nvml_child.py``): ask NVML and libcuda through ctypes.

A broken driver can hang or crash inside ``nvmlInit``/``dlopen``; in a child that only costs the
child (the parent has a timeout), as conda's CUDA detector does. Prints one JSON object:
``{"nvml": <nvml.json>, "libcuda": <libcuda.json>}`` (contract §1). Standard library only.
"""

import ctypes
import json
import os
import sys

WSL_LIB = "/usr/lib/wsl/lib"


def _load(name):
    errors = []
    for cand in (name, os.path.join(WSL_LIB, name)):
        try:
            return ctypes.CDLL(cand), None
        except OSError as exc:
            errors.append(str(exc))
    return None, "; ".join(errors)


def _loaded_path(fragment):
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 6 and fragment in os.path.basename(parts[-1]):
                    return parts[-1]
    except OSError:
        pass
    return None


def nvml():
    lib, err = _load("libnvidia-ml.so.1")
    if lib is None:
        return {"error": "libnvidia-ml.so.1 could not be loaded: " + err, "code": "not-found"}
    lib.nvmlErrorString.restype = ctypes.c_char_p

    def estr(rc):
        try:
            return lib.nvmlErrorString(rc).decode(errors="replace")
        except Exception:  # noqa: BLE001 - report, never crash
            return "NVML error %d" % rc

    init = getattr(lib, "nvmlInit_v2", None) or lib.nvmlInit
    rc = init()
    if rc != 0:
        return {"error": estr(rc), "code": rc, "library": _loaded_path("libnvidia-ml")}
    out = {"library": _loaded_path("libnvidia-ml")}
    try:
        buf = ctypes.create_string_buffer(96)
        if lib.nvmlSystemGetDriverVersion(buf, 96) == 0:
            out["driver_version"] = buf.value.decode(errors="replace")
        cv = ctypes.c_int()
        fn = getattr(lib, "nvmlSystemGetCudaDriverVersion_v2", None) or getattr(
            lib, "nvmlSystemGetCudaDriverVersion", None)
        if fn is not None and fn(ctypes.byref(cv)) == 0:
            out["cuda_driver_version"] = cv.value
        count = ctypes.c_uint()
        get_count = getattr(lib, "nvmlDeviceGetCount_v2", None) or lib.nvmlDeviceGetCount
        rc = get_count(ctypes.byref(count))
        if rc != 0:
            out["error"] = estr(rc)
            out["code"] = rc
            out["gpus"] = []
            return out
        gpus = []
        get_handle = getattr(lib, "nvmlDeviceGetHandleByIndex_v2", None) or lib.nvmlDeviceGetHandleByIndex

        class Memory(ctypes.Structure):
            _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]

        for i in range(count.value):
            h = ctypes.c_void_p()
            gpu = {"index": i}
            rc = get_handle(i, ctypes.byref(h))
            if rc != 0:
                gpu["error"] = estr(rc)
                gpus.append(gpu)
                continue
            if lib.nvmlDeviceGetName(h, buf, 96) == 0:
                gpu["name"] = buf.value.decode(errors="replace")
            ma, mi = ctypes.c_int(), ctypes.c_int()
            if lib.nvmlDeviceGetCudaComputeCapability(h, ctypes.byref(ma), ctypes.byref(mi)) == 0:
                gpu["compute_capability"] = [ma.value, mi.value]
            mem = Memory()
            if lib.nvmlDeviceGetMemoryInfo(h, ctypes.byref(mem)) == 0:
                gpu["memory_total_mib"] = int(mem.total // (1024 * 1024))
            if lib.nvmlDeviceGetUUID(h, buf, 96) == 0:
                gpu["uuid"] = buf.value.decode(errors="replace")
            cur, pend = ctypes.c_uint(), ctypes.c_uint()
            fn = getattr(lib, "nvmlDeviceGetMigMode", None)
            if fn is not None and fn(h, ctypes.byref(cur), ctypes.byref(pend)) == 0:
                gpu["mig"] = bool(cur.value)
            gpus.append(gpu)
        out["gpus"] = gpus
    finally:
        try:
            lib.nvmlShutdown()
        except Exception as exc:  # noqa: BLE001 - the answers above stand; the failure is reported with them
            out["shutdown_error"] = f"{type(exc).__name__}: {exc}"
    return out


def libcuda():
    lib, err = _load("libcuda.so.1")
    if lib is None:
        return {"error": "libcuda.so.1 could not be loaded: " + err, "code": "not-found"}
    v = ctypes.c_int()
    rc = lib.cuDriverGetVersion(ctypes.byref(v))
    path = _loaded_path("libcuda.so")
    out = {"path": path}
    if path:
        out["file"] = os.path.realpath(path)
    if rc != 0:
        out["error"] = "cuDriverGetVersion failed with CUresult %d" % rc
        out["code"] = rc
    else:
        out["driver_cuda"] = v.value
    if "--init" in sys.argv:
        out["init_result"] = lib.cuInit(0)
    return out


def main():
    which = [a for a in sys.argv[1:] if not a.startswith("--")] or ["nvml", "libcuda"]
    result = {}
    if "nvml" in which:
        result["nvml"] = nvml()
    if "libcuda" in which:
        result["libcuda"] = libcuda()
    sys.stdout.write(json.dumps(result))


if __name__ == "__main__":
    main()
