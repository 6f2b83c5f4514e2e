"""Plans: the resolver (:mod:`.resolve`), its outputs (:mod:`.output`) and building a venv (:mod:`.apply`)."""

import sys as _sys
import types as _types
from typing import Any



class _CallableModule(_types.ModuleType):
    """``envcheck.plan(...)`` is the Python API's ``envcheck.api.plan`` (docs/api.md); the package's
    names stay where they are."""

    def __call__(self, want: Any = (), **kw: Any) -> Any:
        from envcheck.plan.document import plan_for

        return plan_for(want, **kw)


_sys.modules[__name__].__class__ = _CallableModule
