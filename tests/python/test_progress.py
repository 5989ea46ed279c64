"""glccl.label(progress=...): the callable hears (stage, seconds, fraction),
or (stage, seconds) where it takes two arguments; the fraction is the work
done, never goes back and is 1.0 at "done"; the labels are scipy's."""

import numpy as np
import pytest
from scipy import ndimage

import glccl
from references import random_binary

# Large enough for several of the callback's 50 ms polls on one thread of
# the cpu engine.
LONG = (6000, 6000)
EIGHT = np.ones((3, 3), bool)


def noisy_image(shape=(2000, 2000), seed=5):
    return random_binary(np.random.default_rng(seed), *shape, p=0.5)


def test_fraction_rises_to_one_with_the_cpu_engines_stages():
    image = noisy_image(LONG)
    calls = []
    labels, n = glccl.label(image, backend="cpu", threads=1,
                            progress=lambda stage, seconds, fraction: calls.append((stage, seconds, fraction)))
    want, want_n = ndimage.label(image, EIGHT)
    assert n == want_n and np.array_equal(labels, want)

    stages = [stage for stage, _, _ in calls]
    fractions = [fraction for _, _, fraction in calls]
    assert calls[-1][0] == "done" and calls[-1][2] == 1.0
    assert stages.count("done") == 1
    assert all(0.0 <= f <= 1.0 for f in fractions)
    assert fractions == sorted(fractions), fractions
    assert [s for _, s, _ in calls] == sorted(s for _, s, _ in calls)
    if len(calls) < 3:
        pytest.skip(f"the call ended within {len(calls) - 1} polls: no fraction between 0 and 1 to see")
    # Between the first and the last poll, fractions strictly inside (0, 1)
    # in the engine's stages, in their order, the later stages further on.
    assert any(0.0 < f < 1.0 for f in fractions[:-1]), calls
    order = ["read", "label", "scan", "merge", "number", "final", "done"]
    assert set(stages) <= set(order), stages
    ranks = [order.index(s) for s in stages]
    assert ranks == sorted(ranks), stages
    for early, late in [("scan", "final")]:
        if early in stages and late in stages:
            assert max(f for s, _, f in calls if s == early) <= min(f for s, _, f in calls if s == late)


def test_a_copied_array_reports_reading_first():
    # A Fortran-ordered int64 array is copied to samples before labeling.
    image = np.asfortranarray(noisy_image(seed=6).astype(np.int64))
    calls = []
    labels, n = glccl.label(image, backend="cpu", progress=lambda *args: calls.append(args))
    want, want_n = ndimage.label(image, EIGHT)
    assert n == want_n and np.array_equal(labels, want)
    assert all(len(args) == 3 for args in calls)
    fractions = [args[2] for args in calls]
    assert fractions == sorted(fractions) and calls[-1] == ("done", calls[-1][1], 1.0)


def test_a_volume_on_the_cpu_engine():
    volume = (np.random.default_rng(7).random((40, 200, 200)) < 0.3).astype(np.uint8)
    calls = []
    labels, n = glccl.label(volume, connectivity=6, backend="cpu",
                            progress=lambda stage, seconds, fraction: calls.append(fraction))
    want, want_n = ndimage.label(volume)
    assert n == want_n and np.array_equal(labels, want)
    assert calls == sorted(calls) and calls[-1] == 1.0


def test_two_argument_callables_keep_their_two_arguments():
    image = noisy_image(seed=8)
    seen = []

    class Recorder:
        def __call__(self, stage, seconds):
            seen.append((stage, seconds))

    def with_default(stage, seconds, *, fraction=None):
        seen.append(fraction)

    labels, n = glccl.label(image, backend="cpu", progress=Recorder())
    assert seen[-1][0] == "done" and all(len(call) == 2 for call in seen)
    assert np.array_equal(labels, ndimage.label(image, EIGHT)[0])
    seen.clear()
    glccl.label(image, backend="cpu", progress=with_default)
    assert seen and all(f is None for f in seen)


@pytest.mark.parametrize("progress, words", [
    (lambda: None, "glccl.label(): progress must take (stage, seconds, fraction) or (stage, seconds)"),
    (lambda stage: None, "glccl.label(): progress must take (stage, seconds, fraction) or (stage, seconds)"),
    (3, "glccl.label(): progress must be None or a callable"),
])
def test_a_progress_that_cannot_be_called_so_is_refused_before_labeling(progress, words):
    with pytest.raises(TypeError) as error:
        glccl.label(np.ones((4, 4), np.uint8), backend="cpu", progress=progress)
    assert str(error.value).startswith(words), str(error.value)


def test_an_exception_from_progress_ends_the_call():
    class Stop(Exception):
        pass

    def stop(stage, seconds, fraction):
        raise Stop(stage)

    with pytest.raises(Stop):
        glccl.label(noisy_image(seed=9), backend="cpu", progress=stop)
