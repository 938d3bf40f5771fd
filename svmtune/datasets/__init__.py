"""Bundled real data sets (KEEL copies of UCI data) and the papers' split protocols.

- :func:`user_data` turns one's own data (arrays, a DataFrame, a CSV / KEEL / LIBSVM file) into
  a checked binary task; :func:`binary_labels` maps any two labels to -1/+1; :func:`read_file`
  reads a file without loss; :func:`fingerprint` hashes a loaded data set (a study stores it).
- :func:`load` a binary task by name, :func:`list_datasets` to see them all,
  :func:`dataset_info` for what one of them is (:class:`DatasetInfo`: size, papers, notes),
  :func:`load_groups` for multiple-kernel feature groups, :func:`feature_names`,
  :func:`n_rows`; the benchmark suite (42 problems, its selection rule): :data:`SUITE`,
  :func:`load_problem`, :func:`suite_table`.
- Breiman's synthetic problems at any size from a seed: :func:`generate` (``twonorm``,
  ``ringnorm``, ``threenorm``, ``waveform``), :data:`GENERATORS`, :func:`generator_table`.
- Split protocols, all seeded through :func:`numpy.random.default_rng` and all returning
  standardized ``(X_train, y_train, X_test, y_test)``: :func:`fischetti_split` (Fischetti 2016),
  :func:`ratsch_split` (Ratsch's benchmark sizes, Carrizosa 2014 Table 1),
  :func:`holdout_split` (stratified holdout); :func:`stratified_kfold` for k-fold indices;
  :func:`standardize` and :func:`restrict_groups` underneath.

``mfeatEO4``, ``mfeatEO6``, ``mfeatSL4``, ``mfeatSL6`` are the UCI multiple-features digits
(views in ``data/mfeat-*.csv.gz``; :func:`load_groups` gives the views, :func:`mfeat_info` the
sizes). The KEEL data files are ``data/*.dat.gz``; UCI data is under CC BY 4.0 (cite the UCI
repository and KEEL, Alcala-Fdez et al. 2011). See ``data/README.md``.
"""

from svmtune.datasets._breiman import GENERATORS, generate, generator_table, waveform_bases
from svmtune.datasets._fingerprint import fingerprint
from svmtune.datasets._load import feature_names, list_datasets, load, load_groups, n_rows
from svmtune.datasets._mfeat import mfeat_info
from svmtune.datasets._registry import DatasetInfo, dataset_info
from svmtune.datasets._splits import (
    Split,
    fischetti_indices,
    fischetti_split,
    holdout_indices,
    holdout_split,
    ratsch_indices,
    ratsch_split,
    stratified_kfold,
)
from svmtune.datasets._standardize import Standardized, restrict_groups, standardize
from svmtune.datasets._suite import (
    SUITE,
    SuiteLoader,
    load_problem,
    suite_problems,
    suite_table,
)
from svmtune.datasets._user_data import UserData, binary_labels, read_file, user_data

__all__ = [
    "GENERATORS",
    "SUITE",
    "Split",
    "Standardized",
    "SuiteLoader",
    "DatasetInfo",
    "UserData",
    "binary_labels",
    "dataset_info",
    "feature_names",
    "fingerprint",
    "fischetti_indices",
    "fischetti_split",
    "generate",
    "generator_table",
    "holdout_indices",
    "holdout_split",
    "list_datasets",
    "load",
    "load_groups",
    "load_problem",
    "mfeat_info",
    "n_rows",
    "ratsch_indices",
    "ratsch_split",
    "read_file",
    "restrict_groups",
    "standardize",
    "stratified_kfold",
    "suite_problems",
    "suite_table",
    "user_data",
    "waveform_bases",
]
