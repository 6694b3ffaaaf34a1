#pragma once
/// \file
/// The JSON bodies of the accounts' HTTP API (issue 40; schema/protocol.md, "Accounts"): what a
/// client sends to sign up, sign in and change its password, and what the server answers. One
/// codec for every program, as for the WebSocket messages.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/core/expected.hpp"

namespace arbiter::protocol {

/// `{"username", "password"}`: the body of POST /api/account and POST /api/session.
struct Credentials {
    std::string username;
    std::string password;
};

/// `{"password", "new_password"}`: the body of POST /api/account/password.
struct PasswordChange {
    std::string password;
    std::string new_password;
};

/// `{"password"}`: the body of DELETE /api/account (the owner confirms with the password).
Expected<std::string, std::string> decode_password_confirmation(std::string_view body);
/// The credentials in `body`, or why it is not a JSON object with both fields as strings (the
/// reason never repeats a field's value).
Expected<Credentials, std::string> decode_credentials(std::string_view body);
/// The password change in `body`, or why not.
Expected<PasswordChange, std::string> decode_password_change(std::string_view body);

/// `{"username", "password"}`: what a client sends to sign up or in.
std::string encode_credentials(std::string_view username, std::string_view password);
/// `{"username", "token"}`: the sign-in's answer, as a client reads it.
struct SignedInAnswer {
    std::string username;
    std::string token;
};
Expected<SignedInAnswer, std::string> decode_signed_in(std::string_view body);
/// `{"password"}`: the body of DELETE /api/account.
std::string encode_password_confirmation(std::string_view password);

/// `{"username"}`: a new account.
std::string encode_account(std::string_view username);
/// `{"username", "token"}`: a new session, for clients without cookies.
std::string encode_signed_in(std::string_view username, std::string_view token);
/// `{"username", "created_ms"}`: a player's public profile.
std::string encode_profile(std::string_view username, std::int64_t created_ms);
/// `{"error", "message"}`: why a request of the accounts' API failed (`code` is snake_case).
std::string encode_api_error(std::string_view code, std::string_view message);

/// An error answer of the HTTP API, as a client reads it: `{"error", "message"}`, and
/// `retry_after_s` when the server is busy (encode_analysis_busy()).
struct ApiError {
    std::string error;  ///< snake_case: "unknown_game", "busy", ...
    std::string message;
    std::optional<std::int64_t> retry_after_s;
    friend bool operator==(const ApiError&, const ApiError&) = default;
};
/// The error in `body`, or why it is not one (`error` and `message` strings, `retry_after_s`,
/// when present, a whole number of seconds from 0).
Expected<ApiError, std::string> decode_api_error(std::string_view body);

}  // namespace arbiter::protocol
