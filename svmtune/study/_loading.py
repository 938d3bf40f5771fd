"""Load a study file: a Python file that defines a module-level ``study = Study(...)``.

A study file may also define ``figures(study, outdir) -> list[pathlib.Path]``, extra plots that
``svmtune run`` draws after the standard ones (e.g. Fischetti's Fig. 2).
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from svmtune._quiet import third_party_quiet
from svmtune.study._study import Study

__all__ = ["load_study", "load_study_module"]

try:  # joblib >= 1.5 depends on cloudpickle; older joblib vendors it
    import cloudpickle
except ImportError:  # pragma: no cover
    from joblib.externals import cloudpickle  # type: ignore[no-redef]


def load_study_module(path: str | Path) -> ModuleType:
    """Import the file at ``path`` as a module and check it defines ``study``.

    The file is executed as Python code (as pytest runs test files). Its folder is on the
    import path while it loads, so it can import a module beside it.

    Its objects are pickled by value when cells are sent to workers (so callables defined in
    the file work on any joblib backend, a dask cluster included).
    """
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"study file {str(path)!r} does not exist")
    if p.suffix != ".py":
        raise ValueError(f"a study file is a Python file (.py); got {str(path)!r}")
    digest = hashlib.sha1(str(p.resolve()).encode()).hexdigest()[:10]
    name = f"svmtune_study_{p.stem.replace('-', '_')}_{digest}"
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:  # pragma: no cover
        raise ValueError(f"cannot import the study file {str(path)!r}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    folder = str(p.resolve().parent)
    before = set(sys.modules)
    sys.path.insert(0, folder)  # the file may import a module beside it, as a script can
    try:
        with third_party_quiet():  # e.g. OptunaSearchCV warns it is experimental when built
            spec.loader.exec_module(module)
    except Exception:
        sys.modules.pop(name, None)
        raise
    finally:
        if folder in sys.path:
            sys.path.remove(folder)
    study = getattr(module, "study", None)
    if not isinstance(study, Study):
        sys.modules.pop(name, None)
        raise ValueError(
            f"study file {str(path)!r} must define a module-level `study = Study(...)`; "
            f"found {type(study).__name__ if study is not None else 'nothing'}"
        )
    cloudpickle.register_pickle_by_value(module)
    for mod_name in set(sys.modules) - before:  # modules beside it travel by value too
        mod = sys.modules.get(mod_name)
        file = getattr(mod, "__file__", None)
        if mod is not None and file and Path(file).resolve().parent == Path(folder):
            cloudpickle.register_pickle_by_value(mod)
    return module


def load_study(path: str | Path) -> Study:
    """The ``study`` a study file defines.

    Examples
    --------
    >>> study = load_study("studies/quickstart.py")  # doctest: +SKIP
    >>> study.run(n_jobs=2)  # doctest: +SKIP
    """
    study: Study = load_study_module(path).study
    return study
