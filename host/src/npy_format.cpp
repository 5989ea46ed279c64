#include "npy_format.hpp"

#include <charconv>
#include <cstring>
#include <string>
#include <vector>

namespace glccl::detail {

namespace {

// The value after 'key': in the header dict, up to the next ',' outside
// parentheses, brackets, braces and quotes (a structured descr is a list of
// tuples of quoted names), or the closing brace; "" when the key is missing.
std::string npyHeaderValue(const std::string& header, const std::string& key) {
    const std::size_t at = header.find("'" + key + "'");
    if (at == std::string::npos) return {};
    std::size_t start = header.find(':', at);
    if (start == std::string::npos) return {};
    ++start;
    int depth = 0;
    std::size_t end = start;
    for (; end < header.size(); ++end) {
        const char c = header[end];
        if (c == '\'' || c == '"') {
            const std::size_t close = header.find(c, end + 1);
            if (close == std::string::npos) break;
            end = close;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') ++depth;
        if (c == ')' || c == ']' || (c == '}' && depth > 0)) --depth;
        else if ((c == ',' && depth == 0) || c == '}') break;
    }
    std::string value = header.substr(start, end - start);
    const auto first = value.find_first_not_of(' ');
    const auto last = value.find_last_not_of(' ');
    return first == std::string::npos ? std::string() : value.substr(first, last - first + 1);
}

// The keys of the header's dict in the order written: the quoted names
// followed by ':' at its top level (a structured descr's own quoted names
// sit deeper, inside its list).
std::vector<std::string> npyHeaderKeys(const std::string& header) {
    std::vector<std::string> keys;
    int depth = 0;
    for (std::size_t at = 0; at < header.size(); ++at) {
        const char c = header[at];
        if (c == '{' || c == '(' || c == '[') ++depth;
        if (c == '}' || c == ')' || c == ']') --depth;
        if (c != '\'' && c != '"') continue;
        const std::size_t close = header.find(c, at + 1);
        if (close == std::string::npos) break;
        std::size_t next = close + 1;
        while (next < header.size() && header[next] == ' ') ++next;
        if (depth == 1 && next < header.size() && header[next] == ':') keys.push_back(header.substr(at + 1, close - at - 1));
        at = close;
    }
    return keys;
}

constexpr NpyDtype kNpyImageDtypes[] = {
    {"'|u1'", 1, NpyKind::Unsigned, 8},       {"'<u1'", 1, NpyKind::Unsigned, 8},
    {"'|b1'", 1, NpyKind::Bool, 8},           {"'|i1'", 1, NpyKind::Signed, 8},
    {"'<u2'", 2, NpyKind::Unsigned, 16},      {"'>u2'", 2, NpyKind::Unsigned, 16, true},
    {"'<i2'", 2, NpyKind::Signed, 16},        {"'>i2'", 2, NpyKind::Signed, 16, true},
    {"'<u4'", 4, NpyKind::Unsigned, 32},      {"'>u4'", 4, NpyKind::Unsigned, 32, true},
    {"'<i4'", 4, NpyKind::Signed, 32},        {"'>i4'", 4, NpyKind::Signed, 32, true},
    {"'<f4'", 4, NpyKind::Float, 32},         {"'>f4'", 4, NpyKind::Float, 32, true},
    {"'<u8'", 8, NpyKind::Unsigned, 64},      {"'>u8'", 8, NpyKind::Unsigned, 64, true},
    {"'<i8'", 8, NpyKind::Signed, 64},        {"'>i8'", 8, NpyKind::Signed, 64, true},
    {"'<f8'", 8, NpyKind::Float, 64},         {"'>f8'", 8, NpyKind::Float, 64, true}};

}  // namespace

std::string npyHeaderBytes(const std::string& descr, const std::string& shape) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    constexpr std::size_t kPreamble = kNpyMagicSize + 4;  // magic, version 1.0, 16-bit header length
    const std::size_t unpadded = kPreamble + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header.push_back('\n');
    const std::size_t length = header.size();
    const char preamble[kPreamble] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0, char(length & 0xFF), char(length >> 8)};
    return std::string(preamble, kPreamble) + header;
}

