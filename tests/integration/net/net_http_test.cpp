// Plain HTTP on the WebSocket port: answered by the HttpHandler, bounded, keep-alive.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>

#include "net_fixture.hpp"
#include "raw_client.hpp"

namespace arbiter::test {
namespace {

using NetHttp = NetTest;

TEST_F(NetHttp, GetIsAnsweredByTheHandler) {
    start();
    const auto reply = http_request(port(), "GET", "/hello");
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 200);
    EXPECT_EQ(reply->body, "hello from 127.0.0.1 loopback");
    EXPECT_EQ(reply->header("Server"), "arbiter");
    EXPECT_EQ(reply->header("Content-Length"), std::to_string(reply->body.size()));
    EXPECT_EQ(reply->header("Content-Type"), "text/plain; charset=utf-8");
    EXPECT_EQ(reply->header("X-Test"), "yes");
}

TEST_F(NetHttp, PostBodyReachesTheHandler) {
    start();
    const auto reply = http_request(port(), "POST", "/echo", "payload");
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 200);
    EXPECT_EQ(reply->body, "POST payload");
}

TEST_F(NetHttp, HeadGetsTheHeadersOnly) {
    start();
    const auto get = http_request(port(), "GET", "/hello");
    ASSERT_TRUE(get);
    Socket socket(port());
    ASSERT_TRUE(
        socket.write_all("HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n"
                         "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    std::string buffer;
    const auto head = read_http_reply(socket, buffer, true);
    ASSERT_TRUE(head);
    EXPECT_EQ(head->status, 200);
    EXPECT_EQ(head->header("Content-Length"), std::to_string(get->body.size()));
    // Had HEAD carried a body, the next reply would not start with a status line.
    const auto next = read_http_reply(socket, buffer, false);
    ASSERT_TRUE(next);
    EXPECT_EQ(next->status, 200);
    EXPECT_EQ(next->body, get->body);
}

TEST_F(NetHttp, KeepAliveServesSeveralRequestsOnOneConnection) {
    start();
    Socket socket(port());
    std::string buffer;
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(socket.write_all("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"));
        const auto reply = read_http_reply(socket, buffer, false);
        ASSERT_TRUE(reply);
        EXPECT_EQ(reply->status, 200);
        EXPECT_NE(reply->header("Connection"), "close");
    }
}

TEST_F(NetHttp, AnAnswerFromAnotherThreadIsWrittenAndKeepAliveGoesOn) {
    start();
    Socket socket(port());
    std::string buffer;
    // Pipelined: the second request is read only once the first's late answer is written.
    ASSERT_TRUE(
        socket.write_all("GET /later HTTP/1.1\r\nHost: x\r\n\r\n"
                         "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"
                         "HEAD /later HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    const auto later = read_http_reply(socket, buffer, false);
    ASSERT_TRUE(later);
    EXPECT_EQ(later->status, 200);
    EXPECT_EQ(later->body, "later");
    const auto hello = read_http_reply(socket, buffer, false);
    ASSERT_TRUE(hello);
    EXPECT_EQ(hello->body, "hello from 127.0.0.1 loopback");
    const auto head = read_http_reply(socket, buffer, true);
    ASSERT_TRUE(head);
    EXPECT_EQ(head->status, 200);
    EXPECT_EQ(head->header("Content-Length"), "5");
    EXPECT_EQ(head->header("Connection"), "close");
}

TEST_F(NetHttp, OnlyTheFirstAnswerIsWritten) {
    start();
    Socket socket(port());
    std::string buffer;
    ASSERT_TRUE(
        socket.write_all("GET /answer-twice HTTP/1.1\r\nHost: x\r\n\r\n"
                         "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    const auto first = read_http_reply(socket, buffer, false);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->body, "first");
    const auto next = read_http_reply(socket, buffer, false);
    ASSERT_TRUE(next);
    EXPECT_EQ(next->body, "hello from 127.0.0.1 loopback");
}

TEST_F(NetHttp, HandlerExceptionBecomes500) {
    start();
    const auto reply = http_request(port(), "GET", "/throw");
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 500);
    EXPECT_EQ(network_->stats().handler_errors, 1u);
    // The server goes on serving.
    const auto after = http_request(port(), "GET", "/hello");
    ASSERT_TRUE(after);
    EXPECT_EQ(after->status, 200);
}

TEST_F(NetHttp, UpgradeElsewhereIs404) {
    start();
    WsClient client(port(), "/elsewhere");
    EXPECT_EQ(client.status(), 404);
    EXPECT_EQ(peers_->opens(), 0u);
}

TEST_F(NetHttp, UpgradeOnWsWithQuerySucceeds) {
    start();
    WsClient client(port(), "/ws?client=test");
    EXPECT_EQ(client.status(), 101);
}

TEST_F(NetHttp, BodyOverTheLimitIsRefusedWith413) {
    config_.limits.max_http_body_bytes = 100;
    start();
    EXPECT_EQ(http_request(port(), "POST", "/echo", std::string(100, 'a'))->status, 200);
    const auto reply = http_request(port(), "POST", "/echo", std::string(101, 'a'));
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 413);
}

TEST_F(NetHttp, MalformedRequestIsRefusedWith400) {
    start();
    Socket socket(port());
    ASSERT_TRUE(socket.write_all("NOT HTTP AT ALL\r\n\r\n"));
    std::string buffer;
    const auto reply = read_http_reply(socket, buffer, false);
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 400);
}

// One raw request on a fresh connection, and the reply.
std::optional<HttpReply> raw_request(std::uint16_t port, std::string_view bytes) {
    Socket socket(port);
    if (!socket.write_all(bytes)) {
        return std::nullopt;
    }
    std::string buffer;
    return read_http_reply(socket, buffer, false);
}

TEST_F(NetHttp, FramingThatCannotBeTrustedIsRefusedWith400AndClosed) {
    start();
    // RFC 9112 6.3: a Transfer-Encoding whose last coding is not chunked. Served, its body was
    // read as a second request (the split a request-smuggling attack needs).
    Socket socket(port());
    ASSERT_TRUE(
        socket.write_all("POST /echo HTTP/1.1\r\nHost: x\r\n"
                         "Transfer-Encoding: chunked, identity\r\n\r\n"
                         "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"));
    std::string buffer;
    const auto reply = read_http_reply(socket, buffer, false);
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 400);
    EXPECT_FALSE(read_http_reply(socket, buffer, false)) << "no second answer: closed";
    // RFC 9112 3.2: HTTP/1.1 without Host.
    const auto no_host = raw_request(port(), "GET /hello HTTP/1.1\r\nConnection: close\r\n\r\n");
    ASSERT_TRUE(no_host);
    EXPECT_EQ(no_host->status, 400);
    // HTTP/1.0 needs none.
    const auto old = raw_request(port(), "GET /hello HTTP/1.0\r\n\r\n");
    ASSERT_TRUE(old);
    EXPECT_EQ(old->status, 200);
}

// RFC 9112 3.2: more than one Host is a 400; a proxy and the server could read different ones.
TEST_F(NetHttp, TwoHostFieldsAreRefusedWith400) {
    start();
    const auto reply =
        raw_request(port(), "GET /hello HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n");
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 400);
    const auto upgrade = raw_request(port(),
                                     "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: 127.0.0.1\r\n"
                                     "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                                     "Sec-WebSocket-Version: 13\r\n\r\n");
    ASSERT_TRUE(upgrade);
    EXPECT_EQ(upgrade->status, 400);
    const auto one = raw_request(port(), "GET /hello HTTP/1.1\r\nHost: a.example\r\n\r\n");
    ASSERT_TRUE(one);
    EXPECT_EQ(one->status, 200);
}

// The default --trusted-proxy is this machine: what a proxy here forwards names the client.
TEST_F(NetHttp, ForwardedForFromATrustedProxyNamesTheClient) {
    start();
    const auto local = http_request(port(), "GET", "/client");
    ASSERT_TRUE(local);
    EXPECT_EQ(local->body, "127.0.0.1 local");
    const auto forwarded = raw_request(
        port(),
        "GET /client HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 192.0.2.1, 2001:db8:5:6::7\r\n"
        "Connection: close\r\n\r\n");
    ASSERT_TRUE(forwarded);
    EXPECT_EQ(forwarded->body, "2001:db8:5:6::/64 remote");
}

TEST_F(NetHttp, ForwardedForFromAnyoneElseIsIgnored) {
    config_.trusted_proxies.clear();  // --trusted-proxy none
    start();
    const auto reply =
        raw_request(port(),
                    "GET /client HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 192.0.2.1\r\n"
                    "Connection: close\r\n\r\n");
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->body, "127.0.0.1 local");
}

