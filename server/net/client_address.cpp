#include "server/net/client_address.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <cstring>

namespace arbiter::server::net {

namespace {

constexpr std::array<std::uint8_t, 12> kV4MappedPrefix = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

std::string_view trimmed(std::string_view text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
        return {};
    }
    const auto last = text.find_last_not_of(" \t");
    return text.substr(first, last - first + 1);
}

// An X-Forwarded-For entry as proxies write it: an address, an IPv6 one in brackets, either with
// a port ("203.0.113.7:4711", "[2001:db8::1]:4711"; some proxies add it).
std::optional<IpAddress> parse_hop(std::string_view entry) {
    if (auto address = IpAddress::parse(entry)) {
        return address;
    }
    if (entry.starts_with('[')) {
        const auto close = entry.find(']');
        if (close == std::string_view::npos) {
            return std::nullopt;
        }
        const auto rest = entry.substr(close + 1);
        if (!rest.empty() && !rest.starts_with(':')) {
            return std::nullopt;
        }
        auto address = IpAddress::parse(entry.substr(1, close - 1));
        return address && !address->v4 ? address : std::nullopt;
    }
    // "a.b.c.d:port": one colon only (an IPv6 address without brackets has several).
    const auto colon = entry.find(':');
    if (colon != std::string_view::npos && entry.find(':', colon + 1) == std::string_view::npos) {
        auto address = IpAddress::parse(entry.substr(0, colon));
        return address && address->v4 ? address : std::nullopt;
    }
    return std::nullopt;
}

}  // namespace

std::optional<IpAddress> IpAddress::parse(std::string_view text) {
    // inet_pton wants a terminated string; the longest text form of an address is 45 characters.
    if (text.empty() || text.size() > 45) {
        return std::nullopt;
    }
    char buffer[46] = {};
    std::memcpy(buffer, text.data(), text.size());
    IpAddress address;
    if (::inet_pton(AF_INET, buffer, address.bytes.data()) == 1) {
        address.v4 = true;
        return address;
    }
    if (::inet_pton(AF_INET6, buffer, address.bytes.data()) != 1) {
        return std::nullopt;
    }
    if (std::equal(kV4MappedPrefix.begin(), kV4MappedPrefix.end(), address.bytes.begin())) {
        std::copy_n(address.bytes.begin() + 12, 4, address.bytes.begin());
        std::fill(address.bytes.begin() + 4, address.bytes.end(), 0);
        address.v4 = true;
    }
    return address;
}

bool IpAddress::loopback() const noexcept {
    if (v4) {
        return bytes[0] == 127;
    }
    return std::all_of(bytes.begin(), bytes.end() - 1, [](std::uint8_t b) { return b == 0; }) &&
           bytes[15] == 1;
}

std::optional<AddressRange> AddressRange::parse(std::string_view text) {
    const auto slash = text.find('/');
    auto base = IpAddress::parse(text.substr(0, slash));
    if (!base) {
        return std::nullopt;
    }
    const unsigned width = base->v4 ? 32 : 128;
    unsigned bits = width;
    if (slash != std::string_view::npos) {
        const auto digits = text.substr(slash + 1);
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bits);
        if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() ||
            bits > width) {
            return std::nullopt;
        }
    }
    // "10.0.0.1/8" is most likely a typo for a host or for 10.0.0.0/8: refused, not guessed.
    for (unsigned bit = bits; bit < width; ++bit) {
        if ((base->bytes[bit / 8] >> (7 - bit % 8) & 1) != 0) {
            return std::nullopt;
        }
    }
    AddressRange range;
    range.base_ = *base;
    range.prefix_bits_ = bits;
    return range;
}

bool AddressRange::contains(const IpAddress& address) const noexcept {
    if (address.v4 != base_.v4) {
        return false;
    }
    const unsigned whole = prefix_bits_ / 8;
    if (!std::equal(base_.bytes.begin(), base_.bytes.begin() + whole, address.bytes.begin())) {
        return false;
    }
    const unsigned rest = prefix_bits_ % 8;
    if (rest == 0) {
        return true;
    }
    const auto mask = static_cast<std::uint8_t>(0xff << (8 - rest));
    return (base_.bytes[whole] & mask) == (address.bytes[whole] & mask);
}

std::vector<AddressRange> loopback_ranges() {
    return {*AddressRange::parse("127.0.0.0/8"), *AddressRange::parse("::1")};
}

std::string client_key(const IpAddress& address) {
    char text[INET6_ADDRSTRLEN] = {};
    if (address.v4) {
        ::inet_ntop(AF_INET, address.bytes.data(), text, sizeof text);
        return text;
    }
    // One IPv6 /64 is one subscriber's link (RFC 6177): a host picks any address in it at will.
    std::array<std::uint8_t, 16> prefix{};
    std::copy_n(address.bytes.begin(), 8, prefix.begin());
    ::inet_ntop(AF_INET6, prefix.data(), text, sizeof text);
    return std::string(text) + "/64";
}

ClientAddress client_address(std::string_view socket_address,
                             std::optional<std::string_view> forwarded_for,
                             std::span<const AddressRange> trusted_proxies) {
    auto hop = IpAddress::parse(socket_address);
    if (!hop) {
        return {std::string(socket_address), false};
    }
    const auto trusted = [&](const IpAddress& address) {
        return std::any_of(trusted_proxies.begin(), trusted_proxies.end(),
                           [&](const AddressRange& range) { return range.contains(address); });
    };
    if (forwarded_for && trusted(*hop)) {
        std::string_view rest = *forwarded_for;
        while (!rest.empty()) {
            const auto comma = rest.rfind(',');
            const auto entry =
                trimmed(comma == std::string_view::npos ? rest : rest.substr(comma + 1));
            rest = comma == std::string_view::npos ? std::string_view() : rest.substr(0, comma);
            if (entry.empty()) {
                continue;  // "a, , b": an empty list element (RFC 9110 5.6.1)
            }
            auto previous = parse_hop(entry);
            if (!previous) {
                break;
            }
            hop = previous;
            if (!trusted(*hop)) {
                break;
            }
        }
    }
    return {client_key(*hop), hop->loopback()};
}

}  // namespace arbiter::server::net
