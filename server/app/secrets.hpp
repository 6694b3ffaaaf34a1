#pragma once
/// \file
/// Seat tokens and game ids from the kernel's CSPRNG, and token hashing: the server stores only
/// SHA-256 hashes of tokens and compares them in constant time. The same SHA-256 names the versions
/// of the API's answers (their ETags).

#include <string>
#include <string_view>

namespace arbiter::server::app {

/// 128 random bits as 32 lowercase hex characters.
std::string new_seat_token();
/// 10 random base-62 characters (about 59 bits): unguessable enough that private games stay
/// private, short enough for an invite link.
std::string new_game_id();
/// Lowercase hex SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);
/// The stored form of a seat token: its SHA-256, as sha256_hex().
std::string token_hash(std::string_view token);
/// Whether two hashes are equal, in time that depends only on their lengths.
bool same_hash(std::string_view a, std::string_view b) noexcept;

}  // namespace arbiter::server::app
