#include "common/protocol/field_reader.hpp"

#include <algorithm>

namespace arbiter::protocol::detail {

using Json = nlohmann::json;

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

}  // namespace

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

FieldReader::FieldReader(const Json& object, std::string prefix)
    : object_(object), prefix_(std::move(prefix)) {}

void FieldReader::allow(std::initializer_list<std::string_view> names) {
    for (std::string_view name : names) {
        known_.emplace_back(name);
    }
}

void FieldReader::fail(std::string message) {
    if (!error_) {
        error_ = std::move(message);
    }
}

void FieldReader::adopt(const FieldReader& nested) {
    if (nested.error_) {
        fail(*nested.error_);
    }
}

std::string FieldReader::quoted(std::string_view name) const {
    return "field \"" + prefix_ + clip(name) + "\"";
}

const Json* FieldReader::find(std::string_view name, bool required) {
    if (std::find(known_.begin(), known_.end(), name) == known_.end()) {
        known_.emplace_back(name);
    }
    const auto found = object_.find(name);
    if (found == object_.end()) {
        if (required) {
            fail("missing " + quoted(name));
        }
        return nullptr;
    }
    return &*found;
}

const std::string* FieldReader::string_field(std::string_view name, bool required) {
    const Json* value = find(name, required);
    if (value == nullptr) {
        return nullptr;
    }
    const auto* text = value->get_ptr<const Json::string_t*>();
    if (text == nullptr) {
        fail(quoted(name) + ": must be a string");
    }
    return text;
}

std::optional<std::string> FieldReader::optional_text(std::string_view name, const TextRule& rule) {
    const std::string* value = string_field(name, false);
    if (value == nullptr) {
        return std::nullopt;
    }
    if (!obeys(*value, rule)) {
        fail(quoted(name) + ": must be " + std::to_string(rule.min_length) + " to " +
             std::to_string(rule.max_length) + " characters" +
             std::string(charset_text(rule.charset)));
        return std::nullopt;
    }
    return *value;
}

std::string FieldReader::text(std::string_view name, const TextRule& rule) {
    if (find(name, true) == nullptr) {
        return {};
    }
    return optional_text(name, rule).value_or(std::string{});
}

std::optional<std::uint64_t> FieldReader::optional_integer(std::string_view name, std::uint64_t min,
                                                           std::uint64_t max) {
    const Json* value = find(name, false);
    if (value == nullptr) {
        return std::nullopt;
    }
    // nlohmann stores non-negative integers as unsigned, negative ones as signed, and anything
    // with a fraction, an exponent or beyond 64 bits as a double: only the first is acceptable.
    std::optional<std::uint64_t> number;
    if (const auto* unsigned_value = value->get_ptr<const Json::number_unsigned_t*>()) {
        number = *unsigned_value;
    } else if (const auto* signed_value = value->get_ptr<const Json::number_integer_t*>()) {
        if (*signed_value >= 0) {
            number = static_cast<std::uint64_t>(*signed_value);
        }
    }
    if (!number || *number < min || *number > max) {
        fail(quoted(name) + ": must be an integer from " + std::to_string(min) + " to " +
             std::to_string(max));
        return std::nullopt;
    }
    return number;
}

std::uint64_t FieldReader::integer(std::string_view name, std::uint64_t min, std::uint64_t max) {
    if (find(name, true) == nullptr) {
        return min;
    }
    return optional_integer(name, min, max).value_or(min);
}

std::optional<bool> FieldReader::optional_boolean(std::string_view name) {
    const Json* value = find(name, false);
    if (value == nullptr) {
        return std::nullopt;
    }
    const auto* flag = value->get_ptr<const Json::boolean_t*>();
    if (flag == nullptr) {
        fail(quoted(name) + ": must be true or false");
        return std::nullopt;
    }
    return *flag;
}

const Json* FieldReader::optional_object(std::string_view name, bool null_allowed) {
    const Json* value = find(name, false);
    if (value == nullptr || (null_allowed && value->is_null())) {
        return nullptr;
    }
    if (!value->is_object()) {
        fail(quoted(name) + (null_allowed ? ": must be an object or null" : ": must be an object"));
        return nullptr;
    }
    return value;
}

std::optional<std::string> FieldReader::finish() {
    // Unknown fields are reported first: a misspelt optional field must not pass unnoticed
    // behind some other error.
    for (const auto& [key, value] : object_.items()) {
        if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
            return "unknown " + quoted(key);
        }
    }
    return error_;
}

}  // namespace arbiter::protocol::detail
