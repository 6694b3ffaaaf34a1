#include "client/cli/http_call.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace arbiter::client {

namespace beast = boost::beast;
namespace http = beast::http;
namespace asio = boost::asio;

Expected<HttpAnswer, std::string> http_call(const WsUrl& server, const HttpCall& call,
                                            std::chrono::milliseconds timeout) {
    asio::io_context io;
    beast::error_code ec;
    asio::ip::tcp::resolver resolver(io);
    const auto endpoints = resolver.resolve(server.host, server.port, ec);
    if (ec) {
        return unexpected("cannot find " + server.host + ": " + ec.message());
    }
    beast::tcp_stream stream(io);
    stream.expires_after(timeout);
    stream.connect(endpoints, ec);
    if (ec) {
        return unexpected("cannot connect to " + server.host + ":" + server.port + ": " +
                          ec.message());
    }
    http::request<http::string_body> request(http::string_to_verb(call.method), call.target, 11);
    request.set(http::field::host, server.host + ":" + server.port);
    request.set(http::field::user_agent, "arbiter-cli");
    if (!call.body.empty()) {
        request.set(http::field::content_type, "application/json");
        request.body() = call.body;
    }
    if (call.bearer) {
        request.set(http::field::authorization, "Bearer " + *call.bearer);
    }
    request.prepare_payload();
    // Blocking calls: the tcp_stream's expiry bounds each of them.
    stream.expires_after(timeout);
    http::write(stream, request, ec);
    if (ec) {
        return unexpected("cannot send the request: " + ec.message());
    }
    beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(stream, buffer, response, ec);
    if (ec) {
        return unexpected("no answer from the server: " + ec.message());
    }
    stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    return HttpAnswer{response.result_int(), std::move(response.body())};
}

}  // namespace arbiter::client
