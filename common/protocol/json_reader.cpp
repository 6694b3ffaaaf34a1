#include "common/protocol/json_reader.hpp"

#include <algorithm>
#include <limits>

#include "common/protocol/text_rules.hpp"

namespace arbiter::protocol::detail {

namespace {

bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}

void append_utf8(std::string& out, std::uint32_t code_point) {
    if (code_point < 0x80U) {
        out += static_cast<char>(code_point);
    } else if (code_point < 0x800U) {
        out += static_cast<char>(0xC0U | (code_point >> 6));
        out += static_cast<char>(0x80U | (code_point & 0x3FU));
    } else if (code_point < 0x10000U) {
        out += static_cast<char>(0xE0U | (code_point >> 12));
        out += static_cast<char>(0x80U | ((code_point >> 6) & 0x3FU));
        out += static_cast<char>(0x80U | (code_point & 0x3FU));
    } else {
        out += static_cast<char>(0xF0U | (code_point >> 18));
        out += static_cast<char>(0x80U | ((code_point >> 12) & 0x3FU));
        out += static_cast<char>(0x80U | ((code_point >> 6) & 0x3FU));
        out += static_cast<char>(0x80U | (code_point & 0x3FU));
    }
}

// Four hex digits at `at`.
std::optional<std::uint32_t> hex4(std::string_view text, std::size_t at) noexcept {
    if (text.size() - at < 4) {
        return std::nullopt;
    }
    std::uint32_t value = 0;
    for (std::size_t i = at; i < at + 4; ++i) {
        const char c = text[i];
        value <<= 4;
        if (is_digit(c)) {
            value |= static_cast<std::uint32_t>(c - '0');
        } else if (c >= 'a' && c <= 'f') {
            value |= static_cast<std::uint32_t>(c - 'a' + 10);
        } else if (c >= 'A' && c <= 'F') {
            value |= static_cast<std::uint32_t>(c - 'A' + 10);
        } else {
            return std::nullopt;
        }
    }
    return value;
}

// text::obeys() for text already known to be valid UTF-8, without counting code points when the
// byte count settles it: most fields admit any character, and their text is short ASCII.
bool obeys_rule(std::string_view text, const text::TextRule& rule) noexcept {
    if (rule.charset == text::Charset::any && rule.min_length <= 1 &&
        text.size() >= rule.min_length && text.size() <= rule.max_length) {
        return true;  // a code point takes one to four bytes
    }
    return text::obeys(text, rule);
}

// The bytes that end a run of a string's plain text: the closing quote, an escape, a control
// character (which JSON refuses unescaped) and the lead byte of a multi-byte UTF-8 sequence.
constexpr auto kStringStops = [] {
    std::array<bool, 256> table{};
    for (std::size_t byte = 0; byte < table.size(); ++byte) {
        table[byte] = byte < 0x20U || byte >= 0x80U || byte == '"' || byte == '\\';
    }
    return table;
}();

bool is_string_stop(char c) noexcept {
    return kStringStops[static_cast<unsigned char>(c)];
}

}  // namespace

bool JsonCursor::at_end() noexcept {
    skip_space();
    return at_ == text_.size();
}

bool JsonCursor::take_word(std::string_view word) noexcept {
    skip_space();
    if (text_.substr(at_, word.size()) != word) {
        return false;
    }
    at_ += word.size();
    return true;
}

