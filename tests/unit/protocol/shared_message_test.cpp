// SharedMessage: a broadcast encoded once, and the requester's copy with its request id in front.
// The copy is byte for byte what the server sent before the codec made it: the room spliced the
// id into the encoded text with with_request_id(), kept below as the reference.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/protocol/codec.hpp"
#include "tests/unit/protocol/samples.hpp"

namespace arbiter::protocol::test {
namespace {

// server/app/room_views.cpp before SharedMessage, verbatim: the requester's copy of an event.
std::string with_request_id(const std::string& text, const std::string& id) {
    std::string out = "{\"id\":\"";
    for (const char c : id) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (byte < 0x20) {
            static constexpr char kHex[] = "0123456789abcdef";
            out += "\\u00";
            out += kHex[byte >> 4];
            out += kHex[byte & 0x0f];
        } else {
            out += c;
        }
    }
    out += "\",";
    out.append(text, 1);
    return out;
}

// Ids as decode() lets them through: up to 64 characters of any kind.
const std::vector<std::string> kIds = {"",
                                       "m",
                                       "m12",
                                       "r",
                                       "a\"b",
                                       "back\\slash",
                                       "\n",
                                       "tab\there",
                                       "\x01\x1f",
                                       "\x7f",
                                       "caf\xC3\xA9",
                                       "\xE7\x8E\x8B",
                                       "\xF0\x9F\x98\x80",
                                       "/slash/",
                                       "{\"id\":1}",
                                       std::string(64, 'x')};

TEST(SharedMessage, TheRequestersCopyIsWhatWithRequestIdWrote) {
    for (const ServerMessage& sample : samples::server_messages()) {
        const SharedMessage shared(sample.body);
        const std::string broadcast = encode(ServerMessage{sample.body, std::nullopt});
        ASSERT_EQ(*shared.text(), broadcast);
        for (const std::string& id : kIds) {
            EXPECT_EQ(*shared.with_id(id), with_request_id(broadcast, id)) << broadcast;
        }
    }
}

// The same splice for a text encoded elsewhere (another node's event), as the codec offers it.
TEST(SharedMessage, WithRequestIdSplicesAnyEncodedMessageAsTheCopyIs) {
    for (const ServerMessage& sample : samples::server_messages()) {
        const std::string broadcast = encode(ServerMessage{sample.body, std::nullopt});
        for (const std::string& id : kIds) {
            EXPECT_EQ(protocol::requester_copy(broadcast, id), with_request_id(broadcast, id))
                << broadcast;
        }
    }
}

TEST(SharedMessage, EveryoneElseSharesOneText) {
    const SharedMessage shared(Pong{});
    EXPECT_EQ(shared.for_request(std::nullopt), shared.text());
    EXPECT_EQ(shared.for_request(std::nullopt).get(), shared.text().get());
    EXPECT_EQ(*shared.for_request("p1"), "{\"id\":\"p1\",\"type\":\"pong\"}");
}

TEST(SharedMessage, TheRequestersCopyDecodesAsTheMessageWithItsId) {
    for (const ServerMessage& sample : samples::server_messages()) {
        const auto variant = samples::seat_variant(sample.body);
        const auto copy = SharedMessage(sample.body).with_id("q\"7\n");
        const auto read =
            decode_server(*copy, [variant](std::string_view) { return std::optional(variant); });
        ASSERT_TRUE(read) << *copy << " -> " << read.error().message;
        EXPECT_EQ(read->id, "q\"7\n");
        EXPECT_EQ(read->body, sample.body) << *copy;
    }
}

// An id that is no UTF-8 cannot come from decode(); written anyway, it is repaired as encode()
// repairs text, so that the frame stays valid JSON.
TEST(SharedMessage, AnIdThatIsNoUtf8IsRepairedNotCopied) {
    const auto copy = SharedMessage(Pong{}).with_id("a\xFF");
    EXPECT_EQ(*copy, "{\"id\":\"a\xEF\xBF\xBD\",\"type\":\"pong\"}");
}

}  // namespace
}  // namespace arbiter::protocol::test
