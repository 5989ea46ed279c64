#pragma once
// One comparison of an engine's labels, table and count with an expected
// labeling (the reference's), for the host tests of every engine: whole
// arrays first (fast), then the first differing element or component field,
// so that a failure names where it is.

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "glccl/reference.hpp"
#include "glccl/types.hpp"

namespace glccl::test {

inline void requireSameLabeling(const Labeling& expected, const std::vector<std::uint32_t>& labels,
                                const std::vector<Component>& table, std::uint32_t count) {
    REQUIRE(count == expected.count());
    REQUIRE(table.size() == expected.count());
    if (labels != expected.labels) {
        for (std::size_t i = 0; i < labels.size(); ++i) {
            INFO("element " << i);
            REQUIRE(labels[i] == expected.labels[i]);
        }
    }
    if (table != expected.components) {
        for (std::size_t i = 0; i < table.size(); ++i) {
            INFO("component " << i + 1);
            REQUIRE(table[i].left == expected.components[i].left);
            REQUIRE(table[i].top == expected.components[i].top);
            REQUIRE(table[i].front == expected.components[i].front);
            REQUIRE(table[i].width == expected.components[i].width);
            REQUIRE(table[i].height == expected.components[i].height);
            REQUIRE(table[i].depth == expected.components[i].depth);
            REQUIRE(table[i].area == expected.components[i].area);
            REQUIRE(table[i].centroidX == expected.components[i].centroidX);
            REQUIRE(table[i].centroidY == expected.components[i].centroidY);
            REQUIRE(table[i].centroidZ == expected.components[i].centroidZ);
        }
    }
}

}  // namespace glccl::test
