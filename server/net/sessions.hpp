#pragma once
// Internal to server/net: how the listener starts an HTTP session and how an HTTP session hands
// its socket to a WebSocket session. The session classes live wholly in their .cpp files so that
// websocket::stream is instantiated in one TU only (compile time on a 2-core machine).

#include <memory>
#include <optional>
#include <string>

#include <boost/asio/ssl/context.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "server/net/asio.hpp"
#include "server/net/front_stream.hpp"
#include "server/net/shared_state.hpp"

namespace arbiter::server::net::detail {

/// Serves HTTP/1.1 on `socket`, over TLS when `tls` is set (the handshake comes first). With a
/// refused ticket (a cap was reached) the request is answered 503 and the connection closes.
void start_http_session(Socket socket, asio::ssl::context* tls, std::shared_ptr<SharedState> state,
                        RemoteInfo remote, ConnectionTicket ticket);

/// The value of the request's `name` fields, or nullopt without one. RFC 9110 5.3: fields of one
/// name sent on several lines are one comma-separated list (and RFC 6265 5.4 lets a Cookie field
/// be read the same way).
template <class Name>
std::optional<std::string> field_value(
    const beast::http::request<beast::http::string_body>& request, Name name) {
    const auto [first, last] = request.equal_range(name);
    if (first == last) {
        return std::nullopt;
    }
    std::string value;
    for (auto line = first; line != last; ++line) {
        value += (line == first ? "" : ", ") + std::string(line->value());
    }
    return value;
}

/// Completes the WebSocket handshake for `request` and runs the connection until it closes.
void start_websocket_session(FrontStream stream,
                             beast::http::request<beast::http::string_body> request,
                             std::shared_ptr<SharedState> state, RemoteInfo remote,
                             ConnectionTicket ticket);

}  // namespace arbiter::server::net::detail
