#pragma once
/// \file
/// Which web pages may drive a browser as a client (issue 38): the Origin of a WebSocket upgrade,
/// and later of state-changing HTTP requests. A pure function; plain C++.

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace arbiter::server::net {

/// Whether a request with `origin` (the Origin field, nullopt when not sent) to `host` (the Host
/// field) may go ahead:
/// - without Origin: yes. Browsers send it on every WebSocket handshake (RFC 6455 section 4.1,
///   item 8); a client that does not is no browser, and no page can drive it;
/// - an origin of this server itself (scheme://Host, default ports filled in): yes;
/// - one listed in `allowed` (--allowed-origin: "https://games.example.org", case-insensitive;
///   "*" allows every origin): yes;
/// - any other, "null" (a sandboxed page, a file) included: no.
bool origin_allowed(const std::optional<std::string>& origin, std::string_view host,
                    std::span<const std::string> allowed);

}  // namespace arbiter::server::net
