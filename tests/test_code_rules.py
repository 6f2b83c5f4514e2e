"""Rules of the code base, checked mechanically."""

import os
import re
import subprocess
import sys

from envcheck.checks import EXTRA_IDS, FINDING_IDS
from helpers import CONTRACT_IDS  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(ROOT, "envcheck")


def py_files():
    for d, _, files in os.walk(PKG):
        for f in files:
            if f.endswith(".py"):
                yield os.path.join(d, f)


def test_finding_ids_are_contract_ids():
    assert set(FINDING_IDS) <= CONTRACT_IDS
    # the contract lives in the repository (docs/contract.md): its id tables (§3, §9) are the ids
    with open(os.path.join(ROOT, "docs", "contract.md"), encoding="utf-8") as fh:
        text = fh.read()
    table = set(re.findall(r"^\| `([a-z0-9-]+)` \|", text, re.M))
    assert CONTRACT_IDS == table


def test_every_emitted_id_is_declared():
    emitted = set()
    for p in py_files():
        if "/checks/" in p:
            emitted |= set(re.findall(r'Finding\(\s*"([a-z0-9-]+)"', open(p).read()))
    assert emitted and emitted <= set(FINDING_IDS) | set(EXTRA_IDS)
    assert not set(EXTRA_IDS) & CONTRACT_IDS


def test_only_cli_and_render_print():
    offenders = []
    for p in py_files():
        rel = os.path.relpath(p, PKG)
        if rel.startswith(("cli", "render")) or rel.startswith("probe/_") and "child" in rel:
            continue
        src = open(p).read()
        if re.search(r"^\s*print\(", src, re.M) and "__main__" not in src:
            offenders.append(rel)
        if re.search(r"^\s*(import click|from click)", src, re.M):
            offenders.append(rel + " (click)")
    assert offenders == []


def test_no_framework_imports_outside_the_deep_child():
    for p in py_files():
        if p.endswith("_deep_child.py"):
            continue
        src = open(p).read()
        assert not re.search(r"^\s*(import|from)\s+(torch|tensorflow|jax)\b", src, re.M), p


def test_status_imports_no_heavy_module():
    code = ("import sys, runpy; sys.argv=['envcheck','status','--json'];\n"
            "try:\n    runpy.run_module('envcheck', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            "bad=[m for m in ('torch','tensorflow','jax','requests','urllib3','numpy') if m in sys.modules]\n"
            "sys.stderr.write('HEAVY=' + ','.join(bad))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ,
                                                                                               PYTHONPATH=ROOT))
    assert "HEAVY=" in r.stderr and r.stderr.strip().endswith("HEAVY="), r.stderr[-500:]


def test_no_python310_only_syntax():
    for p in py_files():
        src = open(p).read()
        assert not re.search(r"^\s*match\s+\S.*:\s*$", src, re.M), p
        assert "from __future__ import annotations" in src or not re.search(r"def .*\) -> [^:]*\|", src), p


def test_commands_have_help_and_examples_and_are_documented():
    from envcheck.cli import COMMANDS, cli
    import importlib

    readme = open(os.path.join(ROOT, "README.md")).read()
    # the README, or the docs beside it (docs/cli.md documents `envcheck completion`)
    readme += open(os.path.join(ROOT, "docs", "cli.md")).read()
    for name, target in COMMANDS.items():
        mod, attr = target.split(":")
        cmd = getattr(importlib.import_module(mod), attr)
        assert cmd.help and "Example:" in cmd.help, name
        assert f"envcheck {name}" in readme, name
    assert cli.help


# every function kept under cyclomatic complexity 20 (issue 20 asked it of the readers - one reader per form,
# small parts -; review 26 of the renderers, fleet, the matrix's download and smoke; the last six - check_pins,
# check_no_driver, frameworks._torch, gpus.build_gpus, kb._validate_kb, matcher._scan - were split on 2026-11-27)