bool JsonCursor::string(std::string& out) {
    out.clear();
    if (!take('"')) {
        return false;
    }
    std::size_t run = at_;  // the start of the bytes not yet copied to `out`
    for (;;) {
        // Most strings are printable ASCII: scan those bytes without a branch per kind.
        while (at_ < text_.size() && !is_string_stop(text_[at_])) {
            ++at_;
        }
        if (at_ == text_.size()) {
            return false;
        }
        const auto c = static_cast<unsigned char>(text_[at_]);
        if (c == '"') {
            out.append(text_.data() + run, at_ - run);
            ++at_;
            return true;
        }
        if (c < 0x20U) {
            return false;  // RFC 8259, section 7: control characters must be escaped
        }
        if (c >= 0x80U) {
            const std::size_t length = text::utf8_sequence_length(text_, at_);
            if (length == 0) {
                return false;
            }
            at_ += length;
            continue;
        }
        out.append(text_.data() + run, at_ - run);
        if (++at_ == text_.size()) {
            return false;
        }
        const char escape = text_[at_++];
        switch (escape) {
            case '"':
            case '\\':
            case '/':
                out += escape;
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'u': {
                auto code_point = hex4(text_, at_);
                if (!code_point) {
                    return false;
                }
                at_ += 4;
                // A code point past U+FFFF is a surrogate pair; a surrogate alone is no text.
                if (*code_point >= 0xDC00U && *code_point <= 0xDFFFU) {
                    return false;
                }
                if (*code_point >= 0xD800U && *code_point <= 0xDBFFU) {
                    if (text_.size() - at_ < 2 || text_[at_] != '\\' || text_[at_ + 1] != 'u') {
                        return false;
                    }
                    const auto low = hex4(text_, at_ + 2);
                    if (!low || *low < 0xDC00U || *low > 0xDFFFU) {
                        return false;
                    }
                    at_ += 6;
                    *code_point = 0x10000U + ((*code_point - 0xD800U) << 10) + (*low - 0xDC00U);
                }
                append_utf8(out, *code_point);
                break;
            }
            default:
                return false;
        }
        run = at_;
    }
}

bool JsonCursor::string_or_view(std::string_view& out, std::list<std::string>& storage) {
    skip_space();
    // Printable ASCII up to the closing quote is the string itself: a view of the text.
    if (at_ < text_.size() && text_[at_] == '"') {
        std::size_t end = at_ + 1;
        while (end < text_.size() && !is_string_stop(text_[end])) {
            ++end;
        }
        if (end < text_.size() && text_[end] == '"') {
            out = text_.substr(at_ + 1, end - at_ - 1);
            at_ = end + 1;
            return true;
        }
    }
    std::string decoded;
    if (!string(decoded)) {
        return false;
    }
    out = storage.emplace_back(std::move(decoded));
    return true;
}

bool JsonCursor::unsigned_integer(std::uint64_t& out) noexcept {
    skip_space();
    // RFC 8259, section 6: int = zero / ( digit1-9 *DIGIT ), and no sign, fraction or exponent
    // here. A leading zero followed by digits is no JSON: the caller finds those digits left.
    if (at_ == text_.size() || !is_digit(text_[at_])) {
        return false;
    }
    std::uint64_t value = 0;
    if (text_[at_] == '0') {
        ++at_;
    } else {
        while (at_ < text_.size() && is_digit(text_[at_])) {
            const auto digit = static_cast<std::uint64_t>(text_[at_] - '0');
            if (value > (UINT64_MAX - digit) / 10) {
                return false;
            }
            value = value * 10 + digit;
            ++at_;
        }
    }
    if (at_ < text_.size() && (text_[at_] == '.' || text_[at_] == 'e' || text_[at_] == 'E')) {
        return false;
    }
    out = value;
    return true;
}

bool JsonCursor::skip_string() noexcept {
    ++at_;  // the opening quote
    while (at_ < text_.size()) {
        const char c = text_[at_++];
        if (c == '"') {
            return true;
        }
        if (c == '\\' && at_ < text_.size()) {
            ++at_;  // the escaped character, whatever it is: the string is read in full later
        }
    }
    return false;
}

