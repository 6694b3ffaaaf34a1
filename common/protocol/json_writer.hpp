#pragma once
/// \file
/// Internal to the protocol module: JSON written straight into its text, for encode() of server
/// and of client messages. A message is written without building a JSON tree: a tree allocates a
/// node and a key string per field, and a `record` of a 300-ply game took ~430 us that way
/// against ~30 us written directly. The text is compact JSON, exactly what nlohmann's dump() of
/// the same fields in the same order gives (tests parse each message and dump it again to check
/// that). Strings that need escaping or repair go through nlohmann's own serializer.

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arbiter::protocol::detail {

/// `value` as a JSON string, quotes included, escaped and repaired by nlohmann's serializer. Names
/// and messages can carry text that is not valid UTF-8 (a bug upstream must not become an
/// exception here): bad bytes become U+FFFD instead of a throw.
std::string escaped(std::string_view value);

/// A string that JSON carries as it is: printable ASCII without quotes or backslashes.
inline bool plain(std::string_view text) {
    for (const char c : text) {
        if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
            return false;
        }
    }
    return true;
}

/// Appends JSON tokens to one string, with the commas between values, and no spaces.
class JsonWriter {
  public:
    /// `expected`: about the size of the text, so that it grows once or not at all.
    explicit JsonWriter(std::size_t expected) { out_.resize(expected); }

    /// `{`, `}`, `[` and `]`, with the comma before an opening one where it needs one.
    JsonWriter& begin_object() { return opening("{"); }
    JsonWriter& end_object() { return closing("}"); }   ///< see begin_object()
    JsonWriter& begin_array() { return opening("["); }  ///< see begin_object()
    JsonWriter& end_array() { return closing("]"); }    ///< see begin_object()
    /// A member's name; its value follows.
    JsonWriter& key(std::string_view name) {
        const std::string_view comma = separator();
        if (plain(name)) {
            put(comma, "\"", name, "\":");
        } else {
            put(comma, escaped(name), ":");
        }
        after_key_ = true;
        return *this;
    }
    /// A string value.
    JsonWriter& text(std::string_view value) {
        const std::string_view comma = separator();
        if (plain(value)) {
            put(comma, "\"", value, "\"");
        } else {
            put(comma, escaped(value));
        }
        first_ = false;
        return *this;
    }
    /// "" on the C++ side means "not yet" (no result, no reason); the wire says null.
    JsonWriter& text_or_null(std::string_view value) {
        return value.empty() ? null() : text(value);
    }
    /// An integer value.
    template <typename Number>
    JsonWriter& number(Number value) {
        char digits[24];
        const auto end = std::to_chars(std::begin(digits), std::end(digits), value).ptr;
        return literal(std::string_view(digits, static_cast<std::size_t>(end - digits)));
    }
    /// An integer value, or null.
    template <typename Number>
    JsonWriter& number_or_null(const std::optional<Number>& value) {
        return value ? number(*value) : null();
    }
    /// true or false.
    JsonWriter& boolean(bool value) { return literal(value ? "true" : "false"); }
    /// null.
    JsonWriter& null() { return literal("null"); }
    /// An array of strings.
    JsonWriter& texts(const std::vector<std::string>& values) {
        begin_array();
        for (const std::string& value : values) {
            text(value);
        }
        return end_array();
    }
    /// A member and its value in one call: out.text("type", "moved").number("seq", seq).
    JsonWriter& text(std::string_view name, std::string_view value) {
        return key(name).text(value);
    }
    /// See text(name, value).
    JsonWriter& text_or_null(std::string_view name, std::string_view value) {
        return key(name).text_or_null(value);
    }
    /// See text(name, value).
    template <typename Number>
    JsonWriter& number(std::string_view name, Number value) {
        return key(name).number(value);
    }
    /// See text(name, value).
    template <typename Number>
    JsonWriter& number_or_null(std::string_view name, const std::optional<Number>& value) {
        return key(name).number_or_null(value);
    }
    /// See text(name, value).
    JsonWriter& boolean(std::string_view name, bool value) { return key(name).boolean(value); }
    /// See text(name, value).
    JsonWriter& texts(std::string_view name, const std::vector<std::string>& values) {
        return key(name).texts(values);
    }

    /// The text written.
    std::string finish() && {
        out_.resize(used_);
        return std::move(out_);
    }

  private:
    /// The comma before a value or member, unless it opens its container or follows its key.
    std::string_view separator() {
        if (after_key_) {
            after_key_ = false;
            return {};
        }
        return first_ ? std::string_view() : std::string_view(",");
    }
    JsonWriter& literal(std::string_view token) {
        put(separator(), token);
        first_ = false;
        return *this;
    }
    JsonWriter& opening(std::string_view bracket) {
        put(separator(), bracket);
        first_ = true;
        return *this;
    }
    JsonWriter& closing(std::string_view bracket) {
        put(bracket);
        first_ = false;
        return *this;
    }
    /// Appends the pieces at the cursor. out_ is sized ahead (doubling when a piece would not
    /// fit) and cut to what was written at the end: a message is many short pieces, and
    /// std::string's push_back and append are calls (libstdc++ instantiates them once), which a
    /// profile of a 300-ply record put at a third of its time, and a resize per piece zero-fills
    /// what the piece then overwrites (a `moved` writes ~45 pieces).
    template <typename... Pieces>
    void put(const Pieces&... pieces) {
        const std::size_t size = (std::string_view(pieces).size() + ...);
        if (out_.size() - used_ < size) {
            out_.resize(std::max(2 * out_.size(), used_ + size));
        }
        char* cursor = out_.data() + used_;
        ((cursor = std::copy_n(std::string_view(pieces).data(), std::string_view(pieces).size(),
                               cursor)),
         ...);
        used_ += size;
    }
    std::string out_;  ///< [0, used_) is the text; the rest is room for what follows
    std::size_t used_ = 0;
    bool first_ = true;
    bool after_key_ = false;
};

}  // namespace arbiter::protocol::detail
