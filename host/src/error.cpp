#include "glccl/error.hpp"

#include <cctype>

namespace glccl {

std::string userMessage(const std::string& message) {
    // The namespace and names up to "(): " or ": ".
    std::string text = message;
    for (std::size_t at = text.find("glccl::"); at != std::string::npos; at = text.find("glccl::", at)) {
        std::size_t end = at + 7;
        while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_' ||
                                     text.compare(end, 2, "::") == 0))
            end += text.compare(end, 2, "::") == 0 ? 2 : 1;
        if (text.compare(end, 4, "(): ") == 0) text.erase(at, end + 4 - at);
        else if (text.compare(end, 2, ": ") == 0) text.erase(at, end + 2 - at);
        else at = end;
    }
    return text;
}

}  // namespace glccl
