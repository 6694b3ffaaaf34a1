#pragma once
/// \file
/// What a username and a password must be to sign up: usernames of 3-20 letters, digits, `_` and
/// `-`, unique ignoring case and not one of a few reserved names; passwords long enough, not
/// the username and not one of the most common passwords (a short list shipped with the server).
/// Pure text rules: the answer is the reason a client shows its user.

#include <string>
#include <string_view>

#include "common/core/expected.hpp"

namespace arbiter::server::app {

/// The shortest and longest usernames, in characters (all ASCII).
inline constexpr std::size_t kMinUsernameLength = 3;
inline constexpr std::size_t kMaxUsernameLength = 20;
/// The shortest password, and the longest (which bounds what a sign-in makes the server hash).
inline constexpr std::size_t kMinPasswordLength = 8;
inline constexpr std::size_t kMaxPasswordLength = 128;

/// The key that makes usernames unique ignoring case: the name in lower case.
std::string username_key(std::string_view username);

/// `username` as it may be registered, or why not ("3 to 20 characters: ...", "reserved").
Expected<void, std::string> check_username(std::string_view username);

/// Whether `password` may protect the account `username`, or why not.
Expected<void, std::string> check_password(std::string_view password, std::string_view username);

/// Whether `password`, ignoring case, is on the shipped list of most common passwords.
bool is_common_password(std::string_view password);

}  // namespace arbiter::server::app
