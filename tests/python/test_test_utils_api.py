"""symnet.test_utils as a drop-in for MXNet 1.9.1's mxnet.test_utils: every public name is there,
the tolerance tables hold MXNet's numbers, and each helper is checked against numpy or values
worked out by hand, including the failures the checks exist to catch."""
import bz2
import gzip
import os
import struct
import zipfile

import numpy as np
import pytest

import symnet as mx
import symnet.test_utils as tu

# MXNet 1.9.1's public functions and classes of mxnet.test_utils (dir() of the module)
MXNET_NAMES = """DummyIter almost_equal assert_allclose assert_almost_equal assert_almost_equal_ignore_nan
assert_almost_equal_with_err assert_exception assign_each assign_each2 checkShapes check_consistency
check_gluon_hybridize_consistency check_numeric_gradient check_speed check_symbolic_backward check_symbolic_forward
chi_square_check collapse_sum_like compare_ndarray_tuple compare_optimizer create_2d_tensor create_sparse_array
create_sparse_array_zd create_vector default_atols default_context default_dtype default_numeric_eps default_rtols
discard_stderr download download_model effective_dtype environment gen_buckets_probs_with_ppf get_atol get_bz2_data
get_cifar10 get_etol get_identity_mat get_identity_mat_batch get_im2rec_path get_mnist get_mnist_iterator
get_mnist_pkl get_mnist_ubyte get_rtol get_tolerance get_tols get_zip_data has_tvm_ops is_aarch64_run is_cd_run
is_op_runnable list_gpus locationError mean_check new_matrix_with_real_eigvals_2d new_matrix_with_real_eigvals_nd
new_orthonormal_matrix_2d new_sym_matrix_with_real_eigvals_2d new_sym_matrix_with_real_eigvals_nd np_reduce
numeric_grad rand_coord_2d rand_ndarray rand_shape_2d rand_shape_3d rand_shape_nd rand_sparse_ndarray random_arrays
random_sample random_uniform_arrays retry same same_array same_symbol_structure set_default_context
shuffle_csr_column_indices simple_forward var_check verify_generator""".split()
# names MXNet's module imports, which `from mxnet.test_utils import *` also hands out
MXNET_IMPORTED = "np npt rnd ss mx os sys time json numbers logging use_np getenv setenv array Context " \
                 "current_context Symbol OrderedDict contextmanager Features get_cuda_compute_capability".split()


def test_every_public_name_of_mxnet_test_utils_is_exported_by_import_star():
    namespace = {}
    exec("from symnet.test_utils import *", namespace)
    missing = [n for n in MXNET_NAMES + MXNET_IMPORTED if n not in namespace]
    assert not missing
    assert namespace["Features"] is mx.runtime.Features and namespace["use_np"] is mx.util.use_np
    assert not hasattr(tu, "__all__")  # a plain module namespace, as MXNet's


# ---- tolerances ---------------------------------------------------------------------------------
def test_default_tolerance_tables_are_mxnets():
    exact = [np.bool_, np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64]
    rtols = {np.float16: 1e-2, np.float32: 1e-4, np.float64: 1e-5, **{t: 0 for t in exact}}
    atols = {np.float16: 1e-1, np.float32: 1e-3, np.float64: 1e-20, **{t: 0 for t in exact}}
    for table, want in ((tu.default_rtols(), rtols), (tu.default_atols(), atols)):
        for t, v in want.items():
            assert table[np.dtype(t)] == v, (t, table[np.dtype(t)], v)
    # symnet's additions: bfloat16 (MXNet's bfloat16 operator tests use rtol 0.1, atol 0.5)
    assert tu.default_rtols()[mx.base.bfloat16] == 0.1 and tu.default_atols()[mx.base.bfloat16] == 0.5
    assert tu.default_rtols()[np.dtype(np.int16)] == 0 and tu.default_atols()[np.dtype(np.uint16)] == 0
    assert tu.default_numeric_eps() == {np.dtype(np.float16): 1 / 64, np.dtype(np.float32): 1 / 512,
                                        np.dtype(np.float64): 1 / 16384}
    assert tu.default_dtype() is np.float32
    assert tu.get_rtol() == 1e-5 and tu.get_atol() == 1e-20 and tu.get_etol() == 0
    assert tu.get_rtol(0.3) == 0.3 and tu.get_atol(None, np.float16) == 0.1 and tu.get_etol(0.2) == 0.2


