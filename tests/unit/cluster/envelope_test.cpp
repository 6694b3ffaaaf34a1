#include "server/cluster/envelope.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace arbiter::server::cluster {
namespace {

Intent sample_intent() {
    return Intent{"node-a", 42, 7, "g1", R"({"type":"move","game":"g1","move":"e2e4","ply":0})"};
}

Answer sample_answer() {
    return Answer{"node-b", 42, 7, "g1", AnswerKind::replied, "", 0, {"{\"a\":1}", "{}"}};
}

Event sample_event() {
    return Event{"g1", 12, "node-b", 3, R"({"type":"moved","seq":12})", "node-a", 7};
}

TEST(ClusterEnvelope, EachKindReadsBackAsWritten) {
    for (const Envelope& envelope :
         {Envelope{sample_intent()}, Envelope{sample_answer()}, Envelope{sample_event()},
          Envelope{Answer{"n", 1, 2, "g", AnswerKind::not_owner, "node-c", 9, {}}},
          Envelope{Event{"g", 1, "n", 1, "", "", 0}}}) {
        const auto decoded = decode(encode(envelope));
        ASSERT_TRUE(decoded.has_value()) << decoded.error().reason;
        EXPECT_EQ(decoded.value(), envelope);
    }
}

TEST(ClusterEnvelope, MessagesAreBinarySafe) {
    auto intent = sample_intent();
    intent.message = std::string("a\0b\xff", 4);
    const auto decoded = decode(encode(intent));
    ASSERT_TRUE(decoded.has_value());
    EXPECT_EQ(std::get<Intent>(decoded.value()).message, intent.message);
}

TEST(ClusterEnvelope, RefusesEveryTruncation) {
    for (const Envelope& envelope :
         {Envelope{sample_intent()}, Envelope{sample_answer()}, Envelope{sample_event()}}) {
        const auto bytes = encode(envelope);
        for (std::size_t size = 0; size < bytes.size(); ++size) {
            EXPECT_FALSE(decode(bytes.substr(0, size)).has_value()) << size;
        }
    }
}

TEST(ClusterEnvelope, RefusesTrailingBytesUnknownVersionAndKind) {
    auto bytes = encode(sample_event());
    EXPECT_EQ(decode(bytes + "x").error().reason, "bytes after the last field");
    auto version = bytes;
    version[0] = 2;
    EXPECT_EQ(decode(version).error().reason, "unknown version");
    auto kind = bytes;
    kind[1] = 9;
    EXPECT_EQ(decode(kind).error().reason, "unknown kind");
    auto answer_kind = encode(sample_answer());
    // version, kind, from_node (4 + 6), connection (8), attempt (8), game (4 + 2): the answer kind.
    answer_kind[2 + 10 + 16 + 6] = 3;
    EXPECT_EQ(decode(answer_kind).error().reason, "unknown answer kind");
    EXPECT_FALSE(decode("").has_value());
}

TEST(ClusterEnvelope, RefusesLengthsBeyondTheBoundsBeforeAllocating) {
    // An intent whose from_node claims 4 GiB: refused from the length alone.
    std::string bytes = {'\x01', '\x01', '\xff', '\xff', '\xff', '\xff'};
    EXPECT_EQ(decode(bytes).error().reason, "from_node is too long");
    // An answer claiming more messages than an answer may carry.
    auto answer = sample_answer();
    answer.messages.clear();
    auto encoded = encode(answer);
    encoded[encoded.size() - 4] = static_cast<char>(kMaxAnswerMessages + 1);
    EXPECT_EQ(decode(encoded).error().reason, "messages is too long");
}

TEST(ClusterEnvelope, RefusesIdsThatCannotNameAChannel) {
    auto intent = sample_intent();
    intent.game = "g1";
    auto bytes = encode(intent);
    const auto at = bytes.find("g1");
    bytes[at] = ':';
    EXPECT_EQ(decode(bytes).error().reason, "game is not a valid id");
    EXPECT_TRUE(valid_id("Ab_9-z"));
    EXPECT_FALSE(valid_id(""));
    EXPECT_FALSE(valid_id("a b"));
    EXPECT_FALSE(valid_id(std::string(kMaxIdBytes + 1, 'a')));
}

TEST(ClusterEnvelope, ChannelsNameTheirNodeAndGame) {
    EXPECT_EQ(inbox_channel("node-a"), "inbox:node-a");
    EXPECT_EQ(game_channel("g1"), "game:g1");
    EXPECT_EQ(game_of_channel("game:g1"), "g1");
    EXPECT_EQ(game_of_channel("inbox:g1"), "");
}

TEST(ClusterEnvelope, RandomBytesAndMutationsNeverCrash) {
    std::mt19937 random(43);
    std::uniform_int_distribution<int> byte(0, 255);
    const std::string seeds[] = {encode(sample_intent()), encode(sample_answer()),
                                 encode(sample_event())};
    int decoded = 0;
    for (int round = 0; round < 20000; ++round) {
        auto bytes = seeds[round % 3];
        for (int flips = 1 + round % 4; flips > 0; --flips) {
            bytes[static_cast<std::size_t>(random()) % bytes.size()] =
                static_cast<char>(byte(random));
        }
        if (const auto result = decode(bytes)) {
            ++decoded;
            EXPECT_EQ(encode(result.value()), bytes);  // whatever decodes is exactly that
        }
    }
    EXPECT_GT(decoded, 0);
}

}  // namespace
}  // namespace arbiter::server::cluster
