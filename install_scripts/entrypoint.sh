#!/bin/sh
# envcheck container entrypoint (contract §8). POSIX sh: runs under dash, busybox sh and bash.
#
#   ENTRYPOINT ["/usr/local/bin/envcheck-entrypoint", "python", "train.py"]
#   entrypoint.sh CMD [ARGS...]
#
# Runs `envcheck status` (quiet when the check passes; its report goes to stderr otherwise), then
# `exec`s CMD, so that CMD's exit status and the signals sent to this process are CMD's own.
#
# Environment (all optional):
#   ENVCHECK_MODE=warn|block|off  warn (default): report problems on stderr and run CMD anyway;
#                                 block: an error finding stops before CMD with exit status 3;
#                                 off: run CMD without checking. Any other value: exit status 2,
#                                 CMD is not started (fail closed).
#   ENVCHECK_STRICT=1             warnings count as problems too (status --strict).
#   ENVCHECK_REQUIRE_GPU=1        a missing driver/GPU is an error (status --require-gpu).
#   ENVCHECK_REPORT=PATH          write the JSON report (contract §2) to PATH.
#   ENVCHECK_SNAPSHOT=PATH        check a snapshot instead of this machine (tests, dry runs).
#   ENVCHECK_FIX=print|write-env  when the check finds problems: print the fix plan (`envcheck fix`),
#                                 or write its env files into ENVCHECK_FIX_DIR (`envcheck fix
#                                 --write-env DIR --force`: requirements.txt, environment.yml,
#                                 envcheck.env); without ENVCHECK_FIX_DIR, into a new private folder
#                                 (mktemp -d, mode 0700: ${TMPDIR:-/tmp}/envcheck-fix.XXXXXXXXXX,
#                                 named on stderr).
#   ENVCHECK_TIMEOUT=SECONDS      give up on a hanging check after this long (default 60; needs `timeout`).
#   ENVCHECK_FIX_TIMEOUT=SECONDS  give up on a hanging ENVCHECK_FIX step after this long (default 600;
#                                 needs `timeout`): the job then starts (warn mode) or stops (block).
#   ENVCHECK_BIN=PATH             the envcheck executable (default: `envcheck` on PATH, else the one
#                                 next to this script, where install.sh puts both).
#   ENVCHECK_FAIL_CLOSED=1        in block mode, also stop (exit 3) when envcheck itself cannot give an
#                                 answer (missing, usage error, internal error, timeout). Without it the
#                                 job runs, with a warning: a broken checker never stops training.
#   ENVCHECK_INTERPRETER=PYTHON   the training interpreter whose packages envcheck reads (see README).
#
# Exit status: CMD's own; 3 when block mode stopped the job; 2 when no CMD was given or ENVCHECK_MODE
# is unknown.

_ec_say() {
    printf 'envcheck-entrypoint: %s\n' "$*" >&2
}

if [ "$#" -eq 0 ]; then
    _ec_say "usage: entrypoint.sh CMD [ARGS...] (no command given)"
    exit 2
fi

_ec_mode=${ENVCHECK_MODE:-warn}
case $_ec_mode in
    warn|block|off) ;;
    *)
        # fail closed: a typo of "block" must not run the job unchecked
        _ec_say "unknown ENVCHECK_MODE='$_ec_mode' (warn|block|off); not starting the job"
        exit 2
        ;;
esac

if [ "$_ec_mode" = off ]; then
    exec "$@"
fi

# envcheck's own failure (no answer): run the job, unless block mode was asked to fail closed.
_ec_no_answer() {
    if [ "$_ec_mode" = block ] && [ "${ENVCHECK_FAIL_CLOSED:-0}" = 1 ]; then
        _ec_say "$1; not starting the job (ENVCHECK_MODE=block, ENVCHECK_FAIL_CLOSED=1)"
        exit 3
    fi
    _ec_say "$1; running the job unchecked"
}

