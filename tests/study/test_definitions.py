"""Complete stored method definitions: every option round-trips; a changed method is refused."""

from __future__ import annotations

import inspect
import json

import optuna
import pytest

import svmtune.kernels
import svmtune.objectives
import svmtune.tuners
from svmtune._params import describe, diff_records, get_params
from svmtune.kernels import RBF, KernelModel, MultipleKernel
from svmtune.objectives import LOOEstimate, Objective
from svmtune.study import Method, Storage, Study
from svmtune.tuners import Bisection, Grid, Tuner

from ._toys import blobs, halves

#: Every shipped option class with every option away from its default.
NON_DEFAULT = {
    "KFoldCV": dict(
        k=10,
        random_state=3,
        tol=1e-2,
        seeding=True,
        n_jobs=2,
        selection="first_order",
        max_iter=500,
        memory_budget=2**20,
        max_seeds=8,
    ),
    "RepeatedKFoldCV": dict(
        k=3,
        repeats=2,
        random_state=3,
        tol=1e-2,
        seeding=True,
        n_jobs=2,
        selection="first_order",
        max_iter=500,
        memory_budget=2**20,
        max_seeds=8,
    ),
    "LOOEstimate": dict(model="loo3", alpha_grid=[0.1, 1.0], memory_budget=2**20),
    "Grid": dict(
        n_points=4,
        values={"C": [1.0, 10.0]},
        bounds={"gamma": (0.01, 1.0)},
        max_evals=9,
        max_seconds=5.0,
        max_points=1000,
    ),
    "Bisection": dict(
        param="C",
        low=0.1,
        high=10.0,
        tol=0.1,
        log=True,
        fixed={"gamma": 0.5},
        max_evals=7,
        max_seconds=2.0,
    ),
    "RBF": dict(gamma_bounds=(1e-3, 1e3)),
    "AnisotropicRBF": dict(n_features=3, gamma_bounds=(1e-3, 1e3)),
    "MultipleKernel": dict(
        groups=[[0], [1, 2]],
        base="linear",
        form="common",
        width_factors=(0.5, 2.0),
        weight_bounds=(1e-2, 1e2),
        gamma_bounds=(1e-2, 1e2),
        memory_budget=2**20,
    ),
    "Linear": {},
    "ExactLOO": dict(
        stopping="kkt",
        tol=1e-4,
        max_iter=10_000,
        n_jobs=2,
        efficiency_points=5,
        efficiency="certified",
        memory_budget=2**20,
    ),
    "VNS": dict(
        m=30,
        step=0.5,
        k_max=10,
        start="random",
        bounds={"gamma": (0.01, 1.0)},
        max_evals=20,
        max_seconds=3.0,
    ),
    "Cascade": dict(
        screen="loo2",
        refine=Grid(n_points=3),
        subsample=0.5,
        screen_points=6,
        screen_tol=0.5,
        radius=2.0,
        bounds={"gamma": (0.01, 1.0)},
        max_evals=20,
        max_seconds=3.0,
    ),
    "NestedVNS": dict(
        m=(10, 20),
        step=0.5,
        k_max=10,
        start="center",
        bounds={"gamma": (0.01, 1.0)},
        max_evals=20,
        max_seconds=3.0,
    ),
    "OptunaTuner": dict(
        sampler=optuna.samplers.QMCSampler,
        sampler_options={"scramble": True},
        bounds={"gamma": (0.01, 1.0)},
        storage="sqlite:///optuna.db",
        study_name="s",
        max_evals=20,
        n_trials=12,
        max_seconds=3.0,
        pruner=optuna.pruners.MedianPruner(n_startup_trials=2),
    ),
    "TPE": dict(
        n_startup_trials=4,
        multivariate=False,
        bounds={"gamma": (0.01, 1.0)},
        storage="sqlite:///optuna.db",
        study_name="s",
        max_evals=20,
        n_trials=12,
        max_seconds=3.0,
        pruner=optuna.pruners.MedianPruner(n_startup_trials=2),
    ),
    "RandomSearch": dict(
        bounds={"gamma": (0.01, 1.0)},
        storage="sqlite:///optuna.db",
        study_name="s",
        max_evals=20,
        n_trials=12,
        max_seconds=3.0,
        pruner=optuna.pruners.MedianPruner(n_startup_trials=2),
    ),
    "PlattError": dict(
        validation=3,
        gradient="approx",
        C=2.0,
        random_state=5,
        tol=1e-4,
        sigmoid_tol=1e-8,
        warm_start=True,
        max_iter=1000,
        memory_budget=2**20,
    ),
    "GradientDescent": dict(
        start={"gamma": 0.1},
        bounds={"gamma": (0.01, 1.0)},
        restarts=1,
        tie_widths=False,
        free_steps=3,
        method="scipy",
        max_iter=10,
        max_step=0.5,
        gtol=1e-4,
        xtol=1e-3,
        ftol=1e-4,
        c1=1e-3,
        max_backtracks=4,
        max_evals=20,
        max_seconds=3.0,
    ),
    "IncrementalGradient": dict(
        initial_size=0.3,
        delta=0.1,
        margin=2.0,
        bounds={"gamma": (0.01, 1.0)},
        start={"gamma": 0.1},
        max_iter=10,
        max_step=0.5,
        gtol=1e-4,
        xtol=1e-3,
        ftol=1e-4,
        c1=1e-3,
        max_backtracks=4,
        max_evals=20,
        max_seconds=3.0,
    ),
    "SuccessiveHalving": dict(
        n_points=4,
        values={"gamma": [0.01, 0.1]},
        bounds={"C": (1.0, 100.0)},
        factor=2,
        min_resources=30,
        max_resources=150,
        aggressive_elimination=True,
        carry_seeds=True,
        max_evals=12,
        max_seconds=2.0,
    ),
}


