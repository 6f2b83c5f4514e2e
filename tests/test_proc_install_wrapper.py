"""install.sh writes $HOME / $PREFIX into the `envcheck` wrapper it generates: they must arrive there as
plain strings. A HOME with spaces, quotes, `$` and backquotes must work and must execute nothing.
(A fake `python` stands in for venv + pip, so this runs without an index; the wrapper is real.)"""

import os
import shutil
import stat
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INSTALL = os.path.join(ROOT, "install_scripts", "install.sh")

# python -c ... -> ok (>= 3.9); python -m venv DIR -> DIR/bin/python (this script);
# DIR/bin/python -m pip install ... -> DIR/bin/envcheck, which prints its argv and ENVCHECK_INTERPRETER;
# python SCRIPT ... runs that (shell) script
FAKE_PYTHON = r"""#!/bin/sh
case "$1 $2" in
    "-m venv")
        mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && exit 0 ;;
    "-m pip")
        d=$(dirname "$0")
        cat > "$d/envcheck" <<'END'
#!/bin/sh
printf 'fake envcheck|'
for a in "$@"; do printf '%s|' "$a"; done
printf 'ENVCHECK_INTERPRETER=%s\n' "${ENVCHECK_INTERPRETER-unset}"
END
        chmod 755 "$d/envcheck"; exit 0 ;;
esac
if [ -f "$1" ]; then exec /bin/sh "$@"; fi  # python SCRIPT ARGS (the wrapper may run the script so)
exit 0
"""

NASTY = "it's \"my\" home $(touch PWNED1) `touch PWNED2` $USER ${x:-y} \\ end"


@pytest.mark.parametrize("shell", ["dash", "sh"])
def test_home_and_prefix_with_quotes_dollars_and_backquotes(tmp_path, shell):
    sh = shutil.which(shell)
    if not sh:
        pytest.skip(f"no {shell}")
    work = tmp_path / "cwd"
    work.mkdir()
    home = tmp_path / NASTY
    home.mkdir()
    fake = tmp_path / "fakepy" / "python3"
    fake.parent.mkdir()
    fake.write_text(FAKE_PYTHON)
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    prefix = tmp_path / ("pre fix $(touch PWNED3) `touch PWNED4` '" + '"')
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "ENVCHECK_PYTHON": str(fake), "ENVCHECK_SOURCE": ROOT}
    for extra in ({}, {"PREFIX": str(prefix)}):
        e = dict(env, **extra)
        r = subprocess.run([sh, INSTALL], env=e, cwd=str(work), capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        bindir = (prefix if extra else home / ".local") / "bin"
        wrapper = bindir / "envcheck"
        assert wrapper.is_file()
        venv = home / ".local" / "share" / "envcheck" / "venv"
        # the wrapper runs the venv's envcheck with the arguments unchanged ...
        out = subprocess.run([str(wrapper), "--version", "a b"], env=dict(e, VIRTUAL_ENV=str(tmp_path / "train")),
                             cwd=str(work), capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith("fake envcheck|--version|a b|")
        # ... and knows its own venv's python by its exact (nasty) name: not the training interpreter
        out = subprocess.run([str(wrapper)], env=dict(e, VIRTUAL_ENV=str(venv)), cwd=str(work),
                             capture_output=True, text=True, timeout=60)
        assert out.stdout.strip().endswith("ENVCHECK_INTERPRETER=unset"), out.stdout
    # nothing in those names was ever executed
    for d, _, files in os.walk(tmp_path):
        assert not [f for f in files if f.startswith("PWNED")], d
