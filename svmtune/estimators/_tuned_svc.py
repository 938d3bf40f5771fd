"""A self-tuning SVM for scikit-learn code: tune with any (objective, tuner, kernel), then refit."""

from __future__ import annotations

import time
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from svmtune._validation import check_positive, densify
from svmtune.estimators._fit_data import check_fit_data
from svmtune.estimators._multiclass import (
    binary_problems,
    class_probabilities,
    name_classes_in_error,
    ovo_decision,
)
from svmtune.estimators._probability import out_of_fold_sigmoid
from svmtune.estimators._svc import SPARSE
from svmtune.estimators._tuned_cv import (
    chosen_index,
    cv_results,
    default_parts,
    fold_rows,
    index_of,
    problem_objective,
    search_attributes,
    weighted_objective,
)
from svmtune.estimators._tuned_parts import (
    Fitted,
    _canonical_order,
    _with,
    check_class_weight,
    check_combination,
    check_positive_weights,
    check_refit,
    final_estimator,
    folds_for,
    platt_sigmoid,
    problem_seeds,
)
from svmtune.kernels import KernelModel
from svmtune.objectives import Objective
from svmtune.tuners import Tuner, warm_up_method

__all__ = ["TunedSVC", "check_combination", "platt_sigmoid"]


class TunedSVC(ClassifierMixin, BaseEstimator):
    """An SVM that tunes its own hyperparameters when fitted, as ``GridSearchCV(SVC(), ...)``.

    ``fit(X, y)`` tunes ``objective`` with ``tuner`` over ``kernel``'s parameters (and ``C``,
    when the objective has one) on ``(X, y)``, then predicts with the classifier the objective
    estimated, at the best parameters found, trained on all of ``(X, y)``: the hinge-loss SVM
    (a :class:`svmtune.SVC`) for k-fold CV and the exact LOO error, Fischetti's kernel
    expansion for ``LOOEstimate``, the SVM with the threshold of Platt's sigmoid for
    ``PlattError``. So ``best_score_`` estimates the error of the classifier that predicts.
    ``predictor="svm"`` trains the hinge SVM instead whatever the objective (with ``C`` below when
    the objective tunes none). Objective values are error estimates (lower is better);
    ``best_score_`` is scikit-learn's score, higher is better (``1 - best_error_``).

    The default, ``TunedSVC()``, is 5-fold cross-validation of the soft-margin SVM on the 5 x 5
    grid of ``(C, gamma)`` of an RBF kernel (``C`` in 0.1..1000, ``gamma`` in 0.001..10,
    log-spaced): the usual ``GridSearchCV(SVC(), ..., cv=5)`` recipe, so that what is tuned is
    the very classifier that predicts, and ``C`` is tuned too. On the same grid and folds it
    picks the setting ``GridSearchCV(sklearn.svm.SVC(), grid, cv=its cv_folds_)`` picks, on
    less CPU: 1/3.8 on the peers study's few hundred points; one Gram matrix per ``gamma``,
    shared by the folds and the five ``C``, while it fits ``KFoldCV``'s memory budget (4,096
    points at the default 256 MiB), else each fold on its own cached rows. On 5,000 to 13,000
    points of real data (``python benchmarks/tunedsvc_vs_gridsearch.py``, quiet 2-core machines)
    that is 0.56-0.74 of ``GridSearchCV``'s CPU on a Xeon (AVX-512), 0.34-0.52 on an AMD EPYC
    (AVX2): one SMO fit's ratio to one LIBSVM fit on each, both training the same 125 folds. When
    speed matters more, Fischetti's LOO estimates tune ``gamma`` alone by bisection in a
    fraction of the time:
    ``TunedSVC(objective=LOOEstimate(model="loo3"), tuner=Bisection())``; they have no ``C``
    and predict with Fischetti's kernel expansion (on scikit-learn's breast_cancer in a scaling
    pipeline, 5 stratified folds: accuracy 0.958 with LOO_2 and 0.961 with LOO_3, against 0.741
    / 0.803 for a hinge SVM with ``C = 1`` refit at the same ``gamma``, ``predictor="svm"``;
    ``benchmarks/tunedsvc_loo.py``).

    A binary problem whose smaller class has fewer points than k-fold CV's ``k`` (at least 2)
    is cross-validated with that many folds, with a warning.

    Multi-class problems are split into binary ones, each tuned on its own: one-vs-one (each
    pair of classes, as Adankon et al. on MNIST; prediction by votes, ties broken by the summed
    confidences as scikit-learn's ``SVC``) or one-vs-rest (the largest decision value wins).
    Rows are put in a canonical order (by class, then by feature values) before tuning, so the
    result does not depend on the order of the samples.

    Parameters
    ----------
    objective : Objective, default ``KFoldCV(k=5)``
        How good a setting is (an error estimate; lower is better).
    tuner : Tuner, default ``Grid(n_points=5)``
        Which settings to try.
    kernel : KernelModel, default ``RBF()``
        Which hyperparameters exist.
    C : float, default 1.0
        The hinge SVM's ``C`` with ``predictor="svm"`` when the objective does not tune one
        (Fischetti's LOO estimates); ignored otherwise, and for kernels that carry their own
        scale (``C = 1`` there).
    refit : bool, str or callable, default True
        As ``GridSearchCV``'s: True trains what predicts on all the data at the best setting;
        False only tunes (``best_params_``, ``cv_results_``; no ``best_estimator_``, and
        ``predict`` raises AttributeError); the metric's name (``scoring``, or "accuracy"
        without one) is True; a callable ``cv_results_ -> index`` picks the setting instead
        (per binary problem; ``best_score_`` and ``best_error_`` are then not set).
    predictor : {"objective", "svm"}, default "objective"
        What predicts: the classifier the objective estimated (see above), or the hinge-loss
        SVM at the tuned parameters.
    multi_class : {"ovo", "ovr"}, default "ovo"
        One-vs-one or one-vs-rest for more than two classes.
    probability : bool, default False
        Also fit Platt's sigmoid on out-of-fold decision values (5 stratified folds, fewer if a
        class has fewer than 5 points; the tuned parameters fixed, as LIBSVM and
        ``sklearn.svm.SVC(probability=True)`` do) to enable :meth:`predict_proba`; multi-class
        probabilities couple the pairwise ones (Wu, Lin and Weng's second method, as LIBSVM)
        or normalize the one-vs-rest ones.
    random_state : int, RandomState or None, default None
        Seed of the tuner (and of an objective whose own ``random_state`` is None) and of the
        probability folds. With two classes an integer is passed on as it is (so
        ``tuner.tune(..., random_state=seed)`` by hand gives the same result); each problem of
        a multi-class fit gets a child seed (``SeedSequence([seed, problem])``).
    n_jobs : int, optional
        Binary problems tuned in parallel (joblib semantics).
    scoring : {"accuracy", "balanced_accuracy", "roc_auc", "f1"}, optional
        The k-fold objective's fold score (scikit-learn's scorer names; "f1" and "roc_auc"
        take ``classes_[1]`` as positive). Given (or any of ``cv``, ``class_weight``,
        ``sample_weight``), the k-fold objective becomes
        :class:`~svmtune.objectives.scored_cv.ScoredCV`: the mean fold score, on the folds
        ``GridSearchCV`` makes, with ``cv_results_`` split scores; ``best_params_``,
        ``best_score_`` and ``cv_results_`` then match ``GridSearchCV(SVC(), grid, cv=...,
        scoring=...)`` on the same grid (tested). The default pooled-error ``KFoldCV`` is faster.
    cv : int or scikit-learn splitter, optional
        Folds of the k-fold objective: an int is ``StratifiedKFold(cv)``; a splitter's
        ``split(X, y)`` sees the rows in the order given to ``fit``.
    class_weight : None, "balanced" or dict class -> weight, optional
        Multiplies ``C`` per class in the SVM (as scikit-learn's ``SVC``).

    Attributes
    ----------
    best_params_ : dict, or list of dict (multi-class)
        The tuned parameters (``C`` included when tuned), per binary problem for multi-class.
    best_score_ : float, or ndarray (multi-class)
        ``1 - best_error_``: higher is better, as ``GridSearchCV.best_score_`` (an accuracy
        estimate, or the mean fold ``scoring``).
    best_error_ : float, or ndarray (multi-class)
        The objective's value at ``best_params_`` (an error estimate, lower is better).
    best_index_ : int, or list of int (multi-class)
        Index of ``best_params_`` in ``cv_results_``.
    cv_results_ : dict of arrays, or list of them (multi-class)
        As ``GridSearchCV.cv_results_``, one entry per setting evaluated on all the data:
        ``params``, ``param_<name>``, ``split<i>_test_score`` (k-fold objectives),
        ``mean_test_score``, ``std_test_score``, ``rank_test_score`` (ties share the smallest
        rank), ``mean/std_fit_time``, ``mean/std_score_time``. With the default pooled-error
        ``KFoldCV`` the mean and std weigh the folds by their sizes (the mean is ``1 -`` the
        objective's value); objectives without folds have no split columns and NaN where
        nothing was measured (docs/tunedsvc.md).
    cv_folds_ : list of (train, test) index arrays, or None; a list of them (multi-class)
        The folds of the ``split<i>_test_score`` columns, as row indices into the ``X`` given
        to ``fit`` (None for objectives without folds).
    best_estimator_ : svmtune.SVC or KernelExpansion, or a list of them (multi-class)
        What predicts, trained on all the (problem's) data at ``best_params_``: a
        :class:`svmtune.SVC` for the hinge SVM, else the objective's
        :class:`~svmtune.classifier.KernelExpansion` (labels -1 / +1 for ``classes_[0]`` /
        ``classes_[1]`` of the problem).
    tuning_result_ : TuningResult, or list of TuningResult (multi-class)
    trace_ : pandas.DataFrame
        Every evaluation of the tuning (see :class:`~svmtune.tuners.TuningResult`); a
        ``problem`` column names the binary problem (``"a vs b"``, ``"a vs rest"``).
    problems_ : list of (int, int or None)
        Class indices of each binary problem: (negative, positive); one-vs-rest problems are
        ``(None, c)``.
    refit_time_ : float
        Seconds spent training the final SVM(s) (and the probability folds) after tuning.
    classes_ : ndarray
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` had string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from svmtune import TunedSVC
    >>> from svmtune.objectives import LOOEstimate
    >>> from svmtune.tuners import Bisection
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(-1, 1, (30, 2)), rng.normal(1, 1, (30, 2))])
    >>> y = np.repeat(["no", "yes"], 30)
    >>> clf = TunedSVC(objective=LOOEstimate(model="loo2"), tuner=Bisection()).fit(X, y)
    >>> sorted(clf.best_params_), clf.predict([[-2.0, -2.0], [2.0, 2.0]]).tolist()
    (['gamma'], ['no', 'yes'])
    """

    def __init__(
        self,
        *,
        objective: Objective | None = None,
        tuner: Tuner | None = None,
        kernel: KernelModel | None = None,
        C: float = 1.0,
        refit: Any = True,
        predictor: Literal["objective", "svm"] = "objective",
        multi_class: Literal["ovo", "ovr"] = "ovo",
        probability: bool = False,
        random_state: int | np.random.RandomState | None = None,
        n_jobs: int | None = None,
        scoring: str | None = None,
        cv: Any = None,
        class_weight: Any = None,
    ) -> None:
        self.objective = objective
        self.tuner = tuner
        self.kernel = kernel
        self.C = C
        self.refit = refit
        self.predictor = predictor
        self.multi_class = multi_class
        self.probability = probability
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.scoring = scoring
        self.cv = cv
        self.class_weight = class_weight

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # densified (svmtune._validation.densify)
        return tags

    # -- options -----------------------------------------------------------------------------
    def set_params(self, **params: Any) -> TunedSVC:
        """Set options, nested ones too (``objective__k=3``, ``tuner__max_evals=18``,
        ``kernel__gamma_bounds=...``): a part left at its default (None) is first made the
        default object (``KFoldCV(k=5)``, ``Grid(n_points=5)``, ``RBF()``), so
        ``GridSearchCV(TunedSVC(), {"objective__k": [3, 5]})`` runs.

        Examples
        --------
        >>> TunedSVC().set_params(objective__k=3).objective
        KFoldCV(k=3)
        """
        defaults = default_parts()
        for key in params:
            part = key.partition("__")[0]
            if part in defaults and "__" in key and getattr(self, part) is None:
                if part not in params:
                    setattr(self, part, defaults[part])
        return super().set_params(**params)

    def _parts(self) -> tuple[Objective, Tuner, KernelModel]:
        defaults = default_parts()
        objective = defaults["objective"] if self.objective is None else self.objective
        tuner = defaults["tuner"] if self.tuner is None else self.tuner
        kernel = defaults["kernel"] if self.kernel is None else self.kernel
        check_combination(objective, tuner, kernel)
        return objective, tuner, kernel

    def _check_options(self) -> tuple[Objective, Tuner, KernelModel, float]:
        parts = self._parts()
        C = check_positive(self.C, name="C")
        if self.predictor not in ("objective", "svm"):
            raise ValueError(f"predictor must be 'objective' or 'svm'; got {self.predictor!r}")
        check_refit(self.refit, self.scoring)
        if self.multi_class not in ("ovo", "ovr"):
            raise ValueError(f"multi_class must be 'ovo' or 'ovr'; got {self.multi_class!r}")
        if not isinstance(self.probability, bool | np.bool_):
            raise ValueError(f"probability must be True or False; got {self.probability!r}")
        return (*parts, C)

    # -- fitting -----------------------------------------------------------------------------
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> TunedSVC:
        """Tune on ``(X, y)``, then train the final SVM(s) on all of it.

        ``X`` may be a scipy.sparse matrix: it is densified (the same model as the dense array;
        at most :data:`svmtune._validation.DENSIFY_LIMIT_BYTES`). ``sample_weight`` multiplies
        each point's ``C`` (as scikit-learn's ``SVC.fit``) in the cross-validation folds and
        the final SVM; it needs the k-fold objective. Weights are checked as scikit-learn's
        ``SVC`` does: none negative, and some of positive weight in both classes of every
        binary problem."""
        objective, tuner, kernel, C = self._check_options()
        Xc, yv, sw, classes, codes = check_fit_data(self, X, y, sample_weight)
        class_weight = check_class_weight(self.class_weight, classes)
        objective = weighted_objective(
            objective,
            scoring=self.scoring,
            cv=self.cv,
            class_weight=class_weight,
            sample_weight=sw is not None,
        )
        kernel._check_features(Xc.shape[1])
        k = classes.size
        problems = binary_problems(k, self.multi_class)
        check_positive_weights(class_weight, sw, codes, classes, problems)
        order = _canonical_order(Xc, codes)
        Xs, cs, ys = Xc[order], codes[order], yv[order]
        seeds = problem_seeds(self.random_state, len(problems))
        from joblib import Parallel, delayed  # ~0.2 s to import: only when used

        fitted = Parallel(n_jobs=self.n_jobs)(
            delayed(self._fit_problem)(
                objective,
                tuner,
                kernel,
                C,
                Xs,
                cs,
                ys if k == 2 else None,
                prob,
                s,
                classes,
                (order, None if sw is None else sw[order]),
            )
            for prob, s in zip(problems, seeds, strict=True)
        )
        self.classes_ = classes
        self.problems_ = problems
        self._fitted = fitted
        self._multi_class = self.multi_class  # what predictions follow, whatever set_params does
        self._refit = bool(self.refit)  # a callable is truthy, False is not
        for name, value in search_attributes(fitted, classes, problems, self.refit).items():
            setattr(self, name, value)
        return self

    def _fit_problem(
        self,
        objective: Objective,
        tuner: Tuner,
        kernel: KernelModel,
        C: float,
        X: NDArray[np.float64],
        codes: NDArray[np.intp],
        labels: NDArray[Any] | None,
        problem: tuple[int | None, int],
        seed: int,
        classes: NDArray[Any],
        rows: tuple[NDArray[np.intp], NDArray[np.float64] | None],
    ) -> Fitted:
        neg, pos = problem
        mask = np.ones(codes.shape[0], dtype=bool) if neg is None else np.isin(codes, [neg, pos])
        Xp = X[mask]
        yb = np.where(codes[mask] == pos, 1.0, -1.0)
        order, weights = rows
        objective = problem_objective(
            objective,
            rows=order[mask],
            classes=classes,
            problem=problem,
            sample_weight=None if weights is None else weights[mask],
        )
        if getattr(objective, "random_state", 0) is None:
            objective = _with(objective, random_state=seed)
        objective = folds_for(objective, yb)  # as many as the smaller class allows
        try:
            warm_up_method(objective, tuner, kernel, Xp, yb)  # untimed, as Tuner.tune does
            bound = objective.bind(Xp, yb, kernel=kernel)
            result = tuner.tune_bound(bound, random_state=seed)
        except ValueError as exc:
            raise name_classes_in_error(exc, classes, problem, yb) from None
        records = getattr(bound, "records", None)
        folds = getattr(bound, "folds", None) if records else None
        cv = cv_results(result, records, folds, tuner=tuner)
        folds = None if folds is None else fold_rows(folds, order[mask])
        if callable(self.refit):
            index = chosen_index(self.refit, cv)
            params = dict(cv["params"][index])
        else:
            params = dict(result.best_params)
            index = index_of(cv, params)
        t0 = time.perf_counter()
        estimator: Any = None
        sigmoid = None
        if self.refit:
            estimator = final_estimator(
                self.predictor,
                bound,
                result,
                kernel,
                C,
                params,
                Xp,
                yb if labels is None else labels[mask],
            )
            if self.probability:
                sigmoid = out_of_fold_sigmoid(
                    estimator, Xp, yb, objective=objective, kernel=kernel, params=params, seed=seed
                )
        return Fitted(
            result, estimator, sigmoid, time.perf_counter() - t0, cv, index, params, folds
        )

    # -- prediction --------------------------------------------------------------------------
    def _binary_decisions(self, X: ArrayLike) -> NDArray[np.float64]:
        check_is_fitted(self)
        if not self._refit:
            raise AttributeError(
                "This TunedSVC instance was initialized with `refit=False`. Predictions are "
                "available only after refitting on the best parameters; refit an estimator "
                "by hand at `best_params_`, or fit with refit=True"
            )
        Xc = validate_data(self, X, dtype=np.float64, order="C", reset=False, accept_sparse=SPARSE)
        Xc = densify(Xc)
        return np.column_stack([f.estimator.decision_function(Xc) for f in self._fitted])

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Binary: ``f(x)``, positive for ``classes_[1]``. Multi-class: shape
        ``(n_samples, n_classes)``, one-vs-rest decision values, or one-vs-one votes plus the
        summed confidences squashed into (-1/3, 1/3) (scikit-learn's ``SVC`` convention)."""
        d = self._binary_decisions(X)
        k = self.classes_.size
        if k == 2:
            return d[:, 0]
        if self._multi_class == "ovr":
            return d
        return ovo_decision(d, self.problems_, k)

    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """The predicted class of each row."""
        d = self.decision_function(X)
        if d.ndim == 1:
            return self.classes_[(d >= 0.0).astype(np.intp)]
        return self.classes_[np.argmax(d, axis=1)]

    def _has_probability(self) -> bool:
        if not self.probability:
            raise AttributeError(
                "predict_proba is available only when TunedSVC is built with probability=True "
                "(which fits Platt's sigmoid on out-of-fold decision values during fit)"
            )
        return True

    @available_if(_has_probability)
    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Class probabilities, shape ``(n_samples, n_classes)``, columns in ``classes_`` order."""
        d = self._binary_decisions(X)
        sig = [f.sigmoid for f in self._fitted]
        if any(s is None for s in sig):
            raise AttributeError("this TunedSVC was fitted with probability=False; fit it again")
        p = np.column_stack([s(d[:, i]) for i, s in enumerate(sig) if s is not None])
        return class_probabilities(p, self.problems_, self.classes_.size)

    @available_if(_has_probability)
    def predict_log_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Logarithm of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))
