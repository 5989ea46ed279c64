"""Label a 3-D Zarr volume with glccl.dask, chunk by chunk, into a Zarr
array, and draw a few of its slices.

    python3 python/examples/dask_zarr_volume.py [OUT_DIR] [--workers N]

Makes OUT_DIR/cells.zarr (default OUT_DIR: dask_example): a 160 x 320 x 320
(D x H x W) volume of blob-like cells (smoothed noise above a level, made chunk by chunk
with Dask), in chunks of 64; labels it with glccl.dask.label at
6-connectivity into OUT_DIR/labels.zarr, the count computed in the same run;
and writes OUT_DIR/labels.png, four z-slices of the labels read back from
the Zarr array, one colour per component, over the chunks' borders. With --workers N the run goes
through a dask.distributed LocalCluster of N processes, else Dask's threaded
scheduler. Needs numpy, scipy, dask, zarr and matplotlib (Debian's
python3-dask, python3-zarr, python3-matplotlib; python3-distributed for
--workers); draws with matplotlib's Agg backend, so no display is needed.
"""

import argparse
import os

import matplotlib

matplotlib.use("Agg")  # files only: works without a display
import dask  # noqa: E402
import dask.array as da  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import zarr  # noqa: E402
from scipy import ndimage  # noqa: E402

import glccl.dask  # noqa: E402

SLICES = 4


def make_cells(path, shape, chunks):
    """A mask of blob-like cells written to a Zarr array, chunk by chunk:
    uniform noise smoothed (a Gaussian of sigma 4, overlapping the chunks
    so the blobs cross them) and kept above a level."""
    noise = da.random.RandomState(7).random_sample(shape, chunks=chunks)
    smooth = noise.map_overlap(ndimage.gaussian_filter, depth=12, boundary="reflect", sigma=4)
    # map_overlap may widen a short last chunk; Zarr wants them regular.
    (smooth > 0.5065).astype(np.uint8).rechunk(chunks).to_zarr(path, overwrite=True)


def main(out_dir="dask_example", shape=(160, 320, 320), chunks=64):
    """Writes the volume, labels it into labels.zarr, draws labels.png;
    returns (n, paths of the volume, the labels and the picture)."""
    os.makedirs(out_dir, exist_ok=True)
    cells, labels_path, picture = (os.path.join(out_dir, name) for name in ("cells.zarr", "labels.zarr", "labels.png"))
    make_cells(cells, shape, chunks)

    volume = da.from_zarr(cells)                                   # lazy, in the store's chunks
    labels, n = glccl.dask.label(volume, connectivity=6)           # lazy too
    stored = labels.to_zarr(labels_path, overwrite=True, compute=False)
    _, n = dask.compute(stored, n)                                 # one run: the labels written, the count

    written = zarr.open(labels_path, mode="r")
    depths = np.linspace(0, shape[0] - 1, SLICES + 2).astype(int)[1:-1]
    rng = np.random.default_rng(0)
    colours = np.vstack([[0, 0, 0], rng.uniform(0.25, 1, (int(n), 3))])  # background black
    figure, axes = plt.subplots(1, SLICES, figsize=(3.2 * SLICES, 3.6))
    for axis, z in zip(axes, depths):
        axis.imshow(colours[written[z]], interpolation="nearest")  # one slice read from the store
        for edge in range(chunks, max(shape[1:]), chunks):           # the chunks' borders
            axis.axhline(edge - 0.5, color="0.35", lw=0.6)
            axis.axvline(edge - 0.5, color="0.35", lw=0.6)
        axis.set_title(f"z = {z}")
        axis.set_axis_off()
    figure.suptitle(f"glccl.dask.label: {n} cells at 6-connectivity in a {shape[2]}x{shape[1]}x{shape[0]} Zarr "
                    f"volume, chunks of {chunks}³ (grey lines)")
    figure.tight_layout(rect=(0, 0, 1, 0.94))
    figure.savefig(picture, dpi=80)
    plt.close(figure)
    return int(n), cells, labels_path, picture


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir", nargs="?", default="dask_example")
    parser.add_argument("--workers", type=int, help="a LocalCluster of this many processes (default: threads)")
    args = parser.parse_args()
    if args.workers:
        from distributed import Client, LocalCluster

        client = Client(LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=None))
    count, _, labels_zarr, png = main(args.out_dir)
    print(f"{count} components; wrote {labels_zarr} and {png}")
