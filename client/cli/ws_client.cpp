// WsClient over Boost.Beast: one io_context and one thread per connection, a read loop that
// fills an inbox, and a write queue with one write in flight (Beast allows one at a time).
#include "client/cli/ws_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace arbiter::client {

namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

Expected<WsUrl, std::string> parse_ws_url(std::string_view url) {
    constexpr std::string_view kScheme = "ws://";
    if (url.substr(0, kScheme.size()) != kScheme) {
        return unexpected(
            std::string("the server URL must start with ws://, as in "
                        "ws://127.0.0.1:8080/ws"));
    }
    std::string_view rest = url.substr(kScheme.size());
    const auto slash = rest.find('/');
    const std::string_view authority = rest.substr(0, slash);
    WsUrl parsed;
    parsed.target = slash == std::string_view::npos ? "/ws" : std::string(rest.substr(slash));
    // An IPv6 address is written in brackets (RFC 3986), as in ws://[::1]:8080/ws; its colons
    // are not the port's.
    std::string_view after_host;
    if (!authority.empty() && authority.front() == '[') {
        const auto close = authority.find(']');
        if (close == std::string_view::npos) {
            return unexpected(std::string("the server URL has a '[' without its ']'"));
        }
        parsed.host = std::string(authority.substr(1, close - 1));
        after_host = authority.substr(close + 1);
        if (!after_host.empty() && after_host.front() != ':') {
            return unexpected(std::string("the server URL has text after its ']'"));
        }
    } else {
        const auto host_end = authority.rfind(':');
        parsed.host = std::string(authority.substr(0, host_end));
        after_host =
            host_end == std::string_view::npos ? std::string_view{} : authority.substr(host_end);
    }
    parsed.port = after_host.empty() ? "80" : std::string(after_host.substr(1));
    if (parsed.host.empty()) {
        return unexpected(std::string("the server URL names no host"));
    }
    if (parsed.port.empty() || parsed.port.size() > 5 ||
        parsed.port.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(parsed.port) < 1 || std::stoi(parsed.port) > 65535) {
        return unexpected("the port \"" + parsed.port + "\" is not a number from 1 to 65535");
    }
    return parsed;
}

struct WsClient::Connection {
    asio::io_context io;
    tcp::resolver resolver{io};
    websocket::stream<beast::tcp_stream> socket{io};
    beast::flat_buffer buffer;
    std::deque<std::string> outgoing;  // touched on the io thread only
    bool writing = false;
    std::thread thread;

    std::mutex mutex;  // guards everything below
    std::condition_variable changed;
    std::deque<std::string> inbox;
    bool connected = false;
    bool finished = false;
    std::string outcome;  // why the connection failed or ended
    int close_code = 0;   // the server's close code, when it closed

    void finish(const std::string& why, int code = 0) {
        std::lock_guard lock(mutex);
        if (!finished) {
            finished = true;
            outcome = why;
            close_code = code;
        }
        connected = false;
        changed.notify_all();
    }

    void start(const WsUrl& url, std::chrono::milliseconds timeout) {
        resolver.async_resolve(
            url.host, url.port,
            [this, url, timeout](beast::error_code ec, const tcp::resolver::results_type& found) {
                if (ec) {
                    return finish("cannot resolve " + url.host + ": " + ec.message());
                }
                beast::get_lowest_layer(socket).expires_after(timeout);
                beast::get_lowest_layer(socket).async_connect(
                    found, [this, url, timeout](beast::error_code error, const tcp::endpoint&) {
                        if (error) {
                            return finish("cannot connect to " + url.host + ":" + url.port + ": " +
                                          error.message());
                        }
                        handshake(url, timeout);
                    });
            });
    }

    void handshake(const WsUrl& url, std::chrono::milliseconds timeout) {
        beast::get_lowest_layer(socket).expires_never();
        websocket::stream_base::timeout limits{};
        limits.handshake_timeout = timeout;
        // A server (or a link) gone silent without a close is noticed within kSilentServer: after
        // half of it without a frame Beast pings, and without an answer by the end the read fails
        // and the session reconnects (a half-open TCP connection would otherwise wait for good).
        limits.idle_timeout = WsClient::kSilentServer;
        limits.keep_alive_pings = true;
        socket.set_option(limits);
        const bool ipv6 = url.host.find(':') != std::string::npos;
        const std::string host_header = (ipv6 ? "[" + url.host + "]" : url.host) + ":" + url.port;
        socket.async_handshake(host_header, url.target, [this](beast::error_code ec) {
            if (ec) {
                return finish("WebSocket handshake failed: " + ec.message());
            }
            {
                std::lock_guard lock(mutex);
                connected = true;
                changed.notify_all();
            }
            read();
        });
    }

