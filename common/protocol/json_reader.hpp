#pragma once
/// \file
/// Internal to the protocol module: strict reading of JSON text without building a tree, for the
/// decoder of server messages (decode_server.cpp). A client reads every message the server sends
/// it, and arbiter-load thousands a second, so each value is read once, typed, straight from the
/// text: an object's members are found in text order as they are asked for, and a reader that
/// asks for them in the order the encoder writes them reads the frame in one pass (a member
/// asked for out of order is found by skipping over the others, and read from where it stands).
/// Accepted text is valid JSON (RFC 8259) in UTF-8: every member of an accepted object was asked
/// for and read in full, since a member nobody asked for refuses the message. Nothing here
/// throws: a refusal is a ReadFailure.

#include <array>
#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/protocol/messages.hpp"
#include "common/protocol/text_rules.hpp"

namespace arbiter::protocol::detail {

/// A cursor over JSON text: tokens, whitespace, and values skipped whole.
class JsonCursor {
  public:
    /// A cursor at `at` in `text`, which must outlive it.
    explicit JsonCursor(std::string_view text, std::size_t at = 0) noexcept
        : text_(text), at_(at) {}

    /// Skips JSON whitespace (space, tab, line feed, carriage return).
    void skip_space() noexcept {
        while (at_ < text_.size() && is_space(text_[at_])) {
            ++at_;
        }
    }
    /// True when only whitespace is left.
    bool at_end() noexcept;
    /// Takes `c` after whitespace; false (and nothing taken) when something else comes.
    bool take(char c) noexcept {
        if (at_ < text_.size() && text_[at_] != c && is_space(text_[at_])) {
            skip_space();
        }
        if (at_ < text_.size() && text_[at_] == c) {
            ++at_;
            return true;
        }
        return false;
    }
    /// Takes `word` (a literal: null, true, false) after whitespace. What follows it is the
    /// caller's to check (a comma, a bracket, or the end of a value's text).
    bool take_word(std::string_view word) noexcept;
    /// The next character after whitespace, or '\0' at the end.
    char peek() noexcept {
        skip_space();
        return at_ < text_.size() ? text_[at_] : '\0';
    }
    /// A string value with its escapes decoded; false when it is no valid JSON string in UTF-8.
    bool string(std::string& out);
    /// A string, viewed in the text when it has no escapes; else decoded into a new entry of
    /// `storage` (a list: its strings stay where they are).
    bool string_or_view(std::string_view& out, std::list<std::string>& storage);
    /// A number that is a non-negative integer of at most 64 bits, written without sign,
    /// fraction or exponent; false for any other number and for anything else.
    bool unsigned_integer(std::uint64_t& out) noexcept;
    /// Skips one value of any kind. It checks only what finding the end needs (strings,
    /// brackets): a value skipped is either read later or refused as unknown.
    bool skip_value() noexcept;
    /// Where the cursor is.
    std::size_t position() const noexcept { return at_; }

  private:
    static bool is_space(char c) noexcept {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }
    bool skip_string() noexcept;

    std::string_view text_;
    std::size_t at_ = 0;
};

/// The first failure of one decode: the code and a message for a person. Later failures are not
/// recorded.
struct ReadFailure {
    ErrorCode code = ErrorCode::bad_request;
    std::string message;
};

/// The members of one JSON object, read by name, typed and strict. Every accessor marks its member
/// as known; finish() then refuses any member nobody asked for, and a name given twice. Failures
/// go to the decode's ReadFailure (the first one wins) and the accessor returns a default.
class ObjectReader {
  public:
    /// The most members an object may have: the largest server message, `state`, has 22 and an
    /// id. An object with more holds fields no message defines, and is refused.
    static constexpr std::size_t kMaxMembers = 32;

    /// The object that opens at `start` in `text` (after whitespace); `path` names it in messages
    /// ("clock.", "games[2].").
    ObjectReader(std::string_view text, std::size_t start, std::string path,
                 std::optional<ReadFailure>& failure);

    /// A required string.
    std::string text(std::string_view name);
    /// A required string that must obey `rule`.
    std::string text(std::string_view name, const text::TextRule& rule);
    /// A string that may be absent, obeying `rule`.
    std::optional<std::string> optional_text(std::string_view name, const text::TextRule& rule);
    /// A required member that is a string obeying `rule`, or null (nullopt).
    std::optional<std::string> text_or_null(std::string_view name, const text::TextRule& rule);
    /// A required non-negative integer within [min, max].
    std::uint64_t integer(std::string_view name, std::uint64_t min, std::uint64_t max);
    /// A required member that is such an integer, or null (nullopt).
    std::optional<std::uint64_t> integer_or_null(std::string_view name, std::uint64_t min,
                                                 std::uint64_t max);
    /// Such an integer that may be absent.
    std::optional<std::uint64_t> optional_integer(std::string_view name, std::uint64_t min,
                                                  std::uint64_t max);
    /// Whether the object has a member `name` not read yet (it stays to be read).
    bool present(std::string_view name);
    /// A required integer within [min, max], which may be negative (a rating change).
    std::int64_t signed_integer(std::string_view name, std::int64_t min, std::int64_t max);
    /// A required boolean.
    bool boolean(std::string_view name);
    /// A member that is absent, or `true` (a flag the server writes only when it is set).
    bool optional_true(std::string_view name);
    /// A required string that is one of `names` (its index there), or null (nullopt) when
    /// `null_allowed`.
    std::optional<std::size_t> choice(std::string_view name,
                                      std::span<const std::string_view> names,
                                      bool null_allowed = false);
    /// A required array of strings that obey `rule`.
    std::vector<std::string> texts(std::string_view name, const text::TextRule& rule);
    /// A required array of integers within [min, max] (a draughts route's squares).
    std::vector<std::uint64_t> integers(std::string_view name, std::uint64_t min,
                                        std::uint64_t max);
    /// A required object, or null when `null_allowed`: `read(ObjectReader&)` reads its members,
    /// and finish() follows. False when it is null or refused.
    template <typename Read>
    bool object(std::string_view name, bool null_allowed, Read&& read);
    /// A required array of objects: `read(ObjectReader&)` reads each one's members.
    template <typename Read>
    void objects(std::string_view name, Read&& read);

