#include "common/protocol/account_api.hpp"

#include "common/protocol/api_json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace arbiter::protocol {

namespace {

using Json = nlohmann::json;

// A day: more than any server asks a client to wait, and far within int64.
constexpr std::uint64_t kMaxRetryAfterS = 24ULL * 60 * 60;

/// The object in `body` with every one of `fields` a string, or why not.
Expected<Json, std::string> object_of_strings(std::string_view body,
                                              std::initializer_list<const char*> fields) {
    Json parsed = Json::parse(body, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object()) {
        return unexpected(std::string("the body must be a JSON object"));
    }
    for (const char* field : fields) {
        const auto found = parsed.find(field);
        if (found == parsed.end() || !found->is_string()) {
            return unexpected("\"" + std::string(field) + "\" must be a string");
        }
    }
    return parsed;
}

}  // namespace

Expected<Credentials, std::string> decode_credentials(std::string_view body) {
    auto parsed = object_of_strings(body, {"username", "password"});
    if (!parsed) {
        return unexpected(std::move(parsed).error());
    }
    return Credentials{(*parsed)["username"].get<std::string>(),
                       (*parsed)["password"].get<std::string>()};
}

Expected<PasswordChange, std::string> decode_password_change(std::string_view body) {
    auto parsed = object_of_strings(body, {"password", "new_password"});
    if (!parsed) {
        return unexpected(std::move(parsed).error());
    }
    return PasswordChange{(*parsed)["password"].get<std::string>(),
                          (*parsed)["new_password"].get<std::string>()};
}

Expected<std::string, std::string> decode_password_confirmation(std::string_view body) {
    auto parsed = object_of_strings(body, {"password"});
    if (!parsed) {
        return unexpected(std::move(parsed).error());
    }
    return (*parsed)["password"].get<std::string>();
}

std::string encode_credentials(std::string_view username, std::string_view password) {
    return detail::dumped(Json{{"username", username}, {"password", password}});
}

Expected<SignedInAnswer, std::string> decode_signed_in(std::string_view body) {
    auto parsed = object_of_strings(body, {"username", "token"});
    if (!parsed) {
        return unexpected(std::move(parsed).error());
    }
    return SignedInAnswer{(*parsed)["username"].get<std::string>(),
                          (*parsed)["token"].get<std::string>()};
}

std::string encode_password_confirmation(std::string_view password) {
    return detail::dumped(Json{{"password", password}});
}

std::string encode_account(std::string_view username) {
    return detail::dumped(Json{{"username", username}});
}

std::string encode_signed_in(std::string_view username, std::string_view token) {
    return detail::dumped(Json{{"username", username}, {"token", token}});
}

std::string encode_profile(std::string_view username, std::int64_t created_ms) {
    return detail::dumped(Json{{"username", username}, {"created_ms", created_ms}});
}

std::string encode_api_error(std::string_view code, std::string_view message) {
    return detail::dumped(Json{{"error", code}, {"message", message}});
}

Expected<ApiError, std::string> decode_api_error(std::string_view body) {
    auto parsed = object_of_strings(body, {"error", "message"});
    if (!parsed) {
        return unexpected(std::move(parsed).error());
    }
    ApiError error{(*parsed)["error"].get<std::string>(), (*parsed)["message"].get<std::string>(),
                   std::nullopt};
    if (const auto retry = parsed->find("retry_after_s"); retry != parsed->end()) {
        if (!retry->is_number_unsigned()) {
            return unexpected(std::string(R"("retry_after_s" must be a whole number of seconds)"));
        }
        error.retry_after_s = static_cast<std::int64_t>(
            std::min<std::uint64_t>(retry->get<std::uint64_t>(), kMaxRetryAfterS));
    }
    return error;
}

}  // namespace arbiter::protocol
