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
