"""Fischetti's Fig. 2: an objective's estimate and the test error along one parameter."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from svmtune.study.figures._axes import panel_grid
from svmtune.study.figures._output import legible

if TYPE_CHECKING:  # matplotlib is imported where a figure is made, not with this module
    from matplotlib.figure import Figure

__all__ = ["plot_parameter_curves"]


def plot_parameter_curves(
    curves: pd.DataFrame,
    *,
    by: str = "objective",
    title: str | None = None,
    estimate_label: str = "loo estimate (training part)",
    test_label: str = "true misclassification (test part)",
) -> Figure:
    """Fischetti's Fig. 2: an objective's estimate and the test error along one parameter.

    Parameters
    ----------
    curves : DataFrame
        Rows of :func:`svmtune.study.parameter_curve`, several objectives concatenated.
    by : str, default "objective"
        The column naming the panels.
    title, estimate_label, test_label : str

    Examples
    --------
    >>> import pandas as pd
    >>> c = pd.DataFrame({"objective": ["LOO2"] * 3, "param": ["gamma"] * 3,
    ...                   "value": [0.05, 0.1, 0.2], "estimate": [0.2, 0.15, 0.18],
    ...                   "test_error": [0.22, 0.17, 0.19]})
    >>> plot_parameter_curves(c).axes[0].get_xlabel()
    'gamma'
    """
    panels = list(dict.fromkeys(curves[by]))
    fig, axes = panel_grid(len(panels), height=2.4)
    for ax, p in zip(axes, panels, strict=True):
        c = curves[curves[by] == p].sort_values("value")
        ax.plot(
            c["value"], 100 * c["estimate"], linestyle="--", color="tab:blue", label=estimate_label
        )
        ax.plot(c["value"], 100 * c["test_error"], color="tab:red", label=test_label)
        if c["estimate"].notna().any():
            best = c.loc[c["estimate"].idxmin()]
            ax.axvline(best["value"], color="0.5", linewidth=0.8, linestyle=":")
        pname = str(c["param"].iloc[0]) if "param" in c.columns and len(c) else "parameter"
        ax.set_xlabel(pname, fontsize=8)
        ax.set_ylabel("misclassification [%]", fontsize=8)
        ax.set_title(str(p))
        ax.grid(True, alpha=0.3)
    if axes:
        handles, labels = axes[0].get_legend_handles_labels()
        handles.append(axes[0].axvline(np.nan, color="0.5", linewidth=0.8, linestyle=":"))
        labels.append("minimum of the estimate")
        fig.legend(handles, labels, loc="outside lower center", ncols=2, fontsize=7)
    if title:
        fig.suptitle(title, fontsize=9)
    return legible(fig)
