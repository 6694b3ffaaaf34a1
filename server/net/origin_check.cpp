#include "server/net/origin_check.hpp"

#include <algorithm>
#include <cctype>

namespace arbiter::server::net {

namespace {

bool same_text(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

struct HostPort {
    std::string_view host;
    std::string_view port;  ///< empty: none written
};

// "example.org:8080", "[::1]:8080", "example.org" (RFC 3986 section 3.2.2's host and port).
std::optional<HostPort> split_authority(std::string_view authority) {
    if (authority.empty()) {
        return std::nullopt;
    }
    std::size_t host_end = 0;
    if (authority.front() == '[') {
        host_end = authority.find(']');
        if (host_end == std::string_view::npos) {
            return std::nullopt;
        }
        ++host_end;
    } else {
        host_end = std::min(authority.find(':'), authority.size());
    }
    HostPort parts{authority.substr(0, host_end), {}};
    const auto rest = authority.substr(host_end);
    if (!rest.empty()) {
        if (rest.front() != ':') {
            return std::nullopt;
        }
        parts.port = rest.substr(1);
    }
    if (parts.host.empty() || !std::all_of(parts.port.begin(), parts.port.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c)) != 0;
        })) {
        return std::nullopt;
    }
    return parts;
}

// An origin is "scheme://host[:port]" (RFC 6454 section 6.2); a page of this server is http or
// https, and its port, unwritten, is the scheme's.
bool is_own_origin(std::string_view origin, std::string_view host) {
    std::string_view default_port;
    std::string_view authority;
    for (auto [scheme, port] : {std::pair{"http://", "80"}, std::pair{"https://", "443"}}) {
        const std::string_view prefix(scheme);
        if (origin.size() > prefix.size() && same_text(origin.substr(0, prefix.size()), prefix)) {
            default_port = port;
            authority = origin.substr(prefix.size());
        }
    }
    const auto from = split_authority(authority);
    const auto to = split_authority(host);
    if (!from || !to) {
        return false;
    }
    const auto port_of = [&](const HostPort& parts) {
        return parts.port.empty() ? default_port : parts.port;
    };
    return same_text(from->host, to->host) && port_of(*from) == port_of(*to);
}

}  // namespace

bool origin_allowed(const std::optional<std::string>& origin, std::string_view host,
                    std::span<const std::string> allowed) {
    if (!origin) {
        return true;
    }
    if (is_own_origin(*origin, host)) {
        return true;
    }
    return std::any_of(allowed.begin(), allowed.end(), [&](const std::string& listed) {
        return listed == "*" || same_text(listed, *origin);
    });
}

}  // namespace arbiter::server::net