    void read() {
        socket.async_read(buffer, [this](beast::error_code ec, std::size_t) {
            if (ec == websocket::error::closed) {
                const auto& reason = socket.reason();
                return finish(
                    "closed by the server (code " + std::to_string(reason.code) +
                        (reason.reason.empty()
                             ? std::string()
                             : ": " + std::string(reason.reason.data(), reason.reason.size())) +
                        ")",
                    static_cast<int>(reason.code));
            }
            if (ec) {
                return finish("connection lost: " + ec.message());
            }
            {
                std::lock_guard lock(mutex);
                inbox.push_back(beast::buffers_to_string(buffer.data()));
                changed.notify_all();
            }
            buffer.consume(buffer.size());
            read();
        });
    }

    void write() {
        writing = true;
        socket.text(true);
        socket.async_write(asio::buffer(outgoing.front()),
                           [this](beast::error_code ec, std::size_t) {
                               if (ec) {
                                   writing = false;
                                   return finish("send failed: " + ec.message());
                               }
                               outgoing.pop_front();
                               if (outgoing.empty()) {
                                   writing = false;
                               } else {
                                   write();
                               }
                           });
    }

    // Ends the io thread: a close handshake first when possible, then a hard stop.
    void shut_down() {
        asio::post(io, [this] {
            if (socket.is_open()) {
                socket.async_close(websocket::close_code::normal, [](beast::error_code) {});
            }
        });
        {
            std::unique_lock lock(mutex);
            changed.wait_for(lock, std::chrono::seconds(2), [this] { return finished; });
        }
        io.stop();
        if (thread.joinable()) {
            thread.join();
        }
    }
};

WsClient::WsClient() = default;

// close() posts to Asio, which throws only when it cannot allocate the handler: a destructor
// can only end the process then.
// NOLINTNEXTLINE(bugprone-exception-escape)
WsClient::~WsClient() {
    close();
}

Expected<void, std::string> WsClient::connect(std::string_view url,
                                              std::chrono::milliseconds timeout) {
    close();
    auto parsed = parse_ws_url(url);
    if (!parsed) {
        return unexpected(parsed.error());
    }
    auto connection = std::make_shared<Connection>();
    connection->start(*parsed, timeout);
    connection->thread = std::thread([raw = connection.get()] { raw->io.run(); });
    bool connected = false;
    std::string failure;
    {
        std::unique_lock lock(connection->mutex);
        connection->changed.wait_for(lock, timeout + std::chrono::seconds(1),
                                     [&] { return connection->connected || connection->finished; });
        connected = connection->connected;
        failure = connection->finished ? connection->outcome : "timed out connecting";
    }
    if (!connected) {
        connection->io.stop();
        connection->thread.join();
        return unexpected(failure);
    }
    connection_ = std::move(connection);
    return {};
}

Expected<void, std::string> WsClient::send(std::string text) {
    auto connection = connection_;
    if (!connection || !is_open()) {
        return unexpected(std::string("not connected"));
    }
    asio::post(connection->io, [raw = connection.get(), text = std::move(text)]() mutable {
        raw->outgoing.push_back(std::move(text));
        if (!raw->writing) {
            raw->write();
        }
    });
    return {};
}

Received WsClient::next_message(std::chrono::milliseconds timeout) {
    if (!connection_) {
        return {ReceiveStatus::closed, "not connected"};
    }
    Connection& connection = *connection_;
    std::unique_lock lock(connection.mutex);
    connection.changed.wait_for(lock, timeout,
                                [&] { return !connection.inbox.empty() || connection.finished; });
    if (!connection.inbox.empty()) {
        Received received{ReceiveStatus::message, std::move(connection.inbox.front())};
        connection.inbox.pop_front();
        return received;
    }
    if (connection.finished) {
        return {ReceiveStatus::closed, connection.outcome, connection.close_code};
    }
    return {ReceiveStatus::timeout, {}};
}

void WsClient::close() {
    if (connection_) {
        connection_->shut_down();
        connection_.reset();
    }
}

bool WsClient::is_open() const {
    if (!connection_) {
        return false;
    }
    std::lock_guard lock(connection_->mutex);
    return connection_->connected;
}

}  // namespace arbiter::client
