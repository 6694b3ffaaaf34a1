#include "server/net/listener.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <chrono>
#include <stdexcept>
#include <utility>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include "server/net/sessions.hpp"

namespace arbiter::server::net::detail {

namespace {

// Running out of descriptors or memory is transient: stop accepting briefly instead of spinning.
bool is_resource_exhaustion(const error_code& ec) {
    return ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space ||
           ec == asio::error::no_memory || ec == boost::system::errc::too_many_files_open_in_system;
}

// TCP keepalive (RFC 1122 4.2.3.6) with short timers: a peer whose host vanished is found by the
// kernel after 10 s idle + 3 probes 5 s apart, even on a connection where nothing else is sent
// (an HTTP keep-alive connection between requests). A WebSocket is never idle that long, as the
// server pings it every few seconds; its silence is caught by its own liveness rule first.
void enable_keepalive(Socket& socket) {
    error_code ignored;  // keepalive is a backstop: a socket without it still works
    socket.set_option(asio::socket_base::keep_alive(true), ignored);
    const int fd = socket.native_handle();
    constexpr int kIdleSeconds = 10;
    constexpr int kIntervalSeconds = 5;
    constexpr int kProbes = 3;
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &kIdleSeconds, sizeof kIdleSeconds);
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &kIntervalSeconds, sizeof kIntervalSeconds);
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &kProbes, sizeof kProbes);
}

RemoteInfo describe(const Socket& socket) {
    error_code ec;
    const auto endpoint = socket.remote_endpoint(ec);
    if (ec) {
        return {"unknown", false};
    }
    auto address = endpoint.address();
    // An IPv4 client on a dual-stack socket: count it (and check loopback) as IPv4.
    if (address.is_v6() && address.to_v6().is_v4_mapped()) {
        address = asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6());
    }
    return {address.to_string(), address.is_loopback()};
}

}  // namespace

Listener::Listener(asio::io_context& ioc, std::function<asio::io_context&()> next_context,
                   const std::string& address, std::uint16_t port, asio::ssl::context* tls,
                   std::shared_ptr<SharedState> state)
    : next_context_(std::move(next_context)),
      strand_(asio::make_strand(ioc)),
      acceptor_(strand_),
      backoff_(strand_),
      tls_(tls),
      state_(std::move(state)) {
    auto fail = [&](const char* what, const error_code& ec) {
        throw std::runtime_error("cannot listen on " + address + ":" + std::to_string(port) + ": " +
                                 what + ": " + ec.message());
    };
    error_code ec;
    const auto ip = asio::ip::make_address(address, ec);
    if (ec) {
        fail("bad address", ec);
    }
    const tcp::endpoint endpoint(ip, port);
    if (acceptor_.open(endpoint.protocol(), ec); ec) {
        fail("open", ec);
    }
    if (acceptor_.set_option(asio::socket_base::reuse_address(true), ec); ec) {
        fail("set_option", ec);
    }
    if (acceptor_.bind(endpoint, ec); ec) {
        fail("bind", ec);
    }
    if (acceptor_.listen(asio::socket_base::max_listen_connections, ec); ec) {
        fail("listen", ec);
    }
    port_ = acceptor_.local_endpoint().port();
}

void Listener::start() {
    asio::dispatch(strand_, [self = shared_from_this()] { self->accept(); });
}

void Listener::stop() {
    asio::post(strand_, [self = shared_from_this()] {
        self->stopped_ = true;
        error_code ignored;
        self->acceptor_.close(ignored);
        self->backoff_.cancel();
    });
}

void Listener::accept() {
    if (stopped_) {
        return;
    }
    acceptor_.async_accept(asio::make_strand(next_context_()),
                           [self = shared_from_this()](error_code ec, Socket socket) {
                               self->on_accept(ec, std::move(socket));
                           });
}

void Listener::on_accept(error_code ec, Socket socket) {
    if (stopped_) {
        return;
    }
    if (ec) {
        // The accept loop never dies: log, back off when out of descriptors, and go on.
        state_->log("accept: " + ec.message());
        if (is_resource_exhaustion(ec)) {
            backoff_.expires_after(std::chrono::milliseconds(100));
            backoff_.async_wait([self = shared_from_this()](error_code) { self->accept(); });
            return;
        }
        return accept();
    }
    // Small frames go out at once: with Nagle a player's `moved` waited for the ACK of the
    // previous frame, which the client delays by up to 40 ms (p50 to the opponent was 8 ms with
    // one game on loopback, p99 50 ms).
    error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    enable_keepalive(socket);
    admit(std::move(socket));
    accept();
}

void Listener::admit(Socket socket) {
    try {
        auto remote = describe(socket);
        auto ticket = state_->admit(remote.address);
        if (!ticket) {
            return;  // over a cap, and enough refusals are being answered: closed at once
        }
        start_http_session(std::move(socket), tls_, state_, std::move(remote), std::move(*ticket));
    } catch (const std::exception& e) {
        // Out of memory for one session must not end the accept loop.
        state_->log(std::string("starting a session: ") + e.what());
    }
}

}  // namespace arbiter::server::net::detail