def shipped() -> list[type]:
    out = []
    for module, base in (
        (svmtune.objectives, Objective),
        (svmtune.tuners, Tuner),
        (svmtune.kernels, KernelModel),
    ):
        for name in module.__all__:
            cls = getattr(module, name)
            if isinstance(cls, type) and issubclass(cls, base) and not inspect.isabstract(cls):
                out.append(cls)
    return out


@pytest.mark.parametrize("cls", shipped(), ids=lambda c: c.__name__)
def test_every_shipped_option_class_round_trips_every_option(cls):
    assert cls.__name__ in NON_DEFAULT, f"add {cls.__name__} with non-default options here"
    opts = NON_DEFAULT[cls.__name__]
    sig = inspect.signature(cls.__init__).parameters
    # the table sets every option, away from its default: a dropped option would show
    assert set(opts) == set(sig) - {"self"}
    obj = cls(**opts)
    for name, value in opts.items():
        assert sig[name].default is inspect.Parameter.empty or not _same(value, sig[name].default)
    params = obj.get_params(deep=False)
    assert list(params) == [p for p in sig if p != "self"]
    clone = cls(**params)
    assert describe(clone) == describe(obj)
    # what a study stores (JSON) is the record itself, and tells it from the default object
    record = describe(obj)
    assert json.loads(json.dumps(record)) == record
    if opts:
        default = cls(
            **{k: v for k, v in opts.items() if sig[k].default is inspect.Parameter.empty}
        )
        changed = {d.split(":")[0] for d in diff_records(describe(default), record)}
        assert changed == {
            f"params.{k}" for k in opts if sig[k].default is not inspect.Parameter.empty
        }
    # the repr built from get_params names every non-default option (MultipleKernel keeps its
    # own, which leaves out the options its form does not use and shows groups compactly)
    for name in opts if "__repr__" not in vars(cls) else ():
        assert f"{name}=" in repr(obj) or sig[name].default is inspect.Parameter.empty


def _same(a, b) -> bool:
    return json.dumps(describe_value(a)) == json.dumps(describe_value(b))


def describe_value(v):
    from svmtune._params import _jsonable

    return _jsonable(v)


def test_a_user_subclass_following_the_convention_gets_get_params_and_repr():
    class Mine(Objective):
        def __init__(self, *, depth: int = 2, inner: Objective | None = None) -> None:
            self.depth = depth
            self.inner = inner

        def _bind(self, X, y, kernel, space):  # pragma: no cover - not evaluated here
            raise NotImplementedError

    m = Mine(depth=3, inner=LOOEstimate(model="loo3"))
    assert m.get_params(deep=False) == {"depth": 3, "inner": m.inner}
    assert m.get_params()["inner__model"] == "loo3"
    assert repr(m) == "Mine(depth=3, inner=LOOEstimate(model='loo3'))"
    assert describe(m)["params"]["inner"]["params"]["model"] == "loo3"


