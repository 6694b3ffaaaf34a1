#pragma once
/// \file
/// Password hashes with Argon2id (libsodium's crypto_pwhash_str): a random salt and the cost
/// parameters travel inside the stored string, so a later change of cost still verifies old
/// hashes. Hashing is slow and takes memory on purpose (about 64 MiB and tens of milliseconds
/// at the interactive limits): callers run it off the network threads and rate-limit sign-ins.

#include <optional>
#include <string>
#include <string_view>

namespace arbiter::server::app {

/// How much work one hash takes (libsodium's opslimit and memlimit).
struct PasswordCost {
    unsigned long long operations;
    std::size_t memory_bytes;
};
/// libsodium's interactive limits: what a server should use for sign-ins.
PasswordCost interactive_password_cost() noexcept;
/// The cheapest cost libsodium accepts: for tests that hash many passwords.
PasswordCost minimal_password_cost() noexcept;

/// The stored form of `password` ("$argon2id$v=19$m=...,t=...,p=1$salt$hash"), or nullopt when
/// libsodium could not hash (out of memory).
std::optional<std::string> hash_password(std::string_view password, PasswordCost cost);

/// Whether `password` matches the stored hash (compared in constant time by libsodium). A stored
/// string that is not an Argon2 hash matches nothing.
bool verify_password(std::string_view stored, std::string_view password);

/// Whether a hash made at another cost than `cost` should be made again at the next sign-in.
bool password_needs_rehash(std::string_view stored, PasswordCost cost);

}  // namespace arbiter::server::app
