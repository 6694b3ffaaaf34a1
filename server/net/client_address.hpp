#pragma once
/// \file
/// Who a connection or request comes from, as the per-client limits see it (issue 38): one pure
/// function of the socket's address, the X-Forwarded-For field and the proxies the operator
/// trusts. Plain C++: no Asio or Beast, so the app layer and unit tests use it as it is.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace arbiter::server::net {

/// An IPv4 or IPv6 address; an IPv4-mapped IPv6 address (::ffff:a.b.c.d) is its IPv4 address.
struct IpAddress {
    /// IPv4 in the first 4 bytes, else all 16.
    std::array<std::uint8_t, 16> bytes{};
    bool v4 = false;

    /// "203.0.113.7", "2001:db8::1", "::ffff:10.0.0.1"; nullopt for anything else.
    static std::optional<IpAddress> parse(std::string_view text);
    /// 127.0.0.0/8 or ::1: the server's own machine.
    bool loopback() const noexcept;
};

/// One address or a CIDR prefix of them ("10.0.0.0/8", "::1", "2001:db8::/32"): where a trusted
/// reverse proxy connects from (--trusted-proxy).
class AddressRange {
  public:
    /// nullopt for a malformed range (a prefix longer than the address, bits set past it, ...).
    static std::optional<AddressRange> parse(std::string_view text);
    bool contains(const IpAddress& address) const noexcept;

  private:
    IpAddress base_;
    unsigned prefix_bits_ = 0;
};

/// The default --trusted-proxy: this machine only (a reverse proxy on the same host).
std::vector<AddressRange> loopback_ranges();

/// Whom a connection or request counts against.
struct ClientAddress {
    /// The client's IPv4 address ("203.0.113.7"), or its IPv6 /64 prefix ("2001:db8:1:2::/64"):
    /// one household or one host, which a client cannot change by reconnecting.
    std::string key;
    /// The client is on the server's own machine (loopback, and no forwarded address beyond):
    /// the operator's tools, tests and benchmarks, held to the limits per connection.
    bool local = false;
};

/// The client behind a connection from `socket_address`. The X-Forwarded-For list (each line of
/// the field, joined by commas) is read only when `socket_address` is in `trusted_proxies`:
/// walking it from the right, each trusted entry is skipped and the first untrusted one is the
/// client (RFC 7239 section 5.2's rule, as nginx's real_ip_recursive applies it); when every
/// entry is trusted, the left-most is. An entry that is not an address ends the walk at the hop
/// before it (a proxy never writes one; a client may). From anyone else the field is ignored:
/// it is whatever the client wrote.
ClientAddress client_address(std::string_view socket_address,
                             std::optional<std::string_view> forwarded_for,
                             std::span<const AddressRange> trusted_proxies);

/// The key of `address` (see ClientAddress::key).
std::string client_key(const IpAddress& address);

}  // namespace arbiter::server::net