def test_get_tolerance_and_get_tols_pick_the_looser_dtype():
    f16, f64 = np.ones(2, np.float16), np.ones(2)
    assert tu.get_tolerance(f16, 0.5, tu.default_rtols()) == 0.5
    assert tu.get_tolerance(f16, None, tu.default_rtols()) == 1e-2
    assert tu.get_tolerance(f16, {np.dtype(np.float16): 7e-3}, tu.default_rtols()) == 7e-3
    assert tu.get_tolerance(f16, {"float16": 6e-3}, tu.default_rtols()) == 6e-3  # names work as keys too
    assert tu.get_tolerance(f64, {np.dtype(np.float16): 7e-3}, tu.default_rtols()) == 1e-5
    assert tu.get_tols(f16, f64, None, None) == (1e-2, 1e-1)
    assert tu.get_tols(1.0, 2, None, None) == (1e-5, 1e-20)  # numbers are float64 / int64 arrays
    assert tu.get_tols(f16, f64, 0.25, None) == (0.25, 1e-1)
    with pytest.raises(KeyError, match="complex64"):
        tu.get_tolerance(np.ones(2, np.complex64), None, tu.default_rtols())


def test_effective_dtype_is_the_arrays_dtype():
    assert tu.effective_dtype(mx.nd.ones((2,))) == np.float32
    assert tu.effective_dtype(np.ones(2, np.float16)) == np.float16
    assert tu.effective_dtype(mx.nd.ones((2,), dtype="bfloat16")) == mx.base.bfloat16
    assert tu.effective_dtype([1.0, 2.0]) == np.float64


# ---- assert_almost_equal and friends ------------------------------------------------------------
def test_assert_almost_equal_uses_the_dtype_defaults():
    a32 = np.array([1.0, 2.0, 3.0], np.float32)
    tu.assert_almost_equal(a32, a32 + 5e-4)  # float32: atol 1e-3
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(a32, a32 + 2e-3)
    a64 = a32.astype(np.float64)
    tu.assert_almost_equal(a64, a64 * (1 + 5e-6))  # float64: rtol 1e-5, atol 1e-20
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(a64, a64 + 5e-4)
    tu.assert_almost_equal(a32.astype(np.float16), a64 + 0.05)  # the looser (float16) side wins
    tu.assert_almost_equal(mx.nd.array(a32), a32 + 5e-4)  # NDArrays and numbers too
    tu.assert_almost_equal(3.0, np.float64(3.0))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(mx.nd.array(a32), mx.nd.array(a32 + 1))
    tu.assert_almost_equal(a32, a32 + 0.4, rtol=0, atol=0.5)
    tu.assert_almost_equal(a32, a32 + 0.4, rtol={np.dtype(np.float32): 0.3}, atol=0)


def test_assert_almost_equal_message_in_mxnets_style():
    a = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    b = np.array([1.0, 3.0, 3.0, 6.0], np.float32)
    with pytest.raises(AssertionError) as info:
        tu.assert_almost_equal(a, b, names=("p", "q"))
    msg = str(info.value)
    # worst violation: |4 - 6| / (1e-3 + 1e-4 * 6) = 1250; 2 of 4 elements mismatch
    assert "Error 1250.000000 exceeds tolerance rtol=1.000000e-04, atol=1.000000e-03 (mismatch 50.000000%)." in msg
    assert "Location of maximum error: (3,), p=4.00000000, q=6.00000000" in msg
    assert "ACTUAL" in msg and "DESIRED" in msg
    with pytest.raises(AssertionError, match=r"Error 2\.000000 exceeds tolerance rtol=0\.000000e\+00, "
                                             r"atol=5\.000000e-01\.\n"):
        tu.assert_almost_equal(np.array(1.0), np.array(2.0), rtol=0, atol=0.5)  # 0-d: no location


def test_assert_almost_equal_broadcasts_and_reports_the_broadcast_index():
    row = np.array([1.0, 2.0, 3.0])
    tu.assert_almost_equal(row, np.tile(row, (2, 1)))
    tu.assert_almost_equal(np.tile(row, (2, 1)), 2.0 * row / 2.0)
    bad = np.tile(row, (2, 1))
    bad[1, 2] = 4.0
    with pytest.raises(AssertionError, match=r"Location of maximum error: \(1, 2\), x=3\.00000000, y=4\.00000000"):
        tu.assert_almost_equal(row, bad, names=("x", "y"))
    with pytest.raises(AssertionError, match=r"a\.shape = \(3,\) and b\.shape = \(2, 3\) are not equal"):
        tu.assert_almost_equal(row, np.tile(row, (2, 1)), use_broadcast=False)
    assert tu.almost_equal(row, np.tile(row, (2, 1)))
    with pytest.raises(AssertionError):
        tu.almost_equal(row, np.tile(row, (2, 1)), use_broadcast=False)


def test_nan_bool_and_ignore_nan_handling():
    a = np.array([1.0, np.nan, 3.0])
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(a, a.copy())
    tu.assert_almost_equal(a, a.copy(), equal_nan=True)
    tu.assert_allclose(a, a.copy())  # equal_nan by default, rtol 1e-7
    with pytest.raises(AssertionError):
        tu.assert_allclose(np.array([1.0]), np.array([1.0 + 1e-6]))
    tu.assert_almost_equal_ignore_nan(a, np.array([np.nan, 5.0, 3.0]) * [1, 1, 1 + 1e-7])
    with pytest.raises(AssertionError):
        tu.assert_almost_equal_ignore_nan(a, np.array([np.nan, 5.0, 3.5]))
    tu.assert_almost_equal(np.array([True, False]), np.array([True, False]))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.array([True, False]), np.array([True, True]))


