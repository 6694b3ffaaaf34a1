#pragma once
/// \file
/// The protocol's rules for text fields (protocol.md: "Messages in general" and each message's
/// fields): lengths in code points and the characters each field admits. The server's decoder
/// checks incoming requests with them, and arbiter-cli checks what a user types before it sends
/// it. No JSON, no rules: a client may link this alone.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/core/expected.hpp"

namespace arbiter::protocol::text {

/// Which characters a text field admits.
enum class Charset : std::uint8_t {
    any,        ///< any UTF-8 text
    printable,  ///< no control characters (C0, DEL, C1)
    game_id,    ///< ASCII letters, digits, '_' and '-'
    token,      ///< printable ASCII without spaces
};

/// Length bounds of a text field, in Unicode code points, and its characters.
struct TextRule {
    std::size_t min_length = 0;
    std::size_t max_length = 0;
    Charset charset = Charset::any;
};

inline constexpr TextRule kGameIdRule{1, 32, Charset::game_id};
inline constexpr TextRule kTokenRule{1, 128, Charset::token};
inline constexpr TextRule kIdRule{0, 64, Charset::any};
inline constexpr TextRule kMoveRule{1, 64, Charset::printable};
inline constexpr TextRule kNameRule{1, 32, Charset::printable};
inline constexpr TextRule kPositionRule{0, 256, Charset::printable};
/// A chat message as sent, before trimming: generous, so that the trimmed text is what is judged.
inline constexpr TextRule kChatRawRule{0, 1024, Charset::any};
/// Engine names are configuration keys ("stockfish", "fairy-stockfish"): the game id alphabet.
inline constexpr TextRule kEngineRule{1, 32, Charset::game_id};

/// True for well-formed UTF-8 (RFC 3629): no stray or missing continuation bytes, no overlong
/// forms, no surrogates, nothing past U+10FFFF.
bool is_utf8(std::string_view text) noexcept;
/// The length of the UTF-8 sequence whose lead byte is at `at` (a byte of 0x80 or more), or 0
/// when it is not well formed (RFC 3629, section 4).
std::size_t utf8_sequence_length(std::string_view text, std::size_t at) noexcept;
/// Number of code points in valid UTF-8 text.
std::size_t code_points(std::string_view utf8) noexcept;
/// Whether valid UTF-8 `text` obeys `rule` (length and charset).
bool obeys(std::string_view text, const TextRule& rule) noexcept;
/// How a rule's charset reads after "N to M characters" (" without control characters").
std::string_view charset_text(Charset charset) noexcept;
/// At most 64 bytes of `text`, cut between code points, with "..." when cut: for echoing
/// untrusted text in error messages.
std::string clip(std::string_view text);

/// A chat message as the protocol takes it (protocol.md, Chat): `text` (valid UTF-8) without
/// the ASCII white space around it, 1..`max_length` code points and no control characters; or
/// why it is none, for a person to read.
Expected<std::string, std::string> chat_text(std::string_view text, std::size_t max_length);

}  // namespace arbiter::protocol::text
