"""envcheck: read a machine's NVIDIA driver, GPUs, CUDA toolkit, cuDNN copies and framework
builds, check that they fit together, and say how to fix what does not."""

__version__ = "0.1.0"


def _cli_process() -> bool:
    """This import is the ``envcheck`` command's own start (the console script, ``python -m envcheck``), not a
    program that uses the library."""
    import sys

    main = (getattr(sys.modules.get("__main__"), "__file__", None) or "").replace("\\", "/")
    # pip's script (bin/envcheck; Scripts/envcheck-script.py), the Windows launcher (envcheck.exe/__main__.py)
    return main.rsplit("/", 1)[-1] in ("envcheck", "envcheck-script.py") or main.endswith("envcheck.exe/__main__.py") or (
        list(getattr(sys, "orig_argv", [])[1:3]) == ["-m", "envcheck"])


def _quiet_interrupt(kind: type, value: BaseException, tb: object) -> None:
    """The CLI process's last word on a Ctrl-C that came while its modules loaded (before ``envcheck.__main__``'s
    ``main`` holds it): one line, never a traceback; Python then ends the process by SIGINT (a shell's 130)."""
    import sys

    if issubclass(kind, KeyboardInterrupt):
        try:
            sys.stderr.write("envcheck: interrupted\n")
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):
            pass
        return
    sys.__excepthook__(kind, value, tb)  # type: ignore[arg-type]


if _cli_process():
    import sys as _sys

    if _sys.excepthook is _sys.__excepthook__:
        _sys.excepthook = _quiet_interrupt


def __getattr__(name: str):  # PEP 562: the Python API loads on first use (docs/api.md)
    # the root package is the API's facade, above every layer: it names the modules by string so that
    # the modules below, which import `envcheck` for __version__, never depend on envcheck.api
    import importlib

    if name == "status":
        return importlib.import_module("envcheck.api").status
    if name in ("explain", "plan"):  # packages of their own, callable as the API's functions
        return importlib.import_module(f"envcheck.{name}")
    raise AttributeError(f"module 'envcheck' has no attribute {name!r}")
