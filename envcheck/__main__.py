"""``python -m envcheck`` and the ``envcheck`` console script: the CLI, with Python's cyclic garbage collector
paused from the first import on (until the command is known: see ``envcheck.cli.GC_PAUSED_COMMANDS``) and
the compiled code of the dataclasses' generated methods read from the user's cache (:mod:`envcheck.codecache`;
this process only, given back at the end)."""

import gc


def main() -> None:
    paused = gc.isenabled()
    gc.disable()
    try:
        from envcheck import codecache

        codecache.install()
        try:
            from envcheck import cli
        except BaseException:
            codecache.uninstall(save=False)
            raise
    except BaseException:
        if paused:
            gc.enable()
        raise
    try:
        cli.main(gc_paused=paused)
    finally:
        codecache.uninstall()


if __name__ == "__main__":  # pragma: no cover
    main()
