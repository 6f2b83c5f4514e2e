"""The smoke-test child: import one framework and run tiny real operations on it.

Run as ``python _child.py torch|tensorflow|jax [--device auto|cuda|cpu] [--native-floor DTYPE=X.Y ...]``
(the compute capability where native float16 / bfloat16 arithmetic starts, from the matrix: the runner passes it;
without one the fp16 / bf16 step is not gated by the GPU). It imports only the
standard library until a step imports the framework, and streams one JSON line per event on its
(private copy of) stdout, so that a crash mid-way keeps the steps done so far:

    {"event": "start", "step": NAME}
    {"event": "step", "name": NAME, "passed": bool, "seconds": float, "error": str|null, "detail": str|null}
    {"event": "info", "version"|"device"|"gpus"|"note": ...}
    {"event": "done"}

The framework's own prints go to stderr (fd 1 is pointed at fd 2), so they cannot corrupt the
protocol. The parent (envcheck.smoke.runner) runs this in its own process group with a timeout.
"""

from __future__ import annotations

import copy
import importlib
import json
import logging
import os
import sys
import time
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple

NO_GPU = "no GPU: ran on CPU; this verifies the framework imports and computes, not the CUDA stack"
MAX_ERROR = 4000

_proto = None  # the protocol stream (a dup of the original stdout)



