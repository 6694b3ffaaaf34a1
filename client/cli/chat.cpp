// The chat messages are read with nlohmann's parser, leniently about their order and strictly
// about the fields shown: a chat frame missing one is not taken for chat.
#include "client/cli/chat.hpp"

#include <nlohmann/json.hpp>

#include "common/protocol/text_rules.hpp"

namespace arbiter::client {
namespace {

using nlohmann::json;

constexpr protocol::text::TextRule kChatRule{1, 140, protocol::text::Charset::printable};

std::optional<ChatLine> read_line(const json& message) {
    const auto seq = message.find("seq");
    const auto room = message.find("room");
    const auto from = message.find("from");
    const auto text = message.find("text");
    if (seq == message.end() || !seq->is_number_unsigned() || room == message.end() ||
        !room->is_string() || from == message.end() || !from->is_string() ||
        text == message.end() || !(text->is_string() || text->is_null())) {
        return std::nullopt;
    }
    ChatLine line;
    line.seq = seq->get<std::uint64_t>();
    line.room = room->get<std::string>();
    line.from = from->get<std::string>();
    if (text->is_string()) {
        line.text = text->get<std::string>();
    }
    if (const auto at = message.find("at_ms"); at != message.end() && at->is_number_integer()) {
        line.at_ms = at->get<std::int64_t>();
    }
    return line;
}

json parse_object(std::string_view frame) {
    json parsed = json::parse(frame, nullptr, false);
    return parsed.is_object() ? parsed : json::object();
}

std::string string_field(const json& message, const char* name) {
    const auto found = message.find(name);
    return found != message.end() && found->is_string() ? found->get<std::string>() : "";
}

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

}  // namespace

std::optional<ChatMessage> read_chat_message(std::string_view frame) {
    // Cheap first: most frames are not chat.
    if (frame.find("\"chat") == std::string_view::npos) {
        return std::nullopt;
    }
    const json message = parse_object(frame);
    const std::string type = string_field(message, "type");
    const std::string game = string_field(message, "game");
    if (type == "chat" && !game.empty()) {
        if (auto line = read_line(message)) {
            return ChatEvent{game, std::move(*line)};
        }
    } else if (type == "chat_muted" && !game.empty()) {
        const auto mute = message.find("mute");
        if (mute != message.end() && mute->is_boolean()) {
            return ChatMuted{game, mute->get<bool>()};
        }
    }
    return std::nullopt;
}

std::vector<ChatLine> read_state_chat(std::string_view frame) {
    std::vector<ChatLine> lines;
    if (frame.find("\"chat\"") == std::string_view::npos) {
        return lines;
    }
    const json message = parse_object(frame);
    const auto chat = message.find("chat");
    if (string_field(message, "type") != "state" || chat == message.end() || !chat->is_array()) {
        return lines;
    }
    for (const json& entry : *chat) {
        if (!entry.is_object()) {
            continue;
        }
        if (auto line = read_line(entry); line && line->text) {
            lines.push_back(std::move(*line));
        }
    }
    return lines;
}

Expected<std::string, std::string> checked_chat_text(std::string_view typed) {
    const auto first = typed.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) {
        return unexpected(std::string("say something: chat TEXT"));
    }
    const auto last = typed.find_last_not_of(" \t\r\n");
    const std::string text(typed.substr(first, last - first + 1));
    if (!protocol::text::is_utf8(text) || !protocol::text::obeys(text, kChatRule)) {
        return unexpected(std::string(
            "a chat message is 1 to 140 characters without control characters: not sent"));
    }
    return text;
}

std::string chat_request(const std::string& game, const std::string& room, const std::string& text,
                         const std::string& id) {
    return json{{"type", "chat"}, {"game", game}, {"room", room}, {"text", text}, {"id", id}}
        .dump();
}

std::string chat_mute_request(const std::string& game, bool mute, const std::string& id) {
    return json{{"type", "chat_mute"}, {"game", game}, {"mute", mute}, {"id", id}}.dump();
}

std::string chat_line_text(const ChatLine& line) {
    return "[" + line.room + "] " + printable(line.from) + ": " + printable(line.text.value_or(""));
}

}  // namespace arbiter::client
