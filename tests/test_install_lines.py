"""Every install instruction a user can copy installs this project and nothing else (issue 18 item 1,
issue 22 item 1).

envcheck is on no package index yet; the name `envcheck` on PyPI is an unrelated project and the name
reserved for envcheck, `envcheck-gpu`, does not exist there. So every pip / pipx / uv / conda install
line and every requirements line in the files users copy (examples/, install_scripts/, Dockerfiles,
docs/, README.md, .github/, action.yml, .pre-commit-hooks.yaml) must install from what exists: a
local path (the checkout, `.`, `'.[test]'`), a wheel built from it (`envcheck_gpu-*.whl`), a shell
variable that the same file checks to be one of those, or, for a published release, the pinned
`envcheck-gpu==X.Y.Z`. Any other name fails the test with the file and the line.

In Markdown only the instructions are read: fenced blocks tagged sh / bash / shell / console /
dockerfile / yaml and inline code spans; output samples (untagged or ```text blocks, which show the
commands envcheck itself prints for frameworks) are not instructions.
"""

from __future__ import annotations

import glob
import os
import re
import shlex

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIST = "envcheck-gpu"

#: tools the release workflow needs besides envcheck itself, each pinned (never a bare name)
TOOLS = {"build", "pytest", "hypothesis", "pyyaml", "mkdocs-material"}  # mkdocs-material: the docs build, pinned as .ci/run pins it

INSTALL = re.compile(
    r"(?:^|[\s;&|(`\"'])"
    r"(?P<cmd>(?:[\w./~${}\"'-]*/)?(?:pip3?|pipx|conda|mamba|micromamba)|(?:python3?(?:\.\d+)?|[\w./~${}\"'-]*/python3?)"
    r" -m pip|uv(?: pip| tool)?) +install\b(?P<args>[^\n]*)")
#: options whose value is the next word (not a package)
VALUE_OPTS = {"-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-c", "--constraint", "-t", "--target",
              "--prefix", "--root", "-e", "--editable", "--python", "-p", "--python-version", "--platform",
              "--only-binary", "--no-binary", "--progress-bar", "--cache-dir", "--timeout", "--retries",
              "--suffix", "--pip-args", "--spec", "-n", "--name", "--channel"}


def _files():
    pats = ["examples/**/*", "install_scripts/**/*", "docs/**/*", ".github/**/*", "README.md", "action.yml",
            ".pre-commit-hooks.yaml", "**/Dockerfile", "**/*.Dockerfile", "**/*.dockerfile"]
    out = set()
    for p in pats:
        for f in glob.glob(os.path.join(ROOT, p), recursive=True):
            rel = os.path.relpath(f, ROOT)
            if os.path.isfile(f) and not rel.startswith((".venv", "tests/", "heldout/", "build/", "dist/")) \
                    and not rel.endswith((".png", ".jpg", ".whl", ".gz", ".pyc")):
                out.add(rel)
    return sorted(out)


def _instruction_lines(rel, text):
    """(line number, line) of the lines that are instructions (all of a script; the instruction parts of
    Markdown: shell-like fenced blocks, and inline code spans, except one that a warning introduces:
    "do not `pip install envcheck`")."""
    if not rel.endswith(".md"):
        return list(enumerate(text.splitlines(), 1))
    out, fence, prose = [], None, []
    for n, line in enumerate(text.splitlines(), 1):
        m = re.match(r"^\s*```(\w*)", line)
        if m:
            fence = None if fence is not None else m.group(1).lower()
            continue
        if fence is not None:
            if fence in ("sh", "bash", "shell", "console", "dockerfile", "yaml", "yml"):
                out.append((n, line))
        else:
            prose.append((n, line))
    joined = "\n".join(line for _n, line in prose)
    starts, pos = [], 0
    for n, line in prose:
        starts.append((pos, n))
        pos += len(line) + 1
    for m in re.finditer(r"`([^`]+)`", joined):
        before = " ".join(joined[max(0, m.start() - 40):m.start()].split()).lower()
        if re.search(r"\b(do not|don't|never|not)$", before):
            continue
        n = max(ln for p0, ln in starts if p0 <= m.start())
        out.append((n, m.group(1)))
    return sorted(out)


def _targets(args):
    """The package arguments of one install command's argument text."""
    args = re.split(r"\s(?:&&|\|\||;|\||#)\s?|\)\s*$|\s\\$", " " + args)[0]
    try:
        words = shlex.split(args, comments=False)
    except ValueError:
        words = args.split()
    out, skip = [], False
    for w in words:
        if skip:
            skip = False
            continue
        if w in VALUE_OPTS:
            skip = True
            continue
        if w.startswith("-"):
            if w in ("-r", "--requirement"):
                skip = True  # the requirements file is scanned on its own
            continue
        if w in ("&&", "||", ";", "|", "\\"):
            break
        out.append(w)
    return out


def _variables_checked(text):
    """Shell variables the file itself checks to be envcheck (the workflow templates' `case` on the
    source; install.sh's spec from an envcheck checkout or wheel)."""
    checked = set()
    if re.search(r'grep -q .\^name = \\?"envcheck-gpu\\?"', text) or "is_checkout" in text:
        for v in re.findall(r"case \"?\$\{?(\w+)\}? in", text):
            checked.add(v)
        checked.update({"spec", "src", "ENVCHECK_SPEC", "ENVCHECK_SOURCE"} & set(re.findall(r"\$\{?(\w+)", text)))
    # a variable set from a glob of envcheck's own wheels: whl=$(ls dist/envcheck_gpu-*.whl)
    checked.update(re.findall(r"(\w+)=\$\(ls [^)]*envcheck_gpu-[^)]*\.whl\)", text))
    # a Dockerfile build argument whose default is allowed (the user's --build-arg is the user's choice)
    for name, value in re.findall(r"(?m)^ARG (\w+)=(\S+)$", text):
        if _allowed(value, set()):
            checked.add(name)
    return checked


