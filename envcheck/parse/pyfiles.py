"""Read framework build facts from installed Python files without importing the framework.

``torch/version.py`` and TensorFlow's ``tensorflow/python/platform/build_info.py`` are plain
assignments of literals; we read them with :mod:`ast`, never by executing them.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

from envcheck import lazyre

__all__ = ["parse_torch_version_py", "parse_tf_build_info_py", "literal_assignments"]


# the lines of a generated torch/version.py, each read without ast: `name = 'x'` / `name: Optional[str] = None`,
# `import x` / `from x import y`, `__all__ = [...]` on one line, comments and blanks (one bounded pattern per line)
_ASSIGN = lazyre.compile(r"([A-Za-z_]\w{0,63})[ \t]*(?::[ \t]*[\w\[\]., ]{1,64})?[ \t]*=[ \t]*"
                     r"('[^'\\\n]{0,256}'|\"[^\"\\\n]{0,256}\"|None|True|False|-?(?:0|[1-9]\d{0,17}))[ \t]*(?:#[^\n]*)?")
_SKIP = lazyre.compile(r"(?:from[ \t]+[\w.]{1,128}[ \t]+import[ \t]+[\w, \t]{1,256}|import[ \t]+[\w., \t]{1,256}|"
                   r"#[^\n]*)[ \t]*")
_ALL = lazyre.compile(r"__all__[ \t]*=[ \t]*\[([^\]\n]{0,1024})\][ \t]*")
_QUOTED = lazyre.compile(r"'([^'\\]*)'|\"([^\"\\]*)\"")
_CONST = {"None": None, "True": True, "False": False}


def _simple_assignments(text: str) -> Optional[Dict[str, Any]]:
    """``literal_assignments`` of a file made only of such lines, without :mod:`ast` (its import and a parse are
    ~1 ms of a ~50 ms ``envcheck status``); None for any other line, where ast reads the file."""
    out: Dict[str, Any] = {}
    for line in text.splitlines():
        if not line.strip() or _SKIP.fullmatch(line):
            continue
        a = _ALL.fullmatch(line)
        if a is not None:  # __all__ = ['__version__', 'cuda', ...]: a list of strings, or ast reads the file
            items = [i.strip() for i in a.group(1).split(",")]
            items = items[:-1] if items and not items[-1] else items
            quoted = [_QUOTED.fullmatch(i) for i in items]
            if not all(quoted):
                return None
            out["__all__"] = [q.group(1) if q.group(1) is not None else q.group(2) for q in quoted if q]
            continue
        m = _ASSIGN.fullmatch(line)
        if m is None:
            return None
        v = m.group(2)
        out[m.group(1)] = v[1:-1] if v[:1] in ("'", '"') else _CONST[v] if v in _CONST else int(v)
    return out


def _literal(node: Any) -> Any:
    """A literal value, also for ``collections.OrderedDict([...])`` / ``dict(...)`` calls."""
    import ast

    if isinstance(node, ast.Call) and not node.keywords and len(node.args) == 1:
        fn = node.func
        fname = fn.attr if isinstance(fn, ast.Attribute) else (fn.id if isinstance(fn, ast.Name) else "")
        if fname in ("OrderedDict", "dict"):
            pairs = ast.literal_eval(node.args[0])
            return dict(pairs)
    if isinstance(node, ast.Call) and not node.args and node.keywords:
        fn = node.func
        if isinstance(fn, ast.Name) and fn.id == "dict":
            return {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    return ast.literal_eval(node)


def literal_assignments(text: Optional[str]) -> Dict[str, Any]:
    """``{name: value}`` of the module-level ``name = <literal>`` and ``name: T = <literal>`` lines."""
    # the real files are < 3 KB; the cap also bounds expression nesting (CPython 3.9's ast.parse overflows
    # the C stack, killing the process, on ~150k-deep chains such as "x = 1+1+...+1" or "a.b.b...")
    if not text or len(text) > 64_000:
        return {}
    simple = _simple_assignments(text)
    if simple is not None:
        return simple
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    out: Dict[str, Any] = {}
    for node in tree.body:
        targets = []
        value = None
        if isinstance(node, ast.Assign):
            targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
            value = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            targets = [node.target.id]
            value = node.value
        if not targets or value is None:
            continue
        try:
            v = _literal(value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            continue
        for t in targets:
            out[t] = v
    return out


# __version__ = '2.1.0+cu121'
# debug = False
# cuda: Optional[str] = '12.1'
# git_version = '7bcf7da3a268b435777fe87c7794c382f444e86d'
# hip: Optional[str] = None
def parse_torch_version_py(text: Optional[str]) -> Dict[str, Any]:
    """``{"version", "cuda", "hip", "xpu", "git_version"}`` from ``torch/version.py``; absent keys when unknown."""
    a = literal_assignments(text)
    out: Dict[str, Any] = {}
    if isinstance(a.get("__version__"), str):
        out["version"] = a["__version__"]
    for k in ("cuda", "hip", "xpu", "git_version"):
        if k in a and (a[k] is None or isinstance(a[k], str)):
            out[k] = a[k]
    return out


# TF >= 2.3:
# build_info = {'cpu_compiler': '/usr/lib/llvm-17/bin/clang', 'cuda_compute_capabilities': ['sm_50', 'sm_60',
#   'sm_70', 'sm_80', 'compute_90'], 'cuda_version': '12.3', 'cudnn_version': '8', 'is_cuda_build': True,
#   'is_rocm_build': False, 'is_tensorrt_build': True}
# TF 2.1 / 2.2 / 1.15:  is_cuda_build = True ; cuda_version_number = '10.1' ; cudnn_version_number = '7'
def parse_tf_build_info_py(text: Optional[str]) -> Dict[str, Any]:
    """The build-info dictionary as ``tf.sysconfig.get_build_info()`` returns it (older files'
    ``cuda_version_number`` names mapped to ``cuda_version``)."""
    a = literal_assignments(text)
    info = a.get("build_info")
    out: Dict[str, Any] = dict(info) if isinstance(info, dict) else {}
    for old, new in (("cuda_version_number", "cuda_version"), ("cudnn_version_number", "cudnn_version")):
        if new not in out and isinstance(a.get(old), str):
            out[new] = a[old]
    for k in ("is_cuda_build", "is_rocm_build", "is_tensorrt_build", "msvcp_dll_names", "nvcuda_dll_name",
              "cudart_dll_name", "cudnn_dll_name"):
        if k not in out and k in a:
            out[k] = a[k]
    return {str(k): v for k, v in out.items()}
