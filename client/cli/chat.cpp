// Chat text as typed and as shown; the messages are the codec's (common/protocol).
#include "client/cli/chat.hpp"

#include "common/protocol/text_rules.hpp"

namespace arbiter::client {
namespace {

// C0 controls, DEL and the C1 controls (U+0080..U+009F, "\xc2\x80".."\xc2\x9f" in UTF-8) are
// what a terminal acts on.
std::string printable(const std::string& text) {
    std::string shown;
    shown.reserve(text.size());
    for (std::size_t at = 0; at < text.size(); ++at) {
        const auto byte = static_cast<unsigned char>(text[at]);
        if (byte < 0x20 || byte == 0x7f) {
            shown += '?';
        } else if (byte == 0xc2 && at + 1 < text.size() &&
                   static_cast<unsigned char>(text[at + 1]) < 0xa0) {
            shown += '?';
            ++at;
        } else {
            shown += text[at];
        }
    }
    return shown;
}

std::string line_text(protocol::ChatRoom room, const std::string& from, const std::string& text) {
    return "[" + std::string(protocol::to_string(room)) + "] " + printable(from) + ": " +
           printable(text);
}

}  // namespace

Expected<std::string, std::string> checked_chat_text(std::string_view typed) {
    if (typed.find_first_not_of(" \t\n\v\f\r") == std::string_view::npos) {
        return unexpected(std::string("say something: chat TEXT"));
    }
    if (!protocol::text::is_utf8(typed)) {
        return unexpected(std::string("the message is not valid UTF-8: not sent"));
    }
    auto text = protocol::text::chat_text(typed, protocol::kMaxChatLength);
    if (!text) {
        return unexpected(text.error() + " (1 to " + std::to_string(protocol::kMaxChatLength) +
                          " characters without control characters): not sent");
    }
    return text;
}

std::string chat_line_text(const protocol::ChatEvent& event) {
    return line_text(event.room, event.from, event.text.value_or(""));
}

std::string chat_line_text(const protocol::ChatLine& line) {
    return line_text(line.room, line.from, line.text);
}

}  // namespace arbiter::client
