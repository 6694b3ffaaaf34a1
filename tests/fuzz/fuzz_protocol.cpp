// libFuzzer target: decode() of a client frame, the first thing the server does with every
// WebSocket message, and the error reply it writes when decode() refuses. decode() reads a move
// in its usual shape without a JSON tree: whatever that reader accepts, the full reader must
// accept as the same message. encode() writes messages without a tree too: a message carrying
// the input's bytes as a player's name, a move and a notation must be exactly the compact JSON
// that nlohmann dumps for it.

#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "common/protocol/codec.hpp"
#include "common/protocol/plain_move.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

void check_encoded_text(std::string_view text) {
    using Ordered = nlohmann::ordered_json;
    arbiter::protocol::State state;
    state.game = "g1";
    state.first = arbiter::protocol::PlayerInfo{std::string(text), true};
    state.moves = {std::string(text), "e2e4"};
    arbiter::protocol::Record record;
    record.moves = {arbiter::protocol::RecordMove{1, "e2e4", std::string(text), "fen", 1, {}}};
    for (const arbiter::protocol::ServerBody& body :
         {arbiter::protocol::ServerBody(std::move(state)),
          arbiter::protocol::ServerBody(std::move(record))}) {
        const std::string encoded = arbiter::protocol::encode({body, std::string(text)});
        const auto parsed = Ordered::parse(encoded, nullptr, false);
        arbiter::fuzz::check(!parsed.is_discarded() && encoded.find('\n') == std::string::npos,
                             "encoded message is not one line of JSON", encoded);
        arbiter::fuzz::check(parsed.dump() == encoded,
                             "encoded message is not the compact dump of its fields", encoded);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = arbiter::fuzz::as_text(data, size);
    check_encoded_text(text);
    const auto message = arbiter::protocol::decode(text);
    if (const auto plain = arbiter::protocol::detail::read_plain_move(text)) {
        const auto full = arbiter::protocol::detail::read_message(text);
        arbiter::fuzz::check(full.has_value(), "plain move reader accepts what the full refuses",
                             text);
        const auto* plain_move = std::get_if<arbiter::protocol::MoveRequest>(&plain->body);
        const auto* full_move = std::get_if<arbiter::protocol::MoveRequest>(&full->body);
        arbiter::fuzz::check(plain_move != nullptr && full_move != nullptr &&
                                 plain->id == full->id && plain_move->game == full_move->game &&
                                 plain_move->move == full_move->move &&
                                 plain_move->ply == full_move->ply,
                             "plain move reader and full reader disagree", text);
    }
    if (message) {
        return 0;
    }
    const auto& error = message.error();
    arbiter::fuzz::check(!error.message.empty(), "refusal without a message", text);
    // The reply echoes the request id and a message that may quote the frame: it must still be
    // one line of valid JSON whatever bytes came in.
    const std::string reply = arbiter::protocol::encode_error(error.code, error.message, error.id);
    arbiter::fuzz::check(reply.find('\n') == std::string::npos, "error reply is not one line",
                         reply);
    const auto parsed = nlohmann::json::parse(reply, nullptr, false);
    arbiter::fuzz::check(parsed.is_object() && parsed.value("type", "") == "error",
                         "error reply is not a JSON error object", reply);
    return 0;
}
