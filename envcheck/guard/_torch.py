"""The PyTorch side of :mod:`envcheck.guard` (``envcheck.guard.install(torch_module)``).

``install`` registers a forward pre-hook on each convolution (``Conv1d/2d/3d``, ``ConvTranspose1d/2d/3d``
and their lazy forms), normalisation (``BatchNorm1d/2d/3d``, ``SyncBatchNorm``, ``InstanceNorm1d/2d/3d``)
and recurrent layer (``RNN``, ``LSTM``, ``GRU``) of the model. Before the layer runs, the hook checks
the input the way the layer will use it and raises :class:`GuardError` (a ``ValueError``) naming
the layer's qualified name in the model, the offending value and the fix. The checks (their ids
in ``GuardError.check``, and in ``install(..., skip=...)``):

``rank``        the input has the wrong number of dimensions for the layer
``dtype``       the input is not a floating-point (or complex, for convolutions) tensor
``empty``       a dimension of the input is 0 (an empty batch, an empty sequence, a 0-sized
                spatial dimension: cuDNN rejects empty tensors, pytorch/pytorch#19599, #31425)
``channels``    the input's channel count (``RNN``: feature size) differs from the layer's
``kernel``      the padded spatial size is smaller than the dilated kernel (no output position);
                also reflect/circular padding wider than the input
``eps``         a normalisation layer with ``eps <= 0`` (cuDNN refuses epsilon below
                ``CUDNN_BN_MIN_EPSILON``; in any implementation a zero-variance channel then
                divides by zero)
``batch-stats`` batch norm in training mode with one value per channel (no variance to compute)
``numel``       a tensor too large for cuDNN's 32-bit indexing: for a convolution one *sample*
                of the input or output above 2**31 - 1 elements (PyTorch splits larger batches
                itself); for batch norm and RNNs the whole input (pytorch/pytorch#51776)

The checks run on every device, so that a CPU test run already catches what would break
cuDNN on the GPU. The module imports nothing heavy; torch is imported by :func:`install`.

Cost: the full check runs once per distinct (input shape, dtype, training mode, eps) of a layer;
later calls with the same key only look the key up (the layer's other settings - kernel, padding,
channels - are read on that first call, so change them before ``install``, or re-install). The
cache holds at most :data:`CACHE_SIZE` keys per layer and starts again when full.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from envcheck.guard import INT32_MAX, GuardError

__all__ = ["install", "CACHE_SIZE"]

#: at most this many input keys are remembered per layer as already checked
CACHE_SIZE = 64


def _shape(t: Any) -> str:
    return "(" + ", ".join(str(int(s)) for s in t.shape) + ")"


def _tup(v: Any, n: int) -> Tuple[Any, ...]:
    if isinstance(v, (tuple, list)):
        return tuple(v) if len(v) == n else tuple(v) + (v[-1],) * (n - len(v))
    return (v,) * n


def _prod(xs: Sequence[int]) -> int:
    p = 1
    for x in xs:
        p *= int(x)
    return p


_EMPTY_FIX = ("skip empty batches before the forward pass (e.g. `if x.shape[0] == 0: continue`); empty "
              "tensors come from filtering, an empty last batch or a detector without proposals")


class _Checker:
    """The checks of one layer. Built once by :func:`install`.

    Called as the forward pre-hook: the full check runs for each new key (input shape, dtype,
    training mode and, for norm layers, ``eps``); a key that passed once is remembered, so the
    common path is a few attribute reads and a set lookup.
    """

    def __init__(self, name: str, module: Any, kind: str, skip: Sequence[str]):
        self.name = name
        self.module = module
        self.kind = kind
        self.type = type(module).__name__
        self.skip = frozenset(skip)
        self.passed: Set[Any] = set()
        self.full: Callable[[Any, Any], None] = {
            "conv": self.check_conv, "norm": self.check_norm, "rnn": self.check_rnn}[kind]

    @property
    def torch(self) -> Any:
        """torch itself, looked up when a full check runs rather than kept: a module object cannot be pickled, and a
        guarded model must still survive ``copy.deepcopy`` (EMA / teacher models, ``AveragedModel``) and a whole-model
        ``torch.save``."""
        return importlib.import_module("torch")

    # -- entry point (the forward pre-hook) ------------------------------------------------------
    def __call__(self, module: Any, args: Tuple[Any, ...], kwargs: Optional[Dict[str, Any]] = None) -> None:
        if args:
            x = args[0]
        elif kwargs:
            x = kwargs.get("input", kwargs.get("x"))
        else:
            return None
        try:
            key = (x.shape, x.dtype, module.training, module.eps) if self.kind == "norm" else (
                x.shape, x.dtype, module.training)
        except AttributeError:  # not a tensor (a PackedSequence, None, ...): checked every time
            self.full(module, x)
            return None
        if key in self.passed:
            return None
        self.full(module, x)
        if len(self.passed) >= CACHE_SIZE:
            self.passed.clear()
        self.passed.add(key)
        return None

    def fail(self, check: str, problem: str, value: str, fix: str) -> None:
        raise GuardError(self.name, type(self.module).__name__, check, problem, value, fix)

    # -- shared ----------------------------------------------------------------------------------
    def check_dtype(self, x: Any, allow_complex: bool) -> None:
        if "dtype" in self.skip:
            return
        if x.is_floating_point() or (allow_complex and x.is_complex()):
            return
        self.fail("dtype", "cuDNN layers need a floating-point input", f"dtype {x.dtype}",
                  "convert the input first, e.g. `x = x.float()` (images loaded as uint8: "
                  "`x.float() / 255`), or `x.half()` / `x.bfloat16()` for mixed precision")

    def check_empty(self, x: Any, names: Sequence[str]) -> None:
        if "empty" in self.skip:
            return
        for i, s in enumerate(x.shape):
            if int(s) == 0:
                what = names[i] if i < len(names) else f"dimension {i}"
                fix = _EMPTY_FIX if i == 0 and what.startswith("batch") else (
                    f"the {what} must be at least 1: check the preprocessing (a crop or resize to 0) "
                    "or the layer before")
                self.fail("empty", f"the input's {what} is 0 (cuDNN rejects empty tensors)",
                          f"input shape {_shape(x)}", fix)

    # -- convolutions ----------------------------------------------------------------------------
    def check_conv(self, m: Any, x: Any) -> None:
        torch = self.torch
        if not isinstance(x, torch.Tensor):
            return
        d = len(m.kernel_size)
        if "rank" not in self.skip and x.dim() not in (d + 1, d + 2):
            letters = ("L",) if d == 1 else ("H", "W") if d == 2 else ("D", "H", "W")
            self.fail("rank", f"a {d}-D convolution needs a {d + 2}-D input (N, C, {', '.join(letters)}) "
                              f"or an unbatched {d + 1}-D one",
                      f"a {x.dim()}-D input of shape {_shape(x)}",
                      "reshape the input: add the batch dimension with `x.unsqueeze(0)`, or check the "
                      "flatten/view before this layer")
        batched = x.dim() == d + 2
        off = 1 if batched else 0
        self.check_dtype(x, allow_complex=True)
        names = (["batch size (N)"] if batched else []) + ["channel count (C)"] + [
            f"spatial size {i}" for i in range(d)]
        self.check_empty(x, names)
        c = int(x.shape[off])
        in_ch = int(getattr(m, "in_channels", 0) or 0)
        if "channels" not in self.skip and in_ch and c != in_ch:
            self.fail("channels", f"the layer expects {in_ch} input channels (dimension {off})",
                      f"{c} channels in input shape {_shape(x)}",
                      f"build the layer with in_channels={c}, or make the layer before it produce {in_ch} "
                      "channels; channels-last data (N, H, W, C) must be permuted with "
                      "`x.permute(0, 3, 1, 2)`")
        spatial = [int(s) for s in x.shape[off + 1:]]
        k = [int(v) for v in _tup(m.kernel_size, d)]
        dil = [int(v) for v in _tup(m.dilation, d)]
        stride = [int(v) for v in _tup(m.stride, d)]
        dilated = [dil[i] * (k[i] - 1) + 1 for i in range(d)]
        transposed = bool(getattr(m, "transposed", False))
        out_spatial: List[int] = []
        if transposed:
            pad = [int(v) for v in _tup(m.padding, d)]
            opad = [int(v) for v in _tup(getattr(m, "output_padding", 0), d)]
            out_spatial = [(spatial[i] - 1) * stride[i] - 2 * pad[i] + dil[i] * (k[i] - 1) + opad[i] + 1
                           for i in range(d)]
            if "kernel" not in self.skip and any(o <= 0 for o in out_spatial):
                self.fail("kernel", "the padding removes more than the transposed convolution produces "
                                    "(output size would be <= 0)",
                          f"input spatial size {tuple(spatial)}, padding {tuple(pad)}, kernel {tuple(k)}, "
                          f"stride {tuple(stride)} -> output {tuple(out_spatial)}",
                          "reduce `padding` or feed a larger input")
        else:
            total = self.conv_total_padding(m, d, k, dil, spatial)
            padded = [spatial[i] + total[i] for i in range(d)]
            if "kernel" not in self.skip and any(padded[i] - dilated[i] < 0 for i in range(d)):
                need = [max(0, dilated[i] - total[i]) for i in range(d)]
                self.fail("kernel", "the padded input is smaller than the dilated kernel, so the "
                                    "convolution has no output position",
                          f"input spatial size {tuple(spatial)} + padding {tuple(total)} < dilated kernel "
                          f"{tuple(dilated)} (kernel {tuple(k)}, dilation {tuple(dil)})",
                          f"feed inputs of at least {tuple(need)} here, add padding (e.g. padding='same'), or "
                          "remove a downsampling step earlier in the model (each stride-2 layer halves the size)")
            out_spatial = [(padded[i] - dilated[i]) // stride[i] + 1 for i in range(d)]
        if "numel" not in self.skip:
            n = int(x.shape[0]) if batched else 1
            per_in = int(x.numel()) // max(n, 1)
            per_out = int(getattr(m, "out_channels", 0) or 0) * _prod(out_spatial)
            big = max(per_in, per_out)
            if big > INT32_MAX:
                self.fail("numel", "one sample is larger than cuDNN's 32-bit indexing allows "
                                   f"({INT32_MAX} elements), and splitting the batch cannot help",
                          f"{per_in} input / {per_out} output elements per sample, input shape {_shape(x)}",
                          "process the input in tiles (crop the spatial dimensions) or reduce the channels; "
                          "or run this layer without cuDNN (`torch.backends.cudnn.flags(enabled=False)`)")

    def conv_total_padding(self, m: Any, d: int, k: List[int], dil: List[int],
                           spatial: List[int]) -> List[int]:
        """The total (both sides) padding per spatial dimension, computed like torch does."""
        mode = getattr(m, "padding_mode", "zeros")
        if mode != "zeros":
            rev = list(getattr(m, "_reversed_padding_repeated_twice", [])) or [0] * (2 * d)
            # [last-dim left, last-dim right, ..., first-dim left, first-dim right]
            pairs = [(int(rev[2 * j]), int(rev[2 * j + 1])) for j in range(d)][::-1]
            if "kernel" not in self.skip:
                for i, (lo, hi) in enumerate(pairs):
                    worst = max(lo, hi)
                    if (mode == "reflect" and worst >= spatial[i]) or (mode == "circular" and worst > spatial[i]):
                        rule = "smaller than" if mode == "reflect" else "at most"
                        self.fail("kernel", f"{mode} padding must be {rule} the input size",
                                  f"padding {worst} on spatial size {spatial[i]} (dimension {i})",
                                  "use padding_mode='zeros' or 'replicate', less padding, or a larger input")
            return [lo + hi for lo, hi in pairs]
        if isinstance(m.padding, str):
            if m.padding == "same":
                return [dil[i] * (k[i] - 1) for i in range(d)]
            return [0] * d  # 'valid'
        return [2 * int(p) for p in _tup(m.padding, d)]

    # -- batch / instance norm -------------------------------------------------------------------
    def check_norm(self, m: Any, x: Any) -> None:
        torch = self.torch
        if "eps" not in self.skip:
            eps = getattr(m, "eps", None)
            if eps is not None and not (float(eps) > 0):
                self.fail("eps", "eps must be > 0: cuDNN refuses an epsilon below CUDNN_BN_MIN_EPSILON, and "
                                 "any implementation divides by sqrt(var + eps), which is 0 or NaN for a "
                                 "channel with zero variance", f"eps={eps!r}",
                          "use a small positive eps, e.g. the default eps=1e-05")
        if not isinstance(x, torch.Tensor):
            return
        ranks = self.norm_ranks(m)
        if "rank" not in self.skip and ranks and x.dim() not in ranks:
            self.fail("rank", f"{self.type} needs a {' or '.join(f'{r}-D' for r in ranks)} input",
                      f"a {x.dim()}-D input of shape {_shape(x)}",
                      "pick the layer that matches the data (BatchNorm1d: (N, C) or (N, C, L); BatchNorm2d: "
                      "(N, C, H, W); BatchNorm3d: (N, C, D, H, W)) or reshape the input")
        self.check_dtype(x, allow_complex=False)
        unbatched = self.kind_instance_unbatched(m, x)
        names = ([] if unbatched else ["batch size (N)"]) + ["channel count (C)"] + [
            f"spatial size {i}" for i in range(max(0, x.dim() - 2))]
        self.check_empty(x, names)
        c_dim = 0 if unbatched else 1
        nf = int(getattr(m, "num_features", 0) or 0)
        has_params = bool(getattr(m, "affine", False) or getattr(m, "track_running_stats", False))
        if "channels" not in self.skip and x.dim() > c_dim and nf and has_params and int(x.shape[c_dim]) != nf:
            self.fail("channels", f"the layer normalises {nf} channels (dimension {c_dim})",
                      f"{int(x.shape[c_dim])} channels in input shape {_shape(x)}",
                      f"build the layer with num_features={int(x.shape[c_dim])}, or fix the layer before it")
        is_instance = self.is_instance(m)
        if ("batch-stats" not in self.skip and not is_instance and m.training and x.dim() >= 2
                and x.numel() and int(x.numel()) // max(int(x.shape[1]), 1) == 1):
            self.fail("batch-stats", "batch norm in training mode needs more than one value per channel",
                      f"input shape {_shape(x)}",
                      "use a batch of at least 2 (DataLoader(drop_last=True) avoids a last batch of 1), "
                      "or call model.eval() for single-sample inference")
        if "numel" not in self.skip and not is_instance and int(x.numel()) > INT32_MAX:
            self.fail("numel", f"the input has more elements than cuDNN's 32-bit indexing allows ({INT32_MAX}); "
                               "cuDNN batch norm then fails (e.g. CUDNN_STATUS_NOT_SUPPORTED, pytorch/pytorch#51776)",
                      f"{int(x.numel())} elements, input shape {_shape(x)}",
                      "use a smaller batch (and gradient accumulation), or run the layer without cuDNN: "
                      "`with torch.backends.cudnn.flags(enabled=False): ...`")

    def is_instance(self, m: Any) -> bool:
        inst = getattr(self.torch.nn.modules.instancenorm, "_InstanceNorm", None)
        return inst is not None and isinstance(m, inst)

    def norm_ranks(self, m: Any) -> Tuple[int, ...]:
        nn = self.torch.nn
        if self.is_instance(m):
            n = {nn.InstanceNorm1d: 1, nn.InstanceNorm2d: 2, nn.InstanceNorm3d: 3}
            for cls, d in n.items():
                if isinstance(m, cls):
                    return (d + 1, d + 2)
            return ()
        if isinstance(m, nn.BatchNorm1d):
            return (2, 3)
        if isinstance(m, nn.BatchNorm2d):
            return (4,)
        if isinstance(m, nn.BatchNorm3d):
            return (5,)
        return ()  # SyncBatchNorm and others: any rank >= 2 (torch checks)

    def kind_instance_unbatched(self, m: Any, x: Any) -> bool:
        if not self.is_instance(m):
            return False
        ranks = self.norm_ranks(m)
        return bool(ranks) and x.dim() == ranks[0]

    # -- recurrent layers ------------------------------------------------------------------------
    def check_rnn(self, m: Any, x: Any) -> None:
        torch = self.torch
        packed_cls = torch.nn.utils.rnn.PackedSequence
        if isinstance(x, packed_cls):
            data = x.data
            self.check_dtype(data, allow_complex=False)
            self.check_empty(data, ["total sequence length", "feature size"])
            if "channels" not in self.skip and data.dim() == 2 and int(data.shape[1]) != int(m.input_size):
                self.fail("channels", f"the layer expects input_size={m.input_size} features",
                          f"{int(data.shape[1])} features in packed data of shape {_shape(data)}",
                          f"build the layer with input_size={int(data.shape[1])}, or fix the features")
            return
        if not isinstance(x, torch.Tensor):
            return
        if "rank" not in self.skip and x.dim() not in (2, 3):
            layout = "(N, L, H_in)" if m.batch_first else "(L, N, H_in)"
            self.fail("rank", f"{self.type} needs a 3-D input {layout} or an unbatched 2-D (L, H_in)",
                      f"a {x.dim()}-D input of shape {_shape(x)}",
                      "reshape the input; for images, flatten the spatial dimensions into the sequence first")
        self.check_dtype(x, allow_complex=False)
        if x.dim() == 3:
            names = (["batch size (N)", "sequence length (L)"] if m.batch_first
                     else ["sequence length (L)", "batch size (N)"]) + ["feature size (H_in)"]
        else:
            names = ["sequence length (L)", "feature size (H_in)"]
        self.check_empty(x, names)
        h_in = int(x.shape[-1])
        if "channels" not in self.skip and h_in != int(m.input_size):
            self.fail("channels", f"the layer expects input_size={m.input_size} features in the last dimension",
                      f"{h_in} features in input shape {_shape(x)}",
                      f"build the layer with input_size={h_in}; if the data is (N, L, H) pass batch_first=True")
        if "numel" not in self.skip and int(x.numel()) > INT32_MAX:
            self.fail("numel", f"the input has more elements than cuDNN's 32-bit indexing allows ({INT32_MAX})",
                      f"{int(x.numel())} elements, input shape {_shape(x)}",
                      "use shorter sequences (truncated BPTT) or a smaller batch")



def _kind(torch: Any, module: Any) -> Optional[str]:
    nn = torch.nn
    if isinstance(module, nn.modules.conv._ConvNd):
        return "conv"
    norm_bases = tuple(c for c in (getattr(nn.modules.batchnorm, "_BatchNorm", None),
                                   getattr(nn.modules.instancenorm, "_InstanceNorm", None)) if c is not None)
    if norm_bases and isinstance(module, norm_bases):
        return "norm"
    if isinstance(module, nn.RNNBase):
        return "rnn"
    return None


class _ArgsOnly:
    """The pre-hook of torch < 2.0 (no keyword arguments in pre-hooks); a class, not a lambda, so that a guarded model
    still pickles and deep-copies."""

    def __init__(self, hook: Callable[..., None]) -> None:
        self.hook = hook

    def __call__(self, module: Any, args: Tuple[Any, ...]) -> None:
        return self.hook(module, args, None)


def _register(module: Any, hook: Callable[..., None]) -> Any:
    try:
        return module.register_forward_pre_hook(hook, with_kwargs=True)
    except TypeError:  # torch < 2.0: no keyword arguments in pre-hooks
        return module.register_forward_pre_hook(_ArgsOnly(hook))


def install(model: Any, skip: Sequence[str]) -> Tuple[List[Any], List[str]]:
    """Register a pre-hook on every cuDNN-backed layer of ``model``; return (hook handles, names)."""
    torch = importlib.import_module("torch")
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"envcheck.guard.install needs a torch.nn.Module, got {type(model).__name__}")
    hooks: List[Any] = []
    layers: List[str] = []
    for name, module in model.named_modules():
        kind = _kind(torch, module)
        if kind is None:
            continue
        qualified = name or type(model).__name__
        hooks.append(_register(module, _Checker(qualified, module, kind, skip)))
        layers.append(qualified)
    return hooks, layers
