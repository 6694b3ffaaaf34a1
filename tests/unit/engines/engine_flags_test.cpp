// arbiter-server's engine flags at start-up: an engine path that cannot be an engine, and an
// answer margin too small for any engine to meet, stop the server with the reason (exit 2).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <variant>
#include <vector>

#include "server/app/config.hpp"

namespace arbiter::server::app {
namespace {

// The refusal's text (empty if the flags were accepted).
std::string refusal(std::initializer_list<std::string> flags) {
    std::vector<std::string> words{"arbiter-server"};
    words.insert(words.end(), flags.begin(), flags.end());
    std::vector<const char*> argv;
    for (const auto& word : words) {
        argv.push_back(word.c_str());
    }
    const auto result = parse_command_line(static_cast<int>(argv.size()), argv.data());
    const auto* exit = std::get_if<ExitWith>(&result);
    if (exit == nullptr) {
        return {};
    }
    EXPECT_EQ(exit->code, 2) << exit->text;
    return exit->text;
}

TEST(EngineFlagsAtStart, AFolderIsNoEngine) {
    // access(X_OK) holds for a searchable folder: the server started, and every game against
    // the engine failed.
    const std::string text = refusal({"--engine", "sf=/usr/bin"});
    EXPECT_NE(text.find("--engine sf: /usr/bin is not a regular file"), std::string::npos)
        << (text.empty() ? "(accepted)" : text);
    EXPECT_NE(refusal({"--engine", "sf=/dev/null"}).find("is not a regular file"),
              std::string::npos);
}

TEST(EngineFlagsAtStart, AnEngineMustBeAnExecutableFile) {
    EXPECT_NE(refusal({"--engine", "sf=/nonexistent/stockfish"}).find("is not executable"),
              std::string::npos);
    EXPECT_NE(refusal({"--engine", "sf=/etc/passwd"}).find("is not executable"), std::string::npos);
    EXPECT_EQ(refusal({"--engine", "sf=/bin/true"}), "");
}

TEST(EngineFlagsAtStart, AnEngineNamedWithoutAFolderMustBeInPath) {
    // The engine's start looks the name up in PATH (posix_spawnp); a name found nowhere failed
    // every game against it, long after the server had started.
    const std::string text = refusal({"--engine", "sf=arbiter-no-such-engine"});
    EXPECT_NE(text.find("--engine sf: no executable arbiter-no-such-engine in PATH"),
              std::string::npos)
        << (text.empty() ? "(accepted)" : text);
    EXPECT_EQ(refusal({"--engine", "sf=true"}), "") << "true is in PATH";

    // Only an executable regular file counts, in any folder of PATH.
    const std::filesystem::path folder = std::filesystem::temp_directory_path() /
                                         ("arbiter-engine-path-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder / "engine-folder");
    std::ofstream(folder / "engine-text") << "not a program\n";
    std::ofstream(folder / "engine-script") << "#!/bin/sh\n";
    std::filesystem::permissions(folder / "engine-script", std::filesystem::perms::owner_all);
    const std::string saved = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
    ::setenv("PATH", ("/nonexistent:" + folder.string()).c_str(), 1);
    EXPECT_NE(refusal({"--engine", "sf=engine-text"}).find("in PATH"), std::string::npos);
    EXPECT_NE(refusal({"--engine", "sf=engine-folder"}).find("in PATH"), std::string::npos);
    EXPECT_EQ(refusal({"--engine", "sf=engine-script"}), "");
    ::setenv("PATH", saved.c_str(), 1);
    std::filesystem::remove_all(folder);
}

TEST(EngineFlagsAtStart, TheAnswerMarginHasAFloor) {
    // With 0, Stockfish's answer to "go movetime N" (at N ms) was always late: every untimed
    // game against it ended in engine_failure.
    for (const char* margin : {"0", "1", "99"}) {
        const std::string text = refusal({"--engine-margin-ms", margin});
        EXPECT_NE(text.find("--engine-margin-ms must be 100..600000"), std::string::npos)
            << margin << " gave: " << (text.empty() ? "(accepted)" : text);
    }
    EXPECT_EQ(refusal({"--engine-margin-ms", "100"}), "");
    EXPECT_EQ(refusal({"--engine-margin-ms", "600000"}), "");
}

}  // namespace
}  // namespace arbiter::server::app