def _allowed(target, checked):
    t = target.strip("\"'")
    var = re.fullmatch(r"\$\{?(\w+)\}?(\[[\w,]+\])?", t)
    if var:
        return var.group(1) in checked
    if t in (".", "./") or t.startswith(("./", "/", "~", ".[", "../")):
        return not re.search(r"\.whl$", t) or re.search(r"(^|/)envcheck_gpu-[^/]*\.whl$", t) is not None
    if re.search(r"(^|/)envcheck_gpu-[^/]*\.whl$", t):
        return True
    if re.fullmatch(r"envcheck-gpu(\[[\w,]+\])?==\d+(\.\d+)*(\.?(a|b|rc)\d+)?", t):
        return True
    m = re.fullmatch(r"([A-Za-z0-9_.-]+)==[\w.]+", t)
    return bool(m and m.group(1).lower() in TOOLS)


def _violations():
    bad = []
    for rel in _files():
        with open(os.path.join(ROOT, rel), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        checked = _variables_checked(text)
        if re.match(r"(.*/)?requirements[^/]*\.txt$", rel):
            for n, line in enumerate(text.splitlines(), 1):
                req = line.split("#", 1)[0].strip()
                if req and not req.startswith("-") and not _allowed(req.split(";")[0].split()[0], checked):
                    bad.append(f"{rel}:{n}: {line.strip()}")
            continue
        for n, line in _instruction_lines(rel, text):
            for m in INSTALL.finditer(line):
                if m.group("cmd").startswith(("conda", "mamba", "micromamba")) and "envcheck" not in line:
                    bad.append(f"{rel}:{n}: {line.strip()}  (conda has no envcheck package)")
                    continue
                for t in _targets(m.group("args")):
                    if not _allowed(t, checked):
                        bad.append(f"{rel}:{n}: {line.strip()}  ({t!r})")
    return bad


def test_every_install_line_installs_this_project_from_what_exists():
    assert _files(), "nothing scanned"
    bad = _violations()
    assert not bad, "install lines that install another name, or this one from nowhere:\n" + "\n".join(bad)


@pytest.mark.parametrize("line,ok", [
    ("python -m pip install --quiet envcheck", False),  # the unrelated project on PyPI (issue 18)
    ("pip install envcheck-gpu", False),  # not published: nothing to install, or a squatter's later
    ("pipx install envcheck-gpu", False),
    ("uv tool install envcheck-gpu", False),
    ("pip install envcheck-gpu==0.1.0", True),  # a release, pinned
    ("python3 -m venv .venv && .venv/bin/pip install '.[test]' && .venv/bin/python -m pytest -q", True),
    ("pipx install ./dist/envcheck_gpu-0.1.0-py3-none-any.whl", True),
    ("pipx install ./dist/other-0.1.0-py3-none-any.whl", False),
    ("/opt/envcheck/bin/python -m pip install --no-cache-dir \"${ENVCHECK_SPEC}\"", False),  # no default here
    ("pip install --index-url https://example.org/simple torch", False),
    ("conda install -c conda-forge envcheck", False),
    ("pip install requests && pip install .", False),
    ("python -m pip install build==1.3.0", True),
])
def test_the_scanner_itself(line, ok):
    """The rule on known lines, so that a scanner that reads nothing cannot pass the test above."""
    found = [t for m in INSTALL.finditer(line) for t in _targets(m.group("args"))]
    assert found, line
    verdict = all(_allowed(t, set()) for t in found) and not line.startswith("conda")
    assert verdict is ok, (line, found)


def test_a_markdown_output_sample_is_not_an_instruction():
    text = "```\n    python -m pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu126\n```\n" \
           "```sh\npip install envcheck\n```\nthen `pipx install envcheck-gpu` here; do not\n`pip install x`\n"
    lines = [line for _n, line in _instruction_lines("x.md", text)]
    assert lines == ["pip install envcheck", "pipx install envcheck-gpu"]


#: addresses of unrelated projects that share envcheck's name: sending users (or a download) there runs a
#: stranger's code. github.com/envcheck/envcheck is a Rust `.env` linter ("A fast, modern CLI for linting
#: .env files and detecting K8s <-> env mismatches", its Cargo.toml), with its own release workflow and
#: pre-commit hooks; pypi.org/project/envcheck is a `.env` file checker (issue 18 item 1).
STRANGERS = (r"github\.com/envcheck/envcheck(?![-\w])", r"pypi\.org/(?:project|simple)/envcheck/")


def test_no_address_of_an_unrelated_project():
    roots = ["envcheck", "docs", "examples", "install_scripts", ".github", "scripts"]
    files = ["README.md", "pyproject.toml", "action.yml", ".pre-commit-hooks.yaml", "mkdocs.yml"]
    for r in roots:
        for d, _dirs, names in os.walk(os.path.join(ROOT, r)):
            files += [os.path.relpath(os.path.join(d, n), ROOT) for n in names if not n.endswith((".pyc", ".whl"))]
    bad = []
    for rel in files:
        path = os.path.join(ROOT, rel)
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for pat in STRANGERS:
            for m in re.finditer(pat, text):
                bad.append(f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}")
    assert not bad, "addresses of another project named envcheck:\n" + "\n".join(bad)
