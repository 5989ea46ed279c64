"""The figure of docs/python.md: scikit-image's segmentation of the
astronaut relabeled by glccl.skimage.label (equal-value regions, as
skimage.measure.label) beside glccl.label's default (binary: one component),
and the coins after glccl.remove_small and glccl.keep_largest.

    PYTHONPATH=build/python python3 python/examples/dropins_figure.py docs/python_dropins.png

Needs numpy, scikit-image and matplotlib (python3-matplotlib, Agg backend).
"""

import sys

import matplotlib

matplotlib.use("Agg")  # files only: works without a display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from skimage import color, data, filters, measure, segmentation  # noqa: E402

import glccl  # noqa: E402
import glccl.skimage  # noqa: E402


def main(out_path="python_dropins.png"):
    astronaut = data.astronaut()[::2, ::2]
    segments = segmentation.slic(astronaut, n_segments=150, start_label=1)
    regions, n_regions = glccl.skimage.label(segments, return_num=True)
    assert np.array_equal(regions, measure.label(segments))  # the drop-in's promise
    binary, n_binary = glccl.label(segments)

    coins = data.coins()[50:-50, 50:-50]
    labels, n = glccl.label(coins > filters.threshold_otsu(coins))
    without_specks, n_left = glccl.remove_small(labels, 100)
    largest, n_largest = glccl.keep_largest(labels, 5)

    figure, axes = plt.subplots(1, 4, figsize=(14, 3.8))
    panels = [
        (color.label2rgb(regions, astronaut, kind="avg", bg_label=0),
         f"glccl.skimage.label(slic): {n_regions}"),
        (color.label2rgb(binary, bg_label=0), f"glccl.label(slic): {n_binary} (binary)"),
        (color.label2rgb(without_specks, bg_label=0), f"remove_small(labels, 100): {n_left} of {n}"),
        (color.label2rgb(largest, bg_label=0), f"keep_largest(labels, 5): {n_largest}"),
    ]
    for axis, (image, title) in zip(axes, panels):
        axis.imshow(image)
        axis.set_title(title, fontsize=10)
        axis.axis("off")
    figure.tight_layout()
    figure.savefig(out_path, dpi=60)
    return n_regions, n_binary, n_left, n_largest


if __name__ == "__main__":
    print(main(*sys.argv[1:2]))
