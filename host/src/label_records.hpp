#pragma once
// The per-label records of label_filters.cpp's passes: a table indexed by
// label for small labels, a hash map for the others, so that a sparse label
// such as 2^40 costs one entry, not a table of 2^40.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace glccl::detail {

// Labels below this always have a table entry (a table this small costs
// nothing), whatever the element count.
constexpr std::uint64_t kTableLabels = std::uint64_t(1) << 16;

// Per label, `words` 64-bit words, all 0 until the label is added; word 0 is
// its count, which the caller raises at once. Labels below tableLimit live
// in a table indexed by label, grown to the largest added; the others in a
// hash map (open addressing, linear probing).
class LabelRecords {
public:
    LabelRecords(std::size_t words, std::uint64_t tableLimit) : words_(words), tableLimit_(tableLimit) {}

    // The label's record, zeroed and appended to labels() the first time.
    // Valid until the next add.
    std::uint64_t* add(std::uint64_t label, bool& added) {
        if (label >= tableLabels_) return addBeyondTable(label, added);
        std::uint64_t* record = &table_[label * words_];
        added = record[0] == 0;
        if (added) labels_.push_back(label);
        return record;
    }

    // The label's record: all 0 for a label of the table never added,
    // nullptr for another label never added.
    std::uint64_t* find(std::uint64_t label) {
        if (label < tableLabels_) return &table_[label * words_];
        if (keys_.empty() || label < tableLimit_) return nullptr;
        for (std::size_t slot = slotOf(label); keys_[slot] != 0; slot = (slot + 1) & (keys_.size() - 1))
            if (keys_[slot] == label) return &hashed_[positions_[slot]];
        return nullptr;
    }
    const std::uint64_t* find(std::uint64_t label) const { return const_cast<LabelRecords*>(this)->find(label); }

    // The table: the records of labels 0..tableLabels()-1, `words` words each.
    const std::uint64_t* table() const { return table_.data(); }
    std::uint64_t tableLabels() const { return tableLabels_; }

    // Every label added, in the order they were.
    const std::vector<std::uint64_t>& labels() const { return labels_; }

private:
    // add() for a label the table does not hold yet: the table grown to it,
    // or the hash map.
    std::uint64_t* addBeyondTable(std::uint64_t label, bool& added) {
        if (label < tableLimit_) {
            growTable(label);
            return add(label, added);
        }
        if (2 * (hashed_.size() / words_ + 1) > keys_.size()) growHash();
        std::size_t slot = slotOf(label);
        while (keys_[slot] != 0 && keys_[slot] != label) slot = (slot + 1) & (keys_.size() - 1);
        added = keys_[slot] == 0;
        if (added) {
            keys_[slot] = label;
            positions_[slot] = hashed_.size();
            hashed_.resize(hashed_.size() + words_, 0);
            labels_.push_back(label);
        }
        return &hashed_[positions_[slot]];
    }

    void growTable(std::uint64_t label) {
        tableLabels_ = std::min(tableLimit_, std::max({label + 1, 2 * tableLabels_, std::uint64_t(1024)}));
        table_.resize(tableLabels_ * words_, 0);
    }

    void growHash() {
        const std::vector<std::uint64_t> keys = std::move(keys_), positions = std::move(positions_);
        const std::size_t slots = std::max<std::size_t>(16, 2 * keys.size());
        keys_.assign(slots, 0);
        positions_.assign(slots, 0);
        shift_ = 64;
        for (std::size_t size = slots; size > 1; size /= 2) --shift_;
        for (std::size_t old = 0; old < keys.size(); ++old) {
            if (keys[old] == 0) continue;
            std::size_t slot = slotOf(keys[old]);
            while (keys_[slot] != 0) slot = (slot + 1) & (slots - 1);
            keys_[slot] = keys[old];
            positions_[slot] = positions[old];
        }
    }

    // Fibonacci hashing: the top bits of label * 2^64 / phi.
    std::size_t slotOf(std::uint64_t label) const {
        return std::size_t((label * 0x9E3779B97F4A7C15ull) >> shift_);
    }

    std::size_t words_;
    std::uint64_t tableLimit_;
    std::uint64_t tableLabels_ = 0;     // the table's labels: 0..tableLabels_-1
    std::vector<std::uint64_t> table_;  // tableLabels_ records
    std::vector<std::uint64_t> keys_;   // the hash map's labels, 0 for a free slot (0 is never hashed)
    std::vector<std::uint64_t> positions_;  // of each key's record in hashed_
    std::vector<std::uint64_t> hashed_;     // the records of hashed labels, in the order added
    int shift_ = 64;
    std::vector<std::uint64_t> labels_;
};

// The labels a table holds records of directly for an array of `elements`:
// tables of at most about 16 bytes an element, and never fewer than
// kTableLabels.
inline std::uint64_t tableLimitFor(std::uint64_t elements, std::size_t words) {
    return std::max(kTableLabels, std::min(elements, std::uint64_t(1) << 60) * 2 / words);
}

}  // namespace glccl::detail