def test_every_function_stays_simple():
    ruff = os.path.join(os.path.dirname(sys.executable), "ruff")
    if not os.path.exists(ruff):
        import pytest

        pytest.skip("ruff is not installed next to this Python")
    r = subprocess.run([ruff, "check", PKG, "--select", "C901",
                        "--config", "lint.mccabe.max-complexity = 20", "--no-cache"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


# ------------------------------------------------------------------------------------------------------------
# the layers (docs/architecture.md), read from pyproject's import-linter contract so that there is one table;
# checked here on the AST (every import, the lazy ones inside functions too) so the README's test command
# enforces them without import-linter, which .ci/run also runs (`lint-imports`)

import ast  # noqa: E402
import collections  # noqa: E402

try:  # noqa: E402
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib


def _pyproject():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        return tomllib.load(fh)


def _layer_table():
    """{package: (rank, independent group id)} from the layers contract (rank 0 = the top layer)."""
    contract = next(c for c in _pyproject()["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    table = {}
    for rank, layer in enumerate(contract["layers"]):
        independent = "|" in layer
        for i, name in enumerate(x.strip() for x in layer.replace("|", ":").split(":")):
            table[name] = (rank, (rank, i) if independent else (rank, 0))
    return table


def _module(path):
    rel = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
    return rel[: -len(".__init__")] if rel.endswith(".__init__") else rel


def _imports():
    """[(importing module, imported envcheck module or attribute path, line)] for every import statement."""
    out = []
    for p in py_files():
        mod = _module(p)
        tree = ast.parse(open(p).read())
        for n in ast.walk(tree):
            if isinstance(n, ast.Import):
                out += [(mod, a.name, n.lineno) for a in n.names if a.name.startswith("envcheck")]
            elif isinstance(n, ast.ImportFrom):
                if n.level:
                    base = mod.split(".") if p.endswith("__init__.py") else mod.split(".")[:-1]
                    base = base[: len(base) - (n.level - 1)]
                    target = ".".join(base + ([n.module] if n.module else []))
                else:
                    target = n.module or ""
                if target.startswith("envcheck"):
                    out += [(mod, f"{target}.{a.name}", n.lineno) for a in n.names]
    return out


def _top(mod):
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 else None


def test_every_package_is_in_a_layer():
    table = _layer_table()
    tops = {_top(_module(p)) for p in py_files()} - {None}
    assert tops <= set(table), sorted(tops - set(table))


def test_imports_follow_the_layers():
    table = _layer_table()
    bad = []
    for mod, target, line in _imports():
        a, b = _top(mod), _top(target)
        if a is None or b is None or a == b or b not in table:
            continue  # the root package (envcheck.__version__), or within one package
        (ra, ga), (rb, gb) = table[a], table[b]
        if rb < ra or (rb == ra and ga != gb):
            bad.append(f"{mod}:{line} imports {target}")
    assert bad == []


def test_no_private_import_from_outside_its_package():
    bad = []
    for mod, target, line in _imports():
        parts = target.split(".")
        for i, part in enumerate(parts[1:], start=1):
            if part.startswith("_") and not part.startswith("__"):
                owner = ".".join(parts[:2]) if i >= 2 else "envcheck"  # the package x of an x._y name
                if not (mod == owner or mod.startswith(owner + ".")):
                    bad.append(f"{mod}:{line} imports {target}")
                break
    assert bad == []


def private_attribute_uses(source, module, is_module=None):
    """(name, line) of every ``m._name`` where ``m`` is another envcheck module this source imported (``from
    envcheck.paste.readers import collect_env`` then ``collect_env._gpu(...)``): the same breach as importing ``_gpu``
    (session 25: webui_sysinfo used collect_env's private readers; they are public in their one home now)."""
    is_module = is_module or _is_module
    tree = ast.parse(source)
    mods = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("envcheck") and node.level == 0:
            for a in node.names:
                if is_module(f"{node.module}.{a.name}") and f"{node.module}.{a.name}" != module:
                    mods.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("envcheck.") and a.asname and a.name != module:
                    mods.add(a.asname)
    return [(f"{n.value.id}.{n.attr}", n.lineno) for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in mods
            and n.attr.startswith("_") and not n.attr.startswith("__")]


def test_no_private_attribute_of_another_module():
    bad = []
    for p in py_files():
        rel = os.path.relpath(p, ROOT).replace(os.sep, "/")
        if rel.startswith("envcheck/"):
            module = rel[:-3].replace("/", ".").removesuffix(".__init__")
            with open(p, encoding="utf-8") as fh:
                bad += [f"{rel}:{line} uses {name}" for name, line in private_attribute_uses(fh.read(), module)]
    assert bad == []


def test_the_private_attribute_rule_sees_what_it_is_for():
    src = "from envcheck.paste.readers import collect_env\nx = collect_env._gpu(0, 'a', 'b')\ny = collect_env.read\n"
    assert private_attribute_uses(src, "envcheck.paste.readers.webui_sysinfo", lambda d: True) == [("collect_env._gpu", 2)]
    assert not private_attribute_uses("import os\nx = os._exit\n", "envcheck.a", lambda d: True)  # not envcheck's


def _is_module(dotted):
    """Whether ``envcheck.a.b`` is a module or a package of this checkout (``envcheck/a/b.py``, ``envcheck/a/b/``)."""
    path = os.path.join(ROOT, *dotted.split("."))
    return os.path.exists(path + ".py") or os.path.isdir(path)


def private_name_imports(imports, is_module=_is_module):
    """The ``_imports()`` rows that import a private name (a leading underscore, not a dunder) from another module:
    ``from envcheck.x.y import _Z`` where ``_Z`` is a function, a class or a constant of ``y``. A private *module*
    of a package (``from envcheck.guard import _torch``) is not such a name: who may import it is the layers' rule
    (test_no_private_import_from_outside_its_package). A name one module shares is public in its one home."""
    bad = []
    for mod, target, line in imports:
        owner, _, name = target.rpartition(".")
        if name.startswith("_") and not name.startswith("__") and owner != mod and not is_module(target):
            bad.append(f"{mod}:{line} imports {target}")
    return bad


def test_the_private_name_rule_sees_what_it_is_for():
    def fake(x):
        return x in {"envcheck.guard._torch", "envcheck.render._width"}

    assert private_name_imports([("envcheck.paste.readers.cuda_used", "envcheck.paste.readers.prose_cause._GONE_BEFORE",
                                  40)], fake)
    assert private_name_imports([("envcheck.explain.document", "envcheck.explain.rank._merge_findings", 57)], fake)
    assert not private_name_imports([("envcheck.guard", "envcheck.guard._torch", 133)], fake)  # a private module
    assert not private_name_imports([("envcheck.render.text", "envcheck.render._width.fit", 10)], fake)
    assert not private_name_imports([("envcheck.render.text", "envcheck.render.text.__doc__", 10)], fake)
    assert _is_module("envcheck.guard._torch") and not _is_module("envcheck.paste.readers.prose_cause.GONE_BEFORE")


def test_no_private_name_imported_from_another_module():
    """(session 24, onehome40) No module of envcheck/ imports another module's private name: a name two modules share
    is public in its one home (9 such imports on 2026-11-29: cuda_used took prose_cause's _GONE_BEFORE, explain's
    document rank's _merge_findings, the matrix's bundle and verify each other's _load_cached, _vkey, _latest_allowed,
    render.explain text's _md, logfacts explain's _normalize_captures)."""
    assert private_name_imports(_imports()) == []


def test_no_import_cycle_between_packages():
    graph = collections.defaultdict(set)
    for mod, target, _ in _imports():
        a, b = _top(mod), _top(target)
        if a and b and a != b:
            graph[a].add(b)
    # a cycle exists iff some package reaches itself
    for start in list(graph):
        seen, todo = set(), list(graph[start])
        while todo:
            x = todo.pop()
            assert x != start, f"import cycle through {start}"
            if x not in seen:
                seen.add(x)
                todo.extend(graph.get(x, ()))


def forbidden_imports(imports, contract):
    """The direct imports (``_imports()`` rows) that a ``forbidden`` contract of pyproject forbids: a module of
    ``source_modules`` (or below one) importing one of ``forbidden_modules`` (or below one)."""
    def under(mod, names):
        return any(mod == n or mod.startswith(n + ".") for n in names)

    return [f"{mod}:{line} imports {target}" for mod, target, line in imports
            if under(mod, contract["source_modules"]) and under(target, contract["forbidden_modules"])]


def test_the_forbidden_contract_check_sees_what_it_is_for():
    contract = {"source_modules": ["envcheck.explain.rank"], "forbidden_modules": ["envcheck.matrix"]}
    assert forbidden_imports([("envcheck.explain.rank", "envcheck.matrix.Matrix", 3)], contract)
    assert forbidden_imports([("envcheck.explain.rank", "envcheck.matrix.fixes.render_fix", 3)], contract)
    assert not forbidden_imports([("envcheck.explain.rank", "envcheck.engine.report.report_causes", 3)], contract)
    assert not forbidden_imports([("envcheck.explain.ranking", "envcheck.matrix.Matrix", 3)], contract)
    assert not forbidden_imports([("envcheck.explain.kb", "envcheck.matrix.Matrix", 3)], contract)


def test_forbidden_contracts_hold_on_the_ast():
    """pyproject's ``forbidden`` contracts (the renderers compute nothing; explain's ranking reads no matrix), checked
    on direct imports without import-linter, so the README's test command enforces them too."""
    contracts = [c for c in _pyproject()["tool"]["importlinter"]["contracts"] if c["type"] == "forbidden"]
    assert any("envcheck.explain.rank" in c["source_modules"] for c in contracts)
    imports = _imports()
    bad = [b for c in contracts for b in forbidden_imports(imports, c)]
    assert bad == []


def test_lint_imports_keeps_the_contracts():
    import shutil

    exe = shutil.which("lint-imports") or os.path.join(os.path.dirname(sys.executable), "lint-imports")
    if not os.path.exists(exe):
        import pytest

        pytest.skip("import-linter is not installed (pip install '.[test]' brings it)")
    r = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]


# ------------------------------------------------------------------------------------------------------------
# one home per rule: no CUDA / compute-capability / cuDNN / driver version comparison outside engine/ and
# matrix/. A comparison is a version comparison when an operand is (or is a variable assigned from) a version
# parse (cuda_tuple, cc_tuple, version_tuple, version_key, DriverVersion.parse, Version, ...) or a field that
# holds such a version; ordering comparisons (<, <=, >, >=) always count, equality when both sides are versions
# or their majors (the "same major" rules). Other calls are opaque (len(versions) > 1 is no comparison).

_VERSION_CALLS = {"cuda_tuple", "cc_tuple", "version_tuple", "version_key", "_vkey", "vkey", "DriverVersion", "Version",
                  "major_minor", "_arch_cc", "cudnn_tuple", "cuda_major", "_lib_major", "cuda_major_minor",
                  "minor_compat_floor", "toolkit_min_driver", "driver_highest_cuda", "driver_need"}
_VERSION_FIELDS = {"kernel_version", "nvml_version", "required_driver", "driver_version", "libcuda_cuda",
                   "compute_capability", "cuda", "cudnn", "driver_cuda", "cuda_major", "major", "min_driver"}
#: a parameter annotated with one of these types holds a version (``cur: Optional[DriverVersion]``)
_VERSION_TYPES = {"DriverVersion", "Version"}
#: where a version comparison outside the engine is not a compatibility rule, and why
_ALLOWED = {
    # the version types themselves: DriverVersion's own ordering (__lt__, __le__, ...) is what every rule compares with
    "envcheck/versions.py": "the version type's own ordering",
    # the smoke child runs inside the training environment's interpreter, where envcheck may not import: the
    # floors it compares are the operations' own (bf16 needs compute capability 8.0), read from the framework
    "envcheck/smoke/_child.py": "a standalone child process",
}


def _call_name(node):
    f = node.func
    if isinstance(f, ast.Attribute):
        if f.attr == "parse" and isinstance(f.value, ast.Name) and f.value.id == "DriverVersion":
            return "DriverVersion"
        return f.attr
    return f.id if isinstance(f, ast.Name) else None


def _walk_expr(node):
    """The sub-expressions of ``node``, not entering calls other than version parses (opaque)."""
    todo = [node]
    while todo:
        x = todo.pop()
        yield x
        if isinstance(x, ast.Call) and _call_name(x) not in _VERSION_CALLS:
            continue
        todo.extend(ast.iter_child_nodes(x))


def _versionish(node, tainted):
    for x in _walk_expr(node):
        if isinstance(x, ast.Call) and _call_name(x) in _VERSION_CALLS:
            return True
        if isinstance(x, ast.Name) and x.id in tainted:
            return True
        if isinstance(x, ast.Attribute) and x.attr in _VERSION_FIELDS:
            return True
    return False


def _scope_nodes(scope):
    """The nodes of a function (or module) body, not those of functions nested in it."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        x = todo.pop()
        yield x
        if not isinstance(x, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(x))


def _names(target):
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for e in target.elts:
            yield from _names(e)


def _annotated_versions(scope):
    """The parameters of a function annotated with a version type (``Optional[DriverVersion]``, ``"DriverVersion"``)."""
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set()
    out = set()
    for a in scope.args.posonlyargs + scope.args.args + scope.args.kwonlyargs:
        for x in ast.walk(a.annotation) if a.annotation is not None else ():
            if (isinstance(x, ast.Name) and x.id in _VERSION_TYPES) or (
                    isinstance(x, ast.Constant) and isinstance(x.value, str)
                    and any(t in x.value for t in _VERSION_TYPES)):
                out.add(a.arg)
    return out


def version_comparisons(source):
    """Line numbers of the version comparisons in ``source``."""
    tree = ast.parse(source)
    scopes = [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                     ast.Lambda))]
    hits = set()
    for scope in scopes:
        nodes = list(_scope_nodes(scope))
        tainted = _annotated_versions(scope)
        for _ in range(2):  # a variable assigned from a tainted one
            for n in nodes:
                if isinstance(n, ast.Assign) and _versionish(n.value, tainted):
                    for t in n.targets:
                        tainted.update(_names(t))
                elif isinstance(n, (ast.AnnAssign, ast.AugAssign)) and n.value is not None \
                        and _versionish(n.value, tainted):
                    tainted.update(_names(n.target))
        for n in nodes:
            if not isinstance(n, ast.Compare):
                continue
            operands = [n.left] + list(n.comparators)
            if any(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in n.ops):
                if any(_versionish(o, tainted) for o in operands):
                    hits.add(n.lineno)
            elif any(isinstance(op, (ast.Eq, ast.NotEq)) for op in n.ops):
                subs = [o for o in operands if isinstance(o, ast.Subscript) and _versionish(o, tainted)]
                if len(subs) >= 2:
                    hits.add(n.lineno)
    return sorted(hits)


def test_the_version_comparison_rule_sees_what_it_is_for():
    # the shapes the rules had outside the engine before (plan/resolve.py, explain/machine.py, plan/output.py)
    assert version_comparisons("def f(a, b):\n    tc, fc = cuda_tuple(a), cuda_tuple(b)\n    return tc[0] != fc[0]\n")
    assert version_comparisons("def f(t, d):\n    return t.driver < d.required_driver\n")
    assert version_comparisons("def f(x):\n    have = cuda_tuple(x)\n    if have and have[0] > 12:\n        pass\n")
    assert version_comparisons("def f(a, b):\n    return _vkey(a.version) >= b\n")
    # a parameter typed as a driver version (explain/machine.py's "this driver already runs the build fully")
    assert version_comparisons("def f(cur: Optional[DriverVersion], adv):\n    return cur >= adv.full\n")
    assert version_comparisons("def f(cur: 'DriverVersion', need):\n    return cur < need\n")
    # and not what it is not for
    assert not version_comparisons("def f(versions):\n    return len(versions) > 1\n")
    assert not version_comparisons("def f(fw):\n    return fw.cudnn.count('.') < 2\n")
    assert not version_comparisons("def f(w, name):\n    return w.name == name\n")
    assert not version_comparisons("def f(cur: Optional[DriverVersion], n: int):\n    return n > 2\n")


def test_no_version_comparison_outside_the_engine_and_the_matrix():
    bad = []
    for p in py_files():
        rel = os.path.relpath(p, ROOT).replace(os.sep, "/")
        if rel.startswith(("envcheck/engine/", "envcheck/matrix/")) or rel in _ALLOWED:
            continue
        src = open(p).read()
        lines = src.split("\n")
        bad += [f"{rel}:{n}: {lines[n - 1].strip()}" for n in version_comparisons(src)]
    assert bad == []


# ------------------------------------------------------------------------------------------------------------
# one home per rule, for explain and paste (issue 20): they map text to facts and claims, ask the engine and rank.
# They read no compatibility value from the matrix (a Matrix method called on anything: matrix.gpu(...),
# load_matrix().tf_release(...)), and they make no finding (a Finding is the engine's or the checks' answer; explain
# ranks and words the ones it is given). The knowledge base is explain's own table: ``table("errors")`` is its read.

#: the Matrix methods that read a compatibility table (every public method of envcheck.matrix.Matrix)
def _matrix_methods():
    from envcheck.matrix import Matrix

    return {n for n in dir(Matrix) if not n.startswith("_") and callable(getattr(Matrix, n))}


#: the one matrix read explain makes itself: its knowledge base (errors.toml), which is no compatibility table
_KB_READ = ("table", "errors")
_RULE_FREE = ("envcheck/explain/", "envcheck/paste/")


def matrix_reads(source, methods):
    """Line numbers of the calls of a Matrix method in ``source`` (``x.gpu(...)``, ``load_matrix().rows(...)``)
    other than the knowledge base's own read, ``x.table("errors")``."""
    hits = set()
    for n in ast.walk(ast.parse(source)):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in methods):
            continue
        if n.func.attr == _KB_READ[0] and n.args and isinstance(n.args[0], ast.Constant) \
                and n.args[0].value == _KB_READ[1]:
            continue
        owner = n.func.value
        name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else (
            _call_name(owner) if isinstance(owner, ast.Call) else None)
        if name and ("matrix" in name.lower() or name in ("mx", "m")):
            hits.add(n.lineno)
    return sorted(hits)


def finding_constructions(source):
    """Line numbers where ``source`` makes a Finding (``Finding(...)``, ``model.Finding(...)``) or re-ids one
    (``dataclasses.replace(f, id=...)``)."""
    hits = set()
    for n in ast.walk(ast.parse(source)):
        if not isinstance(n, ast.Call):
            continue
        name = _call_name(n)
        if name == "Finding" or (name == "replace" and any(k.arg in ("id", "severity") for k in n.keywords)):
            hits.add(n.lineno)
    return sorted(hits)


def test_the_matrix_read_rule_sees_what_it_is_for():
    methods = _matrix_methods()
    assert {"gpu", "tf_release", "rows", "torch_variant", "driver_highest_cuda"} <= methods
    # the shapes explain had before (explain/machine.py's cuDNN pin and machine_from_facts)
    assert matrix_reads("def f(matrix, fw):\n    return matrix.tf_release(fw.version)\n", methods)
    assert matrix_reads("def f(facts, matrix):\n    row = matrix.gpu(facts['gpu'])\n", methods)
    assert matrix_reads("def f():\n    return load_matrix().rows('torch', 'variant')\n", methods)
    assert matrix_reads("def f(self):\n    return self.matrix.torch_variant('2.3.1', 'cu121')\n", methods)
    # and not what it is not for: the knowledge base's own read, passing the matrix on, another object's method
    assert not matrix_reads("def f(mx):\n    return mx.table('errors')\n", methods)
    assert not matrix_reads("def f(matrix, env):\n    return release_supports_python(matrix, 'torch', '2.3', '3.9')\n",
                            methods)
    assert not matrix_reads("def f(report):\n    return report.rows()\n", methods)


def test_explain_and_paste_read_no_compatibility_table():
    methods = _matrix_methods()
    bad = []
    for p in py_files():
        rel = os.path.relpath(p, ROOT).replace(os.sep, "/")
        if rel.startswith(_RULE_FREE):
            lines = open(p).read().split("\n")
            bad += [f"{rel}:{n}: {lines[n - 1].strip()}" for n in matrix_reads("\n".join(lines), methods)]
    assert bad == []


def test_the_finding_rule_sees_what_it_is_for():
    # the shapes explain/rank.py had before (its CPU-only build, its container and its claim findings)
    assert finding_constructions("def f(fw):\n    return [Finding('framework-cpu-only', Severity.WARNING, 'm')]\n")
    assert finding_constructions("def f():\n    return model.Finding(id='no-gpu-visible', severity='error', "
                                 "message='m')\n")
    assert finding_constructions("def f(x):\n    return dataclasses.replace(x, id='driver-too-old')\n")
    assert not finding_constructions("def f(found):\n    return [f for f in found if f.id == 'no-gpu-driver']\n")
    assert not finding_constructions("def f(m):\n    return replace(m, score=1.0)\n")


def test_explain_and_paste_make_no_finding():
    bad = []
    for p in py_files():
        rel = os.path.relpath(p, ROOT).replace(os.sep, "/")
        if rel.startswith(_RULE_FREE):
            lines = open(p).read().split("\n")
            bad += [f"{rel}:{n}: {lines[n - 1].strip()}" for n in finding_constructions("\n".join(lines))]
    assert bad == []


# ------------------------------------------------------------------------------------------------------------
# one home per rule: a verdict (this cause is named, dropped or recast, by its id) is the engine's. explain may ask the
# engine and apply its answer (rank._drop_contradicted drops the ids engine.report.contradicted_by_gpu_working names),
# and it orders and words what it is given; a function of explain that compares a match's cause id with ids it names
# itself (a literal, or a module constant of literals) decides a verdict. Session 24 (onehome40) listed 20 such
# functions; session 25 (onehome42) moved the 14 verdicts among them into the engine (engine/verdicts.py, and
# engine.report.paste_causes for the pasted report's causes). Those left below decide no cause: each orders the causes,
# words what is said under one, or reads evidence that it hands to the engine (not a licence: a new one fails here).

#: the functions of envcheck/explain that still name cause ids themselves, and why that is no verdict
_VERDICTS_LEFT = {
    "envcheck/explain/__init__.py:_hang_below_cause":
        "ordering: ranks amdgpu's hang report below a fault that explains it; both causes stay, only scores change",
    "envcheck/explain/machine.py:refine":
        "wording: which matches get an exact NVIDIA fix line worked out (none on another vendor's machine); the cause "
        "and its other fixes stand",
    "envcheck/explain/machine.py:_machine_lines":
        "wording: the machine's own lines quoted under a match of that id (a reboot line, the stack's errors)",
    "envcheck/explain/machine.py:_bad_param_line":
        "wording: the components status did not check (its not-checked findings), named in the BAD_PARAM line",
    "envcheck/explain/rank.py:gpu_ran":
        "evidence: the first match that shows a GPU build ran, handed to the engine (engine.cpubuild decides)",
    "envcheck/explain/rank.py:no_build":
        "evidence: python-unsupported's captured package and line, handed to the engine (engine.prose_causes decides)",
}


def _literal_strings(node):
    """The strings of a literal: a string, a tuple / list / set of strings, ``frozenset({...})``; None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set", "tuple") \
            and len(node.args) == 1:
        return _literal_strings(node.args[0])
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts:
        got = [_literal_strings(e) for e in node.elts]
        return None if any(g is None or len(g) != 1 for g in got) else [g[0] for g in got]
    return None


def cause_id_verdicts(source):
    """(function, line) of every comparison of a cause id (``<x>.id``) with ids the module names itself: a string
    literal, a literal collection of them, or a module-level name bound to one (``m.id in _TF_PROBE_IDS``)."""
    tree = ast.parse(source)
    consts = {t.id for n in tree.body if isinstance(n, ast.Assign) and _literal_strings(n.value) is not None
              for t in n.targets if isinstance(t, ast.Name)}
    consts |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
               and n.value is not None and _literal_strings(n.value) is not None}
    out = []

    def visit(node, owner):
        for child in ast.iter_child_nodes(node):
            name = owner
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{owner}.{child.name}" if owner else child.name
            if isinstance(child, ast.Compare):
                ops = [child.left] + child.comparators
                ids = [o for o in ops if isinstance(o, ast.Attribute) and o.attr == "id"]
                named = [o for o in ops if _literal_strings(o) is not None
                         or (isinstance(o, ast.Name) and o.id in consts)]
                if ids and named:
                    out.append((name or "<module>", child.lineno))
            visit(child, name)

    visit(tree, "")
    return out


def test_the_cause_id_verdict_rule_sees_what_it_is_for():
    old = ('_TF_PROBE_IDS = ("no-gpu-driver", "cuda-runtime-missing", "cudnn-missing")\n'
           "def drop_tf_probe_unwanted(matches):\n"
           "    if not all(m.id in _TF_PROBE_IDS for m in matches) or not any(m.id == 'no-gpu-driver' for m in matches):\n"
           "        return\n")
    assert {f for f, _ in cause_id_verdicts(old)} == {"drop_tf_probe_unwanted"}
    assert cause_id_verdicts("def f(ms):\n    return [m for m in ms if m.id not in ('a-b', 'c-d')]\n")
    assert cause_id_verdicts("X = frozenset({'a-b'})\ndef f(m):\n    return m.id in X\n")
    # the engine's answer applied, a cause of the knowledge base, another match's id: no verdict of explain's own
    assert not cause_id_verdicts("from envcheck.engine.report import STACK_IDS\ndef f(m, gone, kb, o):\n"
                                 "    return m.id in gone or m.id in STACK_IDS or m.id in kb.causes or m.id == o.id\n")


def test_explain_decides_no_new_verdict_by_cause_id():
    """(session 24, onehome40) explain orders and words the causes; a verdict by cause id outside the listed ones is a
    rule out of the engine (quiet38's drop_tf_probe_unwanted, drop_killed_in_build and drop_uv_platform_only decided
    theirs in explain/rank.py: engine.report's tf_probe_unwanted, killed_in_build and uv_platform_only decide them now)."""
    bad = []
    for p in py_files():
        rel = os.path.relpath(p, ROOT).replace(os.sep, "/")
        if rel.startswith("envcheck/explain/"):
            bad += [f"{rel}:{f} (line {n})" for f, n in cause_id_verdicts(open(p).read())
                    if f"{rel}:{f.split('.')[0]}" not in _VERDICTS_LEFT]
    assert bad == []


# ------------------------------------------------------------------------------------------------------------
# catch-alls never hide a bug: an `except Exception` binds the exception and records it (a note, a finding,
# the report), or re-raises; a handler that only passes / continues / returns a constant is silent

#: silent catch-alls left, and why (each is a finding for its owner, not a licence)
_SILENT_ALLOWED = {
    "envcheck/cli/run.py",  # explain_lines reports a broken knowledge base itself (the CLI is issue 19 item 3's)
}


def _empty(value):
    """None, a constant, or an empty list / tuple / dict: a value that says nothing of what failed."""
    return value is None or isinstance(value, ast.Constant) or (
        isinstance(value, (ast.List, ast.Tuple, ast.Dict)) and not ast.unparse(value).strip("[](){}"))


def _silent_handlers(source):
    out = []
    for n in ast.walk(ast.parse(source)):
        if not (isinstance(n, ast.ExceptHandler) and isinstance(n.type, ast.Name) and n.type.id == "Exception"):
            continue
        trivial = all(isinstance(b, (ast.Pass, ast.Continue))
                      or (isinstance(b, (ast.Return, ast.Assign)) and _empty(b.value)) for b in n.body)
        if trivial:
            out.append(n.lineno)
    return out


def test_the_silent_handler_rule_sees_what_it_is_for():
    assert _silent_handlers("try:\n    f()\nexcept Exception:\n    pass\n")
    assert _silent_handlers("try:\n    f()\nexcept Exception as exc:\n    return []\n")
    assert not _silent_handlers("try:\n    f()\nexcept Exception as exc:\n    notes.append(str(exc))\n")
    assert not _silent_handlers("try:\n    f()\nexcept ValueError:\n    pass\n")


def test_no_silent_catch_all():
    bad = []
    for p in py_files():
        rel = os.path.relpath(p, ROOT).replace(os.sep, "/")
        if rel in _SILENT_ALLOWED:
            continue
        bad += [f"{rel}:{n}" for n in _silent_handlers(open(p).read())]
    assert bad == []


def test_one_status_pipeline():
    """Status is assembled in one place (checks.pipeline.build_status): nothing outside checks/ calls the steps
    (run_checks, build_report / build_document) itself."""
    bad = []
    for p in py_files():
        rel = os.path.relpath(p, ROOT).replace(os.sep, "/")
        if rel.startswith("envcheck/checks/"):
            continue
        for n in ast.walk(ast.parse(open(p).read())):
            if isinstance(n, ast.Call) and _call_name(n) in ("run_checks", "build_report", "build_document"):
                bad.append(f"{rel}:{n.lineno}")
    assert bad == []


# ------------------------------------------------------------------------------------------------------------
# one regex set for log lines (issue 20 item 1): a log line the knowledge base (compat_matrix/errors.toml) reads is
# read by its signatures / [[fact]] rows, through envcheck.explain.logfacts.line_reader; no paste reader keeps a
# second pattern for the same wording, and nvidia-smi's failure wordings live in envcheck/parse/nvidia_smi.py only

_RE_CALLS = ("compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "split")
#: a regex's spelling of a blank (``\s``, ``\s{1,3}``, ``\s+``, ``\ ``) and of an escaped character (``\.``)
_RX_BLANK = re.compile(r"\\s(?:\{\d{1,2}(?:,\d{0,2})?\}|[+*?])?\??|\\ |\[ \\t\]\+?|\s\{\d{1,2}(?:,\d{0,2})?\}")
_RX_ESCAPE = re.compile(r"\\([^\w\s])")


def _folded(node):
    """The text of a string constant, of ``"a" + "b"``, and of the constant parts of an f-string; None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _folded(node.left), _folded(node.right)
        return None if left is None and right is None else (left or "") + (right or "")
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return None


def regex_texts(source):
    """(line, pattern as plain lower-case text) of every ``re.compile`` / ``re.search`` / ... pattern of a module (also
    those built in a tuple comprehension over string constants): blanks written ``\\s``, ``\\s{1,3}`` read as a space,
    escaped characters as themselves."""
    out = []
    for n in ast.walk(ast.parse(source)):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _RE_CALLS
                and isinstance(n.func.value, ast.Name) and n.func.value.id == "re" and n.args):
            continue
        pats = [_folded(n.args[0])]
        if isinstance(n.args[0], ast.Name):  # re.compile(p) in a comprehension over a tuple of patterns
            pats = []
            for m in ast.walk(ast.parse(source)):
                if isinstance(m, ast.comprehension) and isinstance(m.iter, ast.Tuple):
                    pats += [_folded(e) for e in m.iter.elts]
        for p in pats:
            if p:
                out.append((n.lineno, _RX_ESCAPE.sub(r"\1", _RX_BLANK.sub(" ", p)).lower()))
    return out


def _kb_wordings():
    """The prefilter literals of errors.toml's signatures and report facts that are a wording (16 characters or more:
    "no cuda gpus are available", not a generic "failed" or "rocm" that many unrelated patterns hold)."""
    from envcheck.explain.kb import load_kb

    kb = load_kb()
    lits = {lit for sg in kb.signatures for lit in sg.literals}
    lits |= {lit for fc in kb.report_facts for lit in fc.literals}
    return sorted(lit for lit in lits if len(lit) >= 16)


def regex_copies(source, wordings):
    return [(line, w) for line, text in regex_texts(source) for w in wordings if w in text]


def test_the_regex_copy_rule_sees_what_it_is_for():
    wordings = ["no cuda gpus are available", "minimum required cuda capability"]
    assert regex_copies('import re\nX = re.compile(r"(?i)No CUDA GPUs are available|foo")\n', wordings)
    assert regex_copies('import re\nX = re.compile(r"no\\s{1,3}cuda\\s+gpus\\ are available")\n', wordings)
    assert regex_copies('import re\nX = re.compile(r"The minimum required "\n                r"Cuda capability is")\n',
                        wordings)
    assert regex_copies('import re\nX = tuple(re.compile(p) for p in ("a", r"minimum\\srequired\\scuda\\scapability"))\n',
                        wordings)
    assert not regex_copies('import re\nX = re.compile(r"CUDA available\\s{0,3}[:=]?\\s{0,3}False")\n', wordings)


def test_no_paste_regex_rereads_a_knowledge_base_wording():
    """No module of envcheck/paste compiles a pattern holding a wording of an errors.toml signature / report fact:
    such a line is read through explain's line reader (paste/readers/log_facts.py, observe.docker, prose_facts,
    prose_gpu); docs/architecture.md's inventory lists what moved and what stays."""
    wordings = _kb_wordings()
    assert "no cuda gpus are available" in wordings and "found no nvidia driver" in wordings  # the rule reads the KB
    bad = []
    for p in py_files():
        rel = os.path.relpath(p, ROOT).replace(os.sep, "/")
        if rel.startswith("envcheck/paste/"):
            bad += [f"{rel}:{line}: {w!r}" for line, w in regex_copies(open(p).read(), wordings)]
    assert bad == []


def test_nvidia_smi_failure_wordings_have_one_home():
    """nvidia-smi's / NVML's failure wordings are envcheck.parse.nvidia_smi's (FAILURE_WORDS, classify_error): no
    string of envcheck/paste holds one (bytes prefilter anchors and docstrings are not readers)."""
    from envcheck.parse.nvidia_smi import FAILURE_WORDS

    bad = []
    for p in py_files():
        rel = os.path.relpath(p, ROOT).replace(os.sep, "/")
        if not rel.startswith("envcheck/paste/"):
            continue
        tree = ast.parse(open(p).read())
        docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
        for n in ast.walk(tree):
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
                bad += [f"{rel}:{n.lineno}: {w!r}" for w in FAILURE_WORDS if w in n.value.lower()]
    assert bad == []


# ------------------------------------------------------------------------------------------------------------
# one home per rule, for the knowledge base and the matrix (issues 20, 24): the code of the engine, the checks,
# explain, paste and parse names no errors.toml signature (what a wording means to a rule is the signature's own
# attribute: `says`, `reports`, `floor`, `vendor`, `ptxas_cuda_major`), and holds no table of which CUDA library's
# soname carries which release's number (compat_matrix/cuda.toml [[runtime_file]], [[cuda_library]])

_ID_FREE = ("envcheck/engine/", "envcheck/checks/", "envcheck/explain/", "envcheck/paste/", "envcheck/parse/")

#: string constants of those packages allowed to equal a signature's name, each with why (none is)
SIGNATURE_NAMES_ALLOWED = {}


def _signature_names():
    """The errors.toml signature names that are no cause id and no contract id (those are the engine's own words)."""
    from envcheck.explain.kb import load_kb

    kb = load_kb()
    return {s.name for s in kb.signatures} - set(kb.causes) - CONTRACT_IDS - set(EXTRA_IDS)


def _names_a_signature(node):
    """Whether ``node`` is a match's or a signature's name: ``m.signature``, ``sig.name`` / ``sg.name``, ``sig_name``."""
    if isinstance(node, ast.Attribute):
        return node.attr == "signature" or (node.attr == "name" and isinstance(node.value, ast.Name)
                                            and node.value.id in ("sig", "sg", "signature"))
    return isinstance(node, ast.Name) and node.id == "sig_name"


def signature_name_literals(source, names):
    """(line, name) of every string constant of ``source`` (docstrings too: a docstring naming a signature is as stale
    as code the day it is renamed) that is a signature's name, and of every prefix test of a signature's name
    (``m.signature.startswith("torch-")``: a naming convention read as a meaning)."""
    out = []
    for n in ast.walk(ast.parse(source)):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in names:
            out.append((n.lineno, n.value))
        elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("startswith", "endswith")
              and _names_a_signature(n.func.value)):
            out.append((n.lineno, f"{n.func.attr}({', '.join(_folded(a) or '?' for a in n.args)})"))
    return out


def test_the_signature_name_rule_sees_what_it_is_for():
    names = {"xla-tf-loaded-runtime", "torch-cuda-oom", "no-kernel-image"}
    # the shapes the code had before (explain/rank.py's frozensets, logfacts.SIGNATURES, machine.py's tuple test)
    assert signature_name_literals('_X = frozenset({"xla-tf-loaded-runtime", "jax-found"})\n', names)
    assert signature_name_literals('def f(m):\n    return m.signature in ("no-kernel-image", "b")\n', names)
    assert signature_name_literals('def f(c):\n    return c.get("rule") == "torch-cuda-oom"\n', names)
    assert signature_name_literals('def f(m):\n    return m.signature.startswith("torch-")\n', names)
    assert signature_name_literals('def f(sig_name, out):\n    return sig_name.startswith("tf-") and out\n', names)
    # and not what it is not for: a cause id, a says value, a signature name inside a longer text
    assert not signature_name_literals('def f(m):\n    return m.id == "driver-too-old" or "gpu-build-ran" in m.says\n',
                                       names)
    assert not signature_name_literals('X = "see no-kernel-image in errors.toml"\n', names)
    assert not signature_name_literals('def f(m):\n    return m.framework == "torch" or m.id.startswith("cudnn-")\n',
                                       names)


def test_no_code_names_a_knowledge_base_signature():
    """What a signature's line means to a rule is data (its ``says`` / ``reports``, errors.toml): no module of the
    engine, the checks, explain, paste or parse names a signature, so renaming or adding one changes no code.
    docs/architecture.md (session 14 inventory) lists what moved."""
    names = _signature_names()
    assert {"xla-tf-loaded-runtime", "torch-found-no-driver", "no-kernel-image"} <= names  # the rule reads the KB
    bad = []
    for p in py_files():
        rel = os.path.relpath(p, ROOT).replace(os.sep, "/")
        if rel.startswith(_ID_FREE):
            bad += [f"{rel}:{line}: {name!r}" for line, name in signature_name_literals(open(p).read(), names)
                    if f"{rel}:{name}" not in SIGNATURE_NAMES_ALLOWED]
    assert bad == []


#: CUDA library families (file-name stems: libcudart.so.12 -> cudart, libcublasLt.so.12 -> cublaslt)
_FAMILIES = {"cudart", "cublas", "cublaslt", "nvrtc", "nvjitlink", "cupti", "cufft", "curand", "cusolver", "cusparse",
             "cudnn"}
#: a CUDA library's file name as code spells it: libcudart.so.{N}, cudart64_{N}.dll, libcudnn.so.
_LIB_NAME = re.compile(r"lib(?:cudart|cublas|cublaslt|cudnn|nvrtc|cufft|curand|cusolver|cusparse|cupti|nvjitlink)\.so\."
                       r"|(?:cudart|cublas|cublaslt|cudnn|nvrtc|cufft|curand|cusolver|cusparse|cupti)64_", re.I)
#: per-family collections allowed, each with why
FAMILY_TABLES_ALLOWED = {
    # which file-name stems are libraries and of which family (parse: recognising a file, no release mapped)
    "envcheck/parse/libraries.py:FAMILIES",
    # the two libraries the onnxruntime-gpu fix installs (its CUDA runtime and cuBLAS, as the fix said before); their
    # wheels and the wheel kind of the CUDA major come from the matrix (engine.rules.library_wheel, nvidia_wheel_kind)
    "envcheck/checks/libraries.py:fams",
    # the CuPy build's facts a paste shows (contract section 4 frameworks.cupy: the NVRTC and cuDNN it printed), no
    # release mapped
    "envcheck/paste/report.py:cupy",
}


def _docstring_ids(tree):
    return {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, (ast.Constant,
                                                                                                    ast.JoinedStr))}


