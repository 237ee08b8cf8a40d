"""MXNet 1.9.1's mx.visualization (alias mx.viz): a network at a glance, print_summary (a table
of layers, output shapes and parameter counts) and plot_network (a graphviz drawing); both read
the symbol's JSON, and shapes, when given, come from shape inference of every internal output.
And symnet's training curves: plot_training(logs, path) draws loss, accuracy, loss scale and
throughput per batch from LogWriter files (JSON lines or CSV), one line per run."""
import csv
import io
import json
import logging
import os

import numpy as np

from .fileio import write_atomically

__all__ = ["print_summary", "plot_network", "plot_training"]

_PARAM_SUFFIXES = ("weight", "bias", "gamma", "beta", "moving_mean", "moving_var", "running_mean",
                   "running_var", "parameters", "state", "state_cell")


def _graph(symbol):
    g = json.loads(symbol.tojson())
    return g["nodes"], g.get("arg_nodes", [])


def _output_shapes(symbol, shape):
    """{internal output name: shape} for every output of every node (names as list_outputs
    gives them: 'conv0_output', 'data'); {} without input shapes."""
    if not shape:
        return {}
    internals = symbol.get_internals()
    _, out_shapes, _ = internals.infer_shape_partial(**shape)
    return dict(zip(internals.list_outputs(), out_shapes))


def _node_shape(node, shapes):
    name = node["name"]
    for key in (name + "_output", name + "_output0", name):
        if key in shapes:
            return shapes[key]
    return None


def _is_input(node, shape):
    return node["op"] == "null" and (node["name"] in (shape or {}) or not node["name"].endswith(_PARAM_SUFFIXES))


def print_summary(symbol, shape=None, line_length=120, positions=(.44, .64, .74, 1.)):
    """Prints one row per layer: its name and op, its output shape (batch axis left out), how many
    parameters it owns (the sizes of the argument variables it reads) and the layers it reads,
    then the totals. `shape` gives the input shapes ({'data': (1, 3, 224, 224)}); without it the
    shapes and counts are left blank. Auxiliary states (BatchNorm's moving statistics) are counted
    apart from the trainable parameters."""
    nodes, _ = _graph(symbol)
    shapes = _output_shapes(symbol, shape)
    aux = set(symbol.list_auxiliary_states())
    stops = [int(line_length * p) if p <= 1 else int(p) for p in positions]

    def row(fields):
        line = ""
        for text, stop in zip(fields, stops):
            line = (line + str(text))[:stop - 1].ljust(stop)
        print(line.rstrip())

    print("_" * line_length)
    row(["Layer (type)", "Output Shape", "Param #", "Previous Layer"])
    print("=" * line_length)
    total = total_aux = 0
    shown = [i for i, n in enumerate(nodes) if n["op"] != "null" or _is_input(n, shape)]
    for k, i in enumerate(shown):
        node = nodes[i]
        params = 0
        previous = []
        for inp in node.get("inputs", []):
            src = nodes[inp[0]]
            if src["op"] == "null" and not _is_input(src, shape):
                s = shapes.get(src["name"])
                size = int(np.prod(s)) if s else 0
                if src["name"] in aux:
                    total_aux += size
                else:
                    params += size
            else:
                previous.append(src["name"])
        total += params
        out = _node_shape(node, shapes)
        out_text = "x".join(str(d) for d in out[1:]) if out and len(out) > 1 else (str(out[0]) if out else "")
        rows = [["%s(%s)" % (node["name"], node["op"]), out_text, params if shape else "",
                 previous[0] if previous else ""]]
        rows += [["", "", "", p] for p in previous[1:]]
        for r in rows:
            row(r)
        print(("=" if k == len(shown) - 1 else "_") * line_length)
    if shape:
        print("Total params: %d" % total)
        if total_aux:
            print("Auxiliary states (not trained): %d" % total_aux)
    print("_" * line_length)
    return total if shape else None


def _label(node):
    """What the drawing shows of an op: its type and the attributes that say most about it."""
    op, a = node["op"], node.get("attrs", {})

    def tup(key):
        v = a.get(key, "")
        return "x".join(x.strip() for x in v.strip("()[] ").split(",") if x.strip())

    if op == "Convolution" or op == "Deconvolution":
        return "%s\\n%s/%s, %s" % (op, tup("kernel"), tup("stride") or "1", a.get("num_filter", ""))
    if op == "FullyConnected":
        return "FullyConnected\\n%s" % a.get("num_hidden", "")
    if op == "Pooling":
        if a.get("global_pool", "False") in ("True", "1", "true"):
            return "Pooling\\n%s, global" % a.get("pool_type", "max")
        return "Pooling\\n%s, %s/%s" % (a.get("pool_type", "max"), tup("kernel"), tup("stride") or "1")
    if op in ("Activation", "LeakyReLU"):
        return "%s\\n%s" % (op, a.get("act_type", "leaky"))
    return op


_COLORS = {"Convolution": "#fb8072", "Deconvolution": "#fb8072", "FullyConnected": "#fb8072",
           "BatchNorm": "#bebada", "_contrib_SyncBatchNorm": "#bebada", "Activation": "#ffffb3",
           "LeakyReLU": "#ffffb3", "Pooling": "#80b1d3", "Concat": "#fdb462", "Flatten": "#fdb462",
           "Reshape": "#fdb462", "SoftmaxOutput": "#b3de69", "softmax": "#b3de69"}


def plot_network(symbol, title="plot", save_format="pdf", shape=None, dtype=None, node_attrs=None,
                 hide_weights=True):
    """A graphviz.Digraph of the network (graphviz's Python package; rendering it needs the
    Debian package graphviz): one box per op, input variables as ovals, parameters hidden unless
    hide_weights=False; with `shape`, every edge is labelled with the shape it carries."""
    try:
        from graphviz import Digraph
    except ImportError:
        raise ImportError("symnet.viz.plot_network draws with the graphviz Python package, which is "
                          "not installed (pip install graphviz; rendering needs apt-get install "
                          "graphviz)") from None
    nodes, _ = _graph(symbol)
    shapes = _output_shapes(symbol, shape)
    style = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034", "style": "filled"}
    style.update(node_attrs or {})
    dot = Digraph(name=title, format=save_format)
    hidden = set()
    for i, node in enumerate(nodes):
        if node["op"] == "null":
            if hide_weights and not _is_input(node, shape):
                hidden.add(i)
                continue
            dot.node(name=node["name"], label=node["name"], **dict(style, shape="oval", fillcolor="#8dd3c7"))
        else:
            dot.node(name=node["name"], label=_label(node),
                     **dict(style, fillcolor=_COLORS.get(node["op"], "#fccde5")))
    for node in nodes:
        if node["op"] == "null":
            continue
        for inp in node.get("inputs", []):
            if inp[0] in hidden:
                continue
            src = nodes[inp[0]]
            attrs = {"dir": "back", "arrowtail": "open"}
            s = _node_shape(src, shapes)
            if s:
                attrs["label"] = "x".join(str(d) for d in s[1:]) or str(s[0])
            dot.edge(tail_name=node["name"], head_name=src["name"], **attrs)
    return dot



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