def test_almost_equal_uses_float64_defaults_and_same():
    a = np.ones(4, np.float32)
    assert tu.almost_equal(a, a * (1 + 5e-6))
    assert not tu.almost_equal(a, a * (1 + 5e-5))  # rtol 1e-5 whatever the dtype
    assert tu.almost_equal(a, a + 0.5, rtol=0, atol=0.6)
    assert tu.same(np.arange(3), np.arange(3)) and not tu.same(np.arange(3), np.arange(1, 4))
    assert not tu.same(np.arange(3), np.arange(4))
    assert tu.same(mx.nd.array([1, 2]), np.array([1.0, 2.0], np.float32))


def test_assert_almost_equal_with_err_tolerates_a_fraction_of_mismatches():
    a = np.arange(10.0)
    b = a.copy()
    b[4] += 1.0  # one element in ten is off
    tu.assert_almost_equal_with_err(a, b, rtol=1e-5, atol=1e-5, etol=0.2)
    with pytest.raises(AssertionError, match="mismatch 10.000000%"):
        tu.assert_almost_equal_with_err(a, b, rtol=1e-5, atol=1e-5, etol=0.05)
    with pytest.raises(AssertionError):
        tu.assert_almost_equal_with_err(a, b, rtol=1e-5, atol=1e-5)  # etol None: none may differ


def test_assert_exception_retry_and_compare_ndarray_tuple():
    def boom(x, kind=ValueError):
        raise kind(x)
    tu.assert_exception(boom, ValueError, 1)
    with pytest.raises(AssertionError, match="did not raise"):
        tu.assert_exception(lambda: None, ValueError)
    with pytest.raises(AssertionError, match="did not raise"):
        tu.assert_exception(lambda: None, AssertionError)
    with pytest.raises(KeyError):
        tu.assert_exception(boom, ValueError, 1, kind=KeyError)

    calls = []

    def flaky():
        calls.append(1)
        assert len(calls) >= 3
    tu.retry(3)(flaky)()
    assert len(calls) == 3
    calls.clear()
    with pytest.raises(AssertionError):
        tu.retry(2)(flaky)()
    assert len(calls) == 2

    one = (np.ones(2), (np.zeros(3), np.ones(1)))
    tu.compare_ndarray_tuple(one, (np.ones(2), (np.zeros(3), np.ones(1))))
    tu.compare_ndarray_tuple(None, one)
    with pytest.raises(AssertionError):
        tu.compare_ndarray_tuple(one, (np.ones(2), (np.zeros(3), np.ones(1) * 2)))


def test_locationError_and_checkShapes():
    a, b = np.array([[1.0, 2.0]]), np.array([[1.0, 2.5]])
    assert tu.locationError(a, b, (0, 1), ("u", "v")) == "Location of error: (0, 1), u=2.00000000, v=2.50000000"
    assert tu.locationError(a, b, (0, 1), ("u", "v"), maxError=True).startswith("Location of maximum error")
    tu.checkShapes(a, b)
    with pytest.raises(AssertionError):
        tu.checkShapes(a, b.T)


# ---- numpy helpers ------------------------------------------------------------------------------
def test_np_reduce_matches_numpy():
    x = np.random.rand(2, 3, 4)
    assert np.allclose(tu.np_reduce(x, (0, 2), True, np.sum), np.sum(x, axis=(0, 2), keepdims=True))
    assert np.allclose(tu.np_reduce(x, 1, False, np.max), np.max(x, axis=1))
    assert np.allclose(tu.np_reduce(x, None, False, np.min), np.min(x))
    assert np.allclose(tu.np_reduce(x, [0, -1], True, np.sum), np.sum(x, axis=(0, 2), keepdims=True))


def test_collapse_sum_like_undoes_broadcasting():
    a = np.random.rand(2, 3, 4)
    assert np.allclose(tu.collapse_sum_like(a, (3, 1)), a.sum(axis=(0, 2)).reshape(3, 1))
    assert np.allclose(tu.collapse_sum_like(a, (1, 3, 4)), a.sum(axis=0, keepdims=True))
    assert tu.collapse_sum_like(np.zeros((0, 3)), (3,)).shape == (3,)


def test_assign_each_and_assign_each2_apply_elementwise():
    x = np.arange(6.0).reshape(2, 3).T  # a non-contiguous view
    assert np.array_equal(tu.assign_each(x, lambda v: v * v + 1), x * x + 1)
    assert np.array_equal(tu.assign_each(x, None), x)
    y = np.random.rand(3, 2)
    assert np.allclose(tu.assign_each2(x, y, lambda u, v: u - 2 * v), x - 2 * y)
    assert np.array_equal(tu.assign_each2(x, y, None), x)


