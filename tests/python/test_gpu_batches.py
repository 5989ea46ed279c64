"""Device arrays on the GPU: CuPy arrays and torch tensors, single images,
batches and volumes, through the cuda backend, against scikit-image. Run
where CuPy or torch sees a GPU and the cuda backend runs (bench/cuda-check.sh
on the GPU machine); skipped with the reason elsewhere."""

import numpy as np
import pytest

import glccl
from device_support import cupy, needs_cupy, needs_torch, torch
from references import check_device_labels, skimage_table, TABLE_COLUMNS
from test_batch import check_against_skimage, uneven_stack


def check_stack(stack, labels, counts, connectivity, segments=False):
    check_against_skimage(stack, np.asarray(labels), np.asarray(counts), connectivity, segments)


@needs_cupy
@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("criterion", ["binary", "segments"])
def test_cupy_batches_match_skimage(connectivity, criterion):
    for n, h, w in ((1, 64, 64), (5, 37, 53), (9, 130, 70), (64, 64, 64)):
        stack = uneven_stack(n, h, w, seed=n + h, levels=4 if criterion == "segments" else 2)
        labels, counts = glccl.label_batch(cupy.asarray(stack), connectivity, criterion=criterion)
        assert isinstance(labels, cupy.ndarray) and isinstance(counts, cupy.ndarray)
        check_stack(stack, cupy.asnumpy(labels), cupy.asnumpy(counts), connectivity, criterion == "segments")


@needs_cupy
def test_cupy_batch_tables_and_a_strided_stack():
    stack = uneven_stack(6, 40, 50, seed=3)
    wide = cupy.zeros((6, 40, 64), cupy.uint8)
    wide[:, :, :50] = cupy.asarray(stack)
    labels, counts, tables = glccl.label_batch(wide[:, :, :50], 8, return_table=True)
    host = cupy.asnumpy(labels)
    check_stack(stack, host, cupy.asnumpy(counts), 8)
    for i in range(6):
        expected = skimage_table(host[i])
        for column in TABLE_COLUMNS:
            np.testing.assert_allclose(tables[i][column], expected[column])


@needs_cupy
def test_cupy_images_on_a_stream_match_skimage():
    rng = np.random.default_rng(11)
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        for h, w in ((1, 1), (77, 1), (513, 1025), (2048, 2048)):
            image = (rng.random((h, w)) < 0.5).astype(np.uint8)
            for connectivity in (4, 8):
                check_device_labels(cupy.asarray(image), image, connectivity, cupy.asnumpy)


@needs_cupy
def test_cupy_volumes_go_through_the_cuda_volume_path():
    rng = np.random.default_rng(12)
    volume = (rng.random((20, 30, 40)) < 0.3).astype(np.uint8)
    labels, n = glccl.label(cupy.asarray(volume), 26)
    from skimage import measure
    expected, want = measure.label(volume, connectivity=3, return_num=True)
    assert n == want
    np.testing.assert_array_equal(cupy.asnumpy(labels), expected)


@needs_torch
@pytest.mark.parametrize("connectivity", [4, 8])
def test_torch_images_and_batches_come_back_as_torch(connectivity):
    stack = uneven_stack(7, 45, 61, seed=connectivity)
    device_stack = torch.from_numpy(stack).cuda()
    labels, counts = glccl.label_batch(device_stack, connectivity)
    assert isinstance(labels, torch.Tensor) and labels.is_cuda and isinstance(counts, torch.Tensor)
    check_stack(stack, labels.cpu().numpy(), counts.cpu().numpy(), connectivity)
    single = check_device_labels(device_stack[3], stack[3], connectivity, lambda labels: labels.cpu().numpy())
    assert isinstance(single, torch.Tensor) and single.is_cuda


@needs_torch
def test_torch_on_its_own_stream_and_a_bool_mask():
    rng = np.random.default_rng(21)
    mask = rng.random((8, 100, 90)) < 0.4
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        device_mask = torch.from_numpy(mask).cuda(non_blocking=True)
        labels, counts = glccl.label_batch(device_mask, 8)
        host_labels, host_counts = labels.cpu(), counts.cpu()
    check_stack(mask.astype(np.uint8), host_labels.numpy(), host_counts.numpy(), 8)
