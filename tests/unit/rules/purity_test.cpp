// The rules module is pure (STYLE.md): nothing under common/rules may include Boost,
// JSON, SQLite, iostreams, threads or clocks. This test reads the sources and fails on any such
// include, naming the file and the line.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include "test_paths.hpp"

namespace {

constexpr std::array<std::string_view, 6> kForbidden = {"<boost/",    "<nlohmann/", "<sqlite3.h>",
                                                        "<iostream>", "<thread>",   "<chrono>"};

std::vector<std::string> forbidden_includes(const std::filesystem::path& root) {
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        const auto extension = entry.path().extension();
        if (!entry.is_regular_file() || (extension != ".hpp" && extension != ".cpp")) {
            continue;
        }
        std::ifstream in(entry.path());
        std::string line;
        for (int number = 1; std::getline(in, line); ++number) {
            if (line.find("#include") == std::string::npos) {
                continue;
            }
            for (std::string_view bad : kForbidden) {
                if (line.find(bad) != std::string::npos) {
                    found.push_back(entry.path().string() + ":" + std::to_string(number) + ": " +
                                    line);
                }
            }
        }
    }
    return found;
}

TEST(RulesPurity, NoForbiddenIncludesUnderCommonRules) {
    const auto root = std::filesystem::path(ARBITER_SOURCE_DIR) / "common" / "rules";
    ASSERT_TRUE(std::filesystem::is_directory(root)) << root;
    const auto found = forbidden_includes(root);
    EXPECT_TRUE(found.empty()) << [&] {
        std::string all;
        for (const auto& line : found) {
            all += line + "\n";
        }
        return all;
    }();
}

TEST(RulesPurity, CheckerSeesAForbiddenInclude) {
    // The checker itself must be able to fail: plant a file with a forbidden include.
    const auto dir = std::filesystem::temp_directory_path() / "arbiter_purity_probe";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "probe.hpp") << "#pragma once\n#include <chrono>\n";
    const auto found = forbidden_includes(dir);
    std::filesystem::remove_all(dir);
    ASSERT_EQ(found.size(), 1U);
    EXPECT_NE(found[0].find("<chrono>"), std::string::npos);
}

}  // namespace
