"""envcheck: read a machine's NVIDIA driver, GPUs, CUDA toolkit, cuDNN copies and framework
builds, check that they fit together, and say how to fix what does not."""

__version__ = "0.1.0"


def __getattr__(name: str):  # PEP 562: the Python API loads on first use (docs/api.md)
    # the root package is the API's facade, above every layer: it names the modules by string so that
    # the modules below, which import `envcheck` for __version__, never depend on envcheck.api
    import importlib

    if name == "status":
        return importlib.import_module("envcheck.api").status
    if name in ("explain", "plan"):  # packages of their own, callable as the API's functions
        return importlib.import_module(f"envcheck.{name}")
    raise AttributeError(f"module 'envcheck' has no attribute {name!r}")
