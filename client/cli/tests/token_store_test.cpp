#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "client/cli/token_store.hpp"

namespace arbiter::client {
namespace {

class CliTokenStore : public ::testing::Test {
  protected:
    void SetUp() override {
        directory_ = std::filesystem::temp_directory_path() /
                     ("arbiter-cli-tokens-" + std::to_string(::getpid()));
        std::filesystem::remove_all(directory_);
    }
    void TearDown() override { std::filesystem::remove_all(directory_); }
    std::filesystem::path directory_;
};

using Seats = std::vector<StoredSeat>;

bool same(const Seats& found, const Seats& expected) {
    if (found.size() != expected.size()) {
        return false;
    }
    for (std::size_t index = 0; index < found.size(); ++index) {
        if (found[index].token != expected[index].token ||
            found[index].seat != expected[index].seat) {
            return false;
        }
    }
    return true;
}

// Issue 41: the tokens were kept per game, so playing both seats of a game from one folder
// (two terminals, same config directory) kept only the seat saved last.
TEST_F(CliTokenStore, SavedTokensAreFoundPerServerGameAndSeat) {
    TokenStore store((directory_ / "arbiter" / "tokens.json").string());
    ASSERT_TRUE(store.save("ws://a/ws", "g1", {"t1", "white"}));
    ASSERT_TRUE(store.save("ws://a/ws", "g2", {"t2", "black"}));
    ASSERT_TRUE(store.save("ws://a/ws", "g1", {"t3", "black"}));
    EXPECT_TRUE(same(store.seats("ws://a/ws", "g1"), {{"t3", "black"}, {"t1", "white"}}));
    ASSERT_TRUE(store.save("ws://a/ws", "g1", {"t4", "white"}));  // a seat's newer token
    EXPECT_TRUE(same(store.seats("ws://a/ws", "g1"), {{"t3", "black"}, {"t4", "white"}}));
    EXPECT_TRUE(same(store.seats("ws://a/ws", "g2"), {{"t2", "black"}}));
    EXPECT_TRUE(store.seats("ws://b/ws", "g1").empty());
    EXPECT_TRUE(store.seats("ws://a/ws", "g3").empty());
}

TEST_F(CliTokenStore, ATokenStoredBeforeSeatsWereKeyedIsStillFoundAndKept) {
    const auto path = directory_ / "tokens.json";
    std::filesystem::create_directories(directory_);
    std::FILE* file = std::fopen(path.c_str(), "w");
    std::fputs(R"({"ws://a/ws": {"g1": {"token": "t1", "seat": "white"}}})", file);
    std::fclose(file);
    TokenStore store(path.string());
    EXPECT_TRUE(same(store.seats("ws://a/ws", "g1"), {{"t1", "white"}}));
    ASSERT_TRUE(store.save("ws://a/ws", "g1", {"t2", "black"}));
    EXPECT_TRUE(same(store.seats("ws://a/ws", "g1"), {{"t2", "black"}, {"t1", "white"}}));
}

TEST(CliChooseSeat, TheOnlySeatOrTheOneNamed) {
    const Seats both = {{"t2", "black"}, {"t1", "white"}};
    EXPECT_EQ(choose_seat({{"t1", "white"}}, "", "g1")->token, "t1");
    EXPECT_EQ(choose_seat(both, "white", "g1")->token, "t1");
    const auto unnamed = choose_seat(both, "", "g1");
    ASSERT_FALSE(unnamed);
    EXPECT_EQ(unnamed.error(),
              "you hold both seats of game g1: say which with --seat black or white");
    EXPECT_FALSE(choose_seat({{"t1", "white"}}, "black", "g1"));
    EXPECT_EQ(choose_seat({}, "", "g1").error(), "no token for game g1: pass --token");
}

TEST_F(CliTokenStore, TheFileIsReadableByTheUserOnly) {
    const auto path = directory_ / "arbiter" / "tokens.json";
    TokenStore store(path.string());
    ASSERT_TRUE(store.save("ws://a/ws", "g1", {"t1", "white"}));
    struct stat info {};
    ASSERT_EQ(::stat(path.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST_F(CliTokenStore, AMissingOrBrokenFileHoldsNoTokens) {
    const auto path = directory_ / "tokens.json";
    TokenStore store(path.string());
    EXPECT_TRUE(store.seats("ws://a/ws", "g1").empty());
    std::filesystem::create_directories(directory_);
    std::FILE* file = std::fopen(path.c_str(), "w");
    std::fputs("{not json", file);
    std::fclose(file);
    EXPECT_TRUE(store.seats("ws://a/ws", "g1").empty());
    EXPECT_TRUE(store.save("ws://a/ws", "g1", {"t1", "white"}));
    EXPECT_FALSE(store.seats("ws://a/ws", "g1").empty());
}

// Found in exploratory QA: two arbiter-cli sessions (two games in two terminals) saving at the same
// moment each read the file, added their own seat and wrote it back whole: one seat was lost.
TEST_F(CliTokenStore, SessionsSavingAtOnceKeepEverySeat) {
    const auto path = directory_ / "arbiter" / "tokens.json";
    constexpr int kSessions = 6;
    constexpr int kGamesEach = 25;
    std::vector<pid_t> children;
    for (int session = 0; session < kSessions; ++session) {
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            TokenStore store(path.string());
            bool saved = true;
            for (int game = 0; game < kGamesEach; ++game) {
                const std::string id = "s" + std::to_string(session) + "g" + std::to_string(game);
                saved = store.save("ws://a/ws", id, {"t-" + id, "white"}) && saved;
            }
            ::_exit(saved ? 0 : 1);
        }
        children.push_back(child);
    }
    for (const pid_t child : children) {
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    TokenStore store(path.string());
    int missing = 0;
    for (int session = 0; session < kSessions; ++session) {
        for (int game = 0; game < kGamesEach; ++game) {
            const std::string id = "s" + std::to_string(session) + "g" + std::to_string(game);
            missing += store.seats("ws://a/ws", id).empty() ? 1 : 0;
        }
    }
    EXPECT_EQ(missing, 0);
}

}  // namespace
}  // namespace arbiter::client
