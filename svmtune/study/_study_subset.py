"""Study.subset: the same study on some of its data sets, splits or another storage."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any


class StudySubset:
    """What :class:`svmtune.study.Study` inherits to copy itself in part."""

    name: str
    datasets: Any
    methods: Any
    split: Any
    n_splits: int
    seed: int
    test_size: float
    max_seconds: float | None
    storage: str | None
    bounds: Any
    baseline: str | None
    left_out: Any
    _dataset_names: Callable[[], list[str]]  # the labels of the data sets (Study's)

    def subset(
        self,
        *,
        datasets: Sequence[str] | None = None,
        n_splits: int | None = None,
        storage: str | None = None,
    ) -> Any:
        """The same study on some of its data sets, splits or another storage.

        Name, seed, methods, split rule, test size, time limit, bounds, baseline and notes are
        kept, so its cells are the study's own: a subset resumes what the whole stored, and
        the whole resumes what a subset stored.

        Parameters
        ----------
        datasets : sequence of str, optional
            The labels to keep (as in ``results()["dataset"]``); all when omitted.
        n_splits : int, optional
            Splits per data set; the study's when omitted.
        storage : str, optional
            Database URL; the study's when omitted.

        Returns
        -------
        Study

        Raises
        ------
        ValueError
            Naming the labels that are not data sets of the study.

        Examples
        --------
        >>> from svmtune.kernels import RBF
        >>> from svmtune.objectives import KFoldCV
        >>> from svmtune.study import Method, Study
        >>> from svmtune.tuners import Grid
        >>> m = Method(KFoldCV(k=3), Grid(values={"C": [1.0], "gamma": [0.1]}), RBF())
        >>> s = Study("two", datasets={"Heart": "heart", "Sonar": "sonar"}, methods={"cv": m})
        >>> s.subset(datasets=["Sonar"], n_splits=2)
        Study('two', 1 data sets, 1 methods, split='holdout', n_splits=2)
        """
        chosen: Any = self.datasets
        if datasets is not None:
            labels = self._dataset_names()
            unknown = sorted(set(datasets) - set(labels))
            if unknown:
                raise ValueError(
                    f"data sets not in study {self.name!r}: {unknown}; it has {labels}"
                )
            if isinstance(self.datasets, Mapping):
                chosen = {k: v for k, v in self.datasets.items() if k in datasets}
            else:
                chosen = [
                    d for d, label in zip(self.datasets, labels, strict=True) if label in datasets
                ]
        study: Any = type(self)  # svmtune.study.Study, whose constructor takes these
        return study(
            self.name,
            datasets=chosen,
            methods=self.methods,
            split=self.split,
            n_splits=self.n_splits if n_splits is None else n_splits,
            seed=self.seed,
            test_size=self.test_size,
            max_seconds=self.max_seconds,
            storage=self.storage if storage is None else storage,
            bounds=self.bounds,
            baseline=self.baseline,
            left_out=self.left_out,
        )
