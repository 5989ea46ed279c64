"""Label the coins of scikit-image's sample photo with glccl and plot them.

    python3 python/examples/label_coins.py [OUT.png]

Thresholds skimage.data.coins() as scikit-image's "Label image regions"
gallery example does (the photo without its 50-pixel margin, whose bright
background would join the coins; Otsu's threshold; a 3 x 3 closing), labels
the mask with glccl.label(), and writes OUT.png (default coins_labels.png):
the photo, and the components in color with the bounding boxes of the
coin-sized ones from the component table.
Needs numpy, scikit-image and matplotlib (python3-matplotlib); draws with
matplotlib's Agg backend, so no display is needed.
"""

import sys

import matplotlib

matplotlib.use("Agg")  # files only: works without a display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from skimage import color, data, filters, morphology  # noqa: E402

import glccl  # noqa: E402

COIN_AREA = 100  # pixels: smaller components are specks of the background


def main(out_path="coins_labels.png"):
    """Labels the thresholded coins, writes the figure to out_path and
    returns (mask, labels, n)."""
    photo = data.coins()[50:-50, 50:-50]
    mask = morphology.binary_closing(photo > filters.threshold_otsu(photo), np.ones((3, 3), bool))
    labels, n, table = glccl.label(mask, connectivity=8, return_table=True)
    coins = np.flatnonzero(table["area"] >= COIN_AREA)

    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
    left.imshow(photo, cmap="gray")
    left.set_title("skimage.data.coins()[50:-50, 50:-50]")
    right.imshow(color.label2rgb(labels, bg_label=0))
    right.set_title(f"glccl.label: {n} components, {len(coins)} of at least {COIN_AREA} px")
    for i in coins:  # table row i describes label i + 1
        right.add_patch(Rectangle((table["left"][i] - 0.5, table["top"][i] - 0.5),
                                  table["width"][i], table["height"][i], fill=False, color="white", lw=1))
    for axes in (left, right):
        axes.set_axis_off()
    figure.tight_layout()
    figure.savefig(out_path, dpi=100)
    plt.close(figure)
    return mask, labels, n


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "coins_labels.png"
    _, _, count = main(path)
    print(f"{count} components; wrote {path}")
