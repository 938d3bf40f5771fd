"""The estimators room: scikit-learn classifiers built on the solvers, objectives and tuners.

What the rest may use is named here; the modules behind it are private. :class:`SVC` is a
kernel SVM solved by SMO (``_svc.py``); :class:`TunedSVC` tunes its own hyperparameters
(``_tuned_svc.py``), with the checks of the data it is fitted on (``_fit_data.py``), its
defaults and the parts it builds from them (``_tuned_parts.py``), its search results and
scoring (``_tuned_cv.py``), its multi-class problems, votes and pairwise coupling
(``_multiclass.py``) and its probabilities, a Platt sigmoid fitted on out-of-fold decision
values (``_probability.py``). ``from svmtune import SVC, TunedSVC`` works as well.

Examples
--------
>>> from svmtune.estimators import SVC, TunedSVC
"""

from svmtune.estimators._multiclass import class_probabilities, couple_pairwise
from svmtune.estimators._svc import SVC
from svmtune.estimators._tuned_svc import TunedSVC, check_combination, platt_sigmoid

__all__ = [
    "SVC",
    "TunedSVC",
    "check_combination",
    "class_probabilities",
    "couple_pairwise",
    "platt_sigmoid",
]
