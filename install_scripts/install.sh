#!/bin/sh
# Install envcheck into its own virtual environment, without touching the training environment,
# and put `envcheck` (and `envcheck-entrypoint`) on PATH. POSIX sh; idempotent.
#
#   sh install.sh                       # from PyPI into ~/.local/share/envcheck/venv
#   ENVCHECK_SOURCE=/path/to/checkout sh install.sh     # or a wheel file
#   sh install.sh --uninstall
#
# Environment (all optional):
#   ENVCHECK_SOURCE=PATH      a checkout of envcheck or a wheel (default: `envcheck` from PyPI)
#   ENVCHECK_VERSION=X.Y.Z    the PyPI version to install (default: the newest)
#   ENVCHECK_INSTALLER=venv|pipx|uv   how (default venv; pipx / uv tool when asked and present)
#   ENVCHECK_VENV=DIR         the venv (default ${XDG_DATA_HOME:-$HOME/.local/share}/envcheck/venv)
#   PREFIX=DIR                where the commands go: PREFIX/bin (default $HOME/.local)
#   ENVCHECK_PYTHON=PYTHON    the Python that creates the venv (default python3; needs >= 3.9)
#   ENVCHECK_FORCE=1          replace a file at PREFIX/bin/envcheck that this script did not write
#
# The `envcheck` it installs is a small wrapper script: it runs the venv's envcheck and, unless
# ENVCHECK_INTERPRETER is set already, points it at the training interpreter found at run time
# ($VIRTUAL_ENV/bin/python, else $CONDA_PREFIX/bin/python, else python3 on PATH), so that
# `envcheck status` reads the training environment's frameworks, not its own venv's.

set -eu

MARKER="# envcheck-wrapper: written by envcheck install.sh"

say() { printf 'envcheck install: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

data_home=${XDG_DATA_HOME:-${HOME:?HOME is not set}/.local/share}
venv=${ENVCHECK_VENV:-$data_home/envcheck/venv}
prefix=${PREFIX:-$HOME/.local}
bindir=$prefix/bin
installer=${ENVCHECK_INSTALLER:-venv}
python=${ENVCHECK_PYTHON:-python3}
script_dir=$(cd "$(dirname "$0")" && pwd)

# refuse to replace a file we did not write
check_target() {
    # $1: path
    if [ -e "$1" ] || [ -L "$1" ]; then
        if [ -f "$1" ] && grep -q "^$MARKER" "$1" 2>/dev/null; then
            return 0
        fi
        if [ "${ENVCHECK_FORCE:-0}" = 1 ]; then
            say "replacing $1 (ENVCHECK_FORCE=1)"
            return 0
        fi
        die "$1 exists and was not written by this installer; move it away or set ENVCHECK_FORCE=1"
    fi
}

if [ "${1:-}" = "--uninstall" ]; then
    for f in "$bindir/envcheck" "$bindir/envcheck-entrypoint"; do
        if [ -f "$f" ] && grep -q "^$MARKER" "$f" 2>/dev/null; then
            rm -f "$f"
            say "removed $f"
        elif [ -e "$f" ]; then
            say "left $f alone (not written by this installer)"
        fi
    done
    if [ -f "$venv/.envcheck-venv" ]; then
        rm -rf "$venv"
        say "removed $venv"
    fi
    exit 0
elif [ -n "${1:-}" ]; then
    die "unknown argument '$1' (usage: install.sh [--uninstall])"
fi

case $installer in
    venv|pipx|uv) ;;
    *) die "ENVCHECK_INSTALLER must be venv, pipx or uv (got '$installer')" ;;
esac

spec=envcheck
if [ -n "${ENVCHECK_VERSION:-}" ]; then
    spec="envcheck==$ENVCHECK_VERSION"
fi
if [ -n "${ENVCHECK_SOURCE:-}" ]; then
    [ -e "$ENVCHECK_SOURCE" ] || die "ENVCHECK_SOURCE=$ENVCHECK_SOURCE does not exist"
    spec=$(cd "$(dirname "$ENVCHECK_SOURCE")" && pwd)/$(basename "$ENVCHECK_SOURCE")
fi

check_target "$bindir/envcheck"
check_target "$bindir/envcheck-entrypoint"
mkdir -p "$bindir"

