"""Tests of memnb.viz: the book's plotting style, captions and the two kinds of slider."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import warnings

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.colors import to_hex

from memnb import viz

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def _close_figures(monkeypatch):
    monkeypatch.delenv("MEMNB_SLIDER", raising=False)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.setattr(viz, "_EMBEDDED", {})  # each test starts a notebook's running total
    yield
    plt.close("all")


def _frame(h: int, size: tuple[float, float] = (4.0, 2.6)):
    fig, ax = plt.subplots(figsize=size)
    t = np.arange(1, 40)
    ax.plot(t, np.minimum(1.0, (2 * h + 2) / t))
    ax.set_title(f"H = {h}")
    ax.set_xlabel("T")
    ax.set_ylabel("accuracy")
    return fig


def _frames_in(markup: str) -> list[tuple[str, str, bytes]]:
    """(value, display style, PNG bytes) of every frame embedded in slider markup."""
    pattern = re.compile(
        r'<img class="memnb-frame" data-value="([^"]*)"[^>]*style="display:(\w+);[^"]*" '
        r'src="data:image/png;base64,([^"]+)"'
    )
    return [(v, d, base64.b64decode(b)) for v, d, b in pattern.findall(markup)]


# ------------------------------------------------------------------ static slider


def test_frame_slider_embeds_every_frame_and_the_script():
    values = [1, 2, 4, 8]
    slider = viz.frame_slider({h: _frame(h) for h in values}, "heads H")
    markup = slider._repr_html_()
    frames = _frames_in(markup)
    assert [v for v, _, _ in frames] == ["1", "2", "4", "8"]
    assert all(png.startswith(PNG_MAGIC) for _, _, png in frames)
    assert len({png for _, _, png in frames}) == len(values), "frames must differ"
    assert [d for _, d, _ in frames] == ["block", "none", "none", "none"]
    assert 'type="range"' in markup and f'max="{len(values) - 1}"' in markup
    assert "<script>" in markup and 'addEventListener("input"' in markup
    assert "heads H" in markup
    # No external resource of any kind: the slider must work offline.
    assert "http://" not in markup and "https://" not in markup and "<script src" not in markup
    # Figures are closed once rendered, so the inline backend does not show them twice.
    assert plt.get_fignums() == []


def test_frame_slider_accepts_png_bytes_initial_and_format():
    pngs = {v: viz.figure_to_png(_frame(int(10 * v))) for v in (0.1, 0.25, 0.5)}
    slider = viz.frame_slider(pngs, "ratio <a/b>", initial=0.25, value_format=".2f",
                              colors=None)
    frames = _frames_in(slider.html)
    assert [v for v, _, _ in frames] == ["0.10", "0.25", "0.50"]
    assert [d for _, d, _ in frames] == ["none", "block", "none"]
    # colors=None: the caller's PNG bytes, exactly
    assert [png for _, _, png in frames] == list(pngs.values())
    assert 'value="1"' in slider.html
    assert "ratio &lt;a/b&gt;" in slider.html and "<a/b>" not in slider.html


def test_frame_slider_output_is_deterministic():
    first = viz.frame_slider({h: _frame(h) for h in (1, 2)}, "H").html
    second = viz.frame_slider({h: _frame(h) for h in (1, 2)}, "H").html
    third = viz.frame_slider({h: _frame(h) for h in (1, 3)}, "H").html
    assert first == second
    ids = [re.search(r'id="(memnb-slider-[0-9a-f]+)"', m).group(1) for m in (first, third)]
    assert ids[0] != ids[1]


def test_ten_small_frames_stay_under_one_megabyte():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        slider = viz.frame_slider({h: _frame(h) for h in range(1, 11)}, "H")
    assert len(slider.values) == 10
    assert slider.n_bytes < 1_000_000


def test_slider_frames_render_at_the_static_figures_dpi_by_default():
    """Frames are drawn at 100 dpi, the book's static figures' (``savefig.dpi``), so their text
    is as large on the page as a figure's (at 80 dpi a 7.5 pt legend was about 8 px)."""
    default = _frames_in(viz.frame_slider({1: _frame(1)}, "H").html)[0][2]
    assert default == viz.quantize_png(viz.figure_to_png(_frame(1), dpi=100))
    static = _frames_in(viz.slider(lambda h: _frame(h), [1], "H", live=False).html)[0][2]
    assert static == default