    /// Records a failure unless one was recorded (the first wins).
    void fail(std::string message, ErrorCode code = ErrorCode::bad_request);
    /// "field \"clock.white_ms\"".
    std::string quoted(std::string_view name) const;
    /// True once this decode failed anywhere.
    bool failed() const noexcept { return failure_.has_value(); }
    /// Finds the members not asked for yet and refuses them (unknown, or a name given twice).
    void finish();
    /// Where the object's text ends, once finish() found its closing brace.
    std::size_t end() const noexcept { return end_; }

  private:
    struct Member {
        std::string_view key;
        std::size_t start = 0;  ///< where its value starts
        std::size_t end = 0;    ///< where its value ends; 0 until it was read or skipped
        bool known = false;
    };

    /// The member named `name`, found among those found so far, else by finding more.
    Member* locate(std::string_view name, bool required);
    /// Finds the next member (its key), skipping the value of the one before if nobody read it.
    Member* discover();
    /// Reads `member`'s value with `parse(JsonCursor&)`, from where it stands; false when the
    /// value is refused or does not end where the text says it does.
    template <typename Parse>
    bool read_value(Member& member, Parse&& parse);
    /// After a refused value of the last member found: skips it, so that finding goes on.
    void skip_refused(Member& member);
    /// The first character of `member`'s value.
    char first_char(const Member& member) const noexcept {
        return member.start < text_.size() ? text_[member.start] : '\0';
    }
    /// The structure of the object is broken: no value of it can be trusted.
    void broken();
    std::optional<std::string> string_value(std::string_view name, Member& member,
                                            const text::TextRule* rule);
    std::optional<std::uint64_t> integer_value(std::string_view name, Member& member,
                                               std::uint64_t min, std::uint64_t max);
    /// `member`'s value is the literal null; it is then read.
    bool is_null(Member& member);

    std::string_view text_;
    std::string path_;
    std::optional<ReadFailure>& failure_;
    JsonCursor cursor_;  ///< after the last member found (its key, or its value once read)
    std::array<Member, kMaxMembers> members_;
    std::size_t count_ = 0;
    bool pending_ = false;  ///< the last member found has a value nobody read yet
    bool closed_ = false;   ///< the closing brace was found
    bool broken_ = false;
    std::size_t end_ = 0;
    std::list<std::string> decoded_keys_;  ///< keys written with escapes, decoded
};

template <typename Parse>
bool ObjectReader::read_value(Member& member, Parse&& parse) {
    if (member.end == 0) {
        // The last member found: its value is read where it stands, and finding goes on after it.
        JsonCursor in(text_, member.start);
        if (!std::forward<Parse>(parse)(in)) {
            skip_refused(member);
            return false;
        }
        member.end = in.position();
        cursor_ = in;
        pending_ = false;
        return true;
    }
    JsonCursor in(text_.substr(0, member.end), member.start);
    return std::forward<Parse>(parse)(in) && in.position() == member.end;
}

template <typename Read>
bool ObjectReader::object(std::string_view name, bool null_allowed, Read&& read) {
    Member* member = locate(name, true);
    if (member == nullptr || (null_allowed && is_null(*member))) {
        return false;
    }
    const bool read_in_full =
        first_char(*member) == '{' && read_value(*member, [&](JsonCursor& in) {
            ObjectReader nested(text_, in.position(), path_ + std::string(name) + ".", failure_);
            std::forward<Read>(read)(nested);
            nested.finish();
            in = JsonCursor(text_, nested.end());
            return nested.end() != 0;
        });
    if (!read_in_full) {
        fail(quoted(name) + (null_allowed ? ": must be an object or null" : ": must be an object"));
    }
    return read_in_full && !failed();
}

template <typename Read>
void ObjectReader::objects(std::string_view name, Read&& read) {
    Member* member = locate(name, true);
    if (member == nullptr) {
        return;
    }
    const bool read_in_full = read_value(*member, [&](JsonCursor& in) {
        if (!in.take('[')) {
            return false;
        }
        if (in.take(']')) {
            return true;
        }
        std::size_t index = 0;
        do {
            if (in.peek() != '{') {
                return false;
            }
            ObjectReader nested(text_, in.position(),
                                path_ + std::string(name) + "[" + std::to_string(index++) + "].",
                                failure_);
            read(nested);
            nested.finish();
            if (nested.end() == 0) {
                return false;
            }
            in = JsonCursor(text_, nested.end());
        } while (in.take(','));
        return in.take(']');
    });
    if (!read_in_full) {
        fail(quoted(name) + ": must be an array of objects");
    }
}

}  // namespace arbiter::protocol::detail
