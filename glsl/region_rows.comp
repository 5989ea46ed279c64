// region_rows: the region buffer of Labeler::regionBuffer(), one row per
// region, written on the GPU from the compute engine's component table and
// the regions' moment sums of level 2 (measure_terms.comp), so that nothing
// crosses the bus. Two stages, one invocation per region of the batch
// (labels firstLabel .. firstLabel + batchLabels - 1):
//
//   REGION_CORNERS  the box's least corner (x, y, z) into `corners`, which
//                   measure_terms reads to sum each region's moments in its
//                   box's coordinates
//   REGION_ROWS     the row (engine/src/region_rows.hpp, RegionRow):
//                   box, area, centroid and the ellipse of the second
//                   central moments
//
// The table (TABLE_IMAGE, an r32ui 2-D array) holds entry i, label i + 1, at
// (i % TABLE_WIDTH, i / TABLE_WIDTH), one layer per field (FIELD_*): the
// least x inverted, the least y inverted in a volume only, the least z of a
// volume as it is (compute_constants.hpp). measure_common.glsl gives the
// records (`totals`, RECORD_WORDS words a region, the moment sums from
// MOMENTS_AT, TERM_* each one's offset and limbs).

layout(local_size_x = MEASURE_GROUP) in;

layout(r32ui, binding = TABLE_IMAGE) uniform readonly uimage2DArray table;

uint field(int f, uint entry) {
    return imageLoad(table, ivec3(int(entry % uint(TABLE_WIDTH)), int(entry / uint(TABLE_WIDTH)), f)).r;
}

// The least corner of the box of table entry `entry`.
ivec3 leastCorner(uint entry) {
    const int x = int(~field(FIELD_MIN_X, entry));
#if DIMENSIONS == 3
    return ivec3(x, int(~field(FIELD_MIN_Y, entry)), int(field(FIELD_MIN_Z, entry)));
#else
    return ivec3(x, int(field(FIELD_MIN_Y, entry)), 0);
#endif
}

#ifdef REGION_CORNERS

layout(std430, binding = CORNERS_BUFFER) writeonly buffer Corners { ivec4 corners[]; };

void main() {
    const uint r = gl_GlobalInvocationID.x;
    if (r >= batchLabels) return;
    corners[r] = ivec4(leastCorner(firstLabel - 1u + r), 0);
}

#else

struct RegionRow {
    vec4 boxMin;
    vec4 boxMax;
    vec4 centre;
    vec4 ellipse;
};
layout(std430, binding = ROWS_BUFFER) writeonly buffer Rows { RegionRow rows[]; };

// A moment sum of region r of the batch, in double: exact up to 2^53, and
// rounded once past it.
// `term` is TERM_*: the moment's offset from MOMENTS_AT and its limbs.
double momentOf(uint r, ivec2 term) {
    const uint at = r * uint(RECORD_WORDS) + uint(MOMENTS_AT + term.x);
    double value = 0.0, scale = 1.0;
    for (int k = 0; k < term.y; ++k) {
        value += double(totals[at + uint(k)]) * scale;
        scale *= 4294967296.0;
    }
    return value;
}

