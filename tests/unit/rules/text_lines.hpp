#pragma once
// The lines of an exported text (PGN, PDN), for tests that look at its layout.

#include <sstream>
#include <string>
#include <vector>

namespace arbiter::test {

inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    return lines;
}

}  // namespace arbiter::test
