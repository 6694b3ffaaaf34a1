#pragma once
// Internal to server/net: the byte stream under every session, plain TCP or TLS over TCP, chosen
// per connection at run time. The sessions (HTTP and WebSocket) are written once over this type,
// so Beast's HTTP and WebSocket templates are instantiated once, not once per transport (compile
// time on a 2-core machine; the Beast advanced-server-flex example instantiates them twice).

#include <memory>
#include <optional>
#include <utility>

#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/teardown.hpp>

#include "server/net/asio.hpp"

namespace arbiter::server::net::detail {

class FrontStream {
  public:
    using TcpStream = beast::basic_stream<tcp, Strand>;
    using TlsStream = asio::ssl::stream<TcpStream>;
    using executor_type = TcpStream::executor_type;

    /// Plain TCP.
    explicit FrontStream(Socket socket) : plain_(std::in_place, std::move(socket)) {}
    /// TLS with `context`; the server handshake is still to be done (tls().async_handshake).
    FrontStream(Socket socket, asio::ssl::context& context)
        : tls_(std::make_unique<TlsStream>(TcpStream(std::move(socket)), context)) {}

    FrontStream(FrontStream&&) noexcept = default;
    FrontStream& operator=(FrontStream&&) = delete;
    FrontStream(const FrontStream&) = delete;
    FrontStream& operator=(const FrontStream&) = delete;
    ~FrontStream() = default;

    bool is_tls() const noexcept { return tls_ != nullptr; }
    TlsStream& tls() noexcept { return *tls_; }
    /// The TCP stream underneath (timeouts, close): beast::get_lowest_layer finds it here.
    TcpStream& next_layer() noexcept { return tls_ ? tls_->next_layer() : *plain_; }

    executor_type get_executor() noexcept { return next_layer().get_executor(); }

    template <class MutableBuffers, class Handler>
    void async_read_some(const MutableBuffers& buffers, Handler&& handler) {
        if (tls_) {
            tls_->async_read_some(buffers, std::forward<Handler>(handler));
        } else {
            plain_->async_read_some(buffers, std::forward<Handler>(handler));
        }
    }

    template <class ConstBuffers, class Handler>
    void async_write_some(const ConstBuffers& buffers, Handler&& handler) {
        if (tls_) {
            tls_->async_write_some(buffers, std::forward<Handler>(handler));
        } else {
            plain_->async_write_some(buffers, std::forward<Handler>(handler));
        }
    }

  private:
    // Exactly one is set. TLS lives on the heap so that moving the stream (HTTP session to
    // WebSocket session) never moves an SSL object with its engine state.
    std::optional<TcpStream> plain_;
    std::unique_ptr<TlsStream> tls_;
};

// WebSocket close (RFC 6455 section 7.1.1): TLS sends its close_notify before TCP goes down.
// Found by argument-dependent lookup from websocket::stream.
template <class Handler>
void async_teardown(beast::role_type role, FrontStream& stream, Handler&& handler) {
    if (stream.is_tls()) {
        boost::beast::async_teardown(role, stream.tls(), std::forward<Handler>(handler));
    } else {
        boost::beast::async_teardown(role, stream.next_layer(), std::forward<Handler>(handler));
    }
}

inline void teardown(beast::role_type role, FrontStream& stream, error_code& ec) {
    if (stream.is_tls()) {
        boost::beast::teardown(role, stream.tls(), ec);
    } else {
        boost::beast::teardown(role, stream.next_layer(), ec);
    }
}

}  // namespace arbiter::server::net::detail
