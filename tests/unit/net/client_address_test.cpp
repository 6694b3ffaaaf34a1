#include "server/net/client_address.hpp"

#include <vector>

#include <gtest/gtest.h>

namespace arbiter::server::net {
namespace {

std::vector<AddressRange> ranges(std::initializer_list<const char*> texts) {
    std::vector<AddressRange> parsed;
    for (const char* text : texts) {
        auto range = AddressRange::parse(text);
        EXPECT_TRUE(range) << text;
        if (range) {
            parsed.push_back(*range);
        }
    }
    return parsed;
}

TEST(ClientAddress, AnIpv4ClientIsItsAddress) {
    const auto client = client_address("203.0.113.7", std::nullopt, loopback_ranges());
    EXPECT_EQ(client.key, "203.0.113.7");
    EXPECT_FALSE(client.local);
}

TEST(ClientAddress, AnIpv6ClientIsItsSlash64) {
    // A host picks any address of its /64 at will: two of them are one client.
    const auto first = client_address("2001:db8:1:2:aaaa::1", std::nullopt, loopback_ranges());
    const auto second = client_address("2001:db8:1:2:bbbb::9", std::nullopt, loopback_ranges());
    EXPECT_EQ(first.key, "2001:db8:1:2::/64");
    EXPECT_EQ(second.key, first.key);
    EXPECT_NE(client_address("2001:db8:1:3::1", std::nullopt, {}).key, first.key);
}

TEST(ClientAddress, AnIpv4MappedAddressIsTheIpv4One) {
    EXPECT_EQ(client_address("::ffff:198.51.100.4", std::nullopt, {}).key, "198.51.100.4");
    EXPECT_TRUE(client_address("::ffff:127.0.0.1", std::nullopt, {}).local);
}

TEST(ClientAddress, LoopbackIsLocal) {
    EXPECT_TRUE(client_address("127.0.0.1", std::nullopt, {}).local);
    EXPECT_TRUE(client_address("127.3.4.5", std::nullopt, {}).local);
    EXPECT_TRUE(client_address("::1", std::nullopt, {}).local);
    EXPECT_FALSE(client_address("::2", std::nullopt, {}).local);
    EXPECT_FALSE(client_address("128.0.0.1", std::nullopt, {}).local);
}

TEST(ClientAddress, ForwardedForIsIgnoredFromAnUntrustedSocket) {
    // Whatever a client writes in the field is its own word: it must not pick its key.
    const auto client = client_address("203.0.113.7", "198.51.100.1", loopback_ranges());
    EXPECT_EQ(client.key, "203.0.113.7");
    EXPECT_EQ(client_address("127.0.0.1", "198.51.100.1", {}).key, "127.0.0.1");
}

TEST(ClientAddress, BehindATrustedProxyTheRightMostUntrustedEntryIsTheClient) {
    const auto trusted = ranges({"10.0.0.0/8", "127.0.0.1"});
    // The client wrote "1.2.3.4" itself; the proxy appended the address it saw.
    const auto client = client_address("10.1.2.3", "1.2.3.4, 198.51.100.9, 10.9.9.9", trusted);
    EXPECT_EQ(client.key, "198.51.100.9");
    EXPECT_FALSE(client.local);
    // Several lines of the field are one list.
    EXPECT_EQ(client_address("127.0.0.1", "198.51.100.9,10.0.0.2", trusted).key, "198.51.100.9");
}

TEST(ClientAddress, EveryEntryTrustedLeavesTheLeftMost) {
    const auto trusted = ranges({"10.0.0.0/8"});
    EXPECT_EQ(client_address("10.0.0.1", "10.0.0.7, 10.0.0.3", trusted).key, "10.0.0.7");
    // No field, or an empty one: the proxy itself.
    EXPECT_EQ(client_address("10.0.0.1", std::nullopt, trusted).key, "10.0.0.1");
    EXPECT_EQ(client_address("10.0.0.1", " , ", trusted).key, "10.0.0.1");
}

TEST(ClientAddress, AnEntryThatIsNoAddressEndsTheWalkAtTheHopAfterIt) {
    const auto trusted = ranges({"10.0.0.0/8"});
    EXPECT_EQ(client_address("10.0.0.1", "198.51.100.9, unknown, 10.0.0.2", trusted).key,
              "10.0.0.2");
    EXPECT_EQ(client_address("10.0.0.1", "garbage", trusted).key, "10.0.0.1");
}

TEST(ClientAddress, EntriesWithPortsAndBracketsAreRead) {
    const auto trusted = ranges({"10.0.0.0/8"});
    EXPECT_EQ(client_address("10.0.0.1", "198.51.100.9:4711", trusted).key, "198.51.100.9");
    EXPECT_EQ(client_address("10.0.0.1", "[2001:db8::5]:4711", trusted).key, "2001:db8::/64");
    EXPECT_EQ(client_address("10.0.0.1", "[2001:db8::5]", trusted).key, "2001:db8::/64");
    EXPECT_EQ(client_address("10.0.0.1", "2001:db8::5", trusted).key, "2001:db8::/64");
    EXPECT_EQ(client_address("10.0.0.1", "[198.51.100.9]", trusted).key, "10.0.0.1");
}

TEST(ClientAddress, AForwardedLoopbackClientIsLocal) {
    // A proxy on this machine forwarding a request from this machine.
    EXPECT_TRUE(client_address("127.0.0.1", "127.0.0.1", loopback_ranges()).local);
    EXPECT_FALSE(client_address("127.0.0.1", "192.0.2.1", loopback_ranges()).local);
}

TEST(ClientAddress, AnUnreadableSocketAddressIsItsOwnKey) {
    const auto client = client_address("unknown", "198.51.100.9", loopback_ranges());
    EXPECT_EQ(client.key, "unknown");
    EXPECT_FALSE(client.local);
}

TEST(AddressRange, PrefixesContainTheirAddressesOnly) {
    const auto range = AddressRange::parse("10.128.0.0/9");
    ASSERT_TRUE(range);
    EXPECT_TRUE(range->contains(*IpAddress::parse("10.200.1.1")));
    EXPECT_FALSE(range->contains(*IpAddress::parse("10.1.1.1")));
    EXPECT_FALSE(range->contains(*IpAddress::parse("::ffff:11.128.0.1")));
    const auto v6 = AddressRange::parse("2001:db8::/32");
    ASSERT_TRUE(v6);
    EXPECT_TRUE(v6->contains(*IpAddress::parse("2001:db8:ffff::1")));
    EXPECT_FALSE(v6->contains(*IpAddress::parse("2001:db9::1")));
    EXPECT_FALSE(v6->contains(*IpAddress::parse("10.0.0.1")));
    EXPECT_TRUE(AddressRange::parse("0.0.0.0/0")->contains(*IpAddress::parse("192.0.2.1")));
}

TEST(AddressRange, MalformedRangesAreRefused) {
    for (const char* text : {"", "10.0.0.0/33", "10.0.0.1/8", "10.0.0.0/", "10.0.0.0/x", "::/129",
                             "host.example", "10.0.0.0/8/8", "10.0.0.0/-1"}) {
        EXPECT_FALSE(AddressRange::parse(text)) << text;
    }
}

}  // namespace
}  // namespace arbiter::server::net