def test_random_helpers_draw_from_numpys_global_stream():
    np.random.seed(5)
    got = tu.random_arrays((2, 3), (4,), ())
    np.random.seed(5)
    want = [np.random.randn(2, 3), np.random.randn(4), np.random.randn()]
    assert [g.dtype for g in got] == [np.float32] * 3 and got[2].shape == ()
    for g, w in zip(got, want):
        assert np.allclose(g, w, rtol=1e-6)
    assert tu.random_arrays((3, 2)).shape == (3, 2)  # one shape: the array itself
    arrays = tu.random_uniform_arrays((50,), (3, 3), low=-2.0, high=-1.0, dtype=np.float64)
    assert arrays[0].dtype == np.float64 and arrays[1].shape == (3, 3)
    assert all(((a >= -2) & (a < -1)).all() for a in arrays)
    with pytest.raises(TypeError):
        tu.random_uniform_arrays((2,), bogus=1)
    pick = tu.random_sample(list(range(10)), 4)
    assert len(pick) == 4 and len(set(pick)) == 4 and set(pick) <= set(range(10))
    with pytest.raises(AssertionError):
        tu.random_sample([1, 2], 3)


def test_random_shapes_and_coordinates_stay_in_range():
    for _ in range(20):
        s2, s3, sn = tu.rand_shape_2d(3, 4), tu.rand_shape_3d(2, 2, 5), tu.rand_shape_nd(4, 3)
        assert 1 <= s2[0] <= 3 and 1 <= s2[1] <= 4 and len(s3) == 3 and 1 <= s3[2] <= 5
        assert len(sn) == 4 and all(1 <= d <= 3 for d in sn)
        assert all(0 <= d <= 1 for d in tu.rand_shape_nd(3, 1, allow_zero_size=True))
        x, y = tu.rand_coord_2d(2, 5, -3, 0)
        assert 2 <= x < 5 and -3 <= y < 0
    assert any(0 in tu.rand_shape_nd(5, 1, allow_zero_size=True) for _ in range(20))


def test_linear_algebra_generators():
    m = tu.new_matrix_with_real_eigvals_nd((2, 4, 4))
    assert m.shape == (2, 4, 4)
    for mat in m:
        ev = np.linalg.eigvals(mat)
        assert np.allclose(ev.imag, 0, atol=1e-8) and np.all(np.abs(ev.real) <= 10 + 1e-8)
    q = tu.new_orthonormal_matrix_2d(5)
    assert np.allclose(q.T @ q, np.eye(5), atol=1e-10)
    s = tu.new_sym_matrix_with_real_eigvals_nd((3, 3, 3))
    assert s.shape == (3, 3, 3) and np.allclose(s, s.transpose(0, 2, 1), atol=1e-10)
    assert np.all(np.abs(np.linalg.eigvalsh(s)) <= 10 + 1e-8)


def test_shuffle_csr_column_indices_keeps_each_rows_columns():
    class Csr:
        indptr = np.array([0, 3, 3, 7])
        indices = np.array([0, 2, 5, 0, 1, 3, 6])
    csr = Csr()
    tu.shuffle_csr_column_indices(csr)
    assert sorted(csr.indices[:3]) == [0, 2, 5] and sorted(csr.indices[3:]) == [0, 1, 3, 6]


# ---- NDArray helpers ----------------------------------------------------------------------------
def test_rand_ndarray_dense_and_sparse_storage_errors():
    a = tu.rand_ndarray((3, 4))
    assert isinstance(a, mx.nd.NDArray) and a.shape == (3, 4) and a.dtype == np.float32
    assert tu.rand_ndarray((2,), dtype=np.float64).dtype == np.float64
    for stype in ("csr", "row_sparse"):
        with pytest.raises(NotImplementedError, match="storage type '%s'.*sparse" % stype):
            tu.rand_ndarray((3, 4), stype)
        with pytest.raises(NotImplementedError, match=stype):
            tu.create_sparse_array((3, 4), stype)
        with pytest.raises(NotImplementedError, match=stype):
            tu.create_sparse_array_zd((3, 4), stype, 0.5)
    with pytest.raises(AssertionError, match="unknown storage type"):
        tu.rand_sparse_ndarray((3, 4), "coo")
    with pytest.raises(AssertionError, match="Unknown storage type: coo"):
        tu.create_sparse_array((3, 4), "coo")


def test_create_vector_2d_tensor_and_identities():
    v = tu.create_vector(5)
    assert v.dtype == np.int64 and np.array_equal(v.asnumpy(), np.arange(5))
    t = tu.create_2d_tensor(3, 4)
    assert t.dtype == np.int64 and np.array_equal(t.asnumpy(), np.repeat(np.arange(3)[:, None], 4, axis=1))
    assert np.array_equal(tu.get_identity_mat(3).asnumpy(), np.eye(3))
    assert np.array_equal(tu.get_identity_mat_batch(2).asnumpy(), np.stack([np.eye(2)] * 2))


