"""A network at a glance: print_summary (a table of layers, output shapes and parameter counts)
and plot_network (a graphviz drawing), as MXNet's mx.viz offers them. Both read the symbol's
JSON; shapes, when given, come from shape inference of every internal output."""
import json

import numpy as np

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
