"""Training curves: symnet.viz.plot_training(logs, path) draws loss, accuracy, loss scale and
throughput per batch from LogWriter files (JSON lines or CSV), one line per run. And MXNet's
print_summary and plot_network for a symbol (_network_view.py)."""
import csv
import io
import json
import logging
import os

from ._network_view import plot_network, print_summary  # noqa: F401 (MXNet's mx.viz API)
from .fileio import write_atomically


def _read(path):
    if path.endswith(".csv"):
        with open(path) as f:
            rows = list(csv.DictReader(f))
        return [{k: (float(v) if v not in ("", None) and k != "run" else v) for k, v in r.items()} for r in rows]
    with open(path) as f:
        lines = [line for line in f if line.strip()]
    recs = [json.loads(line) for line in lines[:-1]]
    if lines:
        try:
            recs.append(json.loads(lines[-1]))
        except ValueError:  # a run killed while writing its last line: plot the rest
            logging.warning("%s: ignoring a torn last line", path)
    return recs


def _smooth(values, decay=0.9):
    """Exponential moving average with bias correction (the first points are not pulled to 0)."""
    out, avg = [], 0.0
    for i, v in enumerate(values):
        avg = decay * avg + (1 - decay) * v
        out.append(avg / (1 - decay ** (i + 1)))
    return out


def plot_training(logs, path="training.png", title="training"):
    """logs: a log path, a list of them, or {run name: path}. Writes a PNG; returns its path."""
    try:
        import matplotlib
    except ImportError:
        raise ImportError("symnet.viz.plot_training draws with matplotlib, which is not installed "
                          "(pip install matplotlib, or symnet[plot])") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if isinstance(logs, str):
        logs = [logs]
    if not isinstance(logs, dict):
        logs = {os.path.splitext(os.path.basename(p))[0]: p for p in logs}
    panels = [("cross-entropy", "loss (cross-entropy)"), ("accuracy", "accuracy"),
              ("loss_scale", "loss scale"), ("img_per_s", "throughput (img/s)")]
    fig, axes = plt.subplots(2, 2, figsize=(11, 7))
    for run_index, (run, p) in enumerate(logs.items()):
        color = "C%d" % run_index  # one colour per run in every panel
        recs = _read(p)
        # x axis: training batches seen so far; validation records sit at the epoch's end
        xs, step = [], 0
        for r in recs:
            if r.get("img_per_s") not in (None, ""):
                step += 1
            xs.append(step)
        for ax, (key, label) in zip(axes.ravel(), panels):
            pts = [(x, r[key]) for x, r in zip(xs, recs) if r.get(key) not in (None, "")]
            if pts:
                px, py = [x for x, _ in pts], [y for _, y in pts]
                # per-batch values are noisy: a faint raw line under a moving average
                ax.plot(px, py if key == "loss_scale" else _smooth(py), label=run, linewidth=1.5, color=color)
                if key != "loss_scale":
                    ax.plot(px, py, color=color, alpha=0.2, linewidth=0.8)
                val = [(x, r["val_" + key]) for x, r in zip(xs, recs)
                       if r.get("val_" + key) not in (None, "")]
                if val:
                    ax.plot([x for x, _ in val], [y for _, y in val], "o--", color=color,
                            label=run + " (validation)")
            ax.set_title(label)
            ax.set_xlabel("batch")
    axes[1][0].set_yscale("log")
    for ax in axes.ravel():
        if ax.lines:
            ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    buf = io.BytesIO()  # rendered in memory, then replaced atomically: never a half-written PNG
    fig.savefig(buf, dpi=90, format=os.path.splitext(str(path))[1][1:] or "png")
    plt.close(fig)
    write_atomically(path, buf.getvalue())
    return path
