#include "server/cluster/inbox.hpp"

#include <gtest/gtest.h>

#include "common/protocol/codec.hpp"
#include "test_cluster.hpp"

namespace arbiter::server::cluster {
namespace {

using testing::move_request;
using testing::RecordingBus;
using testing::TableOwnership;

class InboxTest : public ::testing::Test {
  protected:
    InboxTest()
        : inbox_("node-a", bus_, ownership_,
                 [this](ForwardedRequest request) { requests_.push_back(std::move(request)); }) {
        ownership_.owners["g1"] = Owner{"node-a", 4};
    }
    Answer answer(std::size_t index) const {
        EXPECT_EQ(bus_.published.at(index).channel, "inbox:node-b");
        return std::get<Answer>(decode(bus_.published.at(index).bytes).value());
    }
    static Intent intent(std::string game, std::string message) {
        return Intent{"node-b", 9, 77, std::move(game), std::move(message)};
    }

    RecordingBus bus_;
    TableOwnership ownership_;
    std::vector<ForwardedRequest> requests_;
    Inbox inbox_;
};

TEST_F(InboxTest, HandsTheDecodedRequestToTheRoomAndPublishesItsAnswer) {
    inbox_.on_intent(intent("g1", protocol::encode(move_request("g1", 0, "e2e4", "m1"))));
    ASSERT_EQ(requests_.size(), 1U);
    EXPECT_EQ(requests_[0].message, move_request("g1", 0, "e2e4", "m1"));
    EXPECT_TRUE(bus_.published.empty());
    inbox_.answer(requests_[0], {"ack"});
    EXPECT_EQ(answer(0), (Answer{"node-a", 9, 77, "g1", AnswerKind::replied, "", 0, {"ack"}}));
    inbox_.publish_event("g1", 5, 4, "{\"seq\":5}", &requests_[0]);
    ASSERT_EQ(bus_.published.size(), 2U);
    EXPECT_EQ(bus_.published[1].channel, "game:g1");
    EXPECT_EQ(std::get<Event>(decode(bus_.published[1].bytes).value()),
              (Event{"g1", 5, "node-a", 4, "{\"seq\":5}", "node-b", 77}));
}

// A sender retries an intent until it hears back. A chat line, unlike a move, is not safe to
// apply twice: a repeat never reaches the room. While the room works on it the repeat is dropped
// (the answer is on its way); once answered, the repeat gets the same answer again.
TEST_F(InboxTest, ARetriedIntentReachesTheRoomOnceAndIsAnsweredAgain) {
    const protocol::ClientMessage chat{
        "c1", protocol::ChatRequest{"g1", protocol::ChatRoom::players, "gg"}};
    const Intent sent = intent("g1", protocol::encode(chat));
    inbox_.on_intent(sent);
    inbox_.on_intent(sent);
    ASSERT_EQ(requests_.size(), 1U);
    EXPECT_TRUE(bus_.published.empty()) << "a repeat while the room works on it is dropped";
    inbox_.answer(requests_[0], {"ack"});
    inbox_.on_intent(sent);
    EXPECT_EQ(requests_.size(), 1U);
    ASSERT_EQ(bus_.published.size(), 2U);
    EXPECT_EQ(answer(1), answer(0));
    EXPECT_EQ(answer(1).messages, std::vector<std::string>{"ack"});
    EXPECT_EQ(inbox_.counters().repeats, 2U);
    // Another attempt of the same sender, and the same attempt id from another sender, are new.
    Intent next = sent;
    next.attempt = 78;
    inbox_.on_intent(next);
    Intent other = sent;
    other.from_node = "node-c";
    inbox_.on_intent(other);
    EXPECT_EQ(requests_.size(), 3U);
}

// The memory is bounded: the oldest attempt is forgotten first.
TEST_F(InboxTest, TheAttemptsRememberedAreBounded) {
    const std::string message = protocol::encode(move_request("g1", 0, "e2e4", "m1"));
    for (std::uint64_t attempt = 1; attempt <= Inbox::kRememberedAttempts + 1; ++attempt) {
        inbox_.on_intent(Intent{"node-b", 9, attempt, "g1", message});
    }
    ASSERT_EQ(requests_.size(), Inbox::kRememberedAttempts + 1);
    inbox_.on_intent(Intent{"node-b", 9, Inbox::kRememberedAttempts + 1, "g1", message});
    EXPECT_EQ(requests_.size(), Inbox::kRememberedAttempts + 1) << "the newest is remembered";
    inbox_.on_intent(Intent{"node-b", 9, 1, "g1", message});
    EXPECT_EQ(requests_.size(), Inbox::kRememberedAttempts + 2) << "the oldest was forgotten";
}

TEST_F(InboxTest, AGameOwnedElsewhereIsAnsweredNotOwnerWithTheOwnerKnown) {
    ownership_.owners["g2"] = Owner{"node-c", 6};
    inbox_.on_intent(intent("g2", protocol::encode(move_request("g2", 0, "e2e4", "m1"))));
    inbox_.on_intent(intent("g3", protocol::encode(move_request("g3", 0, "e2e4", "m1"))));
    EXPECT_TRUE(requests_.empty());
    EXPECT_EQ(answer(0), (Answer{"node-a", 9, 77, "g2", AnswerKind::not_owner, "node-c", 6, {}}));
    EXPECT_EQ(answer(1), (Answer{"node-a", 9, 77, "g3", AnswerKind::not_owner, "", 0, {}}));
    EXPECT_EQ(inbox_.counters().not_owner, 2U);
}

TEST_F(InboxTest, AMessageTheCodecRefusesNeverReachesTheRoom) {
    inbox_.on_intent(intent("g1", R"({"type":"move","game":"g1","id":"q"})"));
    EXPECT_TRUE(requests_.empty());
    const auto refused = answer(0);
    ASSERT_EQ(refused.messages.size(), 1U);
    EXPECT_NE(refused.messages[0].find("\"code\":\"bad_request\""), std::string::npos)
        << refused.messages[0];
    EXPECT_NE(refused.messages[0].find("\"id\":\"q\""), std::string::npos);
    EXPECT_EQ(inbox_.counters().bad_messages, 1U);
}

TEST_F(InboxTest, WhatAnEnvelopeCannotCarryIsNotPublished) {
    inbox_.on_intent(intent("g1", protocol::encode(move_request("g1", 0, "e2e4", "m1"))));
    ASSERT_EQ(requests_.size(), 1U);
    inbox_.answer(requests_[0], std::vector<std::string>(kMaxAnswerMessages + 1, "{}"));
    inbox_.answer(requests_[0], {std::string(kMaxMessageBytes + 1, 'x')});
    for (std::size_t index = 0; index < 2; ++index) {
        EXPECT_EQ(answer(index).messages,
                  std::vector<std::string>{protocol::encode_error(
                      protocol::ErrorCode::internal, "the answer is too large to forward", "m1")});
    }
    inbox_.publish_event("g1", 1, 4, std::string(kMaxMessageBytes + 1, 'x'));
    EXPECT_EQ(bus_.published.size(), 2U);
    EXPECT_EQ(inbox_.counters().oversized, 3U);
}

}  // namespace
}  // namespace arbiter::server::cluster
