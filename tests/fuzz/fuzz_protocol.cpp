// libFuzzer target: decode() of a client frame, the first thing the server does with every
// WebSocket message, and the error reply it writes when decode() refuses.

#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "common/protocol/codec.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = arbiter::fuzz::as_text(data, size);
    const auto message = arbiter::protocol::decode(text);
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