bool JsonCursor::skip_value() noexcept {
    skip_space();
    const std::size_t start = at_;
    if (at_ == text_.size()) {
        return false;
    }
    const char first = text_[at_];
    if (first == '"') {
        if (!skip_string()) {
            return false;
        }
    } else if (first == '{' || first == '[') {
        // Only quotes and brackets matter here: the bytes between them go by in a tight loop.
        static constexpr auto kStructural = [] {
            std::array<bool, 256> table{};
            for (const char c : {'"', '{', '}', '[', ']'}) {
                table[static_cast<unsigned char>(c)] = true;
            }
            return table;
        }();
        std::size_t depth = 0;
        for (;;) {
            while (at_ < text_.size() && !kStructural[static_cast<unsigned char>(text_[at_])]) {
                ++at_;
            }
            if (at_ == text_.size()) {
                return false;
            }
            const char c = text_[at_];
            if (c == '"') {
                if (!skip_string()) {
                    return false;
                }
                continue;
            }
            ++at_;
            if (c == '{' || c == '[') {
                ++depth;
            } else if (--depth == 0) {
                break;
            }
        }
    } else {
        // A number or a literal: up to what may follow a value.
        while (at_ < text_.size()) {
            const char c = text_[at_];
            if (c == ',' || c == '}' || c == ']' || c == ':' || c == '"' || is_space(c)) {
                break;
            }
            ++at_;
        }
        if (at_ == start) {
            return false;
        }
    }
    return true;
}

ObjectReader::ObjectReader(std::string_view text, std::size_t start, std::string path,
                           std::optional<ReadFailure>& failure)
    : text_(text), path_(std::move(path)), failure_(failure), cursor_(text, start) {
    if (!cursor_.take('{')) {
        broken();
    }
}

void ObjectReader::broken() {
    broken_ = true;
    fail(path_.empty()
             ? "the frame is not a valid JSON object"
             : "field \"" + path_.substr(0, path_.size() - 1) + "\": not a valid JSON object",
         ErrorCode::bad_json);
}

ObjectReader::Member* ObjectReader::discover() {
    if (closed_ || broken_) {
        return nullptr;
    }
    if (pending_) {
        skip_refused(members_[count_ - 1]);
        if (broken_) {
            return nullptr;
        }
    }
    if (cursor_.take('}')) {
        closed_ = true;
        end_ = cursor_.position();
        return nullptr;
    }
    if (count_ > 0 && !cursor_.take(',')) {
        broken();
        return nullptr;
    }
    if (count_ == kMaxMembers) {
        broken_ = true;
        fail("more than " + std::to_string(kMaxMembers) + " fields in " +
             (path_.empty() ? std::string("the message")
                            : "\"" + path_.substr(0, path_.size() - 1) + "\""));
        return nullptr;
    }
    Member& member = members_[count_];
    if (!cursor_.string_or_view(member.key, decoded_keys_) || !cursor_.take(':')) {
        broken();
        return nullptr;
    }
    cursor_.skip_space();
    member.start = cursor_.position();
    member.end = 0;
    member.known = false;
    ++count_;
    pending_ = true;
    return &member;
}

void ObjectReader::skip_refused(Member& member) {
    JsonCursor in(text_, member.start);
    if (!in.skip_value()) {
        broken();
        return;
    }
    member.end = in.position();
    cursor_ = in;
    pending_ = false;
}

ObjectReader::Member* ObjectReader::locate(std::string_view name, bool required) {
    for (std::size_t i = 0; i < count_; ++i) {
        if (!members_[i].known && members_[i].key == name) {
            members_[i].known = true;
            return &members_[i];
        }
    }
    while (Member* member = discover()) {
        if (member->key == name) {
            member->known = true;
            return member;
        }
    }
    if (required) {
        fail("missing " + quoted(name));
    }
    return nullptr;
}

void ObjectReader::finish() {
    while (discover() != nullptr) {
    }
    if (!closed_) {
        return;  // broken: the failure is recorded
    }
    for (std::size_t i = 0; i < count_; ++i) {
        if (members_[i].known) {
            continue;
        }
        const bool repeated = std::any_of(
            members_.begin(), members_.begin() + count_,
            [&](const Member& other) { return other.known && other.key == members_[i].key; });
        fail((repeated ? "" : "unknown ") + quoted(members_[i].key) +
             (repeated ? ": repeated" : ""));
        return;
    }
}