def _pixels(png: bytes) -> np.ndarray:
    import io

    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA")).astype(int)


def test_slider_frames_are_palette_pngs_far_smaller_that_look_the_same():
    """Review (page weight): frames are stored as palette PNGs of viz.SLIDER_COLORS colours,
    far smaller than matplotlib's full-colour PNG and with no visible change (every channel
    within a few steps of 255); the same input gives the same bytes; colors=None keeps
    matplotlib's bytes."""
    import io

    from PIL import Image

    full = viz.figure_to_png(_frame(3), dpi=100)
    small = viz.quantize_png(full)
    assert Image.open(io.BytesIO(small)).mode == "P" and Image.open(io.BytesIO(full)).mode == "RGBA"
    assert len(small) < 0.6 * len(full), (len(small), len(full))
    assert np.abs(_pixels(small) - _pixels(full)).max() <= 16
    assert viz.quantize_png(full) == small  # deterministic
    kept = _frames_in(viz.frame_slider({3: _frame(3)}, "H", colors=None).html)[0][2]
    assert kept == full
    made = viz.frame_slider({3: _frame(3)}, "H")
    assert _frames_in(made.html)[0][2] == small and made.n_bytes == len(_b64(small))
    few = viz.quantize_png(full, 8)
    assert len(Image.open(io.BytesIO(few)).getcolors()) <= 8
    with pytest.raises(ValueError, match="colors"):
        viz.frame_slider({3: _frame(3)}, "H", colors=1)
    with pytest.raises(ValueError, match="colors"):
        viz.quantize_png(full, 300)


def test_a_transparent_frame_keeps_its_transparency():
    fig = _frame(2)
    fig.patch.set_alpha(0.0)
    png = viz.figure_to_png(fig, dpi=100)
    assert _pixels(png)[..., 3].min() == 0
    small = viz.quantize_png(png)
    assert _pixels(small)[..., 3].min() == 0 and len(small) < len(png)


def test_a_png_that_quantization_would_not_shrink_is_kept():
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("P", (4, 4)).save(buf, format="PNG")
    assert viz.quantize_png(buf.getvalue()) == buf.getvalue()


def _b64(data: bytes) -> bytes:
    return base64.b64encode(data)


