// The hub applies who a connection is (issue 40): the upgrade's cookie signs it in, hello with a
// token signs it in or is refused, a guest cannot take a registered name, welcome says who is
// signed in, and a deleted account's connection is a guest at its next message.

#include <string>

#include <gtest/gtest.h>

#include "server/app/hub.hpp"
#include "server/app/secrets.hpp"
#include "tests/unit/app/fakes.hpp"

namespace arbiter::server::app {
namespace {

using fakes::FakePeer;
using fakes::FakeRepository;
using fakes::ManualExecutors;
using fakes::ManualReads;
using fakes::ManualTime;

struct HubIdentityTest : ::testing::Test {
    HubIdentityTest() {
        storage::AccountSnapshot snapshot;
        snapshot.users = {{1, "Anna", "anna", false}};
        snapshot.sessions = {{token_hash("anna-token"), 1}};
        directory.load(snapshot);
    }
    ManualTime time;
    FakeRepository repository;
    Metrics metrics;
    ManualExecutors executors{time};
    ManualReads reads;
    AccountDirectory directory;
    std::shared_ptr<Hub> hub = std::make_shared<Hub>(
        HubConfig{}, repository, time, metrics, [this] { return executors.make(); }, reads, nullptr,
        nullptr, &directory);
    std::uint64_t next_peer = 1;

    std::shared_ptr<FakePeer> connect(std::optional<std::string> cookie = std::nullopt) {
        auto peer = std::make_shared<FakePeer>(next_peer++);
        if (cookie) {
            peer->set_upgrade_cookie(*cookie);
        }
        hub->on_open(peer);
        return peer;
    }
    nlohmann::json ask(const std::shared_ptr<FakePeer>& peer, const std::string& text,
                       const std::string& id) {
        hub->on_message(peer, text);
        while (reads.run() + executors.run() > 0) {
        }
        return peer->reply_to(id);
    }
    ~HubIdentityTest() override {
        hub->close();
        executors.clear();
    }
};

TEST_F(HubIdentityTest, TheUpgradeCookieSignsInAndStaysWhateverHelloSaysWithoutAToken) {
    auto peer = connect("theme=dark; arbiter_session=anna-token");
    const auto welcome = ask(peer, R"({"type":"hello","name":"Someone","id":"h"})", "h");
    EXPECT_EQ(welcome["type"], "welcome");
    EXPECT_EQ(welcome["user"], (nlohmann::json{{"username", "Anna"}}));
}

TEST_F(HubIdentityTest, AnUnknownCookieIsAGuestWithoutAnError) {
    auto peer = connect("arbiter_session=unknown");
    const auto welcome = ask(peer, R"({"type":"hello","name":"Bo","id":"h"})", "h");
    EXPECT_EQ(welcome["type"], "welcome");
    EXPECT_TRUE(welcome["user"].is_null());
}

TEST_F(HubIdentityTest, HelloWithATokenSignsInAndABadTokenIsUnauthorized) {
    auto peer = connect();
    const auto refused =
        ask(peer, R"({"type":"hello","name":"Bo","token":"not-a-session","id":"bad"})", "bad");
    EXPECT_EQ(refused["type"], "error");
    EXPECT_EQ(refused["code"], "unauthorized");
    const auto guest = ask(peer, R"({"type":"hello","name":"Bo","id":"g"})", "g");
    EXPECT_TRUE(guest["user"].is_null());
    const auto welcome =
        ask(peer, R"({"type":"hello","name":"Bo","token":"anna-token","id":"h"})", "h");
    EXPECT_EQ(welcome["user"], (nlohmann::json{{"username", "Anna"}}));
}

TEST_F(HubIdentityTest, AGuestCannotTakeARegisteredNameInAnotherCase) {
    auto peer = connect();
    const auto refused = ask(peer, R"({"type":"hello","name":"ANNA","id":"h"})", "h");
    EXPECT_EQ(refused["type"], "error");
    EXPECT_EQ(refused["code"], "name_taken");
}

TEST_F(HubIdentityTest, ADeletedAccountsConnectionIsAGuestAtItsNextMessage) {
    auto peer = connect("arbiter_session=anna-token");
    directory.account_deleted(1);
    const auto welcome = ask(peer, R"({"type":"hello","name":"Bo","id":"h"})", "h");
    EXPECT_EQ(welcome["type"], "welcome");
    EXPECT_TRUE(welcome["user"].is_null());
}

}  // namespace
}  // namespace arbiter::server::app
