#include "server/app/account_rules.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace arbiter::server::app {

namespace {

constexpr std::string_view kCommonPasswords[] = {
#include "server/app/common_passwords.inc"
};
// is_common_password() bisects the list.
static_assert(std::is_sorted(std::begin(kCommonPasswords), std::end(kCommonPasswords)));

// Names that would pass for the server speaking, or for nobody in particular.
constexpr std::array<std::string_view, 20> kReservedUsernames{
    "admin",  "administrator", "anonymous", "api",    "arbiter",   "deleted",  "guest",
    "help",   "mod",           "moderator", "null",   "official",  "operator", "root",
    "server", "staff",         "support",   "system", "undefined", "you"};

char lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool username_character(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

}  // namespace

std::string username_key(std::string_view username) {
    std::string key(username);
    std::transform(key.begin(), key.end(), key.begin(), lower);
    return key;
}

Expected<void, std::string> check_username(std::string_view username) {
    if (username.size() < kMinUsernameLength || username.size() > kMaxUsernameLength ||
        !std::all_of(username.begin(), username.end(), username_character)) {
        return unexpected(std::string("a username is 3 to 20 letters, digits, '_' or '-'"));
    }
    const std::string key = username_key(username);
    if (std::find(kReservedUsernames.begin(), kReservedUsernames.end(), key) !=
        kReservedUsernames.end()) {
        return unexpected("the username '" + std::string(username) + "' is reserved");
    }
    return {};
}

bool is_common_password(std::string_view password) {
    if (password.size() > kMaxPasswordLength) {
        return false;
    }
    const std::string key = username_key(password);  // lower case, ASCII letters only
    return std::binary_search(std::begin(kCommonPasswords), std::end(kCommonPasswords),
                              std::string_view(key));
}

Expected<void, std::string> check_password(std::string_view password, std::string_view username) {
    if (password.size() < kMinPasswordLength) {
        return unexpected("a password is at least " + std::to_string(kMinPasswordLength) +
                          " characters");
    }
    if (password.size() > kMaxPasswordLength) {
        return unexpected("a password is at most " + std::to_string(kMaxPasswordLength) + " bytes");
    }
    if (username_key(password) == username_key(username)) {
        return unexpected(std::string("the password may not be the username"));
    }
    if (is_common_password(password)) {
        return unexpected(
            std::string("this password is one of the most common ones: choose another"));
    }
    return {};
}

}  // namespace arbiter::server::app
