"""MXNet's AMPInferUnknown step of convert_symbol/convert_model with cast_optional_params: a
parameter whose dtype nothing else decides takes the dtype the casts in the converted graph ask
of it. A parameter read by amp_cast takes that cast's dtype (two casts that disagree leave it as
it was); the parameters of an amp_multicast whose inputs are all variables take the 16-bit
target dtype. Data inputs (float32) and parameters other ops read keep their dtype. The result
is declared on the variables (__dtype__), as MXNet's converted symbol declares it. The casts
read are those of the graph given to the conversion (symnet's rewrite already decides the
parameters its own casts would read, and rewires them)."""
import json

_FLAGS = {"float32": 0, "float64": 1, "float16": 2, "bfloat16": 12}


def infer_unknown(source, converted, target, data_names):
    """`converted` (the conversion of `source`) with the __dtype__ of the parameters the casts
    of `source` decide."""
    from ...symbol import load_json
    nodes = json.loads(source.tojson(remove_amp_cast=False))["nodes"]
    is_var = [n["op"] == "null" for n in nodes]
    readers = {}
    for n in nodes:
        for src, _, _ in n["inputs"]:
            readers.setdefault(src, set()).add(n["op"])
    # decided elsewhere: data, and parameters some other op reads (its type rule decides them)
    fixed = {i for i, n in enumerate(nodes) if is_var[i] and (
        n["name"] in data_names or readers.get(i, set()) - {"amp_cast", "amp_multicast"})}
    visited, result = {}, {}

    def update(i, flag):
        if i in fixed:
            return
        if i not in visited:
            visited[i] = result[i] = flag
        elif visited[i] != flag:
            result[i] = None  # the casts disagree: the parameter keeps its dtype

    for n in nodes:
        srcs = [src for src, _, _ in n["inputs"]]
        if n["op"] == "amp_cast" and srcs and is_var[srcs[0]]:
            flag = _FLAGS.get(n.get("attrs", {}).get("dtype"))
            if flag is not None:
                update(srcs[0], flag)
        elif n["op"] == "amp_multicast" and srcs and all(is_var[s] for s in srcs):
            for s in srcs:
                update(s, _FLAGS[target])
    decided = {nodes[i]["name"]: str(flag) for i, flag in result.items() if flag is not None}
    graph = json.loads(converted.tojson(remove_amp_cast=False))
    changed = False
    for n in graph["nodes"]:
        if n["op"] == "null" and n["name"] in decided and n.get("attrs", {}).get("__dtype__") != decided[n["name"]]:
            n.setdefault("attrs", {})["__dtype__"] = decided[n["name"]]
            changed = True
    return load_json(json.dumps(graph)) if changed else converted
