"""A Dask task's glccl call shares the process's cores with the tasks that
run beside it (glccl._dask_tasks.task_threads, as glccl.dask.label's and
regionprops_table's threads=None document): cores / T threads under a
scheduler that runs T tasks at once, the caller's count where given."""

import os

import pytest

dask = pytest.importorskip("dask")

from glccl._dask_tasks import task_threads  # noqa: E402

CORES = len(os.sched_getaffinity(0))


def test_given_threads_are_kept():
    assert task_threads(3) == 3


@pytest.mark.parametrize("at_once", [1, 2, CORES * 2])
def test_threaded_scheduler_shares_the_cores(at_once):
    with dask.config.set(num_workers=at_once):
        got = dask.delayed(task_threads)(None).compute(scheduler="threads")
    assert got == max(1, CORES // at_once)


def test_distributed_worker_shares_the_cores():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as c, \
            distributed.Client(c) as client:
        assert client.submit(task_threads, None, pure=False).result() == max(1, CORES // 2)
