"""Your own data in a study: a bundled set, a CSV file, a DataFrame and a LIBSVM file.

Four data sets in four forms, each with labels of its own kind, all mapped to -1/+1 once when
the study is defined (``study.labels`` shows how; ``svmtune run`` prints it):

- ``heart``: a bundled data set, by name;
- ``studies/data/bupa.csv``: a CSV file with a header, its last column the 0/1 labels;
- ``thyroid``: a pandas DataFrame whose ``class`` column holds the strings
  ``negative``/``positive``;
- ``studies/data/wisconsin.libsvm``: a LIBSVM-format file with the labels 2 and 4.

Three methods (LOO_2 and LOO_3 by bisection, the SVM by 5-fold CV on a 4 x 4 grid), three
70/30 splits each: 36 tuning runs, well under a minute on two cores.

    svmtune run studies/your_data.py
"""

from pathlib import Path

import pandas as pd

from svmtune.kernels import RBF
from svmtune.objectives import KFoldCV, LOOEstimate
from svmtune.study import Method, Study
from svmtune.tuners import Bisection, Grid

DATA = Path(__file__).resolve().parent / "data"

study = Study(
    "your_data",
    datasets={
        "heart": "heart",  # bundled
        "bupa": DATA / "bupa.csv",  # labels 0/1 in the last column
        "thyroid": pd.read_csv(DATA / "thyroid.csv"),  # labels in the "class" column
        "wisconsin": DATA / "wisconsin.libsvm",  # labels 2/4
    },
    split="fischetti",
    n_splits=3,
    methods={
        "LOO2+bisection": Method(LOOEstimate(model="loo2"), Bisection(), RBF()),
        "LOO3+bisection": Method(LOOEstimate(model="loo3"), Bisection(), RBF()),
        "SVM 5-fold CV+grid": Method(KFoldCV(k=5), Grid(n_points=4), RBF()),
    },
)
