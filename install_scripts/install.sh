#!/bin/sh
# Install envcheck into its own virtual environment, without touching the training environment,
# and put `envcheck` (and `envcheck-entrypoint`) on PATH. POSIX sh; idempotent.
#
# envcheck is not published on a package index yet (the distribution name reserved for it is
# `envcheck-gpu`; the name `envcheck` on PyPI is another project): it installs from what exists,
# this checkout or a wheel built from it (`python -m build`). The command it installs is `envcheck`.
#
#   sh install_scripts/install.sh                   # the checkout this script is in
#   ENVCHECK_SOURCE=dist/envcheck_gpu-0.1.0-py3-none-any.whl sh install.sh   # a wheel (or an sdist)
#   ENVCHECK_SOURCE=/path/to/checkout sh install.sh                          # another checkout
#   ENVCHECK_SOURCE=git+https://HOST/PATH/envcheck.git@TAG sh install.sh     # a git URL (pip's syntax)
#   ENVCHECK_VERSION=X.Y.Z sh install.sh            # envcheck-gpu==X.Y.Z from the index, once released
#   sh install.sh --dry-run                         # say what would be installed where, change nothing
#   sh install.sh --uninstall
#
# Environment (all optional):
#   ENVCHECK_SOURCE=WHERE     a wheel or sdist file, a checkout folder, a git URL (git+https://...,
#                             git+ssh://..., git+file://..., or an https://....git URL) or a wheel's
#                             https:// URL (default: the checkout that holds this script)
#   ENVCHECK_VERSION=X.Y.Z    install the release envcheck-gpu==X.Y.Z from the package index instead
#   ENVCHECK_INSTALLER=venv|pipx|uv   how (default venv; pipx / uv tool when asked and present)
#   ENVCHECK_VENV=DIR         the venv (default ${XDG_DATA_HOME:-$HOME/.local/share}/envcheck/venv)
#   PREFIX=DIR                where the commands go: PREFIX/bin (default $HOME/.local)
#   ENVCHECK_PYTHON=PYTHON    the Python that creates the venv (default python3; needs >= 3.9)
#   ENVCHECK_FORCE=1          replace a file at PREFIX/bin/envcheck that this script did not write
#   PIP_INDEX_URL, PIP_FIND_LINKS, ...   pip's own settings apply (a mirror, an offline wheelhouse)
#
# A source on the network (a URL, a release on the index) is tried first, for at most 4 seconds:
# when it cannot be reached, or the release does not exist, the script stops at once and says why.
#
# The `envcheck` it installs is a small wrapper script: it runs the venv's envcheck and, unless
# ENVCHECK_INTERPRETER is set already, points it at the training interpreter found at run time
# ($VIRTUAL_ENV/bin/python, else $CONDA_PREFIX/bin/python, else python3 on PATH), so that
# `envcheck status` reads the training environment's frameworks, not its own venv's.

set -eu

MARKER="# envcheck-wrapper: written by envcheck install.sh"
DIST=envcheck-gpu  # the distribution's name (not on an index before its first release)

say() { printf 'envcheck install: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
# $1 as one single-quoted shell word ('it'\''s'), for the scripts this installer writes
sq() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

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

dry_run=0
if [ "${1:-}" = "--dry-run" ]; then
    dry_run=1
elif [ "${1:-}" = "--uninstall" ]; then
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
    die "unknown argument '$1' (usage: install.sh [--dry-run | --uninstall])"
fi

case $installer in
    venv|pipx|uv) ;;
    *) die "ENVCHECK_INSTALLER must be venv, pipx or uv (got '$installer')" ;;
esac

# a folder is an envcheck checkout when its pyproject.toml names this distribution
is_checkout() {
    [ -f "$1/pyproject.toml" ] && grep -q "^name = \"$DIST\"" "$1/pyproject.toml" 2>/dev/null
}

