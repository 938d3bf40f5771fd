import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import svmtune.kernels.multiple_kernel as mk_module
from svmtune.kernels import MultipleKernel
from svmtune.kernels._distances import squared_distances

COMBOS = [
    ("rbf", "common"),
    ("rbf", "weights"),
    ("rbf", "common_width"),
    ("rbf", "weights_widths"),
    ("linear", "common"),
    ("linear", "weights"),
]


def _d2(A, B):
    return ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1)


def _reference(groups, base, form, params, X, Z, factors=(0.25, 1.0, 4.0)):
    """The paper's formulas, written out independently of the library."""
    K = np.zeros((X.shape[0], Z.shape[0]))
    for t, g in enumerate(groups):
        A, B = X[:, g], Z[:, g]
        if base == "linear":
            mu = params["mu"] if form == "common" else params[f"mu_{t}"]
            K += mu * (A @ B.T)  # eq. (9)
        elif form in ("common", "weights"):
            d_t = len(g)
            for j, f in enumerate(factors):
                mu = params["mu"] if form == "common" else params[f"mu_{t}_{j}"]
                K += mu * np.exp(-_d2(A, B) / (f * d_t))  # eq. (12) with sigma = f d_t, (13)
        else:
            mu = params["mu"] if form == "common_width" else params[f"mu_{t}"]
            gamma = params["gamma"] if form == "common_width" else params[f"gamma_{t}"]
            K += mu * np.exp(-gamma * _d2(A, B))
    return K


def _random_params(space, rng, lo=0.2, hi=0.8):
    return space.from_unit(rng.uniform(lo, hi, len(space)))


def _close(K1, K2, rel=1e-12):
    return np.max(np.abs(K1 - K2)) <= rel * max(1.0, np.max(np.abs(K2)))


@pytest.mark.parametrize("budget", [2**28, 0])
@pytest.mark.parametrize(("base", "form"), COMBOS)
def test_forms_match_the_paper_formulas(optdigits, base, form, budget):
    k = MultipleKernel(optdigits.groups, base=base, form=form, memory_budget=budget)
    rng = np.random.default_rng(1)
    X, Z = optdigits.X[:80], optdigits.X[200:250]
    for _ in range(3):
        # gammas near 1/d_t keep the RBF terms away from 0 and 1 on 16-pixel groups
        p = _random_params(k.space, rng)
        p.update({n: v / 16.0 for n, v in p.items() if n.startswith("gamma")})
        assert _close(k.gram(p, X, Z), _reference(optdigits.groups, base, form, p, X, Z))
        K = k.gram(p, X)
        assert _close(K, _reference(optdigits.groups, base, form, p, X, X))
        np.testing.assert_array_equal(K, K.T)


def test_fixed_widths_are_eq_13_in_gamma_units(spambase):
    k = MultipleKernel(spambase.groups, form="weights")
    expected = [g for d in (48, 6, 3) for g in (4.0 / d, 1.0 / d, 1.0 / (4.0 * d))]
    np.testing.assert_allclose(k.base_gammas, expected, rtol=1e-15)
    assert k.n_base_kernels == 9
    k2 = MultipleKernel(spambase.groups, form="weights", width_factors=(1.0,))
    np.testing.assert_allclose(k2.base_gammas, [1 / 48, 1 / 6, 1 / 3], rtol=1e-15)
    assert MultipleKernel(spambase.groups, form="weights_widths").base_gammas == ()


def test_parameter_names():
    g = [[0, 1], [2]]
    assert MultipleKernel(g, form="common").space.names == ("mu",)
    assert MultipleKernel(g, form="weights").space.names == (
        "mu_0_0", "mu_0_1", "mu_0_2", "mu_1_0", "mu_1_1", "mu_1_2",
    )  # fmt: skip
    assert MultipleKernel(g, base="linear", form="weights").space.names == ("mu_0", "mu_1")
    assert MultipleKernel(g, base="linear", form="common").space.names == ("mu",)
    assert MultipleKernel(g, form="common_width").space.names == ("mu", "gamma")
    assert MultipleKernel(g, form="weights_widths").space.names == (
        "mu_0", "mu_1", "gamma_0", "gamma_1",
    )  # fmt: skip
    k = MultipleKernel(g, form="weights_widths", weight_bounds=(1e-2, 1e3), gamma_bounds=(1, 9))
    assert (k.space["mu_1"].low, k.space["mu_1"].high) == (1e-2, 1e3)
    assert (k.space["gamma_0"].low, k.space["gamma_0"].high) == (1.0, 9.0)
    assert all(p.log for p in k.space)
    assert k.includes_scale


