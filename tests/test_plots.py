"""Plots: pure functions from DataFrames to labelled matplotlib Figures; PNG files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure

from svmtune.study.figures import (
    plot_best_so_far,
    plot_error_vs_time,
    plot_parameter_curves,
    save_plots,
)

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def results():
    rows = []
    # cheap-and-bad, mid, expensive-and-good, and a dominated method (slow and bad)
    spec = {"cheap": (0.01, 0.30), "mid": (0.1, 0.20), "good": (1.0, 0.10), "bad": (2.0, 0.35)}
    for d in ("a", "b"):
        for s in range(3):
            for m, (t, e) in spec.items():
                rows.append((d, s, m, "ok", t * (1 + 0.1 * s), e + 0.01 * s, e))
    rows.append(("a", 3, "good", "failed", np.nan, np.nan, np.nan))
    return pd.DataFrame(
        rows,
        columns=["dataset", "split", "method", "status", "cpu_s", "test_error", "objective_value"],
    )


@pytest.fixture
def traces():
    rows = []
    for d in ("a", "b"):
        for s in range(2):
            for m, scale in (("cheap", 0.01), ("good", 1.0)):
                best = 1.0
                for i, v in enumerate([0.4, 0.3, 0.35, 0.2]):
                    best = min(best, v)
                    rows.append((d, s, m, i, scale * (i + 1), v, best))
    return pd.DataFrame(
        rows, columns=["dataset", "split", "method", "eval", "cum_cpu_s", "value", "best_value"]
    )


def legend_texts(fig: Figure) -> list[str]:
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend()] + list(fig.legends)
    return [t.get_text() for leg in legends for t in leg.get_texts()]


def test_error_vs_time_is_labelled_and_marks_the_pareto_front(results):
    fig = plot_error_vs_time(results)
    (ax,) = fig.axes
    assert ax.get_xscale() == "log"
    assert ax.get_xlabel() == "CPU time per tuning run [s]"
    assert ax.get_ylabel() == "test error [%]"
    assert "mean over 2 data sets" in ax.get_title()
    texts = legend_texts(fig)
    assert {"cheap", "mid", "good", "bad"} <= set(texts)
    assert any("Pareto front" in t for t in texts)
    ring = next(c for c in ax.collections if c.get_label().startswith("Pareto front"))
    ringed = {round(float(y), 6) for y in ring.get_offsets()[:, 1]}
    # the dominated method "bad" (slower and worse than "good") is not on the front
    assert ringed == {31.0, 21.0, 11.0}


def test_error_vs_time_per_data_set(results):
    fig = plot_error_vs_time(results, by_dataset=True, time="cpu_s")
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["a", "b"]
    assert all(ax.get_xscale() == "log" and "[s]" in ax.get_xlabel() for ax in visible)
    assert {"cheap", "good"} <= set(legend_texts(fig))


def test_failed_cells_are_not_drawn(results):
    ax = plot_error_vs_time(results, runs=True).axes[0]  # single runs drawn too
    cells = [
        c.get_offsets()
        for c in ax.collections
        if isinstance(c, PathCollection) and not c.get_label().startswith("Pareto")
    ]
    assert sum(len(o) for o in cells) == 24  # 2 data sets x 3 splits x 4 methods, not the failed
    assert np.isfinite(np.concatenate(cells)).all()


def test_best_so_far(traces):
    fig = plot_best_so_far(traces, objectives={"cheap": "LOO_2", "good": "LOO_2"})
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["a: LOO_2", "b: LOO_2"]
    ax = visible[0]
    assert ax.get_xscale() == "log"
    assert fig.get_supylabel() == "best value so far [%]"  # one label for the panels
    assert "[s]" in visible[-1].get_xlabel()  # under the lowest panel of the column
    assert set(legend_texts(fig)) == {"cheap", "good"}
    mean = next(line for line in ax.get_lines() if line.get_label() == "cheap")
    assert mean.get_ydata()[-1] == pytest.approx(20.0)


def test_parameter_curves():
    curves = pd.concat(
        [
            pd.DataFrame(
                {
                    "objective": name,
                    "param": "gamma",
                    "value": [0.05, 0.1, 0.2],
                    "estimate": [0.3, 0.2 + shift, 0.25],
                    "test_error": [0.32, 0.22, 0.27],
                }
            )
            for name, shift in (("LOO_1", 0.0), ("LOO_2", -0.05))
        ]
    )
    fig = plot_parameter_curves(curves, title="Fig. 2")
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["LOO_1", "LOO_2"]
    est, test = visible[1].get_lines()[:2]
    assert est.get_linestyle() == "--"
    assert list(est.get_ydata()) == pytest.approx([30.0, 15.0, 25.0])
    assert list(test.get_ydata()) == pytest.approx([32.0, 22.0, 27.0])
    assert visible[0].get_xlabel() == "gamma" and "[%]" in visible[0].get_ylabel()
    assert any("estimate" in t for t in legend_texts(fig))


def test_save_plots_writes_pngs(results, traces, tmp_path):
    paths = save_plots(results, traces, tmp_path / "plots")
    assert [p.name for p in paths] == [
        f"{name}.{ext}"
        for name in ("error_vs_time", "error_vs_time_by_dataset", "best_so_far")
        for ext in ("png", "pdf")
    ]
    assert all(p.read_bytes()[:8] == PNG for p in paths if p.suffix == ".png")
    assert all(p.read_bytes()[:5] == b"%PDF-" for p in paths if p.suffix == ".pdf")
    svg = save_plots(results, traces, tmp_path / "svg", formats="svg")
    assert [p.suffix for p in svg] == [".svg"] * 3


def test_save_plots_with_nothing_to_draw(tmp_path):
    empty = pd.DataFrame(columns=["dataset", "split", "method", "status", "cpu_s", "test_error"])
    assert save_plots(empty, pd.DataFrame(), tmp_path) == []


def test_best_so_far_puts_each_objective_on_its_own_axes(traces):
    """Values of different objective families never share an axis; the figure says what bold
    is."""
    fig = plot_best_so_far(traces, objectives={"cheap": "LOO_2", "good": "KFoldCV"})
    visible = [ax for ax in fig.axes if ax.get_visible()]
    titles = [ax.get_title() for ax in visible]
    assert titles == ["a: LOO_2", "a: CV error", "b: LOO_2", "b: CV error"]
    for ax in visible:
        labels = {
            line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")
        }
        assert labels == ({"cheap"} if ax.get_title().endswith("LOO_2") else {"good"})
    suptitle = " ".join(fig.get_suptitle().split())  # wrapped to the figure's width
    assert "one panel per data set and objective" in suptitle
    assert "from when every run has its first value" in suptitle
    # without objectives, each method is taken to have its own
    fig = plot_best_so_far(traces)
    assert len([ax for ax in fig.axes if ax.get_visible()]) == 4


def test_figures_name_the_time_they_show_one_way(results):
    fig = plot_error_vs_time(results, by_dataset=True)
    assert "CPU time" in fig.get_suptitle() and "compute time" not in fig.get_suptitle()
    assert all("CPU time" in ax.get_xlabel() for ax in fig.axes if ax.get_visible())
    fig = plot_error_vs_time(
        results.assign(wall_s=results["cpu_s"]), by_dataset=True, time="wall_s"
    )
    assert "wall-clock time" in fig.get_suptitle()


def test_objective_labels_group_equal_objectives():
    from svmtune.kernels import RBF
    from svmtune.objectives import KFoldCV, LOOEstimate
    from svmtune.study import Method, objective_labels
    from svmtune.tuners import Bisection, Grid

    methods = {
        "LOO2+bisection": Method(LOOEstimate(model="loo2"), Bisection(), RBF()),
        "LOO2+grid": Method(LOOEstimate(model="loo2"), Grid(), RBF()),
        "LOO3+grid": Method(LOOEstimate(model="loo3"), Grid(), RBF()),
        "CV": Method(KFoldCV(k=5), Grid(), RBF()),
    }
    labels = objective_labels({k: m.describe() for k, m in methods.items()})
    assert labels == {
        "LOO2+bisection": "LOOEstimate(model='loo2')",
        "LOO2+grid": "LOOEstimate(model='loo2')",
        "LOO3+grid": "LOOEstimate(model='loo3')",
        "CV": "KFoldCV",
    }
    # a method type with its own record, and an old stored definition, get a label too
    assert objective_labels({"peer": {"peer": "x"}, "old": {"objective": "LOOEstimate()"}}) == {
        "peer": "peer",
        "old": "LOOEstimate()",
    }


def test_the_plots_are_public_in_the_study_figures_room():
    """``svmtune.study.figures`` names every drawing function of its modules (the one public
    place of the plots); no module of ``svmtune.study`` imports the command line."""
    import ast
    from pathlib import Path

    import svmtune.study
    import svmtune.study.figures as figures
    from svmtune.study.figures import _best_so_far, _parameter_curves, _plots, _verdict_plots

    for module in (_plots, _best_so_far, _parameter_curves, _verdict_plots):
        for name in module.__all__:
            assert name in figures.__all__, name
            assert getattr(figures, name) is getattr(module, name)
    imported = set()
    for path in Path(svmtune.study.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(a.name for a in node.names)
    assert "svmtune.cli" not in imported