def test_the_sliders_of_one_notebook_are_weighed_together(monkeypatch):
    """Review (page weight): the sliders a process (one notebook's kernel) embeds are summed;
    past viz.NOTEBOOK_MAX_BYTES a warning names the total. The same slider made again (an
    unchanged cell re-run) is not counted twice."""
    frames = {h: viz.figure_to_png(_frame(h)) for h in (1, 2)}
    first = viz.frame_slider(frames, "H")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        viz.frame_slider(frames, "H")  # the same slider again: counted once
    assert sum(viz._EMBEDDED.values()) == first.n_bytes
    monkeypatch.setattr(viz, "NOTEBOOK_MAX_BYTES", first.n_bytes + first.n_bytes // 2)
    with pytest.warns(UserWarning, match=r"the 2 sliders of this process embed"):
        viz.frame_slider(frames, "H, again")


def test_each_frames_alt_text_gives_its_titles():
    """Review (accessibility): a frame's alt text says what its titles say (the numbers a
    sighted reader reads on top), not only the slider's value."""

    def frame(h: int) -> plt.Figure:
        fig, (left, right) = plt.subplots(1, 2, figsize=(4, 2))
        fig.suptitle(f"N = 50, H = {h}")
        left.set_title(f"measured {0.1 * h:.2f}")
        right.set_title("bound", loc="right")
        return fig

    out = viz.slider(frame, [1, 2], "heads H", live=False)
    alts = re.findall(r'<img class="memnb-frame" data-value="[^"]*" alt="([^"]*)"', out.html)
    assert alts == ["heads H: 1. N = 50, H = 1; measured 0.10; bound",
                    "heads H: 2. N = 50, H = 2; measured 0.20; bound"]
    direct = viz.frame_slider({5: frame(5)}, "heads H", alt="accuracy <H>")
    assert 'alt="accuracy &lt;H&gt;: 5. N = 50, H = 5; measured 0.50; bound"' in direct.html
    # a frame of PNG bytes has no titles to read: the value alone, unless frame_text gives one
    plain = viz.frame_slider({1: viz.figure_to_png(_frame(1))}, "H")
    assert 'alt="H: 1"' in plain.html
    told = viz.frame_slider({1: viz.figure_to_png(_frame(1))}, "H", frame_text={1: "H = 1"})
    assert 'alt="H: 1. H = 1"' in told.html
    fig, ax = plt.subplots()
    assert viz.figure_titles(fig) == ""
    ax.set_title("a  title\non two lines")
    assert viz.figure_titles(fig) == "a title on two lines"
    plt.close(fig)


def test_without_javascript_the_range_is_hidden_and_the_first_frame_shown():
    """Review (no JavaScript): the range input is hidden in the markup, so a reader without
    JavaScript sees no control that does nothing; the script un-hides it; the initial frame is
    shown by its inline style alone."""
    slider = viz.frame_slider({h: _frame(h) for h in (1, 2, 4)}, "H", initial=2)
    (range_input,) = re.findall(r'<input type="range"[^>]*>', slider.html)
    assert range_input.endswith(" hidden/>")
    assert [d for _, d, _ in _frames_in(slider.html)] == ["none", "block", "none"]
    assert "<output" in slider.html and ">2</output>" in slider.html  # the value it shows
    script = slider.html.split("<script>")[1]
    assert "input.hidden = false;" in script


def test_frame_slider_warns_when_too_heavy():
    with pytest.warns(UserWarning, match="lower dpi"):
        viz.frame_slider({1: _frame(1)}, "H", max_bytes=100)


@pytest.mark.parametrize(
    ("frames", "label", "kwargs", "match"),
    [
        ({}, "H", {}, "non-empty mapping"),
        ({1: b"not a png"}, "H", {}, "PNG"),
        ({1: "text"}, "H", {}, "Figure or PNG bytes"),
        ({1: PNG_MAGIC}, " ", {}, "label"),
        ({1: PNG_MAGIC}, "H", {"initial": 2}, "initial"),
        ({1: PNG_MAGIC}, "H", {"dpi": 0}, "dpi"),
    ],
)
def test_frame_slider_rejects_bad_input(frames, label, kwargs, match):
    with pytest.raises(ValueError, match=match):
        viz.frame_slider(frames, label, **kwargs)


_NODE_HARNESS = """
const vm = require("vm");
const markup = %(markup)s;
const script = markup.match(/<script>([\\s\\S]*)<\\/script>/)[1];
const values = [...markup.matchAll(/data-value="([^"]*)"/g)].map(m => m[1]);
const frames = values.map((v, i) => ({
  style: {display: i === %(start)d ? "block" : "none"},
  getAttribute: (name) => (name === "data-value" ? v : null),
}));
const listeners = {};
const attributes = {};
const input = {value: "%(start)d", hidden: true,
               addEventListener: (ev, fn) => { listeners[ev] = fn; },
               setAttribute: (name, v) => { attributes[name] = v; }};
const windowListeners = {};
const window = {addEventListener: (ev, fn) => { windowListeners[ev] = fn; }};
const out = {textContent: ""};
const root = {
  id: markup.match(/id="(memnb-slider-[0-9a-f]+)"/)[1],
  querySelector: (sel) => (sel.startsWith("input") ? input : out),
  querySelectorAll: () => frames,
};
const document = {currentScript: {previousElementSibling: root}, getElementById: () => root};
vm.runInNewContext(script, {document, window});
const shown = () => frames.map(f => f.style.display);
const result = {initial: shown(), label0: out.textContent, hidden: input.hidden};
input.value = "2"; listeners.input();
result.moved = shown(); result.label2 = out.textContent;
result.spoken2 = attributes["aria-valuetext"];
// Back: the browser restores the range's position without an input event, then fires pageshow
input.value = "1"; windowListeners.pageshow();
result.restored = shown(); result.label1 = out.textContent;
result.spoken1 = attributes["aria-valuetext"];
console.log(JSON.stringify(result));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the slider script")
def test_slider_script_swaps_frames_when_the_range_moves():
    slider = viz.frame_slider({h: _frame(h) for h in (1, 2, 4)}, "H")
    js = _NODE_HARNESS % {"markup": json.dumps(slider.html), "start": 0}
    done = subprocess.run(["node", "-e", js], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["initial"] == ["block", "none", "none"] and result["label0"] == "1"
    assert result["hidden"] is False  # the script shows the range it hid without JavaScript
    assert result["moved"] == ["none", "none", "block"] and result["label2"] == "4"
    # a screen reader hears the value, not the frame's index
    assert result["spoken2"] == "4" and 'aria-valuetext="1"' in slider.html
    # a position restored by the browser (Back) shows its own frame
    assert result["restored"] == ["none", "block", "none"] and result["label1"] == "2"
    assert result["spoken1"] == "2" and 'autocomplete="off"' in slider.html


# ------------------------------------------------------------------ slider dispatch


def test_without_a_kernel_the_slider_is_static(monkeypatch):
    assert not viz.in_kernel()
    monkeypatch.setenv("JPY_SESSION_NAME", "x.ipynb")  # a server variable alone is not enough
    assert not viz.use_live_widgets()
    calls = []

    def fn(h):
        calls.append(h)
        return _frame(h)

    out = viz.slider(fn, [1, 2, 3], "H")
    assert isinstance(out, viz.SliderHTML)
    assert calls == [1, 2, 3]
    assert len(_frames_in(out.html)) == 3


def test_slider_renders_each_value_even_if_fn_reuses_one_figure():
    fig, ax = plt.subplots(figsize=(3, 2))

    def fn(h):
        ax.clear()
        ax.plot([0, 1], [0, h])
        ax.set_title(f"h={h}")
        return fig

    out = viz.slider(fn, [1, 2, 3], "h", live=False)
    assert len({png for _, _, png in _frames_in(out.html)}) == 3


def test_env_variable_selects_the_slider(monkeypatch):
    monkeypatch.setenv("MEMNB_SLIDER", "live")
    assert viz.use_live_widgets()
    widget = viz.slider(lambda h: _frame(h), [1, 2, 3], "H")
    import ipywidgets

    assert isinstance(widget, ipywidgets.interactive)
    control = widget.children[0]
    assert list(control.options) == [("1", 1), ("2", 2), ("3", 3)]
    assert control.description == "H"
    monkeypatch.setenv("MEMNB_SLIDER", "static")
    assert not viz.use_live_widgets()
    monkeypatch.setenv("MEMNB_SLIDER", "sometimes")
    with pytest.raises(ValueError, match="MEMNB_SLIDER"):
        viz.use_live_widgets()


def test_live_slider_rejects_bad_values():
    with pytest.raises(ValueError, match="values"):
        viz.live_slider(lambda v: None, [], "H")
    with pytest.raises(ValueError, match="initial"):
        viz.live_slider(lambda v: None, [1, 2], "H", initial=5)


# ------------------------------------------------------------------ style helpers


def _runs() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [
        {"T": t, "H": h, "seed": s, "acc": min(1.0, (2 * h + 2) / t) + 0.03 * rng.standard_normal()}
        for h in (1, 2) for t in (4, 8, 16, 32) for s in range(3)
    ]
    return pd.DataFrame(rows)


def test_apply_style_sets_the_book_palette():
    viz.apply_style()
    cycle = [to_hex(c["color"]) for c in matplotlib.rcParams["axes.prop_cycle"]]
    assert cycle[0].lower() == viz.PALETTE["ours"].lower()
    assert tuple(matplotlib.rcParams["figure.figsize"]) == (5.0, 3.2)


def test_compare_with_paper_labels_axes_and_marks_each_role():
    runs = _runs()
    one = runs[runs["H"] == 1]
    _fig, ax = plt.subplots()
    viz.compare_with_paper(ax, one, {4: 1.0, 8: 0.6, 16: 0.3}, x="T", y="acc",
                           bound=lambda t: np.minimum(1.0, 4 / t), bound_label="Cor. 2 bound",
                           ylabel="accuracy")
    assert ax.get_xlabel() == "T" and ax.get_ylabel() == "accuracy"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0].startswith("ours") and "3 seeds" in labels[0]
    assert "paper" in labels and "Cor. 2 bound" in labels
    lines = {line.get_label(): line for line in ax.get_lines()}
    ours = lines[labels[0]]
    assert to_hex(ours.get_color()) == viz.PALETTE["ours"].lower()
    assert to_hex(lines["paper"].get_markeredgecolor()) == viz.PALETTE["paper"].lower()
    assert lines["paper"].get_linestyle() == "None"
    assert lines["Cor. 2 bound"].get_linestyle() == "--"
    expected = [one[one["T"] == t]["acc"].to_numpy().mean() for t in (4, 8, 16, 32)]
    np.testing.assert_allclose(ours.get_ydata(), expected)
    np.testing.assert_allclose(lines["Cor. 2 bound"].get_ydata(), [1.0, 0.5, 0.25, 0.125])
    assert len(ax.collections) == 1, "one spread band for our curve"


def test_compare_with_paper_groups_share_colours_between_ours_and_paper():
    runs = _runs()
    paper = pd.DataFrame({"T": [8, 8], "H": [1, 2], "acc": [0.5, 0.75]})
    _fig, ax = plt.subplots()
    viz.compare_with_paper(ax, runs, paper, x="T", y="acc", by="H", bound=8.0,
                           bound_vertical=True, bound_label="T = Hd_h + d")
    lines = {line.get_label(): line for line in ax.get_lines()}
    for h in (1, 2):
        ours = next(v for k, v in lines.items() if k.startswith(f"H={h} (ours"))
        paper_line = lines[f"H={h} (paper)"]
        assert ours.get_color() == paper_line.get_markeredgecolor()
    assert lines["H=1 (paper)"].get_markeredgecolor() != lines["H=2 (paper)"].get_markeredgecolor()
    assert list(lines["T = Hd_h + d"].get_xdata()) == [8.0, 8.0]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"ours": None, "paper_points": None}, "at least one"),
        ({"spread": "iqr"}, "spread"),
        ({"y": "missing"}, "missing"),
        ({"paper_points": [(1, 2, 3)]}, "pairs"),
    ],
)
def test_compare_with_paper_rejects_bad_input(kwargs, match):
    args = {"ours": _runs(), "paper_points": {4: 1.0}, "x": "T", "y": "acc"} | kwargs
    _fig, ax = plt.subplots()
    with pytest.raises(ValueError, match=match):
        viz.compare_with_paper(ax, **args)


def test_plot_bound_needs_xs_for_a_function():
    _fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="xs"):
        viz.plot_bound(ax, lambda t: t)
    with pytest.raises(ValueError, match="shape"):
        viz.plot_bound(ax, ([1, 2, 3], [1, 2]))


@settings(max_examples=25, deadline=None)
@given(
    values=st.lists(st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False), min_size=1,
                    max_size=12),
    spread=st.sampled_from(viz.SPREADS),
)
def test_summarize_band_contains_the_mean(values, spread):
    df = pd.DataFrame({"x": [i % 3 for i in range(len(values))], "y": values})
    out = viz.summarize(df, "x", "y", spread=spread)
    assert list(out["x"]) == sorted(set(df["x"]))
    assert int(out["n_runs"].sum()) == len(values)
    tol = 1e-9 * (1 + np.abs(out["mean"]))
    assert (out["lo"] <= out["mean"] + tol).all() and (out["mean"] <= out["hi"] + tol).all()
    if spread == "minmax":
        grouped = df.groupby("x")["y"]
        np.testing.assert_allclose(out["lo"], grouped.min().to_numpy())
        np.testing.assert_allclose(out["hi"], grouped.max().to_numpy())


# ------------------------------------------------------------------ captions


def test_caption_names_the_paper_figure_and_profile():
    md = viz.caption("Accuracy vs $T$.", paper_figure="Dana et al. Fig. 1a", profile="quick")
    assert md.data.startswith("**Our run (profile `quick`).** Accuracy vs $T$.")
    assert "Dana et al. Fig. 1a" in md.data
    cached = viz.caption("x", source="cached")
    assert "committed full-scale" in cached.data and "Paper counterpart" not in cached.data
    # a figure that draws both of our runs names both, the build's with its profile
    both = viz.caption("x", source="ours_and_cached", profile="quick")
    assert both.data.startswith(
        "**Our committed full-scale run and this build's `quick` run.**")
    beside = viz.caption("x", source="ours_cached_and_paper", profile="quick")
    assert beside.data.startswith("**Our committed full-scale run and this build's `quick` run, "
                                  "beside the paper's values.**")


def test_caption_with_a_figure_closes_it_and_needs_text():
    fig = _frame(1)
    md = viz.caption(fig, "Mahdavi et al. Fig. 2a", text="Capacity grows linearly in H.")
    assert "Capacity grows linearly in H." in md.data and "Mahdavi et al. Fig. 2a" in md.data
    assert not plt.fignum_exists(fig.number)
    with pytest.raises(ValueError, match="text"):
        viz.caption(_frame(2), "Fig. 1")
    with pytest.raises(ValueError, match="source"):
        viz.caption("x", source="blog")


def test_tables_show_a_missing_value_as_a_dash_and_whole_floats_as_integers():
    """A table cell the row lacks reads "–", not "NaN"; a count column stored as float because
    another row lacks it reads 197, not 197.0; other floats keep their decimals."""
    import numpy as np
    import pandas as pd

    from memnb.viz import MISSING_CELL, table_html

    frame = pd.DataFrame({"k": [197.0, np.nan], "accuracy": [0.5, 0.25], "name": ["a", None]})
    html = table_html(frame)
    assert "NaN" not in html and "None" not in html and html.count(f"<td>{MISSING_CELL}</td>") == 2
    assert "<td>197</td>" in html and "197.0" not in html
    assert "<td>0.50</td>" in html and "<td>0.25</td>" in html
    # a text cell is shown whole, not cut at pandas' 50 characters
    long = "MiniLM-L6 architecture, random weights (for random BERT-large, same shape family)"
    assert long in table_html(pd.DataFrame({"model (ours)": [long]}))


def test_tables_hide_row_numbers_but_keep_a_labelled_index():
    """pandas' row numbers (an unnamed integer index, also after a filter) are not a column of
    the book's tables; a named index (a pivot's rows) or one of labels is."""
    import pandas as pd

    from memnb.viz import table_html

    frame = pd.DataFrame({"N": [10, 20, 30], "capacity": [4, 8, 12]})
    for shown in (frame, frame[frame["N"] > 10]):
        assert "<th>0</th>" not in table_html(shown) and "<th>1</th>" not in table_html(shown)
        assert "<td>20</td>" in table_html(shown)
    pivot = frame.set_index("N")
    assert "<th>20</th>" in table_html(pivot) and ">N</th>" in table_html(pivot)
    labelled = frame.set_axis(["a", "b", "c"])
    assert "<th>b</th>" in table_html(labelled)


def test_plot_ours_names_each_curves_own_seed_count() -> None:
    """A legend states the seeds behind each curve: a curve of one seed among curves of two says
    so, and a curve whose points have different counts gives the range."""
    df = pd.DataFrame({"T": [1, 1, 1, 1, 2, 2, 3], "H": [1, 2, 1, 2, 1, 2, 1],
                       "count": [5.0, 6.0, 5.5, 6.5, 7.0, 8.0, 9.0],
                       "seed": [0, 0, 1, 1, 0, 0, 0]})
    fig, ax = plt.subplots()
    try:
        viz.plot_ours(ax, df, "H", "count", by="T", role="ours_cached")
        labels = [line.get_label() for line in ax.get_lines()]
    finally:
        plt.close(fig)
    assert labels == ["T=1 (ours (committed full run), mean ± std over 2 seeds)",
                      "T=2 (ours (committed full run), 1 seed)",
                      "T=3 (ours (committed full run), 1 seed)"]
    fig, ax = plt.subplots()
    try:
        viz.plot_ours(ax, df[(df["T"] != 3) & (df["H"] == 1)], "T", "count", spread="minmax")
        label = ax.get_lines()[0].get_label()
    finally:
        plt.close(fig)
    assert label == "ours, mean, band min to max over 1 to 2 seeds (by point)"


def test_a_caption_folds_its_details_below_its_lead():
    text = viz.with_details("Accuracy against H. Verdict: **trend**.",
                            "At H = 4: 0.51 vs the paper's 0.62 (3 seeds).")
    assert viz.with_details("Lead only.", "  ") == "Lead only."
    shown = viz.caption(text, "Dana et al. Fig. 1", profile="quick").data
    lead, _, folded = shown.partition("\n\n")
    # the lead keeps the source, the verdict's status and the paper counterpart, in that order
    assert lead == ("**Our run (profile `quick`).** Accuracy against H. Verdict: **trend**. "
                    "*Paper counterpart: Dana et al. Fig. 1.*")
    # the details, Markdown inside a closed <details> block (blank lines: MyST parses them)
    assert folded.startswith('<details class="caption-details">')
    assert f"{viz.DETAILS_SUMMARY}</summary>\n\nAt H = 4: 0.51" in folded
    assert folded.endswith("(3 seeds).\n\n</details>") and viz.DETAILS not in shown
    # a text without details is shown as before, and a paragraph outside a caption folds too
    assert viz.caption("Plain.", None).data == "**Our run.** Plain."
    assert viz.markdown(text).data.startswith("Accuracy against H. Verdict: **trend**.\n\n<details")


def test_slider_frames_share_one_canvas_so_the_axes_stay_put():
    """Frames whose legends differ in width are cropped to one common canvas: every frame has
    the same size in pixels (a tight crop of each would shift the axes as the slider moves)."""
    import io

    import matplotlib.pyplot as plt
    from PIL import Image

    def frame(width: int) -> plt.Figure:
        fig, ax = plt.subplots(figsize=(4, 3))
        ax.plot([0, 1], [0, 1], label="x" * width)
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))  # outside: widens the crop
        return fig

    out = viz.slider(frame, [1, 40], "legend width", live=False)
    sizes = {Image.open(io.BytesIO(png)).size for *_, png in _frames_in(out.html)}
    assert len(sizes) == 1, sizes
    # each alone, cropped tight, differs: the common canvas is what makes them equal
    alone = {Image.open(io.BytesIO(viz.figure_to_png(frame(w)))).size for w in (1, 40)}
    assert len(alone) == 2


@pytest.mark.parametrize("values, label, fmt, match", [
    ([1, 2], "", None, "label must be a non-empty string"),
    ([1, 1, 2], "H", None, r"repeated: \['1'\]"),
    ([0.1, 0.12], "x", ".1f", r"repeated: \['0.1'\]"),
    ([1, 2], "H", "%d", r"value_format='%d' cannot format the slider value 1"),
])
def test_a_slider_is_refused_before_any_frame_is_drawn(values, label, fmt, match):
    drawn = []

    def fn(v):
        drawn.append(v)
        return _frame(v)

    for live in (False, True):
        with pytest.raises(ValueError, match=match):
            viz.slider(fn, values, label, live=live, value_format=fmt)
    assert drawn == []


def _spine_columns(markup: str) -> list[int]:
    """The first pixel column of each frame whose middle row is pure red (the left spine)."""
    import io

    import numpy as np
    from PIL import Image

    columns = []
    for *_, png in _frames_in(markup):
        pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
        row = pixels[pixels.shape[0] // 2]
        red = np.flatnonzero((row[:, 0] > 200) & (row[:, 1] < 60) & (row[:, 2] < 60))
        columns.append(int(red[0]))
    return columns


@pytest.mark.parametrize("layout", ["tight", "constrained"])
def test_slider_frames_keep_their_axes_in_one_place(layout):
    """Frames whose tick labels and legends differ in width are laid out by their own layout
    engine, each differently; the slider gives every frame's axes one position (inside each
    frame's own), so the left spine is in the same pixel column in every frame."""
    import matplotlib.pyplot as plt

    def frame(top: float) -> plt.Figure:
        fig, ax = plt.subplots(figsize=(4, 3), layout=None if layout == "tight" else layout)
        ax.plot([0, 1], [0, top], label="y" * int(2 + top % 30))
        ax.spines["left"].set_color("red")
        ax.spines["left"].set_linewidth(3)
        ax.set_ylabel("examples")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15))
        if layout == "tight":
            fig.tight_layout()
        return fig

    tops = [1.0, 654321.0]  # tick labels "1.0" against "600000"
    alone = [_spine_columns(viz.frame_slider({t: frame(t)}, "top").html)[0] for t in tops]
    assert alone[0] != alone[1]  # laid out alone, the spines differ
    columns = _spine_columns(viz.slider(frame, tops, "top", live=False).html)
    assert len(set(columns)) == 1, columns
    plt.close("all")


