#pragma once
// A warp's links, found by its lanes at different rates and united by all
// lanes at once (WarpLinks): the 2-D local_merge and the volume kernels.

namespace glccl::cuda {

constexpr unsigned kFullWarp = 0xFFFFFFFFu;

// The links a warp's lanes find, at different rates, united by all lanes at
// once. Finding links is bit operations, the same few steps in every lane;
// uniting walks trees whose depths vary. Uniting each link where its lane
// finds it runs those walks one lane at a time, a few lanes of 32 active.
// So each lane offers its links in step with the others (push, in every
// lane, with `has` whether it brings one), they are packed into the warp's
// queue, and when the queue could not take another round of 32, every lane
// unites every 32nd link in it.
template <typename Link, int Capacity>
struct WarpLinks {
    static_assert(Capacity >= 64, "room for a round of 32 after a flush's worth");
    Link* queue;     // this warp's Capacity entries
    int lane;
    int count = 0;   // the same in every lane

    template <class Unite>
    __device__ __forceinline__ void push(bool has, const Link& link, Unite&& unite) {
        const unsigned lanes = __ballot_sync(kFullWarp, has);
        if (has) queue[count + __popc(lanes & ((1u << lane) - 1u))] = link;
        count += __popc(lanes);
        if (count > Capacity - 32) flush(unite);
    }
    template <class Unite>
    __device__ __forceinline__ void flush(Unite&& unite) {
        __syncwarp();
        for (int i = lane; i < count; i += 32) unite(queue[i]);
        count = 0;
        __syncwarp();
    }
};

}  // namespace glccl::cuda
