#pragma once
// What the measuring tests of every engine share: two property tables the
// same, values bit for bit (NaN where the other has NaN too). The GPU's
// totals are exact and one finalizer turns every engine's totals into
// values, so nothing less than bit equality is expected.

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstring>

#include "glccl/region_properties.hpp"

namespace glccl::test {

inline void requireSameTable(const PropertyTable& expected, const PropertyTable& actual) {
    REQUIRE(actual.rows == expected.rows);
    REQUIRE(actual.columns.size() == expected.columns.size());
    for (std::size_t c = 0; c < expected.columns.size(); ++c) {
        const PropertyColumn& e = expected.columns[c];
        const PropertyColumn& a = actual.columns[c];
        INFO("column " << e.name);
        REQUIRE(a.name == e.name);
        REQUIRE(a.type == e.type);
        REQUIRE(a.ints == e.ints);
        REQUIRE(a.uints == e.uints);
        REQUIRE(a.reals.size() == e.reals.size());
        REQUIRE(std::memcmp(a.reals.data(), e.reals.data(), e.reals.size() * sizeof(double)) == 0);
    }
}

}  // namespace glccl::test