def _cudnn_text(v: object) -> str:
    """torch.backends.cudnn.version()'s integer as cuDNN writes it: 91900 -> 9.19.0 (cuDNN >= 9: major * 10000),
    8907 -> 8.9.7 (cuDNN <= 8: major * 1000)."""
    if not isinstance(v, int) or v <= 0:
        return "none"
    major, rest = (v // 10000, v % 10000) if v >= 10000 else (v // 1000, v % 1000)
    return f"{major}.{rest // 100}.{rest % 100}"

def emit(obj: Dict[str, Any]) -> None:
    assert _proto is not None
    _proto.write(json.dumps(obj) + "\n")
    _proto.flush()


def info(**kw: Any) -> None:
    emit(dict(event="info", **kw))


class StepFailed(Exception):
    """A step's own check failed (a wrong result, a missing device)."""


def _err_text(exc: BaseException) -> str:
    text = str(exc) if isinstance(exc, StepFailed) else f"{type(exc).__name__}: {exc}"
    if len(text) > MAX_ERROR:
        text = text[:MAX_ERROR // 2] + "\n...\n" + text[-MAX_ERROR // 2:]
    return text


class _GpuWarnings:
    """Collect warnings and log records raised while a framework looks for its GPU."""

    def __init__(self) -> None:
        self.messages: List[str] = []
        self._cw = warnings.catch_warnings(record=True)
        self._handler = logging.Handler(level=logging.WARNING)
        self._handler.emit = lambda rec: self.messages.append(rec.getMessage())  # type: ignore[assignment]

    def __enter__(self) -> "_GpuWarnings":
        self._records = self._cw.__enter__()
        warnings.simplefilter("always")
        logging.getLogger().addHandler(self._handler)
        return self

    def __exit__(self, *exc: Any) -> None:
        logging.getLogger().removeHandler(self._handler)
        self.messages.extend(str(w.message) for w in self._records)
        self._cw.__exit__(*exc)

    def gpu_related(self) -> List[str]:
        keys = ("cuda", "gpu", "cudnn", "nvidia", "driver")
        return [m for m in self.messages if any(k in m.lower() for k in keys)]


def _check_close(name: str, got: Any, want: Any, rtol: float) -> float:
    """Max abs difference of two array-likes (numpy), relative to the reference's scale."""
    np = importlib.import_module("numpy")
    g = np.asarray(got, dtype="float64")
    w = np.asarray(want, dtype="float64")
    if g.shape != w.shape:
        raise StepFailed(f"{name}: result shape {g.shape} != expected {w.shape}")
    if not np.all(np.isfinite(g)):
        raise StepFailed(f"{name}: result has NaN/inf values")
    diff = float(np.max(np.abs(g - w))) if g.size else 0.0
    scale = max(1.0, float(np.max(np.abs(w))) if w.size else 1.0)
    if diff > rtol * scale:
        raise StepFailed(f"{name}: result differs from the float64 reference by {diff:.3g} (tolerance "
                         f"{rtol * scale:.3g}): the kernel computes wrong numbers")
    return diff


def _check_close_torch(torch: Any, name: str, got: Any, want: Any, rtol: float) -> float:
    """:func:`_check_close` with torch tensors only (torch does not need numpy)."""
    g = got.detach().cpu().double()
    w = want.detach().cpu().double()
    if tuple(g.shape) != tuple(w.shape):
        raise StepFailed(f"{name}: result shape {tuple(g.shape)} != expected {tuple(w.shape)}")
    if not bool(torch.isfinite(g).all()):
        raise StepFailed(f"{name}: result has NaN/inf values")
    diff = float((g - w).abs().max()) if g.numel() else 0.0
    scale = max(1.0, float(w.abs().max()) if w.numel() else 1.0)
    if diff > rtol * scale:
        raise StepFailed(f"{name}: result differs from the float64 reference by {diff:.3g} (tolerance "
                         f"{rtol * scale:.3g}): the kernel computes wrong numbers")
    return diff


def _np_conv2d_nhwc(x: Any, w: Any) -> Any:
    """Reference 'SAME' stride-1 convolution: x (N, H, W, C), w (KH, KW, C, O)."""
    np = importlib.import_module("numpy")
    x = np.asarray(x, dtype="float64")
    w = np.asarray(w, dtype="float64")
    kh, kw = w.shape[:2]
    n, h, wd, _ = x.shape
    xp = np.pad(x, ((0, 0), (kh // 2, kh // 2), (kw // 2, kw // 2), (0, 0)))
    out = np.zeros((n, h, wd, w.shape[3]))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nhwc,co->nhwo", xp[:, i:i + h, j:j + wd, :], w[i, j])
    return out


# ----------------------------------------------------------------------------------------------
# torch
# ----------------------------------------------------------------------------------------------
def torch_steps(device: str) -> List[Tuple[str, Callable[[Dict[str, Any]], Optional[str]], bool]]:
    def sync(st: Dict[str, Any]) -> None:
        if st["dev"] != "cpu":
            backend_module(st["torch"], st.get("backend") or "cuda").synchronize()

    def s_import(st: Dict[str, Any]) -> str:
        torch = importlib.import_module("torch")
        st["torch"] = torch
        try:
            cudnn = torch.backends.cudnn.version()
        except Exception as exc:  # noqa: BLE001 - the framework's own failure: said in a note
            cudnn = None
            info(note=f"torch.backends.cudnn.version() failed: {type(exc).__name__}: {exc}")
        info(version=torch.__version__)
        hip = getattr(torch.version, "hip", None)
        if hip:
            return f"torch {torch.__version__} (ROCm/HIP {hip}, MIOpen {cudnn or 'none'})"
        xpu = getattr(torch.version, "xpu", None)
        if xpu:
            return f"torch {torch.__version__} (XPU {xpu})"
        return f"torch {torch.__version__} (CUDA {torch.version.cuda or 'none'}, cuDNN {_cudnn_text(cudnn)})"

    def s_device(st: Dict[str, Any]) -> str:
        torch = st["torch"]
        st["dev"], st["cc"], st["backend"] = "cpu", None, None
        if device == "cpu":
            info(device="cpu", note="--device cpu: the GPU (if any) was not used")
            return "cpu (asked with --device cpu)"
        with _GpuWarnings() as gw:
            pick = pick_torch_device(torch, device)
        if pick["device"] == "cpu":
            why = gw.gpu_related()
            build = pick["build"]
            info(device="cpu", note=NO_GPU)
            if device != "auto" or why:
                cvd = os.environ.get("CUDA_VISIBLE_DEVICES")
                if cvd is not None:  # (real H200: CUDA_VISIBLE_DEVICES='' said only "is_available() is False")
                    why = [f"CUDA_VISIBLE_DEVICES={cvd!r} is set for this process (it selects the GPUs CUDA may use)"] + why
                raise StepFailed(f"no {device if device != 'auto' else 'GPU'} device visible to torch: {pick['why']}; "
                                 f"torch is {build}" + ("".join("\n" + m for m in why)))
            return f"no GPU visible, torch is {build}; running on cpu"
        st["dev"], st["cc"], st["backend"] = pick["device"], pick.get("cc"), pick["backend"]
        extra = {k: pick[k] for k in ("compute_capability", "gfx") if pick.get(k)}
        info(device=pick["device"], gpus=pick["names"], backend=pick["backend"], **extra)
        torch.ones(1, device=pick["device"]).add_(1)
        sync(st)
        what = (f"compute capability {pick['compute_capability']}" if pick.get("compute_capability") else
                pick.get("gfx") or pick["backend"])
        return f"{len(pick['names'])} GPU(s): {', '.join(pick['names'])}; device {pick['device']} {what}"

    def s_conv(st: Dict[str, Any]) -> str:
        torch = st["torch"]
        g = torch.Generator().manual_seed(0)
        x = torch.randn(2, 3, 16, 16, generator=g)
        w = torch.randn(4, 3, 3, 3, generator=g)
        xd = x.clone().to(st["dev"]).requires_grad_()
        wd = w.clone().to(st["dev"]).requires_grad_()
        y = torch.nn.functional.conv2d(xd, wd, padding=1)
        y.square().sum().backward()
        sync(st)
        ref = torch.nn.functional.conv2d(x.double(), w.double(), padding=1)
        diff = _check_close_torch(torch, "conv2d", y, ref, 1e-2)
        if wd.grad is None or not bool(torch.isfinite(wd.grad).all()) or xd.grad is None:
            raise StepFailed("conv2d backward gave no or non-finite gradients")
        return f"forward + backward via {_via(torch, st, 'cuDNN', 'MIOpen')}, max error {diff:.2g}"

    def s_bn(st: Dict[str, Any]) -> str:
        torch = st["torch"]
        g = torch.Generator().manual_seed(1)
        x = (torch.randn(4, 3, 8, 8, generator=g) * 3 + 1).to(st["dev"]).requires_grad_()  # a new tensor
        bn = torch.nn.BatchNorm2d(3).to(st["dev"]).train()
        y = bn(x)
        y.square().sum().backward()
        sync(st)
        yc = y.detach().cpu().double()
        mean = float(yc.mean(dim=(0, 2, 3)).abs().max())
        var = float((yc.var(dim=(0, 2, 3), unbiased=False) - 1).abs().max())
        if mean > 1e-3 or var > 1e-2:
            raise StepFailed(f"batch norm output not normalised (|mean| {mean:.3g}, |var-1| {var:.3g})")
        return "training-mode forward + backward"

    def s_lstm(st: Dict[str, Any]) -> str:
        torch = st["torch"]
        torch.manual_seed(2)
        lstm = torch.nn.LSTM(8, 16, batch_first=True)
        ref_lstm = copy.deepcopy(lstm).double()
        x = torch.randn(2, 5, 8)
        dl = lstm.to(st["dev"])
        xd = x.clone().to(st["dev"]).requires_grad_()
        out, (h, c) = dl(xd)
        out.sum().backward()
        sync(st)
        with torch.no_grad():
            ref, _ = ref_lstm(x.double())
        diff = _check_close_torch(torch, "lstm", out, ref, 1e-3)
        return f"forward + backward via {_via(torch, st, 'cuDNN RNN', 'MIOpen RNN')}, max error {diff:.2g}"

    def s_matmul(st: Dict[str, Any]) -> str:
        torch = st["torch"]
        g = torch.Generator().manual_seed(3)
        a = torch.randn(64, 64, generator=g)
        b = torch.randn(64, 64, generator=g)
        y = a.to(st["dev"]) @ b.to(st["dev"])
        sync(st)
        diff = _check_close_torch(torch, "matmul", y, a.double() @ b.double(), 1e-2)
        return f"64x64 via {_via(torch, st, 'cuBLAS', 'rocBLAS/hipBLASLt')}, max error {diff:.2g}"

    def low_precision(dtype_name: str) -> Callable[[Dict[str, Any]], str]:
        def step(st: Dict[str, Any]) -> str:
            torch = st["torch"]
            dt = getattr(torch, dtype_name)
            g = torch.Generator().manual_seed(4)
            x = torch.randn(2, 3, 16, 16, generator=g)
            w = torch.randn(4, 3, 3, 3, generator=g)
            a = torch.randn(64, 64, generator=g)
            y = torch.nn.functional.conv2d(x.to(st["dev"], dt), w.to(st["dev"], dt), padding=1)
            m = a.to(st["dev"], dt) @ a.to(st["dev"], dt)
            sync(st)
            tol = 5e-2 if dtype_name == "bfloat16" else 1e-2
            _check_close_torch(torch, f"conv2d {dtype_name}", y,
                               torch.nn.functional.conv2d(x.double(), w.double(), padding=1), tol)
            _check_close_torch(torch, f"matmul {dtype_name}", m, a.double() @ a.double(), tol)
            return f"conv2d + matmul in {dtype_name}"
        return step

    steps: List[Tuple[str, Callable[[Dict[str, Any]], Optional[str]], bool]] = [
        ("import", s_import, True), ("device", s_device, device in ("cuda", "xpu", "mps")),
        ("conv2d", s_conv, False), ("batch_norm", s_bn, False), ("lstm", s_lstm, False),
        ("matmul", s_matmul, False)]
    return steps + _low_precision_steps(low_precision)


def backend_module(torch: Any, backend: str) -> Any:
    """``torch.cuda`` for CUDA and ROCm (HIP is exposed as ``cuda``), ``torch.xpu``, ``torch.mps``."""
    return getattr(torch, {"rocm": "cuda"}.get(backend, backend))


def _via(torch: Any, st: Dict[str, Any], nvidia: str, amd: str) -> str:
    b = st.get("backend")
    if st.get("dev") == "cpu" or not b:
        return "cpu"
    if b == "cuda":
        return nvidia if torch.backends.cudnn.is_available() or "cuDNN" not in nvidia else "cuda"
    return {"rocm": amd, "xpu": "oneDNN/oneMKL (XPU)", "mps": "Metal Performance Shaders"}.get(b, str(b))


def pick_torch_device(torch: Any, requested: str = "auto") -> Dict[str, Any]:
    """The device the build offers: ``cuda`` (NVIDIA, or AMD through HIP on a ROCm build), ``xpu`` (Intel),
    ``mps`` (Apple), else ``cpu``. ``requested`` "auto" takes the first available in that order; "cuda" / "xpu"
    / "mps" only that one. Returns ``{"device", "backend", "names", "build", "why", ...}``; never raises for a
    missing backend (an old torch has no ``torch.xpu`` / ``torch.backends.mps``)."""
    hip = getattr(torch.version, "hip", None)
    xpu_v = getattr(torch.version, "xpu", None)
    cuda_v = getattr(torch.version, "cuda", None)
    mps_b = getattr(getattr(torch, "backends", None), "mps", None)
    if hip:
        build = f"a ROCm {hip} build"
    elif xpu_v:
        build = "an XPU build"
    elif cuda_v:
        build = f"a CUDA {cuda_v} build"
    elif mps_b is not None and _call(mps_b, "is_built"):
        build = "a build with MPS"
    else:
        build = "a CPU-only build"
    order = ["cuda", "xpu", "mps"] if requested == "auto" else [requested]
    why = []
    for b in order:
        if b == "cuda":
            if _call(torch.cuda, "is_available"):
                n = int(torch.cuda.device_count())
                names = [str(torch.cuda.get_device_name(i)) for i in range(n)]
                out: Dict[str, Any] = {"device": "cuda:0", "backend": "rocm" if hip else "cuda", "names": names,
                                       "build": build, "why": ""}
                if hip:
                    props = torch.cuda.get_device_properties(0)
                    out["gfx"] = str(getattr(props, "gcnArchName", "") or "").split(":")[0] or None
                else:
                    cc = tuple(torch.cuda.get_device_capability(0))
                    out["cc"], out["compute_capability"] = cc, f"{cc[0]}.{cc[1]}"
                return out
            why.append("torch.cuda.is_available() is False")
        elif b == "xpu":
            xpu = getattr(torch, "xpu", None)
            if xpu is not None and _call(xpu, "is_available"):
                n = int(xpu.device_count())
                return {"device": "xpu:0", "backend": "xpu", "names": [str(xpu.get_device_name(i)) for i in range(n)],
                        "build": build, "why": ""}
            why.append("torch.xpu.is_available() is False" if xpu is not None else "this torch has no torch.xpu")
        elif b == "mps":
            if mps_b is not None and _call(mps_b, "is_available"):
                return {"device": "mps", "backend": "mps", "names": ["Apple MPS"], "build": build, "why": ""}
            why.append("torch.backends.mps.is_available() is False" if mps_b is not None else
                       "this torch has no MPS backend")
    return {"device": "cpu", "backend": None, "names": [], "build": build, "why": "; ".join(why)}


def _call(obj: Any, name: str) -> bool:
    fn = getattr(obj, name, None)
    try:
        return bool(fn()) if callable(fn) else False
    except Exception as exc:  # noqa: BLE001 - a broken backend is not available: said in a note
        info(note=f"{name}() failed: {type(exc).__name__}: {exc}")
        return False


#: the low-precision steps and the dtype each runs in
_LOW_PRECISION = {"fp16": "float16", "bf16": "bfloat16"}


def _low_precision_steps(make: Callable[[str], Callable[[Dict[str, Any]], str]]
                         ) -> List[Tuple[str, Callable[[Dict[str, Any]], Optional[str]], bool]]:
    """fp16 / bf16 steps; :func:`_gate_low_precision` decides at run time whether they apply."""
    return [(name, make(dtype), False) for name, dtype in _LOW_PRECISION.items()]


def _import_framework(st: Dict[str, Any], module: str, key: str) -> Any:
    """Import ``module`` (the step that fails when it cannot), keep it in ``st[key]``, say its version."""
    m = importlib.import_module(module)
    st[key] = m
    info(version=str(m.__version__))
    return m


def _framework_steps(device: str, import_: Callable[[Dict[str, Any]], str], device_step: Callable[[str, Dict[str, Any]], str],
                     *ops: Callable[..., Any]) -> List[Tuple[str, Callable[[Dict[str, Any]], Optional[str]], bool]]:
    """TensorFlow's and JAX's steps, in order: import, device, conv2d, batch_norm, lstm, matmul (``ops``, the
    last of which makes the fp16 / bf16 steps); import always stops the run, device with ``--device cuda``."""
    conv, bn, lstm, matmul, low_precision = ops
    return [("import", import_, True), ("device", lambda st: device_step(device, st), device == "cuda"),
            ("conv2d", conv, False), ("batch_norm", bn, False), ("lstm", lstm, False), ("matmul", matmul, False)
            ] + _low_precision_steps(low_precision)


# ----------------------------------------------------------------------------------------------
# tensorflow
# ----------------------------------------------------------------------------------------------
def tensorflow_steps(device: str) -> List[Tuple[str, Callable[[Dict[str, Any]], Optional[str]], bool]]:
    return _framework_steps(device, _tf_import, _tf_device, _tf_conv, _tf_bn, _tf_lstm, _tf_matmul,
                            _tf_low_precision)


def _tf_import(st: Dict[str, Any]) -> str:
    tf = _import_framework(st, "tensorflow", "tf")
    extra = ""
    try:
        bi = tf.sysconfig.get_build_info()
        cuda, cudnn = (bi.get(k) for k in ("cuda_version", "cudnn_version"))
        if all(v is None or isinstance(v, (str, int)) for v in (cuda, cudnn)):
            extra = f" (CUDA {cuda or 'none'}, cuDNN {cudnn or 'none'})"
    except Exception as exc:  # noqa: BLE001 - the framework's own failure: said in a note
        info(note=f"tf.sysconfig.get_build_info() failed: {type(exc).__name__}: {exc}")
    return f"tensorflow {tf.__version__}{extra}"


def _tf_device(device: str, st: Dict[str, Any]) -> str:
    tf = st["tf"]
    st["dev"], st["cc"] = "/CPU:0", None
    if device == "cpu":
        try:
            tf.config.set_visible_devices([], "GPU")
        except Exception as exc:  # noqa: BLE001 - the framework's own failure: said in a note
            info(note=f"hiding the GPUs from TensorFlow failed: {type(exc).__name__}: {exc}")
        info(device="cpu", note="--device cpu: the GPU (if any) was not used")
        return "cpu (asked with --device cpu)"
    with _GpuWarnings() as gw:
        gpus = list(tf.config.list_physical_devices("GPU"))
    if not gpus:
        why = gw.gpu_related()
        built = ""
        try:
            built = " (a CUDA build)" if tf.test.is_built_with_cuda() else " (a CPU-only build)"
        except Exception as exc:  # noqa: BLE001 - the framework's own failure: said in a note
            info(note=f"tf.test.is_built_with_cuda() failed: {type(exc).__name__}: {exc}")
        info(device="cpu", note=NO_GPU)
        if device == "cuda" or why:
            raise StepFailed(f"no GPU visible to tensorflow{built}: tf.config.list_physical_devices('GPU') "
                             "is empty" + "".join("\n" + m for m in why))
        return f"no GPU visible{built}: cpu"
    names = []
    for gpu in gpus:
        det = {}
        try:
            det = dict(tf.config.experimental.get_device_details(gpu))
        except Exception as exc:  # noqa: BLE001 - the framework's own failure: said in a note
            info(note=f"get_device_details({getattr(gpu, 'name', 'GPU')}) failed: {type(exc).__name__}: {exc}")
        names.append(str(det.get("device_name") or getattr(gpu, "name", "GPU")))
        if st["cc"] is None and det.get("compute_capability"):
            st["cc"] = tuple(det["compute_capability"])
    st["dev"] = "/GPU:0"
    kw = {"compute_capability": f"{st['cc'][0]}.{st['cc'][1]}"} if st["cc"] else {}
    info(device="gpu:0", gpus=names, **kw)
    return f"{len(gpus)} GPU(s): {', '.join(names)}"


def _tf_conv(st: Dict[str, Any]) -> str:
    tf = st["tf"]
    with tf.device(st["dev"]):
        x = tf.random.stateless_normal([2, 16, 16, 3], seed=[0, 1])
        w = tf.Variable(tf.random.stateless_normal([3, 3, 3, 4], seed=[0, 2]))
        with tf.GradientTape() as tape:
            y = tf.nn.conv2d(x, w, strides=1, padding="SAME")
            loss = tf.reduce_sum(tf.square(y))
        grad = tape.gradient(loss, w)
        yv, gv, xv, wv = y.numpy(), grad.numpy(), x.numpy(), w.numpy()
    diff = _check_close("conv2d", yv, _np_conv2d_nhwc(xv, wv), 1e-2)
    np = importlib.import_module("numpy")
    if not np.all(np.isfinite(gv)):
        raise StepFailed("conv2d backward gave non-finite gradients")
    return f"forward + backward, max error {diff:.2g}"


def _tf_bn(st: Dict[str, Any]) -> str:
    tf = st["tf"]
    with tf.device(st["dev"]):
        x = tf.random.stateless_normal([4, 8, 8, 3], seed=[1, 1]) * 3.0 + 1.0
        scale = tf.Variable(tf.ones([3]))
        offset = tf.Variable(tf.zeros([3]))
        empty = tf.constant([], tf.float32)
        with tf.GradientTape() as tape:
            out = tf.raw_ops.FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=empty, variance=empty,
                                              epsilon=1e-3, exponential_avg_factor=1.0, data_format="NHWC",
                                              is_training=True)
            loss = tf.reduce_sum(tf.square(out[0]))
        tape.gradient(loss, [scale, offset])
        y = out[0].numpy()
    np = importlib.import_module("numpy")
    mean = float(np.max(np.abs(y.mean(axis=(0, 1, 2)))))
    if mean > 1e-3:
        raise StepFailed(f"batch norm output not normalised (|mean| {mean:.3g})")
    return "FusedBatchNormV3 training-mode forward + backward"


def _tf_lstm(st: Dict[str, Any]) -> str:
    tf = st["tf"]
    with tf.device(st["dev"]):
        layer = tf.keras.layers.LSTM(16, return_sequences=True)
        x = tf.random.stateless_normal([2, 5, 8], seed=[2, 1])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = layer(x)
            loss = tf.reduce_sum(y)
        grads = tape.gradient(loss, [x] + list(layer.trainable_weights))
        yv = y.numpy()
    np = importlib.import_module("numpy")
    if yv.shape != (2, 5, 16) or not np.all(np.isfinite(yv)) or any(g is None for g in grads):
        raise StepFailed(f"keras LSTM gave shape {yv.shape} or non-finite values / missing gradients")
    return "keras LSTM forward + backward (cuDNN kernel on a GPU)"


def _tf_matmul(st: Dict[str, Any]) -> str:
    tf = st["tf"]
    with tf.device(st["dev"]):
        a = tf.random.stateless_normal([64, 64], seed=[3, 1])
        b = tf.random.stateless_normal([64, 64], seed=[3, 2])
        y = tf.linalg.matmul(a, b).numpy()
        av, bv = a.numpy(), b.numpy()
    diff = _check_close("matmul", y, av.astype("float64") @ bv.astype("float64"), 1e-2)
    return f"64x64, max error {diff:.2g}"


def _tf_low_precision(dtype_name: str) -> Callable[[Dict[str, Any]], str]:
    def step(st: Dict[str, Any]) -> str:
        tf = st["tf"]
        dt = getattr(tf, dtype_name)
        with tf.device(st["dev"]):
            x = tf.random.stateless_normal([2, 16, 16, 3], seed=[4, 1])
            w = tf.random.stateless_normal([3, 3, 3, 4], seed=[4, 2])
            y = tf.cast(tf.nn.conv2d(tf.cast(x, dt), tf.cast(w, dt), strides=1, padding="SAME"), tf.float32)
            a = tf.random.stateless_normal([64, 64], seed=[4, 3])
            m = tf.cast(tf.linalg.matmul(tf.cast(a, dt), tf.cast(a, dt)), tf.float32)
            yv, xv, wv, mv, av = y.numpy(), x.numpy(), w.numpy(), m.numpy(), a.numpy()
        tol = 5e-2 if dtype_name == "bfloat16" else 1e-2
        _check_close(f"conv2d {dtype_name}", yv, _np_conv2d_nhwc(xv, wv), tol)
        _check_close(f"matmul {dtype_name}", mv, av.astype("float64") @ av.astype("float64"), tol)
        return f"conv2d + matmul in {dtype_name}"
    return step


# ----------------------------------------------------------------------------------------------
# jax
# ----------------------------------------------------------------------------------------------
def jax_steps(device: str) -> List[Tuple[str, Callable[[Dict[str, Any]], Optional[str]], bool]]:
    return _framework_steps(device, _jax_import, _jax_device, _jax_conv, _jax_bn, _jax_lstm, _jax_matmul,
                            _jax_low_precision)


def _jax_import(st: Dict[str, Any]) -> str:
    jax = _import_framework(st, "jax", "jax")
    try:
        jaxlib = str(importlib.import_module("jaxlib").__version__)
    except Exception as exc:  # noqa: BLE001 - the framework's own failure: said in a note
        jaxlib = "?"
        info(note=f"reading jaxlib's version failed: {type(exc).__name__}: {exc}")
    return f"jax {jax.__version__} (jaxlib {jaxlib})"


def _jax_device(device: str, st: Dict[str, Any]) -> str:
    jax = st["jax"]
    st["cc"] = None
    if device == "cpu":
        st["dev"] = jax.devices("cpu")[0]
        info(device="cpu", note="--device cpu: the GPU (if any) was not used")
        return "cpu (asked with --device cpu)"
    with _GpuWarnings() as gw:
        devs = list(jax.devices())
    gpus = [d for d in devs if getattr(d, "platform", "") in ("gpu", "cuda")]
    if not gpus:
        st["dev"] = devs[0] if devs else None
        why = gw.gpu_related()
        info(device="cpu", note=NO_GPU)
        if device == "cuda" or why:
            raise StepFailed("no GPU visible to jax: jax.devices() has no GPU" + "".join("\n" + m for m in why))
        return "no GPU visible: cpu"
    st["dev"] = gpus[0]
    names = [str(getattr(d, "device_kind", d)) for d in gpus]
    cc = getattr(gpus[0], "compute_capability", None)
    if isinstance(cc, str) and "." in cc:
        st["cc"] = tuple(int(p) for p in cc.split(".")[:2])
    info(device="gpu:0", gpus=names, **({"compute_capability": cc} if cc else {}))
    return f"{len(gpus)} GPU(s): {', '.join(names)}"


def _jax_arrays(st: Dict[str, Any], seed: int, *shapes: List[int]) -> List[Any]:
    jax = st["jax"]
    key = jax.random.PRNGKey(seed)
    return [jax.device_put(jax.random.normal(jax.random.fold_in(key, i), tuple(s)), st["dev"])
            for i, s in enumerate(shapes)]


def _jax_conv(st: Dict[str, Any]) -> str:
    jax = st["jax"]
    x, w = _jax_arrays(st, 0, [2, 16, 16, 3], [3, 3, 3, 4])

    def f(w_: Any) -> Any:
        return jax.lax.conv_general_dilated(x, w_, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    y = f(w).block_until_ready()
    g = jax.grad(lambda w_: (f(w_) ** 2).sum())(w).block_until_ready()
    diff = _check_close("conv2d", y, _np_conv2d_nhwc(x, w), 1e-2)
    np = importlib.import_module("numpy")
    if not np.all(np.isfinite(np.asarray(g))):
        raise StepFailed("conv2d backward gave non-finite gradients")
    return f"lax.conv_general_dilated forward + backward, max error {diff:.2g}"


def _jax_bn(st: Dict[str, Any]) -> str:
    jax = st["jax"]
    jnp = jax.numpy
    (x,) = _jax_arrays(st, 1, [4, 8, 8, 3])
    x = x * 3.0 + 1.0

    def bn(x_: Any) -> Any:
        mean = x_.mean(axis=(0, 1, 2))
        var = x_.var(axis=(0, 1, 2))
        return (x_ - mean) / jnp.sqrt(var + 1e-3)

    y = bn(x).block_until_ready()
    jax.grad(lambda x_: (bn(x_) ** 2).sum())(x).block_until_ready()
    np = importlib.import_module("numpy")
    mean = float(np.max(np.abs(np.asarray(y).mean(axis=(0, 1, 2)))))
    if mean > 1e-3:
        raise StepFailed(f"batch norm output not normalised (|mean| {mean:.3g})")
    return "batch norm with jnp (XLA; JAX has no cuDNN batch norm) forward + backward"


def _jax_lstm(st: Dict[str, Any]) -> str:
    jax = st["jax"]
    jnp = jax.numpy
    x, wi, wh = _jax_arrays(st, 2, [5, 2, 8], [8, 64], [16, 64])

    def run(params: Any) -> Any:
        wi_, wh_ = params

        def cell(carry: Any, xt: Any) -> Any:
            h, c = carry
            z = xt @ wi_ + h @ wh_
            i, f, g, o = jnp.split(z, 4, axis=-1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), h

        zeros = jnp.zeros((2, 16))
        _, hs = jax.lax.scan(cell, (zeros, zeros), x)
        return hs

    hs = run((wi, wh)).block_until_ready()
    jax.grad(lambda p: run(p).sum())((wi, wh))
    np = importlib.import_module("numpy")
    if np.asarray(hs).shape != (5, 2, 16) or not np.all(np.isfinite(np.asarray(hs))):
        raise StepFailed("LSTM (lax.scan) gave a wrong shape or non-finite values")
    return "LSTM cell in lax.scan forward + backward (matmuls via cuBLAS on a GPU; no cuDNN RNN in core JAX)"


def _jax_matmul(st: Dict[str, Any]) -> str:
    jax = st["jax"]
    a, b = _jax_arrays(st, 3, [64, 64], [64, 64])
    y = jax.numpy.dot(a, b, precision=jax.lax.Precision.HIGHEST).block_until_ready()
    np = importlib.import_module("numpy")
    diff = _check_close("matmul", y, np.asarray(a, dtype="float64") @ np.asarray(b, dtype="float64"), 1e-2)
    return f"64x64, max error {diff:.2g}"


def _jax_low_precision(dtype_name: str) -> Callable[[Dict[str, Any]], str]:
    def step(st: Dict[str, Any]) -> str:
        jax = st["jax"]
        dt = getattr(jax.numpy, dtype_name)
        x, w, a = _jax_arrays(st, 4, [2, 16, 16, 3], [3, 3, 3, 4], [64, 64])
        y = jax.lax.conv_general_dilated(x.astype(dt), w.astype(dt), (1, 1), "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC")).block_until_ready()
        m = jax.numpy.dot(a.astype(dt), a.astype(dt)).block_until_ready()
        np = importlib.import_module("numpy")
        tol = 5e-2 if dtype_name == "bfloat16" else 1e-2
        _check_close(f"conv2d {dtype_name}", np.asarray(y.astype("float32")), _np_conv2d_nhwc(x, w), tol)
        a64 = np.asarray(a, dtype="float64")
        _check_close(f"matmul {dtype_name}", np.asarray(m.astype("float32")), a64 @ a64, tol)
        return f"conv2d + matmul in {dtype_name}"
    return step


STEPS = {"torch": torch_steps, "tensorflow": tensorflow_steps, "jax": jax_steps}


def _gate_low_precision(steps: List[Tuple[str, Callable[[Dict[str, Any]], Optional[str]], bool]],
                        floors: Optional[Dict[str, Tuple[int, int]]] = None
                        ) -> List[Tuple[str, Callable[[Dict[str, Any]], Optional[str]], bool]]:
    """Skip fp16/bf16 on the CPU, or on a GPU below the compute capability of the dtype's native arithmetic:
    ``floors`` {dtype: (major, minor)}, the matrix's (compat_matrix/cuda.toml ``[[native_dtype]]``, handed down by the
    runner as ``--native-floor DTYPE=X.Y``). A dtype without a floor is not gated by the GPU (the step runs)."""
    need = {name: (floors or {}).get(dtype) for name, dtype in _LOW_PRECISION.items()}
    out = []
    for name, fn, fatal in steps:
        if name not in need:
            out.append((name, fn, fatal))
            continue

        def pre(st: Dict[str, Any], name: str = name) -> bool:
            cc = st.get("cc")
            on_gpu = st.get("dev") not in (None, "cpu", "/CPU:0") and not (
                hasattr(st.get("dev"), "platform") and st["dev"].platform == "cpu")
            if not on_gpu:
                info(note=f"{name} not run: needs a GPU")
                return False
            if name == "bf16" and st.get("backend") == "mps":
                info(note="bf16 not run: MPS supports bfloat16 only from macOS 14")
                return False
            floor = need[name]
            if cc is not None and floor is not None and tuple(cc) < floor:
                info(note=f"{name} not run: the GPU's compute capability {cc[0]}.{cc[1]} is below "
                          f"{floor[0]}.{floor[1]}, where native {_LOW_PRECISION[name]} arithmetic starts")
                return False
            return True

        out.append((name, _Gated(pre, fn), fatal))
    return out


class _Gated:
    """A step that first asks ``pre(state)`` whether it applies; when not, it is not reported."""

    def __init__(self, pre: Callable[[Dict[str, Any]], bool], fn: Callable[[Dict[str, Any]], Optional[str]]):
        self.pre = pre
        self.fn = fn

    def __call__(self, st: Dict[str, Any]) -> Optional[str]:
        return self.fn(st)


def main(argv: List[str]) -> int:
    global _proto
    fw = argv[0] if argv else "torch"
    device = "auto"
    if "--device" in argv:
        i = argv.index("--device")
        if i + 1 < len(argv):
            device = argv[i + 1]
    # The protocol keeps the original stdout; everything else printed to fd 1 goes to stderr.
    _proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    if fw not in STEPS:
        emit({"event": "step", "name": "import", "passed": False, "seconds": 0.0,
              "error": f"unknown framework {fw!r}", "detail": None})
        emit({"event": "done"})
        return 0
    _run_with_gates(_gate_low_precision(STEPS[fw](device), native_floors(argv)))
    emit({"event": "done"})
    return 0


def native_floors(argv: List[str]) -> Dict[str, Tuple[int, int]]:
    """``--native-floor DTYPE=X.Y`` arguments (repeatable): {dtype: (X, Y)}; a malformed one is ignored."""
    out: Dict[str, Tuple[int, int]] = {}
    for i, arg in enumerate(argv[:-1]):
        if arg != "--native-floor":
            continue
        dtype, _, cc = argv[i + 1].partition("=")
        major, _, minor = cc.partition(".")
        if dtype in _LOW_PRECISION.values() and major.isdigit() and minor.isdigit():
            out[dtype] = (int(major), int(minor))
    return out


def _run_with_gates(steps: List[Tuple[str, Callable[[Dict[str, Any]], Optional[str]], bool]]) -> None:
    state: Dict[str, Any] = {}
    for name, fn, fatal in steps:
        if isinstance(fn, _Gated) and not fn.pre(state):
            continue
        emit({"event": "start", "step": name})
        t0 = time.perf_counter()
        detail: Optional[str] = None
        error: Optional[str] = None
        try:
            detail = fn(state)
        except Exception as exc:  # noqa: BLE001 - any failure of the framework is the result
            error = _err_text(exc)
        emit({"event": "step", "name": name, "passed": error is None, "seconds": round(time.perf_counter() - t0, 4),
              "error": error, "detail": detail})
        if error is not None and fatal:
            break


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