void ObjectReader::fail(std::string message, ErrorCode code) {
    if (!failure_) {
        failure_ = ReadFailure{code, std::move(message)};
    }
}

std::string ObjectReader::quoted(std::string_view name) const {
    return "field \"" + path_ + text::clip(name) + "\"";
}

bool ObjectReader::is_null(Member& member) {
    if (first_char(member) != 'n') {
        return false;
    }
    if (!read_value(member, [](JsonCursor& in) { return in.take_word("null"); })) {
        broken();
    }
    return true;
}

std::optional<std::string> ObjectReader::string_value(std::string_view name, Member& member,
                                                      const text::TextRule* rule) {
    std::string out;
    if (!read_value(member, [&out](JsonCursor& in) { return in.string(out); })) {
        fail(quoted(name) + ": must be a string");
        return std::nullopt;
    }
    if (rule != nullptr && !obeys_rule(out, *rule)) {
        fail(quoted(name) + ": must be " + std::to_string(rule->min_length) + " to " +
             std::to_string(rule->max_length) + " characters" +
             std::string(text::charset_text(rule->charset)));
        return std::nullopt;
    }
    return out;
}

std::optional<std::uint64_t> ObjectReader::integer_value(std::string_view name, Member& member,
                                                         std::uint64_t min, std::uint64_t max) {
    std::uint64_t number = 0;
    if (!read_value(member, [&number](JsonCursor& in) { return in.unsigned_integer(number); }) ||
        number < min || number > max) {
        fail(quoted(name) + ": must be an integer from " + std::to_string(min) + " to " +
             std::to_string(max));
        return std::nullopt;
    }
    return number;
}

std::string ObjectReader::text(std::string_view name) {
    Member* member = locate(name, true);
    return member != nullptr ? string_value(name, *member, nullptr).value_or(std::string())
                             : std::string();
}

std::string ObjectReader::text(std::string_view name, const text::TextRule& rule) {
    Member* member = locate(name, true);
    return member != nullptr ? string_value(name, *member, &rule).value_or(std::string())
                             : std::string();
}

std::optional<std::string> ObjectReader::optional_text(std::string_view name,
                                                       const text::TextRule& rule) {
    Member* member = locate(name, false);
    return member != nullptr ? string_value(name, *member, &rule) : std::nullopt;
}

std::optional<std::string> ObjectReader::text_or_null(std::string_view name,
                                                      const text::TextRule& rule) {
    Member* member = locate(name, true);
    if (member == nullptr || is_null(*member)) {
        return std::nullopt;
    }
    return string_value(name, *member, &rule);
}

std::uint64_t ObjectReader::integer(std::string_view name, std::uint64_t min, std::uint64_t max) {
    Member* member = locate(name, true);
    return member != nullptr ? integer_value(name, *member, min, max).value_or(min) : min;
}

std::optional<std::uint64_t> ObjectReader::integer_or_null(std::string_view name, std::uint64_t min,
                                                           std::uint64_t max) {
    Member* member = locate(name, true);
    if (member == nullptr || is_null(*member)) {
        return std::nullopt;
    }
    return integer_value(name, *member, min, max);
}

std::optional<std::uint64_t> ObjectReader::optional_integer(std::string_view name,
                                                            std::uint64_t min, std::uint64_t max) {
    Member* member = locate(name, false);
    return member != nullptr ? integer_value(name, *member, min, max) : std::nullopt;
}

bool ObjectReader::present(std::string_view name) {
    for (std::size_t i = 0; i < count_; ++i) {
        if (members_[i].key == name) {
            return !members_[i].known;
        }
    }
    while (const Member* member = discover()) {
        if (member->key == name) {
            return true;
        }
    }
    return false;
}