# reach: stop within 4 s, with the reason, when a network source cannot be reached
#   $1: url (a wheel/sdist URL: HEAD), host (a git URL: TCP connect), index (the release on the index)
reach() {
    command -v "$python" >/dev/null 2>&1 || return 0  # no Python to ask: pip will say it
    why=$("$python" - "$@" 2>&1 <<'PY'
import os, socket, sys, threading, urllib.error, urllib.parse, urllib.request

kind, target = sys.argv[1], sys.argv[2]
out = {}


def check():
    try:
        if kind == "host":
            u = urllib.parse.urlsplit(target.split("+", 1)[-1] if target.startswith("git+") else target)
            port = u.port or {"https": 443, "http": 80, "ssh": 22}.get(u.scheme, 443)
            socket.create_connection((u.hostname or "", port), timeout=4).close()
        elif kind == "url":
            req = urllib.request.Request(target, method="HEAD", headers={"User-Agent": "envcheck-install"})
            urllib.request.urlopen(req, timeout=4).close()
        else:  # index: the simple page of the distribution must list the version (PEP 503)
            name, version = target.split("==", 1)
            index = (os.environ.get("PIP_INDEX_URL") or "https://pypi.org/simple").rstrip("/")
            req = urllib.request.Request(f"{index}/{name}/", headers={"User-Agent": "envcheck-install"})
            try:
                page = urllib.request.urlopen(req, timeout=4).read(8 << 20).decode("utf-8", "replace")
            except urllib.error.HTTPError as exc:
                if exc.code == 404:
                    out["why"] = f"{name} is not published on {index} (HTTP 404)"
                    return
                raise
            stem = name.replace("-", "_")
            if f"{stem}-{version}-" not in page and f"{stem}-{version}.tar" not in page \
                    and f"{name}-{version}.tar" not in page:
                out["why"] = f"{index} has no release {version} of {name}"
                return
        out["ok"] = True
    except urllib.error.HTTPError as exc:
        out["why"] = f"{target}: HTTP {exc.code} {exc.reason}"
    except Exception as exc:  # noqa: BLE001 - any failure is the reason to report
        out["why"] = f"{target} cannot be reached: {getattr(exc, 'reason', None) or exc}"


t = threading.Thread(target=check, daemon=True)
t.start()
t.join(4.5)  # name resolution has no timeout of its own
if out.get("ok"):
    os._exit(0)
sys.stdout.write((out.get("why") or f"{target} cannot be reached: no answer within 4 s") + "\n")
sys.stdout.flush()
os._exit(1)
PY
) || die "$why"
}

source_kind=
if [ -n "${ENVCHECK_SOURCE:-}" ]; then
    case $ENVCHECK_SOURCE in
        git+file://*)
            spec=$ENVCHECK_SOURCE ;;
        git+*)
            spec=$ENVCHECK_SOURCE; source_kind=host ;;
        https://*.git | https://*.git@* | http://*.git | http://*.git@* | ssh://*)
            spec=git+$ENVCHECK_SOURCE; source_kind=host ;;
        file://*.git | file://*.git@*)
            spec=git+$ENVCHECK_SOURCE ;;
        https://*.whl | https://*.tar.gz | http://*.whl | http://*.tar.gz)
            spec=$ENVCHECK_SOURCE; source_kind=url ;;
        *://*)
            die "ENVCHECK_SOURCE=$ENVCHECK_SOURCE: not a git URL (git+https://...) or a wheel/sdist URL" ;;
        *)
            [ -e "$ENVCHECK_SOURCE" ] || die "ENVCHECK_SOURCE=$ENVCHECK_SOURCE does not exist"
            if [ -d "$ENVCHECK_SOURCE" ]; then
                spec=$(cd "$ENVCHECK_SOURCE" && pwd)
                [ -f "$spec/pyproject.toml" ] \
                    || die "ENVCHECK_SOURCE=$ENVCHECK_SOURCE is a folder without pyproject.toml (not an envcheck checkout)"
                is_checkout "$spec" \
                    || die "ENVCHECK_SOURCE=$ENVCHECK_SOURCE is not an envcheck checkout (its pyproject.toml does not name $DIST)"
            else
                spec=$(cd "$(dirname "$ENVCHECK_SOURCE")" && pwd)/$(basename "$ENVCHECK_SOURCE")
            fi
            ;;
    esac
