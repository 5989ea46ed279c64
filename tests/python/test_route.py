"""An array larger than one call of its backend (wider or taller than
llvmpipe's GL_MAX_TEXTURE_SIZE, 16384) is labeled through tiles by the
route glccl chooses, with the labels and table of scikit-image."""

import numpy as np
import pytest

import glccl
from references import AVAILABLE, assert_tables_equal, backend_params, random_binary, skimage_labels, skimage_table


@pytest.mark.parametrize("backend", ["auto"] + backend_params(("compute", "raster")))
@pytest.mark.parametrize("shape", [(5, 20000), (20000, 3)])
def test_past_one_call(backend, shape):
    image = random_binary(np.random.default_rng(sum(shape)), *shape, p=0.55)
    labels, n, table = glccl.label(image, connectivity=8, backend=backend, return_table=True)
    want, want_n = skimage_labels(image, 8)
    assert n == want_n
    assert np.array_equal(labels, want)
    assert_tables_equal(table, skimage_table(want), "regionprops")
