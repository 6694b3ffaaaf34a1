#pragma once
// Internal to server/net: accepts TCP connections and hands each to an HTTP session on its own
// strand (STYLE, Beast advanced server: async_accept(make_strand(ioc), ...)), on the network
// threads' io_contexts in turn.

#include <functional>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "server/net/asio.hpp"
#include "server/net/shared_state.hpp"

namespace arbiter::server::net::detail {

class Listener : public std::enable_shared_from_this<Listener> {
  public:
    /// Binds and listens; throws std::runtime_error when the address cannot be bound. With
    /// `tls` (owned by the caller, outliving the listener and its sessions) every connection
    /// speaks TLS.
    /// `ioc` runs the accept loop; `next_context` names the io_context of each new connection.
    Listener(asio::io_context& ioc, std::function<asio::io_context&()> next_context,
             const std::string& address, std::uint16_t port, asio::ssl::context* tls,
             std::shared_ptr<SharedState> state);

    std::uint16_t port() const noexcept { return port_; }
    void start();
    /// Stops accepting (thread-safe).
    void stop();

  private:
    void accept();
    void on_accept(error_code ec, Socket socket);
    void admit(Socket socket);

    std::function<asio::io_context&()> next_context_;
    Strand strand_;
    tcp::acceptor acceptor_;
    asio::steady_timer backoff_;
    asio::ssl::context* tls_;
    std::shared_ptr<SharedState> state_;
    std::uint16_t port_ = 0;
    bool stopped_ = false;
};

}  // namespace arbiter::server::net::detail
