"""Saving a report figure in several formats: laid out once, drawn once per file, the files
those of ``savefig`` alone (the PNG byte for byte; the PDF with TrueType fonts and no date),
and ``legible`` raising every text without making the axes' ticks."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")

from matplotlib.figure import Figure  # noqa: E402
from matplotlib.layout_engine import ConstrainedLayoutEngine  # noqa: E402

from svmtune.study.figures._figure_jobs import FigureJob  # noqa: E402
from svmtune.study.figures._output import MIN_FONT_PT, legible  # noqa: E402
from svmtune.study.figures._save import save_figure, save_figures  # noqa: E402


def _figure() -> Figure:
    """Four panels with titles, labels, a log axis and a legend below: what a report draws."""
    fig = Figure(figsize=(6.7, 4.0), layout="constrained")
    axes = fig.subplots(2, 2).ravel()
    for i, ax in enumerate(axes):
        ax.plot([1, 10, 100, 1000], [0.3, 0.2, 0.15 + 0.01 * i, 0.1], label=f"method {i}")
        ax.set_xscale("log")
        ax.set_title(f"data set {i}", fontsize=5)  # under 7 pt: legible() raises it
        ax.set_xlabel("CPU time [s]")
    fig.legend(loc="outside lower center", ncols=4, fontsize=6)
    return fig


@pytest.fixture
def counted(monkeypatch):
    """Counts of constrained layouts run and of figure draws (each ``draw_event``)."""
    counts = {"layouts": 0, "draws": 0}
    execute = ConstrainedLayoutEngine.execute

    def counting(self, fig):
        counts["layouts"] += 1
        return execute(self, fig)

    monkeypatch.setattr(ConstrainedLayoutEngine, "execute", counting)
    return counts


def _count_draws(fig: Figure, counts: dict[str, int]) -> Figure:
    fig.canvas.mpl_connect(
        "draw_event", lambda _event: counts.__setitem__("draws", counts["draws"] + 1)
    )
    return fig


def test_a_job_of_png_and_pdf_lays_out_once_and_draws_once_per_file(tmp_path, counted):
    job = FigureJob("f.png", lambda: _count_draws(legible(_figure()), counted), 100, also=("pdf",))
    files = job(tmp_path)
    assert sorted(files) == ["f", "f.pdf"]
    assert counted == {"layouts": 1, "draws": 2}  # savefig alone: 2 layouts and 4 draws


def test_the_png_is_the_file_savefig_alone_writes(tmp_path):
    alone = save_figure(_figure(), tmp_path / "alone.png", dpi=120).read_bytes()
    fig = _figure()
    png, pdf = save_figures(fig, [tmp_path / "once.png", tmp_path / "once.pdf"], dpi=120)
    assert png.read_bytes() == alone
    assert isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)  # the figure's again
    data = pdf.read_bytes()
    assert b"/FontFile2" in data and b"/Type3" not in data  # TrueType, embedded
    assert b"/CreationDate" not in data
    again = save_figures(_figure(), [tmp_path / "b.png", tmp_path / "b.pdf"], dpi=120)[1]
    assert again.read_bytes() == data  # the same figure gives the same file


def test_a_figure_without_layout_engine_is_saved_as_it_is(tmp_path, counted):
    fig = _count_draws(Figure(figsize=(3, 2)), counted)
    fig.subplots().plot([1, 2])
    save_figures(fig, [tmp_path / "a.png", tmp_path / "a.pdf"], dpi=80)
    assert fig.get_layout_engine() is None
    assert counted == {"layouts": 0, "draws": 2}


def test_legible_raises_every_text_and_makes_no_ticks():
    fig = _figure()
    before = [
        len(a.majorTicks) + len(a.minorTicks) for ax in fig.axes for a in (ax.xaxis, ax.yaxis)
    ]
    legible(fig)
    after = [len(a.majorTicks) + len(a.minorTicks) for ax in fig.axes for a in (ax.xaxis, ax.yaxis)]
    assert after == before
    fig.draw_without_rendering()
    from matplotlib.text import Text

    sizes = [t.get_fontsize() for t in fig.findobj(Text)]
    assert len(sizes) > 20 and min(sizes) >= MIN_FONT_PT
