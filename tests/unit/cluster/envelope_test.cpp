#include "server/cluster/envelope.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace arbiter::server::cluster {
namespace {

Intent sample_intent() {
    return Intent{{"node-a", 3, 42},
                  "g1",
                  1,
                  "Ann",
                  7,
                  "ann",
                  48'000,
                  false,
                  R"({"type":"move","game":"g1","move":"e2e4","ply":0})"};
}

Delivery sample_delivery() {
    return Delivery{"node-b", 42, R"({"type":"moved","seq":12})"};
}

NotOwner sample_not_owner() {
    return NotOwner{"node-b", 42, "g1", 2, R"({"type":"resign","game":"g1"})"};
}

Hangup sample_hangup() {
    return Hangup{"node-b", {"node-a", 3, 42}, false, 1012, "the game moved to another node"};
}

const std::string kHash(kTokenHashBytes, 'a');

AccountChanged sample_account() {
    return AccountChanged{"node-a", AccountChange::signed_in, 12, "ann", kHash};
}

RatingChanged sample_rating() {
    return RatingChanged{"node-a", 0, 1, RatingEntry{12, 1530.5, 180.25, 0.06, 3, 1700000000000}};
}

ListingChanged sample_listing() {
    return ListingChanged{"node-a", "g1", true, R"({"type":"lobby","games":[]})"};
}

ListingsOf sample_listings() {
    return ListingsOf{"node-a", R"({"type":"lobby","games":[]})"};
}

TEST(ClusterEnvelope, EachKindReadsBackAsWritten) {
    for (const Envelope& envelope :
         {Envelope{sample_intent()}, Envelope{sample_delivery()}, Envelope{sample_not_owner()},
          Envelope{sample_hangup()}, Envelope{Hangup{"n", {"m", 1, 2}, true, 1000, ""}},
          Envelope{Intent{{"n", 1, 0}, "g", 0, "", 0, "", 0, true, ""}}, Envelope{sample_account()},
          Envelope{AccountChanged{"n", AccountChange::other_sessions_ended, 4, "", ""}},
          Envelope{sample_rating()}, Envelope{sample_listing()},
          Envelope{ListingChanged{"n", "g2", false, ""}}, Envelope{sample_listings()}}) {
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

TEST(ClusterEnvelope, NamesAndReasonsOverTheirBoundAreCutNotRefused) {
    auto intent = sample_intent();
    intent.player_name = std::string(kMaxNameBytes + 10, 'n');
    const auto decoded = decode(encode(intent));
    ASSERT_TRUE(decoded.has_value()) << decoded.error().reason;
    EXPECT_EQ(std::get<Intent>(decoded.value()).player_name, std::string(kMaxNameBytes, 'n'));
    auto hangup = sample_hangup();
    hangup.reason = std::string(200, 'r');
    const auto closed = decode(encode(hangup));
    ASSERT_TRUE(closed.has_value());
    EXPECT_EQ(std::get<Hangup>(closed.value()).reason.size(), kMaxReasonBytes);
}

TEST(ClusterEnvelope, RefusesEveryTruncation) {
    for (const Envelope& envelope :
         {Envelope{sample_intent()}, Envelope{sample_delivery()}, Envelope{sample_not_owner()},
          Envelope{sample_hangup()}, Envelope{sample_account()}, Envelope{sample_rating()},
          Envelope{sample_listing()}, Envelope{sample_listings()}}) {
        const auto bytes = encode(envelope);
        for (std::size_t size = 0; size < bytes.size(); ++size) {
            EXPECT_FALSE(decode(bytes.substr(0, size)).has_value()) << size;
        }
    }
}

TEST(ClusterEnvelope, RefusesTrailingBytesUnknownVersionKindAndBadFlags) {
    auto bytes = encode(sample_delivery());
    EXPECT_EQ(decode(bytes + "x").error().reason, "bytes after the last field");
    auto version = bytes;
    version[0] = 1;  // the first format, retired
    EXPECT_EQ(decode(version).error().reason, "unknown version");
    auto kind = bytes;
    kind[1] = 9;
    EXPECT_EQ(decode(kind).error().reason, "unknown kind");
    auto flag = encode(sample_hangup());
    // version, kind, from_node (4 + 6), holder: node (4 + 6), incarnation (8), connection (8):
    // then closed_by_holder.
    flag[2 + 10 + 10 + 16] = 2;
    EXPECT_EQ(decode(flag).error().reason, "closed_by_holder is not 0 or 1");
    auto code = encode(sample_hangup());
    code[2 + 10 + 10 + 16 + 8 + 2] = 1;  // the third byte of the code: 65536 and more
    EXPECT_EQ(decode(code).error().reason, "code is not a close code");
    EXPECT_FALSE(decode("").has_value());
}

TEST(ClusterEnvelope, RefusesLengthsBeyondTheBoundsBeforeAllocating) {
    // An intent whose holder node claims 4 GiB: refused from the length alone.
    std::string bytes = {'\x02', '\x01', '\xff', '\xff', '\xff', '\xff'};
    EXPECT_EQ(decode(bytes).error().reason, "node is too long");
    // A delivery whose message claims more than an envelope carries.
    auto delivery = sample_delivery();
    delivery.message.clear();
    auto encoded = encode(delivery);
    encoded[encoded.size() - 1] = '\x7f';
    EXPECT_EQ(decode(encoded).error().reason, "message is too long");
}

TEST(ClusterEnvelope, RefusesIdsThatCannotNameAChannel) {
    auto intent = sample_intent();
    auto bytes = encode(intent);
    const auto at = bytes.find("g1");
    bytes[at] = ':';
    EXPECT_EQ(decode(bytes).error().reason, "game is not a valid id");
    EXPECT_TRUE(valid_id("Ab_9-z"));
    EXPECT_FALSE(valid_id(""));
    EXPECT_FALSE(valid_id("a b"));
    EXPECT_FALSE(valid_id(std::string(kMaxIdBytes + 1, 'a')));
}

TEST(ClusterEnvelope, TheInboxChannelNamesItsNode) {
    EXPECT_EQ(inbox_channel("node-a"), "inbox:node-a");
    EXPECT_EQ(broadcast_channel(), "cluster:all");
}

TEST(ClusterEnvelope, BroadcastKindsNameTheirSender) {
    EXPECT_FALSE(is_broadcast(sample_intent()));
    EXPECT_FALSE(is_broadcast(sample_hangup()));
    EXPECT_EQ(broadcast_sender(sample_delivery()), "");
    for (const Envelope& envelope : {Envelope{sample_account()}, Envelope{sample_rating()},
                                     Envelope{sample_listing()}, Envelope{sample_listings()}}) {
        EXPECT_TRUE(is_broadcast(envelope));
        EXPECT_EQ(broadcast_sender(envelope), "node-a");
    }
}

TEST(ClusterEnvelope, RefusesBroadcastFieldsOutOfRange) {
    // version, kind, from_node (4 + 6): then the account change.
    constexpr std::size_t kAfterNode = 2 + 10;
    auto change = encode(sample_account());
    change[kAfterNode] = 6;
    EXPECT_EQ(decode(change).error().reason, "change is not an account change");
    change[kAfterNode] = 0;
    EXPECT_EQ(decode(change).error().reason, "change is not an account change");
    auto hash = encode(sample_account());
    hash[hash.size() - 1] = 'A';  // hex, but not lowercase
    EXPECT_EQ(decode(hash).error().reason, "token_hash is not a SHA-256 in hex");
    auto short_hash = sample_account();
    short_hash.token_hash.clear();
    auto bytes = encode(short_hash) + "ab";
    bytes[bytes.size() - 6] = 2;  // a 2-byte hash
    EXPECT_EQ(decode(bytes).error().reason, "token_hash is not a SHA-256 in hex");

    auto variant = encode(sample_rating());
    variant[kAfterNode] = 3;
    EXPECT_EQ(decode(variant).error().reason, "variant is out of range");
    auto speed = encode(sample_rating());
    speed[kAfterNode + 8] = 4;
    EXPECT_EQ(decode(speed).error().reason, "speed is out of range");
    auto user = encode(sample_rating());
    user[kAfterNode + 16] = 0;
    EXPECT_EQ(decode(user).error().reason, "user_id is 0");
    auto rating = encode(sample_rating());
    // The first seat's rating: all exponent bits set is an infinity or a NaN.
    rating[kAfterNode + 24 + 7] = '\x7f';
    rating[kAfterNode + 24 + 6] = '\xf0';
    EXPECT_EQ(decode(rating).error().reason, "rating is not a finite number");

    auto open = encode(sample_listing());
    open[kAfterNode + 6] = 2;  // game (4 + 2), then open
    EXPECT_EQ(decode(open).error().reason, "open is out of range");
    EXPECT_EQ(decode(encode(ListingChanged{"n", "g", false, ""}).replace(2 + 5 + 5, 1, "\x01"))
                  .error()
                  .reason,
              "an open listing without its summary");
}

TEST(ClusterEnvelope, RefusesOversizedBroadcastsFromTheirLength) {
    auto listings = sample_listings();
    listings.listings.clear();
    auto bytes = encode(listings);
    bytes[bytes.size() - 2] = '\x20';  // 2 MiB, over kMaxMessageBytes
    EXPECT_EQ(decode(bytes).error().reason, "listings is too long");
}

TEST(ClusterEnvelope, RandomBytesAndMutationsNeverCrash) {
    std::mt19937 random(43);
    std::uniform_int_distribution<int> byte(0, 255);
    const std::string seeds[] = {encode(sample_intent()),    encode(sample_delivery()),
                                 encode(sample_not_owner()), encode(sample_hangup()),
                                 encode(sample_account()),   encode(sample_rating()),
                                 encode(sample_listing()),   encode(sample_listings())};
    int decoded = 0;
    for (int round = 0; round < 20000; ++round) {
        auto bytes = seeds[round % 8];
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
