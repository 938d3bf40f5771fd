"""PlattError: values, gradients against finite differences, the approximation, bad input."""

import numpy as np
import pytest

from svmtune.kernels import RBF, AnisotropicRBF, Linear, MultipleKernel
from svmtune.objectives import PlattError
from tests._file_order import ratsch_split_in_file_order as ratsch_split

HEART = ratsch_split("heart", seed=0)
CONTINUOUS = [0, 3, 4, 7, 9]  # heart: age, blood pressure, cholesterol, max rate, oldpeak


def _active_set(bound, params):
    """Per fold: which groups of identical training points (same features and label) hold
    support vectors, and which are all at the bound C.

    Identical points make the dual solution non-unique: only the sum of their alphas is
    determined, and how SMO splits it (both free, or one at C) depends on its path, which a
    step of 1e-5 changes. E, its gradient and the branch of the solution map depend on the
    group's state only, so that is what must stay fixed across a finite-difference step (for
    distinct points, the state of each alpha)."""
    state = bound._last[1]  # noqa: SLF001
    C = bound.C(params)
    out = []
    for alpha, rows in zip(state.alphas, state.active, strict=True):
        rows = np.sort(rows)
        keys = np.column_stack([bound.X[rows], bound.y[rows]])
        _, group = np.unique(keys, axis=0, return_inverse=True)
        group = group.ravel()
        a = alpha[rows]
        n_groups = group.max() + 1
        sv = np.bincount(group, weights=a > 0, minlength=n_groups) > 0
        below = np.bincount(group, weights=a < C, minlength=n_groups) > 0
        out.append((sv, ~below))
    return out


def _fd_check(kernel, params, X, y, *, validation=0.3, steps=(1e-3, 3e-4, 1e-4, 3e-5, 1e-5)):
    """Central differences of E in each search coordinate, the SVM refitted at a tight KKT
    tolerance, over a scan of steps that leave the active set (support vectors, bounded ones)
    unchanged on both sides."""
    obj = PlattError(validation=validation, gradient="full", tol=1e-12)
    bound = obj.bind(X, y, kernel=kernel)
    ev, g = bound.gradient(params)
    act = _active_set(bound, params)
    gnorm = np.linalg.norm(list(g.values()))
    assert gnorm > 0
    for name in bound.space.names:
        fds = []
        for h in steps:
            vals, same = [], True
            for s in (1.0, -1.0):
                q = dict(params)
                q[name] = params[name] * np.exp(s * h)
                other = obj.bind(X, y, kernel=kernel)
                vals.append(other.evaluate(q).value)
                for (sv0, b0), (sv1, b1) in zip(act, _active_set(other, q), strict=True):
                    same = same and np.array_equal(sv0, sv1) and np.array_equal(b0, b1)
            if same:
                fds.append((vals[0] - vals[1]) / (2 * h))
        assert fds, f"the active set moves for the steps {steps} ({name})"
        # truncation error grows with the step, the solver's round-off (~1e-12 / h) as it
        # shrinks: the best step of the scan must agree
        err = min(abs(fd - g[name]) for fd in fds)
        assert err <= 1e-4 * gnorm, (name, g[name], fds)
    return ev, g


def test_full_gradient_rbf_holdout_and_kfold():
    Xtr, ytr, _, _ = HEART
    _fd_check(RBF(), {"C": 3.0, "gamma": 0.05}, Xtr, ytr)
    _fd_check(RBF(), {"C": 0.7, "gamma": 0.02}, Xtr, ytr, validation=3)


def test_full_gradient_anisotropic_rbf():
    Xtr, ytr, _, _ = HEART
    X = Xtr[:, :6]
    params = {"C": 3.0, **{f"gamma_{f}": 0.1 * (1 + f % 3) for f in range(6)}}
    _fd_check(AnisotropicRBF(n_features=6), params, X, ytr)


@pytest.mark.parametrize(
    ("kernel", "params"),
    [
        (
            MultipleKernel([[0, 1], [2, 3, 4]], form="weights_widths"),
            {"mu_0": 3.0, "mu_1": 1.0, "gamma_0": 0.1, "gamma_1": 0.2},
        ),
        (
            MultipleKernel([[0, 1], [2, 3, 4]], form="weights"),
            {f"mu_{t}_{j}": 0.3 * (1.0 + t + j) for t in range(2) for j in range(3)},
        ),
    ],
)
def test_full_gradient_multiple_kernel(kernel, params):
    Xtr, ytr, _, _ = HEART
    _fd_check(kernel, params, Xtr[:, CONTINUOUS], ytr)