@pytest.mark.parametrize(
    ("base", "form", "inner_form"),
    [
        ("rbf", "weights", "common"),
        ("linear", "weights", "common"),
        ("rbf", "weights_widths", "common_width"),
    ],
)
def test_nested_sequences(base, form, inner_form):
    k = MultipleKernel([[0, 1], [2]], base=base, form=form, weight_bounds=(1e-3, 1e3))
    inner, outer = k.nested()
    assert outer is k
    assert inner == MultipleKernel([[0, 1], [2]], base=base, form=inner_form,
                                   weight_bounds=(1e-3, 1e3))  # fmt: skip
    assert inner.nested() == (inner,)
    assert inner.includes_scale


def test_embed_values():
    k = MultipleKernel([[0, 1], [2]], form="weights_widths")
    inner = k.nested()[0]
    assert k.embed({"mu": 2.0, "gamma": 0.5}, inner) == {
        "mu_0": 2.0, "mu_1": 2.0, "gamma_0": 0.5, "gamma_1": 0.5,
    }  # fmt: skip
    p = k.space.center()
    assert k.embed(p, k) == p
    with pytest.raises(ValueError, match="not a nested sub-model"):
        k.embed({"mu": 1.0}, MultipleKernel([[0, 1], [2]], form="common"))
    with pytest.raises(ValueError, match="not a nested sub-model"):
        k.embed({"mu": 1.0, "gamma": 1.0}, MultipleKernel([[0], [1, 2]], form="common_width"))
    with pytest.raises(ValueError, match="outside its bounds"):
        k.embed({"mu": -1.0, "gamma": 1.0}, inner)


# -- the embedding property: every adjacent nested pair gives the same Gram --------------------

NESTED = [("rbf", "weights"), ("linear", "weights"), ("rbf", "weights_widths")]


@pytest.fixture(scope="module")
def prepared_pairs(spambase, optdigits):
    """For each nested model on each data set: (inner, outer, [(P_inner, P_outer), ...])."""
    out = []
    for data in (spambase, optdigits):
        X, Z = data.X[:150], data.X[150:]
        for base, form in NESTED:
            for budget in (2**28, 0):
                outer = MultipleKernel(data.groups, base=base, form=form, memory_budget=budget)
                for inner, nxt in zip(outer.nested(), outer.nested()[1:], strict=False):
                    preps = [(inner.prepare(X), nxt.prepare(X)),
                             (inner.prepare(X, Z), nxt.prepare(X, Z))]  # fmt: skip
                    out.append((inner, nxt, preps))
    return out