def test_same_array_tells_shared_memory_from_copies():
    x = mx.nd.array([1.0, 2.0, 3.0])
    assert tu.same_array(x, x)
    assert not tu.same_array(x, x.copy())
    assert np.array_equal(x.asnumpy(), [1.0, 2.0, 3.0])  # restored afterwards


def test_default_context_and_set_default_context():
    before = tu.default_context()
    assert before == mx.current_context()
    try:
        tu.set_default_context(mx.cpu(3))
        assert tu.default_context() == mx.cpu(3) and mx.current_context() == mx.cpu(3)
    finally:
        tu.set_default_context(before)
    assert tu.default_context() == before
    assert list(tu.list_gpus()) == list(range(mx.context.num_gpus()))


# ---- environment --------------------------------------------------------------------------------
def test_environment_sets_and_restores_variables(monkeypatch):
    monkeypatch.setenv("SYMNET_TU_A", "old")
    monkeypatch.delenv("SYMNET_TU_B", raising=False)
    with tu.environment("SYMNET_TU_A", "new"):
        assert os.environ["SYMNET_TU_A"] == "new" and tu.getenv("SYMNET_TU_A") == "new"
    assert os.environ["SYMNET_TU_A"] == "old"
    with pytest.raises(RuntimeError):
        with tu.environment({"SYMNET_TU_A": None, "SYMNET_TU_B": "1"}):
            assert "SYMNET_TU_A" not in os.environ and os.environ["SYMNET_TU_B"] == "1"
            raise RuntimeError("body failed")
    assert os.environ["SYMNET_TU_A"] == "old" and "SYMNET_TU_B" not in os.environ

    @tu.environment("SYMNET_TU_B", "decorated")
    def read():
        return os.environ.get("SYMNET_TU_B")
    assert read() == "decorated" and read() == "decorated"
    assert "SYMNET_TU_B" not in os.environ
    with pytest.raises(AssertionError):
        with tu.environment("SYMNET_TU_A"):
            pass


def test_set_env_var_getenv_setenv(monkeypatch):
    monkeypatch.delenv("SYMNET_TU_C", raising=False)
    assert tu.set_env_var("SYMNET_TU_C", "1", default_val="unset") == "unset"
    assert tu.set_env_var("SYMNET_TU_C", "2") == "1" and tu.getenv("SYMNET_TU_C") == "2"
    tu.setenv("SYMNET_TU_C", None)
    assert tu.getenv("SYMNET_TU_C") is None


def test_flags_about_the_run(monkeypatch):
    monkeypatch.setenv("CD_JOB", "1")
    assert tu.is_cd_run()
    monkeypatch.setenv("CD_JOB", "0")
    assert not tu.is_cd_run()
    assert tu.has_tvm_ops() is mx.runtime.Features().is_enabled("TVM_OP") is False
    assert tu.is_op_runnable() is True


def test_discard_stderr_silences_file_descriptor_2(capfd):
    os.write(2, b"before ")
    with tu.discard_stderr():
        os.write(2, b"hidden ")
    os.write(2, b"after")
    assert capfd.readouterr().err == "before after"


def test_use_np_decorates_but_calling_needs_mx_np():
    @tu.use_np
    def f(x):
        return x + 1

    @tu.use_np_default_dtype
    class Net:
        def __init__(self):
            self.ok = True
    assert f.__name__ == "f"
    with pytest.raises(NotImplementedError, match="mx.np"):
        f(1)
    with pytest.raises(NotImplementedError, match="mx.np"):
        Net()
    with pytest.raises(NotImplementedError, match="mx.np"):
        tu.check_gluon_hybridize_consistency(lambda prefix: None, [])


# ---- symbolic checks ----------------------------------------------------------------------------
def test_simple_forward_and_check_speed():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    out = tu.simple_forward(x * y + 1, x=np.array([1.0, 2.0]), y=np.array([3.0, 4.0]))
    assert np.allclose(out, [4.0, 9.0])
    assert tu.check_speed(x * y, N=2, x=(3, 4), y=(3, 4)) > 0
    assert tu.check_speed(x * 2, location={"x": np.ones((2, 2))}, N=2, typ="forward") > 0
    with pytest.raises(ValueError, match="whole"):
        tu.check_speed(x * 2, location={"x": np.ones((2, 2))}, typ="backward")