elif [ -n "${ENVCHECK_VERSION:-}" ]; then
    case $ENVCHECK_VERSION in
        *[!0-9A-Za-z.+-]* | "") die "ENVCHECK_VERSION=$ENVCHECK_VERSION is not a version (X.Y.Z)" ;;
    esac
    spec="$DIST==$ENVCHECK_VERSION"
    source_kind=index
elif is_checkout "$script_dir/.."; then
    spec=$(cd "$script_dir/.." && pwd)
else
    die "no source to install from: this script is not inside an envcheck checkout, and envcheck is \
not published on a package index yet. Set ENVCHECK_SOURCE to a checkout, a wheel built from one \
(python -m build) or its URL, or a git URL; or ENVCHECK_VERSION=X.Y.Z for a published release"
fi

if [ "$dry_run" = 1 ]; then
    case $installer in
        venv) where=$venv ;;
        pipx) where="pipx's venv for $DIST" ;;
        uv) where="uv's tool environment for $DIST" ;;
    esac
    printf 'would install: %s\ninstaller: %s\ninto: %s\ncommands: %s\n' "$spec" "$installer" "$where" "$bindir/envcheck"
    exit 0
fi

# a network source that cannot be reached stops here, in seconds, not after pip's retries
case $source_kind in
    url | host) reach "$source_kind" "$spec" ;;
    index)
        if [ -z "${PIP_NO_INDEX:-}" ] && [ -z "${PIP_FIND_LINKS:-}" ]; then reach index "$spec"; fi ;;
esac

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
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade "$spec" \
            || die "pip could not install $spec (see pip's message above). A mirror: PIP_INDEX_URL=URL; \
offline: PIP_NO_INDEX=1 PIP_FIND_LINKS=DIR; or ENVCHECK_SOURCE=a wheel, a checkout or a git URL"
        target=$venv/bin/envcheck
        venv_python=$venv/bin/python
        # run the console script through the venv's python: its own #! line cannot hold every path
        run=$(sq "$venv_python")" "$(sq "$target")
        ;;
    pipx)
        command -v pipx >/dev/null 2>&1 || die "pipx not found (ENVCHECK_INSTALLER=pipx)"
        pipx install --force "$spec"
        target=$(pipx environment --value PIPX_BIN_DIR 2>/dev/null || echo "$HOME/.local/bin")/envcheck
        venv_python=$(pipx environment --value PIPX_LOCAL_VENVS 2>/dev/null || echo "$HOME/.local/pipx/venvs")/$DIST/bin/python
        ;;
    uv)
        command -v uv >/dev/null 2>&1 || die "uv not found (ENVCHECK_INSTALLER=uv)"
        uv tool install --force "$spec"
        target=$(uv tool dir --bin 2>/dev/null || echo "$HOME/.local/bin")/envcheck
        venv_python=$(uv tool dir 2>/dev/null || echo "$data_home/uv/tools")/$DIST/bin/python
        ;;
esac

if [ "$target" = "$bindir/envcheck" ]; then
    # pipx / uv put their own launcher exactly where ours would go: wrap it under another name
    mv -f "$target" "$target-tool"
    target=$target-tool
fi
[ -x "$target" ] || die "the install did not produce $target"
if [ "$installer" != venv ]; then
    run=$(sq "$target")
fi

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
    if [ -n "\$_py" ] && [ "\$_py" != $(sq "$venv_python") ]; then
        ENVCHECK_INTERPRETER=\$_py
        export ENVCHECK_INTERPRETER
    fi
fi
exec $run "\$@"
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
    *) say "note: $bindir is not on PATH; add it, e.g. export PATH=$(sq "$bindir"):\"\$PATH\"" ;;
esac
"$bindir/envcheck" --version >&2 || die "the installed envcheck does not start"
