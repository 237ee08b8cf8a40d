"""mx.profiler: the Chrome trace's per-op spans (bound executors and imperative calls), API
spans, memory counters and user events; state, pause, dump semantics; the aggregate table."""
import json
import time

import numpy as np
import pytest

import symnet as mx


def small_net():
    data = mx.sym.var("data")
    net = mx.sym.Convolution(data, num_filter=8, kernel=(3, 3), name="conv0")
    net = mx.sym.Activation(net, act_type="relu", name="relu0")
    net = mx.sym.FullyConnected(mx.sym.flatten(net), num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def train_batches(n=2, batch=4):
    rng = np.random.RandomState(0)
    it = mx.io.NDArrayIter(rng.rand(n * batch, 3, 8, 8), rng.randint(0, 3, n * batch), batch_size=batch)
    mod = mx.mod.Module(small_net())
    mod.fit(it, num_epoch=1, optimizer_params={"learning_rate": 0.1})
    return mod


@pytest.fixture
def trace_file(tmp_path):
    """Runs a test with a fresh, stopped profiler and stops it afterwards whatever happens."""
    path = tmp_path / "profile.json"
    mx.profiler.set_state("stop")
    mx.profiler.set_config(filename=str(path), aggregate_stats=True)
    mx.profiler.dump(finished=True)  # drops whatever an earlier test left
    mx.profiler.dumps(reset=True)
    yield path
    mx.profiler.set_state("stop")
    mx.profiler.resume()
    mx.profiler.set_config(filename=str(path))  # back to the defaults for other tests


def load(path):
    with open(path) as f:
        trace = json.load(f)
    procs = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "M"}
    events = [e for e in trace["traceEvents"] if e["ph"] != "M"]
    for e in events:
        e["process"] = procs[e["pid"]]
    return events


def spans(events, cat=None, name=None):
    return [e for e in events if e["ph"] == "X" and (cat is None or e["cat"] == cat)
            and (name is None or e["name"] == name)]


def test_trace_has_a_span_per_op_call_inside_the_executor_calls(trace_file):
    mx.profiler.set_config(profile_all=True, filename=str(trace_file), aggregate_stats=True)
    mx.profiler.set_state("run")
    assert mx.profiler.state() == "run"
    train_batches(n=2)
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    events = load(trace_file)
    ops = spans(events, "operator")
    # one span per op per batch: forward and backward of each layer, on the CPU's track
    for op, node in (("Convolution", "conv0"), ("FullyConnected", "fc"), ("SoftmaxOutput", "softmax"),
                     ("_backward_Convolution", None), ("_backward_FullyConnected", None)):
        found = [e for e in ops if e["name"] == op]
        assert len(found) == 2, (op, [e["name"] for e in ops])
        assert all(e["process"] == "cpu(0)" and e["dur"] >= 0 for e in found)
        if node:
            assert {e["args"]["node"] for e in found} == {node}
    forwards = spans(events, "api", "Executor::Forward")
    backwards = spans(events, "api", "Executor::Backward")
    assert len(forwards) == 2 and len(backwards) == 2
    # each op span lies inside the executor call that ran it
    for e in spans(events, "operator", "Convolution"):
        assert any(f["ts"] <= e["ts"] and e["ts"] + e["dur"] <= f["ts"] + f["dur"] for f in forwards)
    for e in spans(events, "operator", "_backward_Convolution"):
        assert any(b["ts"] <= e["ts"] and e["ts"] + e["dur"] <= b["ts"] + b["dur"] for b in backwards)
    # the optimizer's update ops run one by one: imperative spans
    assert spans(events, "imperative", "sgd_update") or spans(events, "imperative", "multi_sgd_update")
    counters = [e for e in events if e["ph"] == "C" and e["cat"] == "memory"]
    assert counters and all(e["args"]["bytes in use"] >= 0 for e in counters)


def test_categories_follow_the_config(trace_file):
    mx.profiler.set_config(profile_symbolic=False, profile_imperative=True, profile_api=False,
                           profile_memory=False, filename=str(trace_file))
    mx.profiler.set_state("run")
    train_batches(n=1)
    mx.nd.relu(mx.nd.array([-1.0, 2.0]))
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    cats = {e["cat"] for e in load(trace_file)}
    assert cats == {"imperative"}, cats
    assert spans(load(trace_file), "imperative", "relu")


def test_stop_pause_and_finished_dumps_drop_records(trace_file):
    mx.profiler.set_config(profile_all=True, filename=str(trace_file))
    x = mx.nd.ones((4, 4))
    mx.nd.exp(x)  # before run: not recorded
    mx.profiler.set_state("run")
    mx.nd.sqrt(x)
    mx.profiler.pause()
    mx.nd.tanh(x)  # paused: not recorded
    mx.profiler.resume()
    mx.nd.sin(x)
    mx.profiler.set_state("stop")
    mx.nd.cos(x)  # stopped again
    mx.profiler.dump(finished=False)
    names = {e["name"] for e in spans(load(trace_file), "imperative")}
    assert {"sqrt", "sin"} <= names and not names & {"exp", "tanh", "cos"}, names
    mx.profiler.dump(finished=True)  # the same records again, then dropped
    assert {e["name"] for e in spans(load(trace_file), "imperative")} == names
    mx.profiler.dump()
    assert spans(load(trace_file)) == []