NpyHeader readNpyHeader(const std::function<std::size_t(void*, std::size_t, std::uint64_t)>& readAt,
                        const std::function<Error(const std::string&)>& fail) {
    NpyHeader npy;
    unsigned char preamble[kNpyMagicSize + 2];
    if (readAt(preamble, sizeof preamble, 0) != sizeof preamble || std::memcmp(preamble, kNpyMagic, kNpyMagicSize) != 0)
        throw fail("is not a NumPy .npy file");
    const unsigned version = preamble[kNpyMagicSize];
    if (version < 1 || version > 3)
        throw fail("has NPY format version " + std::to_string(version) + "; 1, 2 and 3 are read");
    unsigned char length[4] = {0, 0, 0, 0};
    const std::size_t lengthBytes = version == 1 ? 2 : 4;
    if (readAt(length, lengthBytes, sizeof preamble) != lengthBytes) throw fail("ends inside its header");
    const std::uint32_t headerLength = std::uint32_t(length[0]) | std::uint32_t(length[1]) << 8 |
                                       std::uint32_t(length[2]) << 16 | std::uint32_t(length[3]) << 24;
    if (headerLength > (1u << 16)) throw fail("has a header of " + std::to_string(headerLength) + " bytes");
    std::string header(headerLength, '\0');
    const std::uint64_t headerStart = sizeof preamble + lengthBytes;
    if (readAt(header.data(), headerLength, headerStart) != headerLength) throw fail("ends inside its header");
    // numpy reads the header as one Python dict literal.
    const std::size_t open = header.find_first_not_of(' '), close = header.find_last_not_of(" \n");
    if (open == std::string::npos || header[open] != '{' || header[close] != '}')
        throw fail("has a header that is not a dict ({'descr': ..., 'fortran_order': ..., 'shape': ...})");
    // numpy reads the header as a Python dict, in which a repeated key keeps
    // its last value, and refuses keys other than these three; a header
    // numpy would not write is refused rather than read differently.
    const std::vector<std::string> keys = npyHeaderKeys(header);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (keys[i] != "descr" && keys[i] != "fortran_order" && keys[i] != "shape")
            throw fail("has the key '" + keys[i] + "' in its header; expected 'descr', 'fortran_order' and 'shape' only");
        for (std::size_t j = 0; j < i; ++j)
            if (keys[j] == keys[i])
                throw fail("has the key '" + keys[i] + "' twice in its header; numpy writes each key once");
    }
    npy.descr = npyHeaderValue(header, "descr");
    npy.fortranOrder = npyHeaderValue(header, "fortran_order");
    npy.shape = npyHeaderValue(header, "shape");
    npy.dataOffset = headerStart + headerLength;
    return npy;
}

bool parseNpySides(const std::string& text, std::vector<std::uint64_t>& sides) {
    // numpy reads the shape as a Python literal (ast.literal_eval) and takes
    // a tuple of ints: "()", "(4,)", "(4, 5)", "(4, 5,)". Not "(4)" (an
    // int), "(4,,)" or "(,)" (syntax errors), "04" (a syntax error in
    // Python 3); other spellings of an int that Python reads (0x10, 1_000)
    // numpy never writes, and are refused too.
    sides.clear();
    std::size_t at = 0;
    const auto skipSpace = [&] {
        while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
    };
    skipSpace();
    if (at >= text.size() || text[at] != '(') return false;
    ++at;
    skipSpace();
    bool closed = at < text.size() && text[at] == ')';
    while (!closed) {
        const std::size_t digits = at;
        while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
        if (at == digits || (text[digits] == '0' && at - digits > 1) || sides.size() == 4) return false;
        std::uint64_t side = 0;
        const auto parsed = std::from_chars(text.data() + digits, text.data() + at, side);
        if (parsed.ec != std::errc()) return false;
        sides.push_back(side);
        skipSpace();
        if (at < text.size() && text[at] == ',') {
            ++at;
            skipSpace();
            closed = at < text.size() && text[at] == ')';
        } else if (at < text.size() && text[at] == ')') {
            if (sides.size() == 1) return false;  // "(4)" is an int, not a tuple
            closed = true;
        } else {
            return false;
        }
    }
    ++at;
    skipSpace();
    return at == text.size();
}

std::string npyImageShapeProblem(const std::vector<std::uint64_t>& sides, const std::string& shape,
                                 NpyChannelAxis channelAxis, bool volumes) {
    const bool named = channelAxis == NpyChannelAxis::Last;
    if (sides.size() == 3 && !named && !volumes)
        return "shape " + shape +
               " is a volume (depth, height, width), as scikit-image and scipy read a 3-D array, and a 2-D image "
               "is expected here (this reader takes 2-D images); a color image (height, width, 1|3|4) "
               "needs its channel axis named (glccl label --channel-axis -1, channel_axis=-1 in Python)";
    if (sides.size() == 2 && named)
        return "shape " + shape + " is 2-D but a channel axis was named; expected (height, width, 1|3|4)";
    if (sides.size() == 2 || (sides.size() == 3 && (sides[2] == 1 || sides[2] == 3 || sides[2] == 4))) return {};
    return "shape " + shape + " is not read; images are (height, width), " +
           (volumes ? std::string("volumes (depth, height, width), ") : std::string()) +
           "or (height, width, 1|3|4) with the channel axis named";
}

const NpyDtype* findNpyImageDtype(const std::string& descr) {
    for (const NpyDtype& d : kNpyImageDtypes)
        if (descr == d.descr) return &d;
    return nullptr;
}

std::string npyElementText(const std::uint8_t* p, const NpyDtype& dtype) {
    const std::uint64_t bits = npyElementBits(p, dtype);
    if (dtype.kind == NpyKind::Signed) {
        // Sign-extend from the dtype's width.
        const unsigned unused = unsigned(64 - 8 * dtype.size);
        return std::to_string(std::int64_t(bits << unused) >> unused);
    }
    if (dtype.kind == NpyKind::Float) {
        char text[64];
        const auto written = std::to_chars(text, text + sizeof text, npyFloatOf(bits, dtype));
        return std::string(text, written.ptr);
    }
    return std::to_string(bits);
}

std::string npyTypeName(const NpyDtype& dtype) {
    const std::string bits = std::to_string(8 * dtype.size);
    switch (dtype.kind) {
        case NpyKind::Bool: return "bool";
        case NpyKind::Signed: return "int" + bits;
        case NpyKind::Float: return "float" + bits;
        case NpyKind::Unsigned: break;
    }
    return "uint" + bits;
}

}  // namespace glccl::detail