def test_singular_bordered_system_gives_the_decision_derivatives_of_the_reduced_one():
    """A duplicated free support vector makes K_FF singular; the least-squares solution must
    change the decision values exactly as the system without the duplicate does."""
    from svmtune.objectives._platt_gradient import _solve_bordered

    Xtr, _, Xte, _ = HEART
    P = Xtr[:6]
    K = RBF().gram({"gamma": 0.05}, np.vstack([P, P[:1]]))  # last row duplicates the first
    Kv = RBF().gram({"gamma": 0.05}, Xte[:5], np.vstack([P, P[:1]]))
    rhs = np.random.default_rng(0).normal(size=(7, 2))
    rhs[6] = rhs[0]  # consistent: the duplicate's equation is the same
    rhs_b = np.vstack([rhs, [[0.3, -0.1]]])

    def bordered(Kf):
        m = Kf.shape[0]
        M = np.zeros((m + 1, m + 1))
        M[:m, :m], M[:m, m], M[m, :m] = Kf, 1.0, 1.0
        return M

    sol = _solve_bordered(bordered(K), rhs_b)
    red = _solve_bordered(bordered(K[:6, :6]), np.vstack([rhs[:6], rhs_b[7:]]))
    np.testing.assert_allclose(Kv @ sol[:-1] + sol[-1], Kv[:, :6] @ red[:-1] + red[-1], atol=1e-8)


def test_linear_kernel_has_only_the_C_derivative():
    Xtr, ytr, _, _ = HEART
    _, g = _fd_check(Linear(), {"C": 0.05}, Xtr, ytr)
    assert list(g) == ["C"]


@pytest.mark.parametrize("name", ["heart", "breast-cancer", "diabetis", "titanic"])
def test_approx_gradient_points_the_same_way_as_the_full_one(name):
    Xtr, ytr, _, _ = ratsch_split(name, seed=0)
    d = Xtr.shape[1]
    kernel = AnisotropicRBF(n_features=d)
    params = {f"gamma_{f}": 0.5 / d for f in range(d)}
    full = PlattError(C=3.0, gradient="full").bind(Xtr, ytr, kernel=kernel).gradient(params)[1]
    approx = PlattError(C=3.0, gradient="approx").bind(Xtr, ytr, kernel=kernel).gradient(params)
    a = np.array([approx[1][n] for n in kernel.space.names])
    f = np.array([full[n] for n in kernel.space.names])
    assert a @ f / (np.linalg.norm(a) * np.linalg.norm(f)) > 0.0


def test_value_lies_in_unit_interval_and_info():
    Xtr, ytr, _, _ = HEART
    bound = PlattError().bind(Xtr, ytr, kernel=RBF())
    for C, gamma in [(1e-3, 1e-5), (1.0, 0.05), (1e4, 1e2)]:
        ev = bound.evaluate({"C": C, "gamma": gamma})
        assert 0.0 <= ev.value <= 1.0
        assert 0.0 <= ev.info["validation_error"] <= 1.0


def test_value_of_separated_margin_free_data_tends_to_zero():
    """Two far clusters: every validation point lies far outside the margin, so E is only the
    regularised targets' offset, of order 1 / (points per class): it falls towards 0."""
    values = []
    for n in (10, 40, 160):
        rng = np.random.default_rng(n)
        X = np.vstack([rng.normal(-10, 0.5, (n, 2)), rng.normal(10, 0.5, (n, 2))])
        y = np.repeat([-1.0, 1.0], n)
        ev = PlattError().bind(X, y, kernel=Linear()).evaluate({"C": 1.0})
        n_val = round(0.3 * n)
        assert ev.value <= 2.0 / (n_val + 2)
        values.append(ev.value)
    assert values[0] > values[1] > values[2]


def test_warm_start_saves_iterations():
    Xtr, ytr, _, _ = HEART
    cold = PlattError().bind(Xtr, ytr, kernel=RBF())  # the default starts cold
    warm = PlattError(warm_start=True).bind(Xtr, ytr, kernel=RBF())
    for b in (cold, warm):
        b.evaluate({"C": 10.0, "gamma": 0.05})
    c = cold.evaluate({"C": 10.0, "gamma": 0.052})
    w = warm.evaluate({"C": 10.0, "gamma": 0.052})
    assert w.value == pytest.approx(c.value, abs=1e-3)
    assert w.cost.iterations < c.cost.iterations


def test_gradient_at_an_evaluated_point_reuses_the_solve():
    Xtr, ytr, _, _ = HEART
    bound = PlattError().bind(Xtr, ytr, kernel=RBF())
    ev = bound.evaluate({"C": 1.0, "gamma": 0.05})
    ev2, _ = bound.gradient({"C": 1.0, "gamma": 0.05})
    assert ev2.value == ev.value and ev2.cost.iterations == 0
    assert ev2.cost.kernel_evals < ev.cost.kernel_evals


