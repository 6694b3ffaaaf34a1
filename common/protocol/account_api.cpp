#include "common/protocol/account_api.hpp"

#include <nlohmann/json.hpp>

namespace arbiter::protocol {

namespace {

using Json = nlohmann::json;

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
    return Json{{"username", username}, {"password", password}}.dump();
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
    return Json{{"password", password}}.dump();
}

std::string encode_account(std::string_view username) {
    return Json{{"username", username}}.dump();
}

std::string encode_signed_in(std::string_view username, std::string_view token) {
    return Json{{"username", username}, {"token", token}}.dump();
}

std::string encode_profile(std::string_view username, std::int64_t created_ms) {
    return Json{{"username", username}, {"created_ms", created_ms}}.dump();
}

std::string encode_api_error(std::string_view code, std::string_view message) {
    return Json{{"error", code}, {"message", message}}.dump();
}

}  // namespace arbiter::protocol
