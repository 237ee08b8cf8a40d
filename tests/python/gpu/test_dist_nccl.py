"""Distributed training with GPU arrays: `mpirun -np 2` ranks, rank r on gpu(local rank r), whose
gradients and collectives NCCL sums (its communicator bootstrapped over MPI). NCCL cannot seat two
ranks on one GPU, so these need 2 GPUs; the CPU/MPI path is tests/python/test_dist.py."""
import numpy as np
import pytest

import symnet as mx
from test_dist import check, load, mpirun, needs_mpi, single

pytestmark = [needs_mpi, pytest.mark.skipif(mx.num_gpus() < 2, reason="needs 2 GPUs (symnet.num_gpus() == %d)"
                                            % mx.num_gpus())]


def test_collectives_of_every_dtype_and_size_on_gpus(tmp_path):
    """All-reduce (float16/bfloat16 summed in float32, integers and bool in int64), broadcast,
    all-gather and the gradient reducer's buckets on GPU arrays: exact small whole numbers."""
    check(mpirun(2, "collectives", tmp_path, "--gpu")[0])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rank0.ok", "rank1.ok"]


@pytest.mark.parametrize("net", ["mlp", "resnet"])
def test_two_gpu_ranks_of_16_train_like_one_gpu_of_32(tmp_path, net):
    """Module with kvstore dist_sync on GPUs: the MLP, and the small ResNet whose SyncBatchNorm
    sums its statistics over the ranks; weights equal across the ranks and close to one GPU's."""
    dist_out, one_out = tmp_path / "dist", tmp_path / "one"
    check(mpirun(2, "train", dist_out, "--gpu", "--net", net, "--batch", 16)[0])
    single("train", one_out, "--gpu", "--net", net, "--batch", 32)
    r0, r1, one = load(dist_out, 0), load(dist_out, 1), load(one_out, 0)
    for k in [k for k in one if k.startswith(("param:", "aux:"))]:
        np.testing.assert_array_equal(r0[k], r1[k], err_msg=k)
        np.testing.assert_allclose(r0[k], one[k], rtol=1e-4, atol=1e-5, err_msg=k)