_ec_bin=${ENVCHECK_BIN:-envcheck}
# install.sh puts this script next to its `envcheck` (~/.local/bin, $PREFIX/bin): started by its full
# path from a PATH without that folder (a Dockerfile's ENTRYPOINT), it must not run the job unchecked
if [ -z "${ENVCHECK_BIN:-}" ] && ! command -v envcheck >/dev/null 2>&1; then
    case $0 in
        */*) if [ -x "${0%/*}/envcheck" ] && [ ! -d "${0%/*}/envcheck" ]; then _ec_bin=${0%/*}/envcheck; fi ;;
    esac
fi
if ! command -v "$_ec_bin" >/dev/null 2>&1; then
    _ec_no_answer "envcheck not found ('$_ec_bin' is not on PATH)"
    exec "$@"
fi

_ec_timeout=${ENVCHECK_TIMEOUT:-60}
case $_ec_timeout in
    ''|*[!0-9]*)
        _ec_say "ENVCHECK_TIMEOUT='$_ec_timeout' is not a whole number of seconds; using 60"
        _ec_timeout=60
        ;;
esac

# Run `envcheck status` with its output on stderr. Its argument list is built in this function's own
# positional parameters (a function's "$@" is its own in POSIX sh): the job's arguments are never
# touched, copied or word-split, so any number of them costs nothing (linear: one exec at the end).
_ec_run() {
    set -- status --quiet
    if [ "${ENVCHECK_STRICT:-0}" = 1 ]; then set -- "$@" --strict; fi
    if [ "${ENVCHECK_REQUIRE_GPU:-0}" = 1 ]; then set -- "$@" --require-gpu; fi
    if [ -n "${ENVCHECK_REPORT:-}" ]; then set -- "$@" --report "$ENVCHECK_REPORT"; fi
    if [ -n "${ENVCHECK_SNAPSHOT:-}" ]; then set -- "$@" --snapshot "$ENVCHECK_SNAPSHOT"; fi
    if command -v timeout >/dev/null 2>&1 && timeout 5 true >/dev/null 2>&1; then
        timeout "$_ec_timeout" "$_ec_bin" "$@" >&2
    else
        "$_ec_bin" "$@" >&2
    fi
}

_ec_run
_ec_rc=$?

_ec_fix_timeout=${ENVCHECK_FIX_TIMEOUT:-600}
case $_ec_fix_timeout in
    ''|*[!0-9]*)
        _ec_say "ENVCHECK_FIX_TIMEOUT='$_ec_fix_timeout' is not a whole number of seconds; using 600"
        _ec_fix_timeout=600
        ;;
esac

# `envcheck fix ...` with its output on stderr, within ENVCHECK_FIX_TIMEOUT when `timeout` exists
_ec_fix_run() {
    if command -v timeout >/dev/null 2>&1 && timeout 5 true >/dev/null 2>&1; then
        timeout "$_ec_fix_timeout" "$_ec_bin" fix "$@" >&2
    else
        "$_ec_bin" fix "$@" >&2
    fi
}

_ec_fix() {
    case ${ENVCHECK_FIX:-} in
        '') return 0 ;;
        print)
            if [ -n "${ENVCHECK_SNAPSHOT:-}" ]; then
                _ec_fix_run --snapshot "$ENVCHECK_SNAPSHOT"
            else
                _ec_fix_run
            fi
            ;;
        write-env)
            if [ -n "${ENVCHECK_FIX_DIR:-}" ]; then
                _ec_dir=$ENVCHECK_FIX_DIR
            elif ! _ec_dir=$(umask 077 && mktemp -d "${TMPDIR:-/tmp}/envcheck-fix.XXXXXXXXXX" 2>/dev/null) \
                    || [ ! -d "$_ec_dir" ]; then
                # never a predictable name in a shared folder (another user could plant a link there)
                _ec_say "warning: cannot make a private folder with mktemp -d; set ENVCHECK_FIX_DIR; no fix files"
                return 0
            fi
            _ec_say "writing the fix files into $_ec_dir"
            if [ -n "${ENVCHECK_SNAPSHOT:-}" ]; then
                _ec_fix_run --snapshot "$ENVCHECK_SNAPSHOT" --write-env "$_ec_dir" --force
            else
                _ec_fix_run --write-env "$_ec_dir" --force
            fi
            ;;
        *)
            _ec_say "unknown ENVCHECK_FIX='$ENVCHECK_FIX' (print|write-env); ignored"
            return 0
            ;;
    esac
    _ec_frc=$?
    # fix exits 1 when no plan satisfies the constraints; anything above is its own failure
    if [ "$_ec_frc" = 124 ] || [ "$_ec_frc" = 137 ]; then
        _ec_say "warning: 'envcheck fix' gave no answer within ${_ec_fix_timeout} s (ENVCHECK_FIX_TIMEOUT); no fix plan"
    elif [ "$_ec_frc" -gt 1 ]; then
        _ec_say "warning: 'envcheck fix' failed (exit status $_ec_frc); no fix plan"
    fi
    return 0
}

case $_ec_rc in
    0)
        ;;
    1)
        _ec_fix
        if [ "$_ec_mode" = block ]; then
            _ec_say "the environment check failed (report above); not starting the job (ENVCHECK_MODE=block)"
            exit 3
        fi
        _ec_say "the environment check found problems (report above); running the job anyway (ENVCHECK_MODE=warn)"
        ;;
    124|137)
        _ec_no_answer "envcheck status gave no answer within ${_ec_timeout} s (ENVCHECK_TIMEOUT)"
        ;;
    *)
        _ec_no_answer "envcheck status failed itself (exit status $_ec_rc)"
        ;;
esac

exec "$@"