@pytest.mark.parametrize("case", range(2 * len(NESTED) * 2))
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_nested_embedding_gives_the_same_gram(prepared_pairs, case, data):
    assert len(prepared_pairs) == 2 * len(NESTED) * 2
    inner, outer, preps = prepared_pairs[case]
    n = len(inner.space)
    p = inner.space.from_unit(data.draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    q = outer.embed(p, inner)
    for P_inner, P_outer in preps:
        assert _close(P_outer.gram(q), P_inner.gram(p))


# -- prepared statistics are computed once --------------------------------------------------------


@pytest.mark.parametrize(
    ("form", "budget", "mode"),
    [
        ("common", 2**28, "sum"),
        ("weights", 2**28, "bank"),
        ("weights", 0, "dist"),
        ("common_width", 2**28, "dist"),
        ("weights_widths", 2**28, "dist"),
    ],
)
def test_new_parameters_reuse_prepared_distances(spambase, monkeypatch, form, budget, mode):
    calls = []

    def counting(X, Z, group):
        calls.append(group)
        return squared_distances(X[:, list(group)], None if Z is None else Z[:, list(group)])

    monkeypatch.setattr(mk_module, "group_squared_distance", counting)
    k = MultipleKernel(spambase.groups, form=form, memory_budget=budget)
    P = k.prepare(spambase.X)
    assert P.mode == mode
    assert len(calls) == 3  # one distance computation per group
    mats = list(P.mats)
    rng = np.random.default_rng(5)
    for _ in range(4):
        p = _random_params(k.space, rng)
        K = P.gram(p)
        assert _close(K, _reference(spambase.groups, "rbf", form, p, spambase.X, spambase.X))
    assert len(calls) == 3
    assert all(a is b for a, b in zip(P.mats, mats, strict=True))


def test_kernel_eval_counts_and_memory(spambase):
    n = 300
    for form, budget, R, n_mats in [
        ("common", 2**28, 9, 1),
        ("weights", 2**28, 9, 9),
        ("weights", 0, 9, 3),
        ("weights_widths", 2**28, 3, 3),
    ]:
        P = MultipleKernel(spambase.groups, form=form, memory_budget=budget).prepare(spambase.X)
        assert P.n_kernel_evals == R * n * n
        assert P.nbytes == n_mats * n * n * 8
    P = MultipleKernel(spambase.groups, base="linear").prepare(spambase.X[:100], spambase.X)
    assert P.n_kernel_evals == 3 * 100 * 300
    assert P.shape == (100, 300)


def test_budget_rule_boundary(sonar):
    n = 50
    R = 9
    X = sonar.X[:n]
    fits = MultipleKernel(sonar.groups, memory_budget=R * n * n * 8).prepare(X)
    over = MultipleKernel(sonar.groups, memory_budget=R * n * n * 8 - 1).prepare(X)
    assert (fits.mode, over.mode) == ("bank", "dist")
    p = fits.model.space.center()
    assert _close(fits.gram(p), over.gram(p))


def test_gram_returns_fresh_arrays(sonar):
    for base, form in COMBOS:
        k = MultipleKernel(sonar.groups, base=base, form=form)
        P = k.prepare(sonar.X[:30])
        p = k.space.center()
        K = P.gram(p)
        K[:] = -1.0
        assert P.gram(p)[0, 0] > 0


@pytest.mark.parametrize(("base", "form"), COMBOS)
def test_diag(real, base, form):
    k = MultipleKernel(real.groups, base=base, form=form)
    p = _random_params(k.space, np.random.default_rng(2))
    X = real.X[:60]
    np.testing.assert_allclose(k.diag(p, X), np.diag(k.gram(p, X)), rtol=1e-12)


# -- identity -------------------------------------------------------------------------------------


def test_identity():
    g = [range(3), [4, 3]]
    k = MultipleKernel(g, form="weights")
    assert k == MultipleKernel([[0, 1, 2], [4, 3]], form="weights")
    assert hash(k) == hash(MultipleKernel([[0, 1, 2], [4, 3]]))
    assert k == MultipleKernel(g, memory_budget=0)  # the budget changes no value
    assert k != MultipleKernel(g, form="common")
    assert k != MultipleKernel(g, base="linear", form="weights")
    assert k != MultipleKernel(g, width_factors=(1.0, 2.0))
    assert k != MultipleKernel([range(3), [3, 4]])
    # options a form does not use do not distinguish models
    lin = MultipleKernel(g, base="linear", form="weights")
    assert lin == MultipleKernel(g, base="linear", form="weights", width_factors=(1.0,))
    assert repr(k) == "MultipleKernel([range(0, 3), [4, 3]], base='rbf', form='weights')"
    assert repr(MultipleKernel(g, form="common_width", gamma_bounds=(0.1, 10))) == (
        "MultipleKernel([range(0, 3), [4, 3]], base='rbf', form='common_width', "
        "gamma_bounds=(0.1, 10.0))"
    )
    assert len({k, MultipleKernel(g), lin}) == 2


# -- bad options ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"base": "poly"}, "base must be one of"),
        ({"form": "free"}, "form must be one of"),
        ({"base": "linear", "form": "weights_widths"}, "needs base='rbf'"),
        ({"base": "linear", "form": "common_width"}, "needs base='rbf'"),
        ({"width_factors": ()}, "width_factors"),
        ({"width_factors": (1.0, -1.0)}, "width_factors"),
        ({"width_factors": (1.0, 1.0)}, "distinct"),
        ({"width_factors": "ab"}, "width_factors"),
        ({"weight_bounds": (0.0, 1.0)}, "weight_bounds"),
        ({"weight_bounds": (2.0, 1.0)}, "weight_bounds"),
        ({"gamma_bounds": (1.0, np.inf)}, "gamma_bounds"),
        ({"gamma_bounds": 3}, "gamma_bounds"),
        ({"memory_budget": -1}, "memory_budget"),
        ({"memory_budget": 1.5}, "memory_budget"),
    ],
)
def test_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        MultipleKernel([[0], [1]], **kwargs)


@pytest.mark.parametrize("bad", [-1.0, 0.0, np.nan, np.inf, 1e6])
def test_bad_weights(bad):
    k = MultipleKernel([[0], [1]], base="linear")
    with pytest.raises(ValueError, match="mu_1"):
        k.gram({"mu_0": 1.0, "mu_1": bad}, np.eye(2))