def test_check_symbolic_forward_passes_and_fails():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    a, b = np.random.rand(2, 3), np.random.rand(2, 3)
    outs = tu.check_symbolic_forward(x * y, [a, b], [a * b])
    assert isinstance(outs[0], mx.nd.NDArray) and outs[0].dtype == np.float32
    prod = x * y
    tu.check_symbolic_forward(prod, {"x": a, "y": b}, {prod.list_outputs()[0]: a * b}, dtype=np.float64,
                              rtol=1e-12, atol=0)
    tu.check_symbolic_forward(x + y, {"x": a, "y": b}, [a + b], dtype="asnumpy", rtol=1e-12, atol=0)
    with pytest.raises(AssertionError, match="EXPECTED_.*FORWARD_"):
        tu.check_symbolic_forward(x * y, [a, b], [a * b + 0.01])
    with pytest.raises(ValueError, match="do not match"):
        tu.check_symbolic_forward(x * y, {"x": a}, [a * b])


def test_check_symbolic_backward_write_add_and_null():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    a, b, g = np.random.rand(2, 3), np.random.rand(2, 3), np.random.rand(2, 3)
    grads = tu.check_symbolic_backward(x * y, [a, b], [g], [g * b, g * a], dtype=np.float64, rtol=1e-12, atol=0)
    assert np.allclose(grads["x"].asnumpy(), g * b)
    tu.check_symbolic_backward(x * y, [a, b], [g], {"x": g * b}, grad_req="add")
    # the random initial buffers have each gradient's magnitude: 'add' keeps float64 precision
    tu.check_symbolic_backward(x * y, [a * 1e-3, b], [g], [g * b, g * a * 1e-3], grad_req="add", dtype=np.float64,
                               rtol=1e-14, atol=0)
    prod = x * y
    tu.check_symbolic_backward(prod, [a, b], {prod.list_outputs()[0]: g}, {"y": g * a})
    tu.check_symbolic_backward(x * y, [a, b], [g], {"x": np.zeros((2, 3))}, grad_req="null")  # buffer untouched
    with pytest.raises(AssertionError, match="EXPECTED_x.*BACKWARD_x"):
        tu.check_symbolic_backward(x * y, [a, b], [g], {"x": g * a + 1})
    with pytest.raises(AssertionError):
        tu.check_symbolic_backward(x * y, [a, b], [g], {"x": g * a + 1}, grad_req="add")
    with pytest.raises(NotImplementedError, match="row_sparse"):
        tu.check_symbolic_backward(x * y, [a, b], [g], {"x": g * b}, grad_stypes={"x": "row_sparse"})


def test_check_numeric_gradient_accepts_right_and_rejects_wrong_gradients():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    loc = {"x": np.random.rand(3, 4), "w": np.random.rand(5, 4)}
    fc = mx.sym.FullyConnected(x, w, num_hidden=5, no_bias=True)
    tu.check_numeric_gradient(fc, loc)  # float64 with float64's default tolerances
    tu.check_numeric_gradient(mx.sym.tanh(x), {"x": loc["x"]}, dtype=np.float32)
    tu.check_numeric_gradient(fc, loc, grad_nodes={"x": "add", "w": "null"})
    tu.check_numeric_gradient(fc, [loc["x"], loc["w"]], grad_nodes=["w"], use_forward_train=False)
    tu.check_numeric_gradient(mx.sym.tanh(x), [mx.nd.array(loc["x"])])  # an NDArray keeps its float32
    # BlockGrad hides one of the two paths of x * x from backward: half the true gradient
    wrong = x * mx.sym.BlockGrad(x)
    with pytest.raises(AssertionError, match="NUMERICAL_x.*BACKWARD_x"):
        tu.check_numeric_gradient(wrong, {"x": loc["x"]})
    with pytest.raises(AssertionError):
        tu.check_numeric_gradient(wrong, {"x": loc["x"]}, dtype=np.float32)
    with pytest.raises(AssertionError, match="numeric_eps"):
        tu.check_numeric_gradient(mx.sym.tanh(x), {"x": loc["x"]}, numeric_eps=1e-7, dtype=np.float32)
    with pytest.raises(NotImplementedError, match="csr"):
        tu.check_numeric_gradient(fc, loc, grad_stype_dict={"w": "csr"})


def test_numeric_grad_of_an_executor_and_of_a_function():
    x = mx.sym.var("x")
    v = np.random.rand(2, 3)
    exe = (x * x * x).bind(mx.cpu(), args={"x": mx.nd.array(v, dtype="float64")})
    grads = tu.numeric_grad(exe, {"x": v}, eps=1e-4, dtype=np.float64)
    assert grads["x"].dtype == np.float64
    assert np.allclose(grads["x"], 3 * v * v, rtol=1e-6)  # error eps^2/4 of the third derivative
    base = np.arange(12.0).reshape(3, 4)
    view = base.T
    assert np.allclose(tu.numeric_grad(lambda: float((base ** 2).sum()), view, 1e-4), 2 * view)


