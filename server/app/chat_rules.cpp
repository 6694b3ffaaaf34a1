#include "server/app/chat_rules.hpp"

#include "common/protocol/text_rules.hpp"

namespace arbiter::server::app {

using protocol::ChatRoom;
using protocol::ErrorCode;
using rules::Side;

std::optional<Refusal> chat_refusal(ChatRoom room, const ChatMember& author, bool spectator_chat) {
    const bool seated = author.held.any().has_value();
    if (room == ChatRoom::players) {
        if (!seated) {
            return Refusal{ErrorCode::forbidden, "only the players write to the players' room"};
        }
        return std::nullopt;
    }
    if (seated) {
        return Refusal{ErrorCode::forbidden, "players cannot write to the spectators' room"};
    }
    if (!author.watching) {
        return Refusal{ErrorCode::forbidden, "watch the game to write to the spectators' room"};
    }
    if (!spectator_chat) {
        return Refusal{ErrorCode::not_allowed, "spectator chat is turned off on this server"};
    }
    return std::nullopt;
}

bool may_read_chat(ChatRoom room, std::optional<Side> author_seat, const ChatMember& reader,
                   protocol::GameStatus status, const std::array<bool, 2>& muted) {
    if (room == ChatRoom::spectators) {
        // Players read the watchers' room once the game is over (protocol.md, Chat).
        return !reader.held.any() || protocol::is_finished(status);
    }
    for (const Side side : {Side::first, Side::second}) {
        if (!reader.held.holds(side)) {
            continue;
        }
        const bool own = author_seat == side;
        if (own || !muted[side == Side::first ? 0 : 1]) {
            return true;
        }
    }
    return false;
}

namespace {

bool is_word_byte(char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x80U || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
}

std::string lowered(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return out;
}

}  // namespace

Expected<ChatWords, std::string> ChatWords::parse(std::string_view file_text) {
    ChatWords words;
    std::size_t line_number = 0;
    while (!file_text.empty()) {
        ++line_number;
        const std::size_t end = file_text.find('\n');
        std::string_view line = file_text.substr(0, end);
        file_text = end == std::string_view::npos ? std::string_view{} : file_text.substr(end + 1);
        constexpr std::string_view kSpace = " \t\r";
        const std::size_t first = line.find_first_not_of(kSpace);
        if (first == std::string_view::npos || line[first] == '#') {
            continue;
        }
        line = line.substr(first, line.find_last_not_of(kSpace) - first + 1);
        bool one_word = protocol::text::is_utf8(line);
        for (const char c : line) {
            one_word = one_word && is_word_byte(c);
        }
        if (!one_word) {
            return unexpected("line " + std::to_string(line_number) +
                              ": not one word (letters, digits and '_')");
        }
        words.words_.insert(lowered(line));
    }
    return words;
}

std::string ChatWords::mask(std::string_view text) const {
    std::string out;
    out.reserve(text.size());
    std::size_t at = 0;
    while (at < text.size()) {
        if (!is_word_byte(text[at])) {
            out += text[at++];
            continue;
        }
        std::size_t end = at;
        while (end < text.size() && is_word_byte(text[end])) {
            ++end;
        }
        const std::string_view word = text.substr(at, end - at);
        if (words_.contains(lowered(word))) {
            out.append(protocol::text::code_points(word), '*');
        } else {
            out += word;
        }
        at = end;
    }
    return out;
}

}  // namespace arbiter::server::app
