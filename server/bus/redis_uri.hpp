#pragma once
/// \file
/// The operator's `--bus redis://host:port`, read strictly: the bus connects to that host and
/// port and nowhere else, so anything the parser would have to guess is refused.

#include <cstdint>
#include <string>
#include <string_view>

#include "common/core/expected.hpp"

namespace arbiter::server::bus {

/// Where the Redis server is.
struct RedisAddress {
    std::string host;  ///< a name or an IP address as given (IPv6 without its brackets)
    std::uint16_t port = 0;

    friend bool operator==(const RedisAddress&, const RedisAddress&) = default;
};

/// `redis://host:port` -> the address; anything else (another scheme, no host, no port, a port
/// out of 1..65535, user or password, a database path, a query) -> a message that says what is
/// wrong. IPv6 literals go in brackets: `redis://[::1]:6379`.
Expected<RedisAddress, std::string> parse_redis_uri(std::string_view uri);

}  // namespace arbiter::server::bus