def test_check_consistency_compares_bindings():
    x = mx.sym.var("data")
    sym = mx.sym.FullyConnected(x, num_hidden=3, name="fc")
    specs = [dict(ctx=mx.cpu(), data=(4, 5), type_dict={"data": t}) for t in ("float32", "float64")]
    outs = tu.check_consistency(sym, specs)
    assert len(outs) == 2 and outs[1][0].shape == (4, 3)
    tu.check_consistency(sym, specs, grad_req="null", use_uniform=True, scale=0.5)
    # a real difference between the bindings is caught, naming the binding
    two = [mx.sym.tanh(x, name="f"), mx.sym.sin(x, name="f")]  # same names, different values
    with pytest.raises(AssertionError, match="binding 0 .*float32"):
        tu.check_consistency(two, [dict(ctx=mx.cpu(), data=(3, 4), type_dict={"data": t})
                                   for t in ("float32", "float64")])
    tu.check_consistency(two, [dict(ctx=mx.cpu(), data=(3, 4))] * 2, raise_on_err=False)
    with pytest.raises(AssertionError, match="outputs"):  # the symbols must have the same outputs
        tu.check_consistency([x * 2.0, x * 2.0], [dict(ctx=mx.cpu(), data=(3, 4))] * 2)
    double = x * 2.0
    out = double.list_outputs()[0]
    with pytest.raises(AssertionError, match="ground truth"):  # it replaces the reference binding
        tu.check_consistency(double, [dict(ctx=mx.cpu(), data=(3, 4))] * 2,
                             ground_truth={out: np.zeros((3, 4)), "data": np.zeros((3, 4))})
    truth = {out: 2 * np.full((3, 4), 0.5), "data": 2 * 2 * np.full((3, 4), 0.5)}  # head gradient = output
    tu.check_consistency(double, [dict(ctx=mx.cpu(), data=(3, 4))] * 2, ground_truth=truth,
                         arg_params={"data": np.full((3, 4), 0.5)})
    tu.check_consistency(x * 2.0, [dict(ctx=mx.cpu(), data=(3, 4), type_dict={"data": "float16"}),
                                   dict(ctx=mx.cpu(), data=(3, 4), type_dict={"data": "float64"})],
                         arg_params={"data": np.full((3, 4), 0.1)}, tol={"float16": 1e-3})


def test_same_symbol_structure():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    assert tu.same_symbol_structure(x + y, mx.sym.var("a") + mx.sym.var("b"))
    assert not tu.same_symbol_structure(x + y, x * y)


# ---- random generator checks --------------------------------------------------------------------
def test_gen_buckets_and_chi_square_against_scipy():
    ss = pytest.importorskip("scipy.stats")
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda q: q, 4)
    assert buckets == [(0.0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.0)] and probs == [0.25] * 4
    p, obs, exp = tu.chi_square_check(lambda n: np.random.uniform(size=n), buckets, probs, nsamples=4000)
    assert obs.sum() == 4000 and list(exp) == [1000] * 4
    assert abs(p - ss.chisquare(obs, exp)[1]) < 1e-12
    p, obs, _ = tu.chi_square_check(lambda n: np.random.randint(0, 3, size=n), [0, 1, 2], [1 / 3.0] * 3, 3000)
    assert obs.sum() == 3000 and p > 1e-4


def test_verify_generator_accepts_the_right_and_rejects_a_wrong_distribution():
    ss = pytest.importorskip("scipy.stats")
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda q: ss.norm.ppf(q, 0, 1), 5)
    pvalues = tu.verify_generator(lambda n: np.random.normal(0, 1, size=n), buckets, probs, nsamples=5000)
    assert len(pvalues) == 5
    with pytest.raises(AssertionError, match="Generator test fails"):
        tu.verify_generator(lambda n: np.random.normal(0.3, 1, size=n), buckets, probs, nsamples=5000)
    with pytest.raises(AssertionError, match="Generator test fails"):
        tu.verify_generator(lambda n: np.random.randint(0, 2, size=n), [0, 1], [0.3, 0.7], nsamples=5000)


def test_mean_and_var_check():
    normal = lambda n: np.random.normal(1.0, 2.0, size=n)
    assert tu.mean_check(normal, 1.0, 2.0, nsamples=20000)
    assert not tu.mean_check(normal, 1.2, 2.0, nsamples=20000)
    assert tu.var_check(normal, 2.0, nsamples=20000)
    assert not tu.var_check(normal, 2.3, nsamples=20000)


# ---- optimizers ---------------------------------------------------------------------------------
def test_compare_optimizer():
    sgd = lambda lr: mx.optimizer.SGD(learning_rate=lr, momentum=0.9)
    tu.compare_optimizer(sgd(0.1), sgd(0.1), (3, 4), np.float32)
    with pytest.raises(AssertionError):
        tu.compare_optimizer(sgd(0.1), sgd(0.2), (3, 4), np.float32)
    tu.compare_optimizer_noise_seeded(sgd(0.1), sgd(0.1), (5,), np.float32, noise_seed=7)
    with pytest.raises(NotImplementedError, match="row_sparse"):
        tu.compare_optimizer(sgd(0.1), sgd(0.1), (3, 4), np.float32, w_stype="row_sparse")


