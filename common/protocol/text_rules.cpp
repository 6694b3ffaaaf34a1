#include "common/protocol/text_rules.hpp"

#include <algorithm>

namespace arbiter::protocol::text {

namespace {

bool is_continuation(unsigned char byte) noexcept {
    return (byte & 0xC0U) == 0x80U;
}

// C0 controls, DEL, and C1 controls (U+0080..U+009F, encoded as 0xC2 0x80..0x9F in UTF-8).
bool has_control(std::string_view utf8) noexcept {
    for (std::size_t i = 0; i < utf8.size(); ++i) {
        const auto byte = static_cast<unsigned char>(utf8[i]);
        if (byte < 0x20U || byte == 0x7FU) {
            return true;
        }
        if (byte == 0xC2U && i + 1 < utf8.size()) {
            const auto next = static_cast<unsigned char>(utf8[i + 1]);
            if (next >= 0x80U && next <= 0x9FU) {
                return true;
            }
        }
    }
    return false;
}

bool is_game_id_char(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

bool is_token_char(char c) noexcept {
    return c > ' ' && c < '\x7F';
}

}  // namespace

// The length of the UTF-8 sequence whose lead byte is at `at`, or 0 when it is not well formed
// (RFC 3629, section 4: the second byte's range depends on the lead byte, which rules out
// overlong forms, surrogates and code points past U+10FFFF).
std::size_t utf8_sequence_length(std::string_view text, std::size_t at) noexcept {
    const auto lead = static_cast<unsigned char>(text[at]);
    std::size_t length = 0;
    unsigned char low = 0x80U;
    unsigned char high = 0xBFU;
    if (lead >= 0xC2U && lead <= 0xDFU) {
        length = 2;
    } else if (lead >= 0xE0U && lead <= 0xEFU) {
        length = 3;
        low = lead == 0xE0U ? 0xA0U : 0x80U;
        high = lead == 0xEDU ? 0x9FU : 0xBFU;
    } else if (lead >= 0xF0U && lead <= 0xF4U) {
        length = 4;
        low = lead == 0xF0U ? 0x90U : 0x80U;
        high = lead == 0xF4U ? 0x8FU : 0xBFU;
    } else {
        return 0;
    }
    if (text.size() - at < length) {
        return 0;
    }
    const auto second = static_cast<unsigned char>(text[at + 1]);
    if (second < low || second > high) {
        return 0;
    }
    for (std::size_t k = 2; k < length; ++k) {
        if ((static_cast<unsigned char>(text[at + k]) & 0xC0U) != 0x80U) {
            return 0;
        }
    }
    return length;
}

bool is_utf8(std::string_view text) noexcept {
    std::size_t i = 0;
    while (i < text.size()) {
        if (static_cast<unsigned char>(text[i]) < 0x80U) {
            ++i;
            continue;
        }
        const std::size_t length = utf8_sequence_length(text, i);
        if (length == 0) {
            return false;
        }
        i += length;
    }
    return true;
}

std::size_t code_points(std::string_view utf8) noexcept {
    return static_cast<std::size_t>(std::count_if(utf8.begin(), utf8.end(), [](char c) {
        return !is_continuation(static_cast<unsigned char>(c));
    }));
}

bool obeys(std::string_view text, const TextRule& rule) noexcept {
    const std::size_t length = code_points(text);
    if (length < rule.min_length || length > rule.max_length) {
        return false;
    }
    switch (rule.charset) {
        case Charset::any:
            return true;
        case Charset::printable:
            return !has_control(text);
        case Charset::game_id:
            return std::all_of(text.begin(), text.end(), is_game_id_char);
        case Charset::token:
            return std::all_of(text.begin(), text.end(), is_token_char);
    }
    return false;
}

std::string_view charset_text(Charset charset) noexcept {
    switch (charset) {
        case Charset::printable:
            return " without control characters";
        case Charset::game_id:
            return " of A-Z, a-z, 0-9, '_' and '-'";
        case Charset::token:
            return " of printable ASCII without spaces";
        case Charset::any:
            break;
    }
    return "";
}

std::string clip(std::string_view text) {
    // An unknown key can be as long as the frame: echo a bounded prefix, cut between code points.
    constexpr std::size_t kMaxEcho = 64;
    if (text.size() <= kMaxEcho) {
        return std::string(text);
    }
    std::size_t cut = kMaxEcho;
    while (cut > 0 && is_continuation(static_cast<unsigned char>(text[cut]))) {
        --cut;
    }
    return std::string(text.substr(0, cut)) + "...";
}

Expected<std::string, std::string> chat_text(std::string_view text, std::size_t max_length) {
    constexpr std::string_view kSpace = " \t\n\v\f\r";
    const std::size_t first = text.find_first_not_of(kSpace);
    if (first == std::string_view::npos) {
        return unexpected(std::string("the message is empty"));
    }
    const std::string_view trimmed = text.substr(first, text.find_last_not_of(kSpace) - first + 1);
    if (code_points(trimmed) > max_length) {
        return unexpected("the message is over " + std::to_string(max_length) + " characters");
    }
    if (has_control(trimmed)) {
        return unexpected(std::string("the message has control characters"));
    }
    return std::string(trimmed);
}

}  // namespace arbiter::protocol::text