case $installer in
    venv)
        command -v "$python" >/dev/null 2>&1 || die "$python not found (set ENVCHECK_PYTHON)"
        "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' \
            || die "$python is older than 3.9"
        if [ -e "$venv" ] && [ ! -f "$venv/.envcheck-venv" ]; then
            die "$venv exists and is not an envcheck venv made by this installer"
        fi
        if [ ! -x "$venv/bin/python" ]; then
            say "creating $venv"
            "$python" -m venv "$venv" || die "python -m venv failed (Debian/Ubuntu: apt-get install python3-venv)"
            : > "$venv/.envcheck-venv"
        fi
        say "installing $spec into $venv"
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade "$spec"
        target=$venv/bin/envcheck
        venv_python=$venv/bin/python
        ;;
    pipx)
        command -v pipx >/dev/null 2>&1 || die "pipx not found (ENVCHECK_INSTALLER=pipx)"
        pipx install --force "$spec"
        target=$(pipx environment --value PIPX_BIN_DIR 2>/dev/null || echo "$HOME/.local/bin")/envcheck
        venv_python=$(pipx environment --value PIPX_LOCAL_VENVS 2>/dev/null || echo "$HOME/.local/pipx/venvs")/envcheck/bin/python
        ;;
    uv)
        command -v uv >/dev/null 2>&1 || die "uv not found (ENVCHECK_INSTALLER=uv)"
        uv tool install --force "$spec"
        target=$(uv tool dir --bin 2>/dev/null || echo "$HOME/.local/bin")/envcheck
        venv_python=$(uv tool dir 2>/dev/null || echo "$data_home/uv/tools")/envcheck/bin/python
        ;;
esac

if [ "$target" = "$bindir/envcheck" ]; then
    # pipx / uv put their own launcher exactly where ours would go: wrap it under another name
    mv -f "$target" "$target-tool"
    target=$target-tool
fi
[ -x "$target" ] || die "the install did not produce $target"

# $1 as one single-quoted shell word ('...', each ' as '\''), for the generated wrapper: a HOME or PREFIX
# with spaces, quotes, $ or backquotes stays a plain string there (the X keeps trailing newlines)
shquote() {
    _q=$(printf '%sX' "$1" | sed "s/'/'\\\\''/g")
    printf "'%s'" "${_q%X}"
}
q_target=$(shquote "$target")
q_venv_python=$(shquote "$venv_python")

tmp=$bindir/.envcheck.$$
cat > "$tmp" <<EOF
#!/bin/sh
$MARKER
# Runs envcheck from its own environment; lets it read the training interpreter's packages.
if [ -z "\${ENVCHECK_INTERPRETER+x}" ]; then
    _py=
    if [ -n "\${VIRTUAL_ENV:-}" ] && [ -x "\$VIRTUAL_ENV/bin/python" ]; then
        _py=\$VIRTUAL_ENV/bin/python
    elif [ -n "\${CONDA_PREFIX:-}" ] && [ -x "\$CONDA_PREFIX/bin/python" ]; then
        _py=\$CONDA_PREFIX/bin/python
    else
        _py=\$(command -v python3 2>/dev/null || true)
    fi
    if [ -n "\$_py" ] && [ "\$_py" != $q_venv_python ]; then
        ENVCHECK_INTERPRETER=\$_py
        export ENVCHECK_INTERPRETER
    fi
fi
exec $q_target "\$@"
EOF
chmod 755 "$tmp"
mv -f "$tmp" "$bindir/envcheck"
say "wrote $bindir/envcheck"

if [ -f "$script_dir/entrypoint.sh" ]; then
    tmp=$bindir/.envcheck-entrypoint.$$
    {
        head -n 1 "$script_dir/entrypoint.sh"
        echo "$MARKER"
        tail -n +2 "$script_dir/entrypoint.sh"
    } > "$tmp"
    chmod 755 "$tmp"
    mv -f "$tmp" "$bindir/envcheck-entrypoint"
    say "wrote $bindir/envcheck-entrypoint"
fi

case ":${PATH:-}:" in
    *":$bindir:"*) ;;
    *) say "note: $bindir is not on PATH; add it, e.g. export PATH=\"$bindir:\$PATH\"" ;;
esac
"$bindir/envcheck" --version >&2 || die "the installed envcheck does not start"