void main() {
    const uint r = gl_GlobalInvocationID.x;
    if (r >= batchLabels) return;
    const uint entry = firstLabel - 1u + r;
    const ivec3 least = leastCorner(entry);
#if DIMENSIONS == 3
    const ivec3 most = ivec3(field(FIELD_MAX_X, entry), field(FIELD_MAX_Y, entry), field(FIELD_MAX_Z, entry));
#else
    const ivec3 most = ivec3(field(FIELD_MAX_X, entry), field(FIELD_MAX_Y, entry), 0);
#endif
    const double n = momentOf(r, TERM_0);
    // The centroid in the box's coordinates, then the central moments of
    // second order about it (mu_ab = m_ab - c_a m_b).
    const double cx = momentOf(r, TERM_X) / n, cy = momentOf(r, TERM_Y) / n;
    const double xx = momentOf(r, TERM_XX) - cx * momentOf(r, TERM_X);
    const double yy = momentOf(r, TERM_YY) - cy * momentOf(r, TERM_Y);
    const double xy = momentOf(r, TERM_XY) - cx * momentOf(r, TERM_Y);
    RegionRow row;
    row.boxMin = vec4(vec3(least), float(field(FIELD_AREA, entry)));
    row.boxMax = vec4(vec3(most + 1), 0.0);
#if DIMENSIONS == 3
    const double cz = momentOf(r, TERM_Z) / n;
    const double zz = momentOf(r, TERM_ZZ) - cz * momentOf(r, TERM_Z);
    const double xz = momentOf(r, TERM_XZ) - cx * momentOf(r, TERM_Z);
    const double yz = momentOf(r, TERM_YZ) - cy * momentOf(r, TERM_Z);
    // scikit-image's inertia tensor (its eigenvalues do not depend on the
    // axes' order), diagonalized by cyclic Jacobi rotations as the host's
    // finalizer does it.
    double m[3][3] = double[3][3](double[3]((yy + zz) / n, -xy / n, -xz / n), double[3](-xy / n, (xx + zz) / n, -yz / n),
                                  double[3](-xz / n, -yz / n, (xx + yy) / n));
    for (int sweep = 0; sweep < 100; ++sweep) {
        const double off = m[0][1] * m[0][1] + m[0][2] * m[0][2] + m[1][2] * m[1][2];
        if (off == 0.0) break;
        for (int p = 0; p < 3; ++p)
            for (int q = p + 1; q < 3; ++q) {
                const double apq = m[p][q];
                if (apq == 0.0) continue;
                const double theta = (m[q][q] - m[p][p]) / (2.0 * apq);
                const double t = (theta >= 0.0 ? 1.0 : -1.0) / (abs(theta) + sqrt(theta * theta + 1.0));
                const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
                for (int k = 0; k < 3; ++k) {
                    const double akp = m[k][p], akq = m[k][q];
                    m[k][p] = c * akp - s * akq;
                    m[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; ++k) {
                    const double apk = m[p][k], aqk = m[q][k];
                    m[p][k] = c * apk - s * aqk;
                    m[q][k] = s * apk + c * aqk;
                }
            }
    }
    // Descending, none below 0 (rounding of a flat region).
    double e0 = max(m[0][0], 0.0), e1 = max(m[1][1], 0.0), e2 = max(m[2][2], 0.0);
    if (e0 < e1) { const double t = e0; e0 = e1; e1 = t; }
    if (e1 < e2) { const double t = e1; e1 = e2; e2 = t; }
    if (e0 < e1) { const double t = e0; e0 = e1; e1 = t; }
    row.centre = vec4(vec3(least) + vec3(cx, cy, cz) + 0.5, 0.0);
    row.ellipse = vec4(0.0, float(sqrt(max(0.0, 10.0 * (e0 + e1 - e2)))), float(sqrt(max(0.0, 10.0 * (-e0 + e1 + e2)))),
                       0.0);
#else
    // The inertia tensor in numpy's axis order (rows, columns): a = mu_xx / n,
    // b = -mu_xy / n, c = mu_yy / n; its eigenvalues, and scikit-image's
    // orientation, the angle from the rows' axis to the major axis.
    const double a = xx / n, b = -xy / n, c = yy / n;
    const double spread = 0.5 * (a - c);
    const double radius = sqrt(spread * spread + b * b);
    const double e0 = max(0.5 * (a + c) + radius, 0.0), e1 = max(0.5 * (a + c) - radius, 0.0);
    float orientation;
    if (a - c == 0.0) orientation = b < 0.0 ? 0.7853981633974483 : -0.7853981633974483;
    else orientation = 0.5 * atan(float(-2.0 * b), float(c - a));
    row.centre = vec4(vec2(least.xy) + vec2(cx, cy) + 0.5, 0.5, 0.0);
    row.ellipse = vec4(orientation, float(4.0 * sqrt(e0)), float(4.0 * sqrt(e1)), 0.0);
#endif
    rows[r] = row;
}

#endif
