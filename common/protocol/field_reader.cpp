#include "common/protocol/field_reader.hpp"

#include <algorithm>

namespace arbiter::protocol::detail {

using Json = nlohmann::json;

using text::charset_text;

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
