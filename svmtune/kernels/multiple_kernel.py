"""Multiple-kernel models: conic combinations of base kernels on feature groups.

The nested kernel models of Carrizosa, Martin-Barragan and Romero Morales (2014), Sections 1 and
3.3. The features are split into groups ``B_1, ..., B_T``; each group carries base kernels, and
the kernel is a non-negative combination of them.

Widths
------
Equation (12) of the paper writes the RBF base kernel on group ``B_t`` as
``exp(-sum_{i in B_t} (x_i - z_i)^2 / sigma)``: the width ``sigma`` divides the squared distance
directly (no ``2 sigma^2``), so in this library's units ``gamma = 1 / sigma``. The fixed widths
of model (13), ``sigma in {d_t / 4, d_t, 4 d_t}`` with ``d_t = |B_t|``, are
``gamma in {4 / d_t, 1 / d_t, 1 / (4 d_t)}``; ``width_factors`` holds ``sigma / d_t``. (Widths
proportional to ``d_t`` presume features on comparable scales, e.g. standardized.)

Prepared statistics and cost
----------------------------
:meth:`MultipleKernel.prepare` computes the per-group squared distances (RBF base) or inner
products (linear base) once per pair of point sets; a new parameter value never recomputes them.
What is kept depends on the form:

* ``common``: the parameter-free sum of the fixed base kernels, one matrix; a Gram is one scaling.
* ``weights``: the fixed base kernels themselves when they fit in ``memory_budget`` bytes (a Gram
  is a weighted sum, no exp), otherwise the ``T`` per-group squared distances (a Gram is one exp
  pass per base kernel). Linear base kernels are the per-group inner products.
* ``common_width``, ``weights_widths``: the ``T`` per-group squared distances; a Gram is one exp
  pass per group.

``PreparedKernel.n_kernel_evals`` counts base-kernel entries: ``R n m`` for ``R`` base kernels on
an ``n x m`` Gram, whatever was cached, so the count does not depend on the memory budget.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmtune._memory import DEFAULT_MEMORY_BUDGET
from svmtune._validation import check_X
from svmtune.kernels._base import KernelModel, PreparedKernel
from svmtune.kernels._combine import scaled_exp, weighted_exp_sum
from svmtune.kernels._groups import (
    check_group_features,
    check_groups,
    format_groups,
    group_inner_products,
    group_squared_distance,
    union_inner_products,
)
from svmtune.kernels._multiple_prepared import TUNED_WIDTHS, PreparedMultipleKernel
from svmtune.space import Param, SearchSpace

__all__ = ["MultipleKernel"]

BASES = ("rbf", "linear")
FORMS = ("common", "weights", "common_width", "weights_widths")
_INNER_FORM = {"weights": "common", "weights_widths": "common_width"}
_DEFAULTS: dict[str, object] = {
    "base": "rbf",
    "form": "weights",
    "width_factors": (0.25, 1.0, 4.0),
    "weight_bounds": (1e-5, 1e5),
    "gamma_bounds": (1e-5, 1e5),
    "memory_budget": DEFAULT_MEMORY_BUDGET,
}


def _check_bounds(bounds: object, *, name: str) -> tuple[float, float]:
    try:
        lo, hi = (float(b) for b in bounds)  # type: ignore[attr-defined]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a pair (low, high); got {bounds!r}") from exc
    if not (math.isfinite(hi) and 0 < lo < hi):
        raise ValueError(f"{name} must satisfy 0 < low < high (finite); got {bounds!r}")
    return lo, hi


class MultipleKernel(KernelModel):
    """A conic combination of base kernels on feature groups (Carrizosa et al. 2014).

    ``K = sum_r mu_r K_r`` where each base kernel ``K_r`` acts on the columns of one group.
    The weights ``mu`` play the role of the SVM constant ``C`` (the SVM depends on ``C`` and
    ``K`` only through ``C K``), so :attr:`includes_scale` is true and objectives fix ``C = 1``.

    ====================  ===========================================  ==========================
    ``form``              model of the paper                           parameters
    ====================  ===========================================  ==========================
    ``"common"``          (5) with ``K_0`` the sum of the fixed base   ``mu``
                          kernels; eq. (11) linear, eq. (14) RBF
    ``"weights"``         (7): one weight per fixed base kernel;       ``mu_t`` (linear) or
                          eq. (10) linear, eq. (13) RBF                ``mu_t_j`` (RBF)
    ``"common_width"``    inner class of Section 3.3.3: one weight     ``mu``, ``gamma``
                          and one tuned width shared by all groups
    ``"weights_widths"``  (8): one weight and one tuned RBF width      ``mu_t``, ``gamma_t``
                          per group
    ====================  ===========================================  ==========================

    For the fixed forms with ``base="rbf"``, group ``t`` carries one RBF kernel per entry of
    ``width_factors``: ``exp(-gamma_tj |x - z|^2_{B_t})`` with ``gamma_tj = 1 / (f_j d_t)``,
    i.e. ``sigma = f_j d_t`` in the paper's eq. (12); ``mu_t_j`` weighs it. With
    ``base="linear"``, group ``t`` carries the linear kernel ``x_{B_t} . z_{B_t}`` (eq. 9),
    weighed by ``mu_t``. The tuned-width forms need ``base="rbf"``. Columns in no group are
    ignored.

    Nesting (Algorithm 2 of the paper): ``"weights"`` nests ``"common"`` (all ``mu`` equal) and
    ``"weights_widths"`` nests ``"common_width"`` (all ``mu_t`` equal, all ``gamma_t`` equal);
    :meth:`nested` returns the sequence and :meth:`embed` maps the inner model's parameters to
    ones giving the same Gram matrix. (Model (7) with several fixed widths per group is not a
    subset of model (8), which has one width per group, so (8) starts from ``"common_width"``, as
    in the paper's Section 3.3.3.)

    Parameters
    ----------
    groups : sequence of integer arrays
        Column indices of each group; non-empty, non-negative, disjoint.
    base : {"rbf", "linear"}, default "rbf"
        The base kernel on each group.
    form : {"common", "weights", "common_width", "weights_widths"}, default "weights"
        Which parameters are tuned (table above).
    width_factors : tuple of float, default (0.25, 1.0, 4.0)
        Fixed RBF widths ``sigma / d_t`` of the forms ``"common"`` and ``"weights"`` (RBF base);
        the default is the paper's eq. (13). Unused otherwise.
    weight_bounds : tuple of float, default (1e-5, 1e5)
        Bounds of every weight, log scale. The upper bound matches the largest default ``C`` of
        the objectives; the lower bound lets one weight all but switch its kernel off relative to
        the others (the paper allows ``mu = 0``, which a log scale cannot reach).
    gamma_bounds : tuple of float, default (1e-5, 1e5)
        Bounds of the tuned widths (``gamma = 1 / sigma``), log scale; the same default as
        :class:`~svmtune.kernels.RBF`. Unused by the fixed forms.
    memory_budget : int, default 256 MiB (:data:`~svmtune._memory.DEFAULT_MEMORY_BUDGET`)
        Bytes the form ``"weights"`` with RBF base may spend caching its fixed base kernels
        (``R n m 8`` bytes for ``R`` kernels) instead of keeping the per-group distances
        (``T n m 8`` bytes) and paying one exp pass per base kernel on every Gram. Does not
        change any value, only speed and memory; ignored by equality.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune.kernels import MultipleKernel
    >>> X = np.array([[0.0, 1.0, 2.0], [1.0, 1.0, 0.0]])
    >>> k = MultipleKernel([[0], [1, 2]], base="linear", form="weights")
    >>> k.space.names
    ('mu_0', 'mu_1')
    >>> k.gram({"mu_0": 2.0, "mu_1": 1.0}, X).tolist()
    [[5.0, 1.0], [1.0, 3.0]]
    >>> inner = k.nested()[0]
    >>> inner
    MultipleKernel([[0], range(1, 3)], base='linear', form='common')
    >>> k.embed({"mu": 3.0}, inner)
    {'mu_0': 3.0, 'mu_1': 3.0}
    >>> MultipleKernel([[0], [1, 2]], form="weights_widths").space.names
    ('mu_0', 'mu_1', 'gamma_0', 'gamma_1')
    """

    includes_scale = True

    def __init__(
        self,
        groups: Sequence[ArrayLike],
        *,
        base: str = "rbf",
        form: str = "weights",
        width_factors: Sequence[float] = (0.25, 1.0, 4.0),
        weight_bounds: tuple[float, float] = (1e-5, 1e5),
        gamma_bounds: tuple[float, float] = (1e-5, 1e5),
        memory_budget: int = DEFAULT_MEMORY_BUDGET,
    ) -> None:
        self.groups = check_groups(groups)
        self.base = base
        self.form = form
        self.width_factors = width_factors
        self.weight_bounds = weight_bounds
        self.gamma_bounds = gamma_bounds
        self.memory_budget = memory_budget
        if base not in BASES:
            raise ValueError(f"base must be one of {BASES}; got {base!r}")
        if form not in FORMS:
            raise ValueError(f"form must be one of {FORMS}; got {form!r}")
        if form in TUNED_WIDTHS and base != "rbf":
            raise ValueError(f"form={form!r} tunes RBF widths and needs base='rbf'; got {base!r}")
        try:
            factors = tuple(float(f) for f in width_factors)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"width_factors must be positive numbers; got {width_factors!r}"
            ) from exc
        if not factors or not all(math.isfinite(f) and f > 0 for f in factors):
            raise ValueError(f"width_factors must be positive numbers; got {width_factors!r}")
        if len(set(factors)) != len(factors):
            raise ValueError(f"width_factors must be distinct; got {width_factors!r}")
        self._factors = factors
        self._wb = _check_bounds(weight_bounds, name="weight_bounds")
        self._gb = _check_bounds(gamma_bounds, name="gamma_bounds")
        if (
            isinstance(memory_budget, bool)
            or not isinstance(memory_budget, int | np.integer)
            or memory_budget < 0
        ):
            raise ValueError(
                f"memory_budget must be a non-negative integer (bytes); got {memory_budget!r}"
            )
        self._build()

    # -- structure ---------------------------------------------------------------------------

    @property
    def _fixed_rbf(self) -> bool:
        return self.base == "rbf" and self.form not in TUNED_WIDTHS

    def _build(self) -> None:
        T = len(self.groups)
        sizes = [len(g) for g in self.groups]
        if self._fixed_rbf:
            J = len(self._factors)
            self._base_groups = [t for t in range(T) for _ in range(J)]
            self._fixed_gammas = [1.0 / (f * sizes[t]) for t in range(T) for f in self._factors]
        else:
            self._base_groups = list(range(T))
            self._fixed_gammas = []
        R = len(self._base_groups)
        wlo, whi = self._wb
        glo, ghi = self._gb
        if self.form in ("common", "common_width"):
            params = [Param("mu", wlo, whi)]
        elif self._fixed_rbf:
            J = len(self._factors)
            params = [Param(f"mu_{t}_{j}", wlo, whi) for t in range(T) for j in range(J)]
        else:
            params = [Param(f"mu_{t}", wlo, whi) for t in range(T)]
        if self.form == "common_width":
            params.append(Param("gamma", glo, ghi))
        elif self.form == "weights_widths":
            params += [Param(f"gamma_{t}", glo, ghi) for t in range(T)]
        self._space = SearchSpace(tuple(params))
        self._weight_names = [p.name for p in params if p.name.startswith("mu")]
        self._R = R

    @property
    def n_base_kernels(self) -> int:
        """Number ``R`` of base kernels in the combination."""
        return self._R

    @property
    def base_gammas(self) -> tuple[float, ...]:
        """Fixed widths ``gamma = 1 / sigma`` of the base kernels (fixed RBF forms; else empty)."""
        return tuple(self._fixed_gammas)

    def _weights_gammas(self, params: Mapping[str, float]) -> tuple[list[float], list[float]]:
        """Weight and width of each base kernel (widths empty for linear base kernels)."""
        R = self._R
        if self.form in ("common", "common_width"):
            weights = [float(params["mu"])] * R
        else:
            weights = [float(params[n]) for n in self._weight_names]
        if self.form == "common_width":
            gammas = [float(params["gamma"])] * R
        elif self.form == "weights_widths":
            gammas = [float(params[f"gamma_{t}"]) for t in range(len(self.groups))]
        else:
            gammas = list(self._fixed_gammas)
        return weights, gammas

    # -- KernelModel ---------------------------------------------------------------------------

    @property
    def space(self) -> SearchSpace:
        return self._space

    def _check_features(self, n_features: int) -> None:
        check_group_features(self.groups, n_features)

    def block_arrays(self) -> int:
        """A block's prepared bank (one array per base kernel) or distances (one per group),
        the sum, its scratch buffer and a mask."""
        return max(self._R, len(self.groups)) + 3

    def _prepare(self, X: NDArray[np.float64], Z: NDArray[np.float64] | None) -> PreparedKernel:
        n, m = X.shape[0], (X if Z is None else Z).shape[0]
        if self.base == "linear":
            if self.form == "common":
                total = union_inner_products(X, Z, self.groups)
                return PreparedMultipleKernel(self, "sum", [total])
            return PreparedMultipleKernel(self, "bank", group_inner_products(X, Z, self.groups))
        if self.form == "common":
            return PreparedMultipleKernel(self, "sum", [self._fixed_sum(X, Z)])
        if self.form == "weights" and self._R * n * m * 8 <= self.memory_budget:
            J = len(self._factors)
            bank: list[NDArray[np.float64]] = []
            for t, g in enumerate(self.groups):
                D = group_squared_distance(X, Z, g)
                bank += [scaled_exp(D, self._fixed_gammas[t * J + j]) for j in range(J)]
            return PreparedMultipleKernel(self, "bank", bank)
        dists = [group_squared_distance(X, Z, g) for g in self.groups]
        return PreparedMultipleKernel(self, "dist", dists)

    def _fixed_sum(
        self, X: NDArray[np.float64], Z: NDArray[np.float64] | None
    ) -> NDArray[np.float64]:
        """Sum of the fixed RBF base kernels, one group's distances in memory at a time."""
        J = len(self._factors)
        total: NDArray[np.float64] | None = None
        for t, g in enumerate(self.groups):
            D = group_squared_distance(X, Z, g)
            part = weighted_exp_sum([(D, self._fixed_gammas[t * J + j], 1.0) for j in range(J)])
            total = part if total is None else np.add(total, part, out=total)
        assert total is not None
        return total

    def diag(self, params: Mapping[str, float], X: ArrayLike) -> NDArray[np.float64]:
        """``k(x_i, x_i)``: the sum of the weights (RBF base) or weighted group norms (linear)."""
        checked = self.check_params(params)
        Xc = check_X(X)
        self._check_features(Xc.shape[1])
        weights, _ = self._weights_gammas(checked)
        if self.base == "rbf":
            return np.full(Xc.shape[0], math.fsum(weights))
        out = np.zeros(Xc.shape[0])
        for t, g in enumerate(self.groups):
            cols = Xc[:, list(g)]
            out += weights[t] * np.einsum("ij,ij->i", cols, cols)
        return out

    # -- nesting ---------------------------------------------------------------------------------

    def _with_form(self, form: str) -> MultipleKernel:
        return MultipleKernel(
            [list(g) for g in self.groups],
            base=self.base,
            form=form,
            width_factors=self.width_factors,
            weight_bounds=self.weight_bounds,
            gamma_bounds=self.gamma_bounds,
            memory_budget=self.memory_budget,
        )

    def nested(self) -> tuple[KernelModel, ...]:
        """``(inner, self)`` for ``"weights"`` / ``"weights_widths"``; ``(self,)`` otherwise."""
        if self.form in _INNER_FORM:
            return (self._with_form(_INNER_FORM[self.form]), self)
        return (self,)

    def embed(self, params: Mapping[str, float], source: KernelModel) -> dict[str, float]:
        """Map parameters of ``source`` (this model or its nested inner model) into this space.

        From ``"common"`` every ``mu_*`` is the common ``mu``; from ``"common_width"`` every
        ``mu_t`` is ``mu`` and every ``gamma_t`` is ``gamma``. The Gram matrix is the same.
        """
        if self.form in _INNER_FORM:
            inner = self.nested()[0]
            if source == inner:
                p = inner.check_params(params)
                out = {n: p["mu"] for n in self._weight_names}
                if self.form == "weights_widths":
                    out.update({f"gamma_{t}": p["gamma"] for t in range(len(self.groups))})
                return self.check_params(out)
        return super().embed(params, source)

    # -- identity --------------------------------------------------------------------------------

    def _key(self) -> tuple[object, ...]:
        return (
            self.groups,
            self.base,
            self.form,
            self._factors if self._fixed_rbf else None,
            self._wb,
            self._gb if self.form in TUNED_WIDTHS else None,
        )

    def __eq__(self, other: object) -> bool:
        return type(other) is MultipleKernel and other._key() == self._key()

    def __hash__(self) -> int:
        return hash(("MultipleKernel", *self._key()))

    def __repr__(self) -> str:
        parts = [format_groups(self.groups), f"base={self.base!r}", f"form={self.form!r}"]
        if self._fixed_rbf and self._factors != _DEFAULTS["width_factors"]:
            parts.append(f"width_factors={self._factors}")
        if self._wb != _DEFAULTS["weight_bounds"]:
            parts.append(f"weight_bounds={self._wb}")
        if self.form in TUNED_WIDTHS and self._gb != _DEFAULTS["gamma_bounds"]:
            parts.append(f"gamma_bounds={self._gb}")
        if self.memory_budget != _DEFAULTS["memory_budget"]:
            parts.append(f"memory_budget={self.memory_budget}")
        return f"MultipleKernel({', '.join(parts)})"