# ---- files and downloads ------------------------------------------------------------------------
def test_download_keeps_existing_files_copies_urls_and_fails_clearly_offline(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    src = tmp_path / "src.bin"
    src.write_bytes(b"payload")
    got = tu.download(src.as_uri(), fname="copy.bin", dirname=str(tmp_path / "sub"))
    assert got == str(tmp_path / "sub" / "copy.bin") and open(got, "rb").read() == b"payload"
    src.write_bytes(b"changed")
    assert open(tu.download(src.as_uri(), fname=got), "rb").read() == b"payload"  # exists: kept
    assert open(tu.download(src.as_uri(), fname=got, overwrite=True), "rb").read() == b"changed"
    assert os.path.basename(tu.download(src.as_uri())) == "src.bin"
    with pytest.raises(OSError, match=r"127\.0\.0\.1:9/missing\.bin.*network"):
        tu.download("http://127.0.0.1:9/missing.bin", retries=0)
    assert not os.path.exists("missing.bin") and not os.path.exists("missing.bin.part")


def test_download_model_uses_meta_info(tmp_path):
    (tmp_path / "m.json").write_text("{}")
    (tmp_path / "m.params").write_bytes(b"p")
    meta = {"tiny": {"symbol": (tmp_path / "m.json").as_uri(), "params": (tmp_path / "m.params").as_uri()}}
    prefix, epoch = tu.download_model("tiny", dst_dir=str(tmp_path / "zoo"), meta_info=meta)
    assert epoch == 0 and os.path.exists(prefix + "-symbol.json") and os.path.exists(prefix + "-0000.params")
    assert tu.download_model("no-such-model", dst_dir=str(tmp_path)) == (None, 0)


def _idx_gz(path, header, payload):
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">" + "I" * len(header), *header) + payload)


def test_get_mnist_reads_local_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    images = np.random.randint(0, 256, size=(3, 28, 28)).astype(np.uint8)
    for prefix in ("train", "t10k"):
        _idx_gz("%s-labels-idx1-ubyte.gz" % prefix, (2049, 3), bytes([7, 0, 5]))
        _idx_gz("%s-images-idx3-ubyte.gz" % prefix, (2051, 3, 28, 28), images.tobytes())
    data = tu.get_mnist()
    assert data["train_data"].shape == (3, 1, 28, 28) and data["train_data"].dtype == np.float32
    assert np.allclose(data["test_data"][:, 0], images / 255.0)
    assert list(data["train_label"]) == [7, 0, 5] and data["test_label"].dtype == np.int8


def test_data_set_helpers_use_existing_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.makedirs("data/cifar")
    for name in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                 "t10k-labels-idx1-ubyte", "cifar/train.rec", "cifar/test.rec", "cifar/train.lst", "cifar/test.lst",
                 "mnist.pkl.gz"):
        open(os.path.join("data", name), "w").close()
    tu.get_mnist_ubyte()  # all present: no download attempted
    tu.get_cifar10()
    tu.get_mnist_pkl()
    with zipfile.ZipFile(str(tmp_path / "pack.zip"), "w") as zf:
        zf.writestr("inner.txt", "zipped")
    tu.get_zip_data("zdir", (tmp_path / "pack.zip").as_uri(), "pack.zip")
    assert open("zdir/inner.txt").read() == "zipped"
    with bz2.open(str(tmp_path / "t.bz2"), "wb") as f:
        f.write(b"line1\nline2\n")
    tu.get_bz2_data("bdir", "t.txt", (tmp_path / "t.bz2").as_uri(), "t.bz2")
    assert open("bdir/t.txt", "rb").read() == b"line1\nline2\n" and not os.path.exists("bdir/t.bz2")
    with pytest.raises(mx.MXNetError, match="MNISTIter: .*train-images-idx3-ubyte is not an MNIST image file"):
        tu.get_mnist_iterator(10, (784,))  # the empty placeholder files above


def test_get_im2rec_path(tmp_path, monkeypatch):
    os.makedirs(str(tmp_path / "tools"))
    (tmp_path / "tools" / "im2rec.py").write_text("")
    monkeypatch.setenv("MY_HOME", str(tmp_path))
    assert tu.get_im2rec_path("MY_HOME") == str(tmp_path / "tools" / "im2rec.py")
    monkeypatch.setenv("MY_HOME", str(tmp_path / "nowhere"))
    with pytest.raises(IOError, match="im2rec"):
        tu.get_im2rec_path("MY_HOME")


def test_dummy_iter_repeats_the_first_batch():
    real = mx.io.NDArrayIter(np.arange(12.0).reshape(6, 2), np.arange(6.0), batch_size=2)
    it = tu.DummyIter(real)
    assert it.batch_size == 2 and it.provide_data == real.provide_data
    first, second = next(it), it.next()
    assert first is second and np.array_equal(first.data[0].asnumpy(), [[0, 1], [2, 3]])
