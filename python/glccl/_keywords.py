"""Keywords that glccl's own entries do not take, answered with what does
the same in glccl: people bring scikit-image's, scipy's and cc3d's."""

# keyword -> what to write instead, in glccl.label() and glccl.Labeler
_EQUIVALENTS = {
    "background": "glccl's background is 0 (criterion='binary' or 'segments'); for another background value use "
                  "glccl.skimage.label(image, background=...)",
    "return_num": "glccl.label() always returns (labels, n); drop return_num",
    "return_N": "glccl.label() always returns (labels, n); drop return_N",
    "structure": "pass the structure as connectivity= (a symmetric 3x3 or, for volumes, 3x3x3 mask), or "
                 "connectivity=4 or 8 (6, 18 or 26 for volumes)",
    "output": "pass out= (an array) or dtype= ('uint32', 'uint64')",
    "out_dtype": "pass dtype= ('uint32', 'uint64' or 'auto')",
    "binary_image": "criterion='binary' (the default) labels nonzero pixels; criterion='segments' labels equal values",
    "delta": "pass criterion=('delta', D), or call glccl.cc3d.connected_components(image, delta=D)",
    "max_labels": "glccl needs no estimate of the label count; drop max_labels",
    "input": "the image is the first argument, image=",
    "label_image": "the image is the first argument, image=",
    "data": "the image is the first argument, image=",
    "threshold": "pass criterion=('threshold', T)",
    "level": "pass criterion=('binary', L)",
}


def refuse_unknown(unknown, where):
    """TypeError naming the first keyword in `unknown` (a dict of keywords
    the entry `where` does not take) and its glccl equivalent."""
    if not unknown:
        return
    name = next(iter(unknown))
    hint = _EQUIVALENTS.get(name)
    if hint is None:
        raise TypeError(f"{where} got an unexpected keyword argument {name!r}; see help({where[:-2]})")
    raise TypeError(f"{where} takes no keyword {name!r}: {hint}")
