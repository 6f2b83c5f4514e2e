"""``python -m envcheck`` and the ``envcheck`` console script: the CLI, with Python's cyclic garbage collector
paused from the first import on (until the command is known: see ``envcheck.cli.GC_PAUSED_COMMANDS``)."""

import gc


def main() -> None:
    paused = gc.isenabled()
    gc.disable()
    try:
        from envcheck import cli
    except BaseException:
        if paused:
            gc.enable()
        raise
    cli.main(gc_paused=paused)


if __name__ == "__main__":  # pragma: no cover
    main()