TEST_F(NetHttp, AbsoluteFormTargetIsServedAsItsPath) {
    start();
    const auto reply = raw_request(
        port(), "GET http://127.0.0.1:1/hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 200);
    EXPECT_EQ(reply->body, "hello from 127.0.0.1 loopback");
}

TEST_F(NetHttp, OverlongTargetIs414AndOverlongHeadersAre431) {
    start();
    const auto long_target =
        raw_request(port(), "GET /" + std::string(10 * 1024, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(long_target);
    EXPECT_EQ(long_target->status, 414);
    const auto long_header = raw_request(port(), "GET /hello HTTP/1.1\r\nHost: x\r\nX-Big: " +
                                                     std::string(9 * 1024, 'b') + "\r\n\r\n");
    ASSERT_TRUE(long_header);
    EXPECT_EQ(long_header->status, 431);
}

TEST_F(NetHttp, PortZeroBindsAnEphemeralPort) {
    start();
    EXPECT_NE(port(), 0);
}

TEST_F(NetHttp, UnbindableAddressThrowsAtStart) {
    NetConfig config;
    config.bind_address = "not an address";
    config.port = 0;
    EXPECT_THROW(Network(config, peers_, http_), std::runtime_error);
}

}  // namespace
}  // namespace arbiter::test