def test_bad_input():
    Xtr, ytr, _, _ = HEART
    with pytest.raises(ValueError, match="validation part holds one class"):
        PlattError(validation=np.flatnonzero(ytr > 0)[:10]).bind(Xtr, ytr, kernel=RBF())
    with pytest.raises(ValueError, match="no derivative in C"):
        PlattError(gradient="approx").bind(Xtr, ytr, kernel=RBF()).gradient(
            {"C": 1.0, "gamma": 0.1}
        )
    with pytest.raises(ValueError, match="gradient must be one of"):
        PlattError(gradient="exact").bind(Xtr, ytr, kernel=RBF())
    with pytest.raises(ValueError, match="fraction must lie in"):
        PlattError(validation=1.5).bind(Xtr, ytr, kernel=RBF())
    with pytest.raises(ValueError, match="folds must be >= 2"):
        PlattError(validation=1).bind(Xtr, ytr, kernel=RBF())
    with pytest.raises(ValueError, match="C must be a positive"):
        PlattError(C=-1.0).bind(Xtr, ytr, kernel=RBF())
    with pytest.raises(ValueError, match="own scale"):
        PlattError(C=2.0).bind(Xtr, ytr, kernel=MultipleKernel([[0], [1]], form="common"))


def test_classifier_is_trained_on_all_points():
    Xtr, ytr, Xte, yte = HEART
    bound = PlattError().bind(Xtr, ytr, kernel=RBF())
    clf = bound.classifier({"C": 1.0, "gamma": 0.05})
    assert clf.error(Xte, yte) < 0.3


def test_approx_gradient_is_the_derivative_with_alpha_b_and_the_sigmoid_held_fixed():
    """Eq. 9's oracle: E recomputed from the kernel alone, alpha, b, A and B frozen."""
    Xtr, ytr, _, _ = HEART
    d = Xtr.shape[1]
    kernel = AnisotropicRBF(n_features=d)
    params = {f"gamma_{f}": 0.05 * (1 + f % 3) for f in range(d)}
    bound = PlattError(C=3.0, gradient="approx").bind(Xtr, ytr, kernel=kernel)
    _, g = bound.gradient(params)
    state = bound._last[1]  # noqa: SLF001
    (_tr, va), alpha = bound.folds[0], state.alphas[0]
    b, A, B = state.results[0].b, state.sigmoid.A, state.sigmoid.B
    sv = np.flatnonzero(alpha > 0)

    def frozen(p):
        f = kernel.gram(p, Xtr[va], Xtr[sv]) @ (alpha[sv] * ytr[sv]) + b
        prob = 1.0 / (1.0 + np.exp(A * f + B))
        return np.mean(np.where(ytr[va] > 0, 1.0 - prob, prob))

    h = 1e-5
    for name in kernel.space.names:
        up, down = dict(params), dict(params)
        up[name] *= np.exp(h)
        down[name] *= np.exp(-h)
        fd = (frozen(up) - frozen(down)) / (2 * h)
        assert fd == pytest.approx(g[name], rel=1e-6, abs=1e-10)


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"gradient": "exact"}, "gradient must be one of"),
        ({"C": -1.0}, "C must be a positive finite number; got -1.0"),
        ({"sigmoid_tol": 0.0}, "sigmoid_tol must be a positive number"),
        ({"max_iter": 0}, "max_iter must be a positive integer"),
    ],
)
def test_bad_options_are_refused_before_any_data(options, match):
    # at first use (a study's definition), with C fixed or searched
    with pytest.raises(ValueError, match=match):
        PlattError(**options).search_space(RBF())


def test_repeated_validation_indices_are_refused():
    """Point 0 named twice would be validated on once (np.unique) while the caller meant it
    twice, or made a typo: refused, naming it."""
    Xtr, ytr, _, _ = HEART
    pos, neg = np.flatnonzero(ytr > 0), np.flatnonzero(ytr < 0)
    with pytest.raises(ValueError, match=rf"distinct; repeated: \[{pos[0]}\]"):
        PlattError(validation=[pos[0], pos[0], neg[0], neg[1]]).bind(Xtr, ytr, kernel=RBF())
    bound = PlattError(validation=[pos[0], pos[1], neg[0], neg[1]]).bind(Xtr, ytr, kernel=RBF())
    assert bound.validation_index.tolist() == sorted([pos[0], pos[1], neg[0], neg[1]])
