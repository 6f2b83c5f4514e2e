"""``--deep``: import one framework in a child process and print its runtime facts as JSON.

Run as ``python _deep_child.py torch|tensorflow``; the parent has a timeout, so a framework
that hangs or crashes on import costs only this child.
"""

import json
import sys


def torch_facts():
    import torch  # noqa: PLC0415

    out = {"version": torch.__version__, "cuda": torch.version.cuda}
    try:
        out["cudnn"] = torch.backends.cudnn.version()
    except Exception as exc:  # noqa: BLE001
        out["cudnn"] = None
        out["cudnn_error"] = str(exc)[:500]
    try:
        out["cuda_available"] = bool(torch.cuda.is_available())
        out["arch_list"] = torch.cuda.get_arch_list() or None
        out["device_count"] = torch.cuda.device_count()
    except Exception as exc:  # noqa: BLE001
        out["cuda_error"] = str(exc)[:500]
    out.update(_vendor_facts(torch, bool(out.get("cuda_available"))))
    return out


def _vendor_facts(torch, cuda_available=False):
    """Contract §9: ``hip``, ``xpu``, ``xpu_available``, ``mps`` and ``devices`` (each guarded: an old torch
    has none of these attributes)."""
    out = {"hip": getattr(torch.version, "hip", None), "xpu": getattr(torch.version, "xpu", None)}
    xpu = getattr(torch, "xpu", None)
    try:
        out["xpu_available"] = bool(xpu.is_available()) if xpu is not None else False
    except Exception as exc:  # noqa: BLE001
        out["xpu_available"] = None
        out["xpu_error"] = str(exc)[:500]
    mps = getattr(torch.backends, "mps", None)
    try:
        out["mps"] = {"built": bool(mps.is_built()), "available": bool(mps.is_available())} if mps else None
    except Exception as exc:  # noqa: BLE001
        out["mps"] = None
        out["mps_error"] = str(exc)[:500]
    devices = []
    try:
        if cuda_available:
            for i in range(min(torch.cuda.device_count(), 64)):
                p = torch.cuda.get_device_properties(i)
                d = {"name": p.name, "total_memory_mib": int(p.total_memory) // (1024 * 1024)}
                if getattr(p, "gcnArchName", None):
                    d["gcnArchName"] = p.gcnArchName
                devices.append(d)
        elif out.get("xpu_available"):
            for i in range(min(xpu.device_count(), 64)):
                p = xpu.get_device_properties(i)
                d = {"name": p.name, "total_memory_mib": int(p.total_memory) // (1024 * 1024)}
                if getattr(p, "device_id", None) is not None:
                    d["device_id"] = "0x%04x" % int(p.device_id)
                devices.append(d)
    except Exception as exc:  # noqa: BLE001
        out["devices_error"] = str(exc)[:500]
    out["devices"] = devices
    return out


def tensorflow_facts():
    import tensorflow as tf  # noqa: PLC0415

    out = dict(tf.sysconfig.get_build_info())
    out["version"] = tf.__version__
    try:
        out["gpus_visible"] = [d.name for d in tf.config.list_physical_devices("GPU")]
    except Exception as exc:  # noqa: BLE001
        out["gpu_error"] = str(exc)[:500]
    return {k: (v if isinstance(v, (str, int, float, bool, list, type(None))) else str(v)) for k, v in out.items()}


if __name__ == "__main__":
    fw = sys.argv[1] if len(sys.argv) > 1 else "torch"
    try:
        facts = torch_facts() if fw == "torch" else tensorflow_facts()
    except Exception as exc:  # noqa: BLE001
        facts = {"deep_error": f"{type(exc).__name__}: {exc}"[:1000]}
    sys.stdout.write("\n" + json.dumps(facts) + "\n")
