#pragma once
/// \file
/// Internal to the protocol module: strict reading of the fields of one client message object.
/// Every accessor marks its field as known, checks the JSON type and the range, and on failure
/// records the first error and returns a default; finish() then refuses any field that no
/// accessor asked for. Nothing here throws: values are reached through get_ptr(), never at().

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/protocol/text_rules.hpp"

namespace arbiter::protocol::detail {

// The text rules are the protocol's own (text_rules.hpp), shared with the terminal client.
using text::Charset;
using text::clip;
using text::code_points;
using text::kGameIdRule;
using text::kIdRule;
using text::kMoveRule;
using text::kTokenRule;
using text::obeys;
using text::TextRule;
/// The largest ply a request may name.
inline constexpr std::uint64_t kMaxPly = 0xFFFF'FFFFU;

/// Reads the fields of one JSON object; see the file comment.
class FieldReader {
  public:
    /// `object` must be a JSON object and outlive the reader; `prefix` names nested objects in
    /// messages ("clock.").
    explicit FieldReader(const nlohmann::json& object, std::string prefix = {});

    /// Marks fields as known without reading them ("type" and "id" at the top level).
    void allow(std::initializer_list<std::string_view> names);

    std::string text(std::string_view name, const TextRule& rule);
    std::optional<std::string> optional_text(std::string_view name, const TextRule& rule);

    std::uint64_t integer(std::string_view name, std::uint64_t min, std::uint64_t max);
    std::optional<std::uint64_t> optional_integer(std::string_view name, std::uint64_t min,
                                                  std::uint64_t max);

    std::optional<bool> optional_boolean(std::string_view name);

    /// A string field that must be one of `choices`; returns the matching value.
    template <typename T>
    std::optional<T> optional_choice(std::string_view name,
                                     std::initializer_list<std::pair<std::string_view, T>> choices);
    template <typename T>
    T choice(std::string_view name, std::initializer_list<std::pair<std::string_view, T>> choices);

    /// A nested object field; nullptr when absent, null, or refused (the error is recorded).
    /// `null_allowed`: JSON null counts as absent instead of a wrong type.
    const nlohmann::json* optional_object(std::string_view name, bool null_allowed);

    /// Records a failure unless one was recorded already (the first error wins).
    void fail(std::string message);

    /// Refuses unknown fields, then reports the first recorded error; nullopt when all is well.
    std::optional<std::string> finish();

    bool failed() const noexcept { return error_.has_value(); }
    /// The first recorded error, without the unknown-field check of finish().
    const std::optional<std::string>& error() const noexcept { return error_; }

  private:
    const nlohmann::json* find(std::string_view name, bool required);
    const std::string* string_field(std::string_view name, bool required);
    std::string quoted(std::string_view name) const;

    const nlohmann::json& object_;
    std::string prefix_;
    std::vector<std::string> known_;
    std::optional<std::string> error_;
};

template <typename T>
std::optional<T> FieldReader::optional_choice(
    std::string_view name, std::initializer_list<std::pair<std::string_view, T>> choices) {
    const std::string* value = string_field(name, false);
    if (value == nullptr) {
        return std::nullopt;
    }
    std::vector<std::string_view> names;
    for (const auto& [choice_name, choice_value] : choices) {
        if (*value == choice_name) {
            return choice_value;
        }
        names.push_back(choice_name);
    }
    std::string listed;
    for (std::string_view choice_name : names) {
        listed += listed.empty() ? "" : ", ";
        listed += choice_name;
    }
    fail(quoted(name) + ": must be one of " + listed);
    return std::nullopt;
}

template <typename T>
T FieldReader::choice(std::string_view name,
                      std::initializer_list<std::pair<std::string_view, T>> choices) {
    if (find(name, true) == nullptr) {
        return choices.begin()->second;
    }
    return optional_choice(name, choices).value_or(choices.begin()->second);
}

}  // namespace arbiter::protocol::detail
