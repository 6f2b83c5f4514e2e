"""Measure what `envcheck.guard` costs per forward pass, with and without the guard (torch and Keras).

Usage (torch and/or TensorFlow installed):

    python benchmarks/guard_overhead.py [--framework torch|keras|all] [--runs 200] [--blocks 15]
                                        [--pairs 2000] [--device cpu|cuda] [--threads 1]
                                        [--controls guard,noop-forward,noop-input] [--checkout DIR]
    python benchmarks/guard_overhead.py --versus OTHER_CHECKOUT [--pairs 6000] [--resnet-pairs 600]

Models: a small CNN (3 convolutions + 3 batch norms on an 8x3x32x32 batch), a 2-layer LSTM
(8x20x32) and a ResNet-18 (the torchvision architecture written out in plain torch below, 20
convolutions + 20 batch norms, one 3x224x224 image; timed with --resnet-runs forwards per block) in torch; the same CNN in Keras, called eagerly (``model(x, training=False)``). Inside a
``tf.function`` (``model.fit``, ``predict``) the Keras guard runs only while tracing, so a traced
step costs nothing more per call; that is not timed here.

Timing: after a warm-up, blocks of ``--runs`` forwards are timed alternately without and with the
guard (installed and removed between blocks, outside the timed part), ``--blocks`` times each;
the report gives the per-forward time of the median block of each (``--stat min``: of the fastest,
least disturbed block, for a busy machine), as wall-clock time and as this thread's CPU time
(less disturbed by other processes on a shared machine; torch's other threads, idle with one intra-op thread, are
not counted), and the overhead in microseconds and percent. The blocks come in pairs (plain then guarded, or guarded
then plain, alternately), and "paired" is the median over the pairs of (guarded CPU / plain CPU - 1).

"interleaved" (``--pairs``, the figure run_all.py reports) pairs single forwards instead of blocks: two copies of a
model, one guarded, called in turn forward by forward, each forward timed alone, the copies swapping roles halfway;
the median of the per-pair differences, and its median in each quarter of the pairs (how steady it is). The same
is measured with two controls on the layers the guard wraps: a no-op forward pre-hook on each (torch's pre-hook path,
``Module._call_impl``'s hook branch, which the guard used until guard25 and any forward pre-hook pays), and a no-op
``forward`` wrapper on each instance (the guard's mechanism until speed26, with no check), and (``noop-input``) a no-op
one-parameter wrapper where the guard puts its one-parameter entry (its floor since speed26). ``--versus CHECKOUT``
instead times this checkout's guard and CHECKOUT's side by side in one process: a plain copy and one guarded by each,
single forwards interleaved (``versus``). A paired block of 200 forwards
takes ~0.3 s, and a shared machine's busy spells fall on one block of a pair and not the other: with 6 pairs
(run_all.py --rounds 1) one spell moves the median by several percent (session 11: 6.8% where the own cost timed
alone was 0.66%); single forwards a few milliseconds apart meet the same spell. No timing is asserted in the test
suite: this script only measures.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import time
import timeit
from typing import Any, Callable, Dict, Iterator, List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
guard: Any = None  # envcheck.guard, imported by main() from this checkout or --checkout's


def torch_models(torch: Any) -> Dict[str, Tuple[Any, Tuple[int, ...]]]:
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


def resnet18(torch: Any) -> Any:
    """ResNet-18 (He et al. 2015; the layout of torchvision.models.resnet18), in plain torch."""
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x: Any) -> Any:
            idt = x if self.down is None else self.down(x)
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + idt)

    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
              nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000)]
    return nn.Sequential(*layers)


def keras_cnn(keras: Any) -> Any:
    L = keras.layers
    return keras.Sequential([
        keras.Input((32, 32, 3)),
        L.Conv2D(16, 3, padding="same"), L.BatchNormalization(), L.ReLU(),
        L.Conv2D(32, 3, strides=2, padding="same"), L.BatchNormalization(), L.ReLU(),
        L.Conv2D(32, 3, padding="same"), L.BatchNormalization(), L.ReLU(),
        L.GlobalAveragePooling2D(), L.Dense(10)])


def per_forward(fn: Callable[[], Any], runs: int, sync: Callable[[], None]) -> Tuple[float, float]:
    sync()
    t0, c0 = time.perf_counter(), time.thread_time()
    for _ in range(runs):
        fn()
    sync()
    return (time.perf_counter() - t0) / runs, (time.thread_time() - c0) / runs


def measure(model: Any, fwd: Callable[[], Any], runs: int, blocks: int,
            sync: Callable[[], None]) -> Tuple[int, List[float], List[float], List[float], List[float]]:
    for _ in range(max(10, runs // 4)):
        fwd()
    plain_w: List[float] = []
    plain_c: List[float] = []
    guard_w: List[float] = []
    guard_c: List[float] = []
    n_layers = 0
    for b in range(blocks):
        for guarded in ((False, True) if b % 2 == 0 else (True, False)):
            if guarded:
                h = guard.install(model)
                n_layers = len(h.layers)
                fwd()  # the first guarded call does the full check (and, in Keras, a trace): not timed
                w, c = per_forward(fwd, runs, sync)
                guard_w.append(w)
                guard_c.append(c)
                h.remove()
            else:
                w, c = per_forward(fwd, runs, sync)
                plain_w.append(w)
                plain_c.append(c)
    return n_layers, plain_w, plain_c, guard_w, guard_c


def report(name: str, n_layers: int, pw: List[float], pc: List[float], gw: List[float], gc: List[float]) -> None:
    p, g = STAT(pw), STAT(gw)
    cp, cg = STAT(pc), STAT(gc)
    print(f"{name:<46} {n_layers:>6} {p * 1e6:>9.1f}us {g * 1e6:>9.1f}us {(g - p) * 1e6:>7.1f}us "
          f"{(g - p) / p * 100:>6.1f}% | cpu {cp * 1e6:>9.1f}us {cg * 1e6:>9.1f}us {(cg - cp) * 1e6:>7.1f}us "
          f"{(cg - cp) / cp * 100:>6.1f}% | paired {statistics.median(g_ / p_ - 1 for p_, g_ in zip(pc, gc)) * 100:5.1f}%")


STAT: Callable[[List[float]], float] = statistics.median


def header() -> None:
    print(f"{'model':<46} {'layers':>6} {'plain':>11} {'guarded':>11} {'overhead':>9} {'%':>7} | "
          f"{'cpu plain':>13} {'guarded':>11} {'overhead':>9} {'%':>7} | {'paired cpu %':>12}")


def _noop_pre_hook(module: Any, args: Any, kwargs: Any) -> None:
    return None


class _Passthrough:
    """A no-op ``forward`` put on a layer's instance the way the guard puts its own (a bound method that calls the
    class's forward): the guard's mechanism without its check."""

    def __init__(self, module: Any) -> None:
        self.module = module

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        m = self.module
        return type(m).forward(m, *args, **kwargs)

    def forward_input(self, input: Any) -> Any:
        """The same for a layer whose class's forward is ``forward(self, input)``: the guard's entry for such a layer
        (speed26) without its check."""
        m = self.module
        return type(m).forward(m, input)


def _controls(model: Any, names: List[str], hooks: str, one: Tuple[str, ...] = ()) -> Callable[[], None]:
    """Put the control ``hooks`` ("noop": a no-op pre-hook, "noop-forward": a no-op forward wrapper, "noop-input": a
    no-op ``forward(self, input)`` wrapper where the guard puts its own one-parameter entry, the general one
    elsewhere: ``one`` names those) on the layers ``names`` of ``model``; return what takes it off again."""
    mods = dict(model.named_modules())
    layers = [mods.get(name, model) for name in names]
    handles = [m.register_forward_pre_hook(_noop_pre_hook, with_kwargs=True) for m in layers] if hooks == "noop" else []
    if hooks in ("noop-forward", "noop-input"):
        for name, m in zip(names, layers):
            p = _Passthrough(m)
            vars(m)["forward"] = p.forward_input if hooks == "noop-input" and name in one else p.forward

    def undo() -> None:
        for hh in handles:
            hh.remove()
        if hooks in ("noop-forward", "noop-input"):
            for m in layers:
                del vars(m)["forward"]

    return undo


def interleaved(torch: Any, model: Any, x: Any, n: int, hooks: str, sync: Callable[[], None],
                cpu: bool = True) -> Tuple[float, float, List[float]]:
    """The paired figure, forward by forward: two copies of ``model`` (the same weights), one guarded (``hooks`` =
    "guard") or given a no-op pre-hook on each layer the guard wraps ("noop": torch's pre-hook path alone) or a no-op
    forward wrapper ("noop-forward": the guard's mechanism without its check), called in
    turn (plain then hooked, then hooked then plain, ...), each forward timed alone (this thread's CPU time, a GPU's
    wall time); the copies swap roles halfway (neither copy's memory placement counts for one side). A busy spell of
    a shared machine falls on both forwards of a pair, where a block of forwards meets it alone; the median over
    ``n`` pairs of (hooked - plain) is the figure. Returns (the median plain forward, that median, the same median in
    each quarter of the pairs: how steady it is)."""
    import copy

    timer = time.thread_time if cpu else time.perf_counter
    a, b = model, copy.deepcopy(model)
    plain: List[float] = []
    diffs: List[float] = []
    for half in (0, 1):
        hooked, other = (b, a) if half == 0 else (a, b)
        h = guard.install(hooked)
        if hooks != "guard":  # the same layers, each with a pre-hook or a forward wrapper that does nothing
            names = h.layers
            mods = dict(hooked.named_modules())
            one = tuple(n for n in names if getattr(vars(mods.get(n, hooked)).get("forward"), "__name__", "forward")
                        != "forward")  # the layers given a one-parameter entry (speed26)
            h.remove()
            undo = _controls(hooked, names, hooks, one)
        for _ in range(5):  # (the guard's first call does the full check: not timed)
            hooked(x)
            other(x)
        sync()
        for i in range(n // 2):
            first, second = (other, hooked) if i % 2 == 0 else (hooked, other)
            t0 = timer()
            first(x)
            sync()
            t1 = timer()
            second(x)
            sync()
            t2 = timer()
            p, g = (t1 - t0, t2 - t1) if i % 2 == 0 else (t2 - t1, t1 - t0)
            plain.append(p)
            diffs.append(g - p)
        if hooks != "guard":
            undo()
        else:
            h.remove()
    q = max(1, len(diffs) // 4)
    return (statistics.median(plain), statistics.median(diffs),
            [statistics.median(diffs[k:k + q]) for k in range(0, len(diffs) - q + 1, q)][:4])


def load_other_guard(checkout: str) -> Any:
    """``checkout``'s ``envcheck/guard/_torch.py`` as a module of its own (``--versus``), beside this checkout's: its
    ``install(model, skip)`` gives (checkers, names), each checker ``remove()``-able; its ``GuardError`` and
    ``INT32_MAX`` are this checkout's (the same values)."""
    import importlib.util

    path = os.path.join(os.path.abspath(checkout), "envcheck", "guard", "_torch.py")
    spec = importlib.util.spec_from_file_location("envcheck_guard_torch_versus", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def paired_models(torch: Any, args: Any, dev: Any) -> Iterator[Tuple[str, Any, Any, int]]:
    """The models the paired / interleaved runs time (the small ones, and ResNet-18 unless --resnet-runs 0), each on
    ``dev`` in eval mode, with its input and its number of pairs (ResNet-18: --resnet-pairs, or a tenth of --pairs)."""
    models = dict(torch_models(torch))
    if args.resnet_runs:
        models["ResNet-18 (20 conv + 20 BN, 1x3x224x224)"] = (resnet18(torch), (1, 3, 224, 224))
    for name, (model, shape) in models.items():
        n = args.pairs if "ResNet" not in name else (args.resnet_pairs or max(40, args.pairs // 10))
        yield name, model.to(dev).eval(), torch.randn(*shape, device=dev), n


def versus(torch: Any, model: Any, x: Any, n: int, other: Any, sync: Callable[[], None],
           cpu: bool = True) -> Tuple[float, Dict[str, float], Dict[str, List[float]]]:
    """Three copies of ``model`` (the same weights): one plain, one guarded by this checkout, one by ``other``
    (``load_other_guard``), called in turn forward by forward in an order that goes through all six over the
    triples, each forward timed alone; the three copies take each role for a third of the triples (neither copy's
    memory placement counts for one side). Returns the median plain forward and, for "this" (this checkout's guard
    minus plain), "other" (the other's minus plain) and "this-other" (the two guards' difference, triple by
    triple), the median over the triples and the same median in each third of them (each third one assignment of the
    copies to the roles: a copy slower or faster by its placement moves the thirds apart, and their mean cancels it)."""
    import copy
    import itertools

    timer = time.thread_time if cpu else time.perf_counter
    copies = [model, copy.deepcopy(model), copy.deepcopy(model)]
    orders = list(itertools.permutations(range(3)))  # roles: 0 plain, 1 this checkout's guard, 2 other's
    plain: List[float] = []
    diffs: Dict[str, List[float]] = {"this": [], "other": [], "this-other": []}
    for third in range(3):
        roles = [copies[(third + r) % 3] for r in range(3)]
        h = guard.install(roles[1])
        checkers, _ = other.install(roles[2], ())
        for _ in range(5):  # the first calls do the full check: not timed
            for m in roles:
                m(x)
        sync()
        for i in range(n // 3):
            took = [0.0, 0.0, 0.0]
            for r in orders[i % 6]:
                t0 = timer()
                roles[r](x)
                sync()
                took[r] = timer() - t0
            plain.append(took[0])
            diffs["this"].append(took[1] - took[0])
            diffs["other"].append(took[2] - took[0])
            diffs["this-other"].append(took[1] - took[2])
        h.remove()
        for c in checkers:
            c.remove()
    q = max(1, len(plain) // 3)
    return (statistics.median(plain), {k: statistics.median(v) for k, v in diffs.items()},
            {k: [statistics.median(v[j:j + q]) for j in range(0, len(v) - q + 1, q)][:3] for k, v in diffs.items()})


def run_versus(args: argparse.Namespace) -> None:
    torch = importlib.import_module("torch")
    torch.set_num_threads(args.threads)
    dev = torch.device(args.device)
    sync = (lambda: torch.cuda.synchronize()) if dev.type == "cuda" else (lambda: None)
    other = load_other_guard(args.versus)
    print(f"torch {torch.__version__}, device {dev}, {args.threads} thread(s); versus: this checkout's guard "
          f"({ROOT if args.checkout == ROOT else args.checkout}) and {os.path.abspath(args.versus)}'s, interleaved "
          f"with a plain copy forward by forward ({args.pairs} triples; ResNet-18 {args.resnet_pairs or max(40, args.pairs // 10)}), "
          f"{'this thread' + chr(39) + 's CPU' if dev.type == 'cpu' else 'wall'} time; medians of the per-triple "
          "differences, % of the median plain forward; the same median in each third (one assignment of the three "
          "copies to the roles each) and the mean of the thirds (the copies' placement cancelled)")
    for name, model, x, n in paired_models(torch, args, dev):
        with torch.no_grad():
            plain, med, by_third = versus(torch, model, x, n, other, sync, dev.type == "cpu")
        for k, what in (("this", "this guard"), ("other", "versus guard"), ("this-other", "this minus versus")):
            thirds = by_third[k]
            print(f"{name:<46} {what:<18}: plain {plain * 1e6:8.1f}us, {med[k] * 1e6:+7.1f}us = "
                  f"{med[k] / plain * 100:+5.2f}% (thirds: " + " ".join(f"{d / plain * 100:+.2f}%" for d in thirds)
                  + f"; their mean {statistics.mean(thirds) / plain * 100:+.2f}%)")


class _Stub:
    """A stand-in layer for ``direct_cost``: the guarded layer's ``training`` and ``eps``, and a forward that does
    nothing, so a guard's entry can be timed on it without the layer's kernel."""

    def __init__(self, layer: Any) -> None:
        self.training = layer.training
        self.eps = getattr(layer, "eps", None)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return None


def direct_cost(torch: Any, model: Any, x: Any, repeat: int = 7, number: int = 2000) -> Tuple[int, float, float, str]:
    """The guard's own CPU time per forward, timed alone (min of ``repeat``; far less disturbed by a
    busy machine than a whole forward). A guard that wraps ``forward`` (guard25 on): a copy of each guarded layer's
    checker, its layer swapped for a ``_Stub`` (the layer's settings the key reads, a forward that does nothing), its
    last key the layer's, is called with the inputs the layer gets, through the entry the guard put on the layer
    (its fast path and its call of the class's forward), minus the stub's forward called directly; returned as
    (calls, that time, 0, mech). A guard of forward pre-hooks (``--checkout`` of a version before guard25): its
    checks called on those inputs, and a no-op pre-hook's dispatch on ``nn.Identity`` minus none, once per layer."""
    import copy

    calls: List[Tuple[Any, Any, Tuple[Any, ...], Dict[str, Any]]] = []
    h = guard.install(model)
    mech = "wrapper"
    guarded = [m for m in model.modules() if "forward" in vars(m)]
    if not guarded:  # the pre-hook guard
        mech = "pre-hook dispatch"
        guarded = [m for m in model.modules() if m._forward_pre_hooks]

    checks_of = {id(m): vars(m)["forward"] if mech == "wrapper" else
                 next(iter(m._forward_pre_hooks.values())) for m in guarded}  # (before the recorders)

    def record(mod: Any, a: Any, k: Any) -> None:
        calls.append((checks_of[id(mod)], mod, a, k))

    recorders = [m.register_forward_pre_hook(record, with_kwargs=True, prepend=True) for m in guarded]
    model(x)
    for r in recorders:
        r.remove()
    if mech == "wrapper":
        entries: List[Tuple[Any, Any, Tuple[Any, ...], Dict[str, Any]]] = []
        for entry, mod, a, k in calls:
            twin = copy.copy(entry.__self__)
            stub = twin.module = _Stub(mod)
            bound = getattr(twin, entry.__name__)
            bound(*a, **k)  # the full check once on the stub's key (the same as the layer's): later calls hit it
            entries.append((bound, stub, a, k))

        def guarded_calls() -> None:
            for bound, _, a, k in entries:
                bound(*a, **k)

        def stub_calls() -> None:
            for _, stub, a, k in entries:
                _Stub.forward(stub, *a, **k)

        through = min(timeit.repeat(guarded_calls, number=number, repeat=repeat, timer=time.process_time))
        bare = min(timeit.repeat(stub_calls, number=number, repeat=repeat, timer=time.process_time))
        h.remove()
        return len(calls), max(0.0, through - bare) / number, 0.0, mech

    def checks() -> None:
        for check, mod, a, k in calls:
            check(mod, a, k)

    ident, t = torch.nn.Identity(), torch.zeros(1)
    plain = min(timeit.repeat(lambda: ident(t), number=number, repeat=repeat, timer=time.process_time))
    ident.register_forward_pre_hook(_noop_pre_hook, with_kwargs=True)
    wrapped = min(timeit.repeat(lambda: ident(t), number=number, repeat=repeat, timer=time.process_time))
    own = min(timeit.repeat(checks, number=number, repeat=repeat, timer=time.process_time)) / number
    h.remove()
    return len(calls), own, max(0.0, (wrapped - plain) / number) * len(calls), mech


def run_torch(args: argparse.Namespace) -> None:
    torch = importlib.import_module("torch")
    torch.set_num_threads(args.threads)
    dev = torch.device(args.device)
    sync = (lambda: torch.cuda.synchronize()) if dev.type == "cuda" else (lambda: None)
    print(f"torch {torch.__version__}, device {dev}, {args.threads} thread(s), {args.blocks} blocks of "
          f"{args.runs} forwards each way, {args.stat} block per forward")
    header()
    for name, (model, shape) in torch_models(torch).items():
        model = model.to(dev).eval()
        x = torch.randn(*shape, device=dev)
        with torch.no_grad():
            def fwd(model: Any = model, x: Any = x) -> Any:
                return model(x)

            report(name, *measure(model, fwd, args.runs, args.blocks, sync))
    if args.resnet_runs:
        model = resnet18(torch).to(dev).eval()
        x = torch.randn(args.resnet_batch, 3, 224, 224, device=dev)
        with torch.no_grad():
            def fwd_r(model: Any = model, x: Any = x) -> Any:
                return model(x)

            report(f"ResNet-18 (20 conv + 20 BN, {args.resnet_batch}x3x224x224)",
                   *measure(model, fwd_r, args.resnet_runs, args.blocks, sync))
    if args.pairs:
        print(f"interleaved, forward by forward ({args.pairs} pairs each, {'this thread' + chr(39) + 's CPU' if dev.type == 'cpu' else 'wall'} "
              "time; the copies swap roles halfway): the median of (hooked - plain) over the pairs, its % of the "
              "median plain forward, and the same median in each quarter of the pairs")
        for name, model, x, pairs in paired_models(torch, args, dev):
            with torch.no_grad():
                for hooks in args.controls.split(","):
                    plain, diff, quarters = interleaved(torch, model, x, pairs, hooks, sync, dev.type == "cpu")
                    what = {"guard": "guarded", "noop": "no-op pre-hooks on the same layers",
                            "noop-forward": "no-op forward wrappers on the same layers",
                            "noop-input": "no-op one-parameter forward wrappers on the same layers"}[hooks]
                    print(f"{name:<46} interleaved {what}: plain {plain * 1e6:8.1f}us, {diff * 1e6:+7.1f}us = "
                          f"{diff / plain * 100:+5.2f}% (quarters: "
                          + " ".join(f"{d / plain * 100:+.2f}%" for d in quarters) + ")")
    print("guard's own CPU time per forward, timed alone (min of 7 x 2000): each guarded layer's entry (the fast path of "
          "its check and the call of the class's forward) on a stub layer, minus the stub's forward; before guard25: "
          "its checks + a no-op pre-hook's dispatch on nn.Identity, minus none")
    direct = dict(torch_models(torch))
    if args.resnet_runs:
        direct["ResNet-18 (20 conv + 20 BN, 1x3x224x224)"] = (resnet18(torch), (1, 3, 224, 224))
    for name, (model, shape) in direct.items():
        model = model.to(dev).eval()
        x = torch.randn(*shape, device=dev)
        with torch.no_grad():
            n, own, dispatch, mech = direct_cost(torch, model, x, number=200 if "ResNet" in name else 2000)
        if mech == "wrapper":
            print(f"{name:<46} {n:>3} guarded calls: the entries on stub layers, minus the stubs' forward "
                  f"= {own * 1e6:6.1f}us per forward")
        else:
            print(f"{name:<46} {n:>3} guarded calls: checks {own * 1e6:6.1f}us + {mech} {dispatch * 1e6:5.1f}us "
                  f"= {(own + dispatch) * 1e6:6.1f}us per forward")


def run_keras(args: argparse.Namespace) -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    tf = importlib.import_module("tensorflow")
    keras = importlib.import_module("keras")
    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    keras.utils.set_random_seed(0)
    model = keras_cnn(keras)
    x = tf.random.normal((8, 32, 32, 3))
    runs = max(1, args.runs // 4)
    print(f"TensorFlow {tf.__version__}, Keras {keras.__version__}, CPU, {args.threads} thread(s), "
          f"{args.blocks} blocks of {runs} forwards each way, {args.stat} block per forward")
    header()

    def eager() -> Any:
        return model(x, training=False)

    report("Keras small CNN (3 conv + 3 BN), eager", *measure(model, eager, runs, args.blocks, lambda: None))


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--framework", choices=("torch", "keras", "all"), default="all")
    ap.add_argument("--runs", type=int, default=200, help="forwards per timed block (Keras: a quarter)")
    ap.add_argument("--blocks", type=int, default=15, help="timed blocks each way (plain, guarded)")
    ap.add_argument("--resnet-runs", type=int, default=5, help="ResNet-18 forwards per block (0: skip it)")
    ap.add_argument("--resnet-batch", type=int, default=1,
                    help="ResNet-18 batch size (a GPU forward of batch 1 is launch-bound: the guard's CPU cost shows "
                         "in full; a training batch hides it)")
    ap.add_argument("--pairs", type=int, default=2000,
                    help="forward-by-forward pairs for the interleaved figure (ResNet-18: a tenth, at least 40; 0: skip)")
    ap.add_argument("--resnet-pairs", type=int, default=0,
                    help="pairs for ResNet-18's interleaved figure (0: a tenth of --pairs, at least 40)")
    ap.add_argument("--controls", default="guard,noop,noop-forward",
                    help="which interleaved figures: guard (the guard itself), noop (no-op pre-hooks on the same "
                         "layers), noop-forward (no-op forward wrappers on them), noop-input (no-op one-parameter "
                         "wrappers where the guard puts its one-parameter entry: the guard's floor since speed26)")
    ap.add_argument("--checkout", default=ROOT,
                    help="the envcheck checkout whose guard is measured (e.g. one before guard25: the same script, "
                         "so before and after can be run alternately)")
    ap.add_argument("--versus", metavar="CHECKOUT",
                    help="time this checkout's guard and CHECKOUT's side by side in one process (three copies of each "
                         "model: plain, guarded by each; single forwards interleaved, --pairs triples) instead of the "
                         "usual figures")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=1, help="intra-op threads (1 = steadier numbers)")
    ap.add_argument("--stat", choices=("median", "min"), default="median",
                    help="per-forward time of the median block, or of the fastest (least disturbed) block")
    args = ap.parse_args(argv)
    unknown = set(args.controls.split(",")) - {"guard", "noop", "noop-forward", "noop-input"}
    if unknown:
        ap.error(f"unknown --controls {sorted(unknown)}")
    global STAT, guard
    sys.path.insert(0, os.path.abspath(args.checkout))
    guard = importlib.import_module("envcheck.guard")
    print(f"envcheck.guard from {os.path.dirname(guard.__file__)}")
    STAT = min if args.stat == "min" else statistics.median
    if args.versus:
        run_versus(args)
        return 0
    ran = False
    for fw, fn, mod in (("torch", run_torch, "torch"), ("keras", run_keras, "tensorflow")):
        if args.framework not in (fw, "all"):
            continue
        try:
            importlib.import_module(mod)
        except ImportError:
            print(f"{mod} is not installed: the {fw} models are not measured")
            continue
        fn(args)
        ran = True
    return 0 if ran else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
