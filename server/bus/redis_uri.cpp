#include "server/bus/redis_uri.hpp"

#include <algorithm>
#include <charconv>

namespace arbiter::server::bus {
namespace {

constexpr std::string_view kScheme = "redis://";

Unexpected<std::string> refuse(std::string_view uri, std::string_view why) {
    std::string message = "bus URI '";
    message.append(uri).append("': ").append(why).append(" (expected redis://host:port)");
    return unexpected(std::move(message));
}

bool is_host_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-';
}

}  // namespace

Expected<RedisAddress, std::string> parse_redis_uri(std::string_view uri) {
    if (!uri.starts_with(kScheme)) {
        return refuse(uri, "only the redis:// scheme is supported");
    }
    std::string_view rest = uri.substr(kScheme.size());
    if (rest.find('@') != std::string_view::npos) {
        return refuse(uri, "user names and passwords are not supported");
    }
    if (rest.find_first_of("/?#") != std::string_view::npos) {
        return refuse(uri, "a path, database number, query or fragment is not supported");
    }
    std::string_view host;
    std::string_view after_host;
    if (rest.starts_with('[')) {
        const auto close = rest.find(']');
        if (close == std::string_view::npos) {
            return refuse(uri, "an IPv6 address without its closing ']'");
        }
        host = rest.substr(1, close - 1);
        after_host = rest.substr(close + 1);
        const bool ipv6_chars = std::all_of(host.begin(), host.end(), [](char c) {
            return c == ':' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
                   (c >= 'A' && c <= 'F');
        });
        if (host.empty() || !ipv6_chars) {
            return refuse(uri, "not an IPv6 address between the brackets");
        }
    } else {
        const auto colon = rest.find(':');
        host = rest.substr(0, colon);
        after_host = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon);
        if (host.empty()) {
            return refuse(uri, "no host");
        }
        if (!std::all_of(host.begin(), host.end(), is_host_char)) {
            return refuse(uri, "the host has characters a host name cannot have");
        }
    }
    if (!after_host.starts_with(':') || after_host.size() == 1) {
        return refuse(uri, "no port");
    }
    const std::string_view port_text = after_host.substr(1);
    unsigned port = 0;
    const auto [end, ec] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc{} || end != port_text.data() + port_text.size() || port == 0 ||
        port > 65535) {
        return refuse(uri, "the port is not a number from 1 to 65535");
    }
    return RedisAddress{std::string(host), static_cast<std::uint16_t>(port)};
}

}  // namespace arbiter::server::bus