def soname_mappings(source):
    """(line, what) of the places in ``source`` that map a CUDA library's soname number to a release: a function that
    spells a library file name (``f"libcudart.so.{major}"``, ``"cudart64_110.dll"``) beside a comparison with a CUDA
    major (``want < 11``, ``cuda_major >= 11``), and a collection (tuple, list, set, dict keys) of two or more library
    families (which family's soname carries the CUDA major, which wheel provides it), named by what it is assigned to."""
    tree = ast.parse(source)
    docs = _docstring_ids(tree)
    out = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        named = any(_LIB_NAME.search(_folded(n) or "") for n in ast.walk(fn)
                    if isinstance(n, (ast.Constant, ast.JoinedStr)) and id(n) not in docs)
        majors = [n.lineno for n in ast.walk(fn) if isinstance(n, ast.Compare) and any(
            isinstance(c, ast.Constant) and type(c.value) is int and 7 <= c.value <= 14 for c in [n.left, *n.comparators])]
        if named and majors:
            out.append((majors[0], f"{fn.name}: a library file name chosen by CUDA major"))
    owner = {}
    for n in ast.walk(tree):
        if isinstance(n, (ast.Assign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            name = next((t.id for t in targets if isinstance(t, ast.Name)), "")
            for sub in ast.walk(n.value) if n.value is not None else ():
                owner.setdefault(id(sub), name)
    for n in ast.walk(tree):
        keys = n.keys if isinstance(n, ast.Dict) else n.elts if isinstance(n, (ast.Tuple, ast.List, ast.Set)) else []
        fams = {k.value for k in keys if isinstance(k, ast.Constant) and k.value in _FAMILIES}
        if len(fams) >= 2:
            out.append((n.lineno, owner.get(id(n), "") or f"line {n.lineno}"))
    return out


def test_the_soname_rule_sees_what_it_is_for():
    # the shapes the code had before: engine/claims.py's runtime file, onnxruntime.py's soname, explain's family tables
    assert soname_mappings('def f(need, want, w):\n    if want < 11:\n        return f"libcudart.so.{need}"\n'
                           '    return "cudart64_110.dll" if w else "libcudart.so.11.0"\n')
    assert soname_mappings('def f(self):\n    return f"libcudart.so.{self.m}" if self.m >= 11 else "x"\n')
    assert soname_mappings('CUDA_MAJOR_FAMILIES = ("cudart", "cublas", "cublaslt", "nvrtc")\n')
    assert soname_mappings('_STEM = {"cudart": "nvidia-cuda-runtime-cu", "cublas": "nvidia-cublas-cu"}\n')
    # and not what it is not for: a file name from a major the matrix gave, a docstring, one family
    assert not soname_mappings('def f(m):\n    """libcudart.so.11.0 for CUDA 11"""\n    return f"libcudart.so.{m}"\n')
    assert not soname_mappings('def f(x):\n    return x.family == "cudart" and x.major > 11\n')
    assert not soname_mappings('def f(lib, n):\n    return f"libcudnn.so.{n}" if n else lib\n')


def test_no_soname_to_release_mapping_in_code():
    """Which number a CUDA library's soname carries, and the runtime file a CUDA major's build loads, are matrix rows
    (cuda.toml [[cuda_library]], [[runtime_file]], read by engine.rules.library_soname / runtime_file), not code."""
    bad = []
    for p in py_files():
        rel = os.path.relpath(p, ROOT).replace(os.sep, "/")
        if rel.startswith(_ID_FREE):
            bad += [f"{rel}:{line}: {what}" for line, what in soname_mappings(open(p).read())
                    if f"{rel}:{what}" not in FAMILY_TABLES_ALLOWED]
    assert bad == []


# ------------------------------------------------------------------------------------------------------------
# one home per format (issue 20, cleanup25): the integer encodings of CUDA's and cuDNN's versions (CUDA_VERSION =
# 1000*major + 10*minor; CUDNN_VERSION = major*1000 + minor*100 + patch before cuDNN 9, major*10000 + ... from 9) are
# decoded and encoded in envcheck/parse/versions.py only (cuda_from_int, cudnn_from_int, cudnn_digits, cudnn_to_int).
# A second copy - arithmetic by 1000 or 10000 (//, %, *, divmod) - fails here.

#: modules allowed such arithmetic, each with why
VERSION_INT_ARITHMETIC_ALLOWED = {
    "envcheck/parse/versions.py": "the one home of the CUDA / cuDNN version integers",
    # AMD's gfx_target_version (major*10000 + minor*100 + stepping: 90010 -> gfx90a) is another format, read only here
    "envcheck/parse/gfx.py": "AMD's gfx_target_version",
    # the smoke child runs inside the training environment's interpreter, where envcheck may not import
    "envcheck/smoke/_child.py": "a standalone child process",
}
_FACTORS = (1000, 10000)


def version_int_arithmetic(source):
    """(line, text) of every ``x // F``, ``x % F``, ``x * F`` / ``F * x`` and ``divmod(x, F)`` of ``source`` with F a
    literal 1000 or 10000 (the factors of CUDA's and cuDNN's version integers)."""
    out = []

    def factor(n):
        if isinstance(n, ast.IfExp):  # (10000 if major >= 9 else 1000)
            return factor(n.body) or factor(n.orelse)
        return isinstance(n, ast.Constant) and type(n.value) is int and n.value in _FACTORS

    for n in ast.walk(ast.parse(source)):
        if isinstance(n, ast.IfExp) and factor(n.body) and factor(n.orelse):  # the choice of cuDNN's factor itself
            out.append((n.lineno, ast.unparse(n)))
        elif isinstance(n, ast.BinOp) and isinstance(n.op, (ast.FloorDiv, ast.Mod, ast.Div)) and factor(n.right):
            out.append((n.lineno, ast.unparse(n)))
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and (factor(n.left) or factor(n.right)):
            out.append((n.lineno, ast.unparse(n)))
        elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "divmod" and len(n.args) == 2
              and factor(n.args[1])):
            out.append((n.lineno, ast.unparse(n)))
    return out


def test_the_version_integer_rule_sees_what_it_is_for():
    # the shapes of the copies before (paste/readers/printed.py and sd_console.py's _cudnn, paste/report.py's
    # encoding, cupy_config.py's _version_int, explain's cudnn_version and *_cuda_int captures)
    assert version_int_arithmetic("def f(n):\n    major = n // 10000 if n >= 10000 else n // 1000\n    return major\n")
    assert version_int_arithmetic("def f(p):\n    return p[0] * (10000 if p[0] >= 9 else 1000) + p[1] * 100\n")
    assert version_int_arithmetic('def f(n):\n    return f"{n // 1000}.{n % 1000 // 10}"\n')
    assert version_int_arithmetic("def f(v):\n    return divmod(v, 1000)\n")
    assert version_int_arithmetic("def f(v):\n    return 10000 * v\n")
    assert version_int_arithmetic("def f(v):\n    k = 10000 if v >= 9 else 1000\n    return k\n")
    # and not what it is not for: sizes, bounds and other factors
    assert not version_int_arithmetic("def f(n):\n    return n // 1024, n % 100, n // 10, n > 10000\n")
    assert not version_int_arithmetic("X = 1000\nY = [0] * 3\n")


def test_version_integers_have_one_home():
    """CUDA's and cuDNN's version integers are decoded by envcheck.parse.versions only; the callers that had their own
    copy (heldout/rounds/cleanup25-inventory.md) call it."""
    bad = []
    for p in py_files():
        rel = os.path.relpath(p, ROOT).replace(os.sep, "/")
        if rel not in VERSION_INT_ARITHMETIC_ALLOWED:
            bad += [f"{rel}:{line}: {text}" for line, text in version_int_arithmetic(open(p).read())]
    assert bad == []
    # the home is where the rule says it is
    home = open(os.path.join(ROOT, "envcheck", "parse", "versions.py")).read()
    assert version_int_arithmetic(home)


# ------------------------------------------------------------------------------------------------------------
# one home per format (session 24, onehome40): how a text writes a Jetson's release - an L4T release number (R24 ..
# R39: ``2[4-9]|3\d``), a JetPack release (``[3-7]``) after its word, "L4T R32.7.4", "JetPack 4.6.1" - is spelled in
# envcheck/parse/jetson_release.py only (paste/readers/jetson_prose.py and jetson_image.py each had a copy: D6).

#: modules allowed their own spelling of a Jetson release, each with why
JETSON_RELEASE_SPELLING_ALLOWED = {
    "envcheck/parse/jetson_release.py": "the one home of the L4T / JetPack release patterns",
    # the board's own files and jtop's fields as captured (line-anchored forms; a TK1's R21 is read there too)
    "envcheck/parse/tegra.py": "nv_tegra_release, nvidia-l4t-core's package rows, jetson_release's fields",
    # a wheel's local version label ("+l4t35.6", "+nv24.08"): which build a wheel is, not a release a text names
    "envcheck/engine/builds.py": "a Jetson wheel's local label",
}
#: a regex's spelling of a Jetson release: the L4T majors' range, the word L4T / JetPack then (in the same
#: alternative) a digit, or the word then a digit range (a JetPack major's, ``[3-7]``)
_JETSON_RELEASE_SPELLED = re.compile(r"2\[4-9\]|(?:l4t|jet\W{0,8}pack)[^|]{0,40}?\\d|(?:l4t|jet\W{0,8}pack).{0,120}?\[\d-\d\]")


def jetson_release_spellings(source):
    """(line, text) of every regex (``regex_texts``) and every string constant (a pattern's part kept in a name) of
    ``source`` that spells a Jetson release itself."""
    texts = regex_texts(source) + [(n.lineno, _RX_ESCAPE.sub(r"\1", _RX_BLANK.sub(" ", n.value)).lower())
                                   for n in ast.walk(ast.parse(source))
                                   if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return sorted({(line, text) for line, text in texts if _JETSON_RELEASE_SPELLED.search(text)})


def test_the_jetson_release_rule_sees_what_it_is_for():
    # the copies before: jetson_prose's _JETPACK and _L4T, jetson_image's _L4T, _JETPACK, _JETPACK_PKG and _IMAGE
    assert jetson_release_spellings('import re\nX = re.compile(r"(?i)(?<![a-z0-9-])jetpack(?:[\\s_:=v-]{0,4})'
                                    '(?P<v>[3-7](?:\\.\\d{1,2}){0,2})(?![\\d])")\n')
    assert jetson_release_spellings('import re\nX = re.compile(r"(?i)(?<![\\w-])l4t(?:\\s{0,2})r?'
                                    '(?P<v>(?:2[4-9]|3\\d)\\.\\d{1,2}(?:\\.\\d{1,2})?)")\n')
    assert jetson_release_spellings('import re\nX = re.compile(r"(?<![\\w-])nvidia-jetpack(?::arm64)?\\s{1,40}'
                                    '(?P<v>[4-7]\\.\\d{1,2})[+-]b\\d")\n')
    assert jetson_release_spellings('import re\nX = re.compile(r"Jetpack[ \\t]{1,4}(\\d{1,2}\\.\\d{1,2})")\n')
    # and not a Jetson named (a board, a Tegra kernel, the words alone) nor a pattern built from the home's parts
    assert not jetson_release_spellings('import re\nX = re.compile(r"(?i)jetson(?![a-z0-9-])|(?<![\\w.])\\d\\.\\d{1,2}'
                                        '\\.\\d{1,3}-tegra|(?<![\\w-])l4t(?![a-z])|jetpack(?![a-z])")\n')
    assert not jetson_release_spellings('import re\nX = re.compile(r"(?i)(?<![\\w-])l4t(?:_VERSION)?[\\s:=]{0,4}r?(?P<v>"'
                                        ' + L4T_VERSION + ")")\n')
    assert jetson_release_spellings('_V = r"(?:2[4-9]|3\\d)\\.\\d{1,2}"\n')  # a copy of the home's part, kept in a name


def test_jetson_releases_have_one_home():
    """An L4T / JetPack release is spelled by envcheck.parse.jetson_release only; the paste readers that had their own
    copy (jetson_prose, jetson_image) use its patterns."""
    bad = []
    for p in py_files():
        rel = os.path.relpath(p, ROOT).replace(os.sep, "/")
        if rel not in JETSON_RELEASE_SPELLING_ALLOWED:
            bad += [f"{rel}:{line}: {text[:80]}" for line, text in jetson_release_spellings(open(p).read())]
    assert bad == []
    home = open(os.path.join(ROOT, "envcheck", "parse", "jetson_release.py")).read()
    assert jetson_release_spellings(home)  # the home is where the rule says it is
