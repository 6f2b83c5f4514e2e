"""``python -m envcheck`` and the ``envcheck`` console script: the CLI, with Python's cyclic garbage collector
paused from the first import on (until the command is known: see ``envcheck.cli.GC_PAUSED_COMMANDS``) and
the compiled code of the dataclasses' generated methods and of the regular expressions read from the user's
cache (:mod:`envcheck.codecache`; this process only, given back at the end). A plain status run (only status's own flags:
:func:`envcheck.cli_plain.status_fast_args`) runs without importing click (its short road, same output and
exit status). When this is the process's own entry (the console script, or ``python -m envcheck``) and the run
was a status run, the process ends right after its output is flushed and the ``atexit`` functions have run,
without the interpreter's teardown (``envcheck.cli_plain.ends_without_teardown``)."""

import gc
import os
import sys


def main() -> None:
    """The CLI's process: every outcome an exit status, a Ctrl-C at any moment one line and exit 130
    (:func:`_interrupted`; the command's own handling says "Aborted." / "Interrupted." where it runs)."""
    try:
        _main()
    except KeyboardInterrupt:
        _interrupted()


def _interrupted() -> None:
    """A Ctrl-C outside the command's own handling (while the modules load, or while the process ends): one
    line, exit 130; never a traceback."""
    for stream, text in ((sys.stdout, ""), (sys.stderr, "envcheck: interrupted\n")):
        try:
            if stream is not None:
                stream.write(text)
                stream.flush()
        except (OSError, ValueError, AttributeError, KeyboardInterrupt):
            pass
    os._exit(130)


def _main() -> None:
    paused = gc.isenabled()
    gc.disable()
    try:
        from envcheck import codecache

        cache_name = _cache_name(sys.argv[1:2])
        codecache.install_patterns(cache_name)  # first: dataclasses compiles a pattern as it is imported
        _dataclasses_without_inspect()
        codecache.install(name=cache_name)
        try:
            from envcheck import cli_plain as _plain

            fast = _plain.status_fast_args(sys.argv[1:])
            if fast is None:
                from envcheck import cli
        except BaseException:
            codecache.uninstall(save=False)
            codecache.uninstall_patterns(save=False)
            raise
    except BaseException:
        if paused:
            gc.enable()
        raise
    try:
        try:
            if fast is not None:
                try:
                    code = _plain.run_fast_status(fast)
                finally:
                    if paused:
                        gc.enable()
                sys.exit(code)
            cli.main(gc_paused=paused)
        finally:
            codecache.uninstall()
            codecache.uninstall_patterns()
    except SystemExit as exc:
        if type(exc.code) is int and _is_process_entry() and _plain.ends_without_teardown():
            _end_now(exc.code)
        raise


#: the commands whose runs keep their compiled code in files of their own (any other run: ``cli``)
_OWN_CACHE_FILES = frozenset({"status", "explain"})


def _cache_name(first: list) -> str:
    """Which code cache files a run uses (:mod:`envcheck.codecache`): status's and explain's own, else ``cli``."""
    return first[0] if first and first[0] in _OWN_CACHE_FILES else "cli"


def _dataclasses_without_inspect() -> None:
    """``import dataclasses`` without importing ``inspect`` (the CLI's process only): dataclasses uses it for
    one call, the signature of a class without a docstring (every envcheck dataclass has one), and with ``ast``,
    ``dis`` and ``tokenize`` it costs a status run ~4 ms. While dataclasses is imported, ``inspect`` is a
    stand-in that imports the real module on the first use of any of its names; the real one is what every
    later ``import inspect`` gets. Nothing changes when either module is imported already."""
    if "dataclasses" in sys.modules or "inspect" in sys.modules:
        return
    import types

    class _Inspect(types.ModuleType):
        def __getattr__(self, name: str) -> object:
            import importlib

            if sys.modules.get("inspect") is self:
                del sys.modules["inspect"]
            return getattr(importlib.import_module("inspect"), name)

    stand_in = _Inspect("inspect")
    sys.modules["inspect"] = stand_in
    try:
        import dataclasses  # noqa: F401
    finally:
        if sys.modules.get("inspect") is stand_in:
            del sys.modules["inspect"]


def _is_process_entry() -> bool:
    """This function runs as the process's entry: ``python -m envcheck`` (``__main__`` is this module), or the
    console script (whose module holds this ``main``); not a caller that imported it (a test, runpy)."""
    top = sys.modules.get("__main__")
    spec = getattr(top, "__spec__", None)
    if top is None:
        return False
    return (__spec__ is not None and getattr(spec, "name", None) == __spec__.name) or vars(top).get("main") is main


def _end_now(code: int) -> None:
    import atexit

    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            return  # the normal ending says what went wrong
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    main()