std::int64_t ObjectReader::signed_integer(std::string_view name, std::int64_t min,
                                          std::int64_t max) {
    Member* member = locate(name, true);
    if (member == nullptr) {
        return min;
    }
    bool negative = false;
    std::uint64_t magnitude = 0;
    const bool read = read_value(*member, [&](JsonCursor& in) {
        negative = in.take('-');
        return in.unsigned_integer(magnitude);
    });
    constexpr auto kLimit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    const bool fits = read && magnitude <= kLimit;
    const std::int64_t value = fits ? (negative ? -static_cast<std::int64_t>(magnitude)
                                                : static_cast<std::int64_t>(magnitude))
                                    : 0;
    if (!fits || value < min || value > max) {
        fail(quoted(name) + ": must be an integer from " + std::to_string(min) + " to " +
             std::to_string(max));
        return min;
    }
    return value;
}

bool ObjectReader::boolean(std::string_view name) {
    Member* member = locate(name, true);
    if (member == nullptr) {
        return false;
    }
    bool value = false;
    if (!read_value(*member, [&value](JsonCursor& in) {
            value = in.peek() == 't';
            return in.take_word(value ? "true" : "false");
        })) {
        fail(quoted(name) + ": must be true or false");
        return false;
    }
    return value;
}

bool ObjectReader::optional_true(std::string_view name) {
    Member* member = locate(name, false);
    if (member == nullptr) {
        return false;
    }
    if (!read_value(*member, [](JsonCursor& in) { return in.take_word("true"); })) {
        fail(quoted(name) + ": must be true when present");
        return false;
    }
    return true;
}

std::optional<std::size_t> ObjectReader::choice(std::string_view name,
                                                std::span<const std::string_view> names,
                                                bool null_allowed) {
    Member* member = locate(name, true);
    if (member == nullptr || (null_allowed && is_null(*member))) {
        return std::nullopt;
    }
    std::string text;
    if (read_value(*member, [&text](JsonCursor& in) { return in.string(text); })) {
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (names[i] == text) {
                return i;
            }
        }
    }
    std::string listed;
    for (const std::string_view choice_name : names) {
        listed += listed.empty() ? "" : ", ";
        listed += choice_name;
    }
    fail(quoted(name) + ": must be one of " + listed + (null_allowed ? ", or null" : ""));
    return std::nullopt;
}

std::vector<std::uint64_t> ObjectReader::integers(std::string_view name, std::uint64_t min,
                                                  std::uint64_t max) {
    std::vector<std::uint64_t> out;
    Member* member = locate(name, true);
    if (member == nullptr) {
        return out;
    }
    const bool read = read_value(*member, [&](JsonCursor& in) {
        if (!in.take('[')) {
            return false;
        }
        if (in.take(']')) {
            return true;
        }
        do {
            std::uint64_t& item = out.emplace_back();
            if (!in.unsigned_integer(item) || item < min || item > max) {
                return false;
            }
        } while (in.take(','));
        return in.take(']');
    });
    if (!read) {
        fail(quoted(name) + ": must be an array of integers from " + std::to_string(min) + " to " +
             std::to_string(max));
        out.clear();
    }
    return out;
}

std::vector<std::string> ObjectReader::texts(std::string_view name, const text::TextRule& rule) {
    std::vector<std::string> out;
    Member* member = locate(name, true);
    if (member == nullptr) {
        return out;
    }
    const bool read = read_value(*member, [&](JsonCursor& in) {
        if (!in.take('[')) {
            return false;
        }
        if (in.take(']')) {
            return true;
        }
        // Most lists are a position's legal moves, a few dozen: they grow once or twice.
        out.reserve(16);
        do {
            std::string& item = out.emplace_back();
            if (!in.string(item) || !obeys_rule(item, rule)) {
                return false;
            }
        } while (in.take(','));
        return in.take(']');
    });
    if (!read) {
        fail(quoted(name) + ": must be an array of strings of " + std::to_string(rule.min_length) +
             " to " + std::to_string(rule.max_length) + " characters" +
             std::string(text::charset_text(rule.charset)));
        out.clear();
    }
    return out;
}

}  // namespace arbiter::protocol::detail