def test_a_class_that_does_not_store_an_option_is_named():
    class Bad(Objective):
        def __init__(self, *, depth: int = 2) -> None:
            self._depth = depth

        def _bind(self, X, y, kernel, space):  # pragma: no cover
            raise NotImplementedError

    with pytest.raises(AttributeError, match="Bad does not store its __init__ argument 'depth'"):
        get_params(Bad())


def small_study(url: str, method: Method, name: str = "m") -> Study:
    return Study(
        "changed",
        datasets=[blobs],
        split=halves,
        n_splits=1,
        methods={name: method},
        storage=url,
    )


def test_a_method_changed_under_the_same_name_is_refused_naming_what_changed(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    small_study(url, Method(LOOEstimate(), Grid(n_points=4), RBF())).run()
    stored = Storage(url).study_definition("changed")
    assert stored["methods"]["m"]["tuner"]["params"]["n_points"] == 4
    changed = small_study(url, Method(LOOEstimate(), Grid(n_points=5), RBF()))
    with pytest.raises(ValueError, match=r"method 'm': tuner\.params\.n_points: 4 -> 5") as e:
        changed.run()
    assert "new name" in str(e.value) and "replace_changed=True" in str(e.value)
    assert "--" not in str(e.value)  # the library names no command-line flag
    assert e.value.changed == {"m": ("tuner.params.n_points: 4 -> 5",)}
    # nothing was mixed: the stored cell and definition are the old ones
    assert (
        Storage(url).study_definition("changed")["methods"]["m"]["tuner"]["params"]["n_points"] == 4
    )
    assert changed.results()["n_evaluations"].tolist() == [4]
    # replacing runs the changed method again
    changed.run(replace_changed=True)
    assert changed.results()["n_evaluations"].tolist() == [5]
    # an unchanged definition (a new but equal object) runs nothing
    calls = []
    small_study(url, Method(LOOEstimate(), Grid(n_points=5), RBF())).run(
        progress=lambda *a: calls.append(a)
    )
    assert calls == []


@pytest.mark.parametrize(
    ("old", "new", "what"),
    [
        (Bisection(), Bisection(log=True), "tuner.params.log: False -> True"),
        (Grid(), Grid(values={"C": [1.0]}), "tuner.params.values: None -> {'C': [1.0]}"),
        (LOOEstimate(), LOOEstimate(alpha_grid=[0.5]), "objective.params.alpha_grid"),
        (RBF(), MultipleKernel([[0, 1, 2, 3]]), "kernel.class: 'RBF' -> 'MultipleKernel'"),
    ],
)
def test_each_kind_of_change_is_named(tmp_path, old, new, what):
    def method(part):
        parts = {"objective": LOOEstimate(), "tuner": Grid(), "kernel": RBF()}
        kind = "tuner" if isinstance(part, Tuner) else "objective"
        kind = "kernel" if isinstance(part, KernelModel) else kind
        return Method(**{**parts, kind: part})

    store = Storage(f"sqlite:///{tmp_path / 's.db'}")
    store.register_study("s", 0, {"methods": {"m": method(old).describe()}})
    with pytest.raises(ValueError, match="method 'm': ") as e:
        store.register_study("s", 0, {"methods": {"m": method(new).describe()}})
    assert what in str(e.value)


def test_a_method_type_with_its_own_describe_is_compared_too(tmp_path):
    store = Storage(f"sqlite:///{tmp_path / 's.db'}")
    store.register_study("s", 0, {"methods": {"peer": {"peer": "sklearn.SVC", "n_iter": 10}}})
    store.register_study("s", 0, {"methods": {"peer": {"peer": "sklearn.SVC", "n_iter": 10}}})
    with pytest.raises(ValueError, match="method 'peer': n_iter: 10 -> 20"):
        store.register_study("s", 0, {"methods": {"peer": {"peer": "sklearn.SVC", "n_iter": 20}}})