def test_user_events_counters_and_markers(trace_file):
    mx.profiler.set_config(profile_all=True, filename=str(trace_file))
    mx.profiler.set_state("run")
    domain = mx.profiler.Domain("my_loop")
    with domain.new_task("load_batch"):
        time.sleep(0.002)
    frame = domain.new_frame("step")
    frame.start()
    frame.stop()
    event = mx.profiler.Event("outside")
    event.start()
    event.stop()
    counter = domain.new_counter("samples", 5)
    counter += 3
    counter.decrement(2)
    domain.new_marker("epoch_end").mark("global")
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    events = load(trace_file)
    task = spans(events, "user", "load_batch")
    assert len(task) == 1 and task[0]["process"] == "my_loop" and task[0]["dur"] >= 2000
    assert spans(events, "user", "step") and spans(events, "user", "outside")[0]["process"] == "events"
    values = [e["args"]["samples"] for e in events if e["ph"] == "C" and e["name"] == "samples"]
    assert values == [5, 8, 6]
    marks = [e for e in events if e["ph"] == "i"]
    assert len(marks) == 1 and marks[0]["s"] == "g" and marks[0]["name"] == "epoch_end"
    with pytest.raises(RuntimeError, match="stop.. without start"):
        mx.profiler.Event("never_started").stop()
    with pytest.raises(mx.MXNetError, match="scope 'everywhere'"):
        domain.new_marker("m").mark("everywhere")


def test_dumps_aggregates_per_operator(trace_file):
    mx.profiler.set_config(profile_all=True, filename=str(trace_file), aggregate_stats=True)
    mx.profiler.set_state("run")
    train_batches(n=3)
    mx.profiler.set_state("stop")
    table = mx.profiler.dumps()
    assert "cpu(0)" in table and "Total Count" in table
    row = [l for l in table.splitlines() if l.startswith("Convolution ")]
    assert len(row) == 1 and row[0].split()[1] == "3", table
    stats = json.loads(mx.profiler.dumps(format="json", sort_by="count", ascending=True))
    conv = stats["Time"]["cpu(0)"]["Convolution"]
    assert conv["Count"] == 3 and conv["Min"] <= conv["Avg"] <= conv["Max"]
    assert abs(conv["Avg"] * 3 - conv["Total"]) < 1e-3
    counts = [v["Count"] for v in stats["Time"]["cpu(0)"].values()]
    assert counts == sorted(counts)
    mx.profiler.dumps(reset=True)
    assert "Convolution" not in mx.profiler.dumps()
    with pytest.raises(mx.MXNetError, match="sort_by='speed'"):
        mx.profiler.dumps(sort_by="speed")


def test_bad_configuration_is_named(trace_file):
    with pytest.raises(TypeError, match="unknown option.*profile_everything"):
        mx.profiler.set_config(profile_everything=True)
    with pytest.raises(ValueError, match="state='go'"):
        mx.profiler.set_state("go")
    with pytest.raises(ValueError, match="format='csv'"):
        mx.profiler.dumps(format="csv")
    with pytest.raises(ValueError, match="profile_process='server'"):
        mx.profiler.set_config(profile_process="server")
    mx.profiler.set_config(filename=str(trace_file), aggregate_stats=False)
    with pytest.raises(mx.MXNetError, match="aggregate_stats=True"):
        mx.profiler.dumps()


def test_continuous_dump_writes_while_running(trace_file):
    mx.profiler.set_config(profile_all=True, filename=str(trace_file), continuous_dump=True,
                           dump_period=0.05)
    try:
        trace_file.unlink()
        mx.profiler.set_state("run")
        mx.nd.exp(mx.nd.ones((2, 2)))
        deadline = time.time() + 10
        while not trace_file.exists() and time.time() < deadline:
            time.sleep(0.02)
        assert spans(load(trace_file), "imperative", "exp")  # written without a dump() call
    finally:
        mx.profiler.set_state("stop")
        mx.profiler.set_config(continuous_dump=False, filename=str(trace_file))


def test_hybridized_gluon_block_ops_are_spans(trace_file):
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(4, activation="relu"), mx.gluon.nn.Dense(2))
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((3, 5))
    net(x)  # builds the graph outside the trace
    mx.profiler.set_config(profile_all=True, filename=str(trace_file))
    mx.profiler.set_state("run")
    net(x)
    mx.profiler.set_state("stop")
    mx.profiler.dump()
    fc = spans(load(trace_file), "operator", "FullyConnected")
    assert len(fc) == 2, [e["name"] for e in spans(load(trace_file))]
