#include "server/app/password_hash.hpp"

#include <sodium.h>

namespace arbiter::server::app {

namespace {

// sodium_init() is safe to call more than once and from several threads; once is enough.
bool sodium_ready() {
    static const bool kReady = sodium_init() >= 0;
    return kReady;
}

}  // namespace

PasswordCost interactive_password_cost() noexcept {
    return {crypto_pwhash_OPSLIMIT_INTERACTIVE, crypto_pwhash_MEMLIMIT_INTERACTIVE};
}

PasswordCost minimal_password_cost() noexcept {
    return {crypto_pwhash_OPSLIMIT_MIN, crypto_pwhash_MEMLIMIT_MIN};
}

std::optional<std::string> hash_password(std::string_view password, PasswordCost cost) {
    if (!sodium_ready()) {
        return std::nullopt;
    }
    char stored[crypto_pwhash_STRBYTES];
    if (crypto_pwhash_str_alg(stored, password.data(), password.size(), cost.operations,
                              cost.memory_bytes, crypto_pwhash_ALG_ARGON2ID13) != 0) {
        return std::nullopt;
    }
    return std::string(stored);
}

bool verify_password(std::string_view stored, std::string_view password) {
    // crypto_pwhash_str_verify() reads a NUL-terminated string of at most STRBYTES - 1.
    if (!sodium_ready() || stored.empty() || stored.size() >= crypto_pwhash_STRBYTES) {
        return false;
    }
    const std::string terminated(stored);
    return crypto_pwhash_str_verify(terminated.c_str(), password.data(), password.size()) == 0;
}

bool password_needs_rehash(std::string_view stored, PasswordCost cost) {
    if (!sodium_ready() || stored.size() >= crypto_pwhash_STRBYTES) {
        return true;
    }
    const std::string terminated(stored);
    return crypto_pwhash_str_needs_rehash(terminated.c_str(), cost.operations, cost.memory_bytes) !=
           0;
}

}  // namespace arbiter::server::app