@pytest.mark.parametrize("kwargs, match", [
    ({"initial": 7}, "initial=7"),
    ({"dpi": 0}, "dpi must be a finite number > 0"),
    ({"dpi": float("nan")}, "dpi must be a finite number > 0"),
    ({"colors": 0}, "colors must be None or an integer from 2 to 256"),
])
def test_slider_refuses_its_options_before_drawing_a_frame(kwargs, match):
    drawn = []

    def draw(value):
        drawn.append(value)
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, value])
        return fig

    with pytest.raises(ValueError, match=match):
        viz.slider(draw, [1, 2, 3], "value", live=False, **kwargs)
    assert drawn == []


@pytest.mark.parametrize("fn, values, match", [
    (5, [1, 2], "fn must be a callable"),
    (lambda v: None, None, "values must be a non-empty sequence"),
    (lambda v: None, "abc", "values must be a non-empty sequence"),
])
def test_slider_names_a_wrong_argument_type(fn, values, match):
    with pytest.raises(TypeError, match=match):
        viz.slider(fn, values, "value", live=False)


def test_a_frame_value_of_a_missing_column_names_the_column():
    table = pd.DataFrame({"H": [1, 2]})
    with pytest.raises(ValueError, match=r"this run has no column 'd' \(its columns: H\)"):
        viz.check_frame_value(table, "d", 3)
