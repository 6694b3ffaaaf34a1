// One HTTP/1.1 connection: reads requests with bounded headers, body and time, answers them via
// the HttpHandler (keep-alive), and hands WebSocket upgrades on /ws to a WebSocket session.

#include <atomic>
#include <chrono>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include "server/net/client_address.hpp"
#include "server/net/http_date.hpp"
#include "server/net/origin_check.hpp"
#include "server/net/sessions.hpp"

namespace arbiter::server::net::detail {

namespace {

namespace http = beast::http;

// Requests carry small JSON bodies and short targets; 8 KiB of headers is what nginx allows.
constexpr std::uint32_t kHeaderLimit = 8 * 1024;
// An idle keep-alive buffer above this is released: an idle connection must cost little memory.
constexpr std::size_t kKeepBufferBytes = 4UL * 1024;

bool is_websocket_path(std::string_view target) {
    return target == "/ws" || target.starts_with("/ws?");
}

class HttpSession final : public Connection, public std::enable_shared_from_this<HttpSession> {
  public:
    HttpSession(FrontStream stream, std::shared_ptr<SharedState> state, RemoteInfo remote,
                ConnectionTicket ticket)
        : stream_(std::move(stream)),
          state_(std::move(state)),
          remote_(std::move(remote)),
          ticket_(std::move(ticket)) {}

    void run() {
        state_->track(ticket_->id(), weak_from_this());
        asio::dispatch(stream_.get_executor(), [self = shared_from_this()] {
            if (self->stream_.is_tls()) {
                return self->handshake();
            }
            self->read();
        });
    }

    void shut_down(bool force) override {
        asio::post(stream_.get_executor(), [self = shared_from_this(), force] {
            self->closing_ = true;
            // An idle keep-alive connection closes now; one writing a response closes after it.
            if (force || !self->writing_) {
                self->stream_.next_layer().close();
            }
        });
    }

  private:
    // TLS first: a client that never completes it is closed after handshake_timeout.
    void handshake() {
        stream_.next_layer().expires_after(timeout());
        stream_.tls().async_handshake(asio::ssl::stream_base::server,
                                      [self = shared_from_this()](error_code ec) {
                                          if (!ec && !self->closing_) {
                                              self->read();
                                          }
                                      });
    }

    void read() {
        parser_.emplace();
        parser_->header_limit(kHeaderLimit);
        parser_->body_limit(state_->limits().max_http_body_bytes);
        stream_.next_layer().expires_after(timeout());
        http::async_read(
            stream_, buffer_, *parser_,
            [self = shared_from_this()](error_code ec, std::size_t) { self->on_read(ec); });
    }

    void on_read(error_code ec) {
        if (ec == http::error::end_of_stream || closing_) {
            return close_gracefully();
        }
        if (ec) {
            if (ec == http::error::body_limit) {
                return reply_error(http::status::payload_too_large);
            }
            if (ec == http::error::header_limit) {
                // The request line alone over the limit is a URI too long (RFC 9110 15.5.15);
                // else the header fields are (RFC 6585 5).
                const std::string_view received(static_cast<const char*>(buffer_.data().data()),
                                                buffer_.size());
                return reply_error(received.find("\r\n") == std::string_view::npos
                                       ? http::status::uri_too_long
                                       : http::status::request_header_fields_too_large);
            }
            if (ec != beast::error::timeout && ec != asio::error::operation_aborted &&
                ec != asio::error::connection_reset) {
                // Malformed requests are hostile input, not server faults: answer and close.
                return reply_error(http::status::bad_request);
            }
            return;
        }
        auto request = parser_->release();
        parser_.reset();
        if (buffer_.size() == 0 && buffer_.capacity() > kKeepBufferBytes) {
            buffer_.shrink_to_fit();
        }
        if (ticket_->refused()) {
            return reply_error(http::status::service_unavailable);
        }
        if (!well_framed(request)) {
            return reply_error(http::status::bad_request);
        }
        const auto forwarded_for = field_value(request, beast::string_view("X-Forwarded-For"));
        remote_.client =
            client_address(remote_.address, forwarded_for, state_->policy().trusted_proxies);
        if (beast::websocket::is_upgrade(request)) {
            if (!is_websocket_path(request.target())) {
                return reply_error(http::status::not_found);
            }
            if (!origin_allowed_for(request)) {
                state_->counters.origin_refusals.fetch_add(1);
                return reply_error(http::status::forbidden);
            }
            // The WebSocket session keeps its own timeouts (beast's websocket timeout option).
            stream_.next_layer().expires_never();
            start_websocket_session(std::move(stream_), std::move(request), state_,
                                    std::move(remote_), std::move(*ticket_));
            return;
        }
        // A request that changes state (signing in, signing up, signing out) carries the
        // visitor's cookie to whichever server a page names, as a WebSocket upgrade does: the
        // same Origin rule applies. Only GET, HEAD and OPTIONS change nothing (RFC 9110 9.2.1).
        if (!is_safe_method(request.method()) && !origin_allowed_for(request)) {
            state_->counters.origin_refusals.fetch_add(1);
            return reply_error(http::status::forbidden);
        }
        answer(request);
    }

    static bool is_safe_method(http::verb method) {
        return method == http::verb::get || method == http::verb::head ||
               method == http::verb::options;
    }

    // RFC 9112: an HTTP/1.1 request without Host (3.2), or with a Transfer-Encoding whose last
    // coding is not chunked (6.3: its length cannot be known), is answered 400 and the connection
    // closed; read on, the rest of it would be taken for the next request.
    //
    // Two Host fields are refused too (RFC 9112 3.2: "a server MUST respond with a 400 (Bad
    // Request) ... to any request message that ... contains more than one Host header field"):
    // a proxy and this server could each read another one.
    static bool well_framed(const http::request<http::string_body>& request) {
        const auto hosts = request.count(http::field::host);
        if ((request.version() >= 11 && hosts == 0) || hosts > 1) {
            return false;
        }
        return request.find(http::field::transfer_encoding) == request.end() || request.chunked();
    }

    // Any web page can make its visitor's browser open a WebSocket to any server, with the
    // visitor's cookies and from the visitor's address: the browser says which page in Origin
    // (RFC 6455 10.2), and only pages of this server or of a listed origin are let through.
    // Origin is one value: sent twice, it is refused.
    bool origin_allowed_for(const http::request<http::string_body>& request) const {
        const auto [first, last] = request.equal_range(http::field::origin);
        if (first != last && std::next(first) != last) {
            return false;
        }
        const auto origin =
            first == last ? std::nullopt : std::optional<std::string>(first->value());
        return origin_allowed(origin, request[http::field::host], state_->policy().allowed_origins);
    }

    // An absolute-form target (RFC 9112 3.2.2: "http://host:port/path?query") is served as its
    // path and query; a server must accept it.
    static std::string origin_form(std::string_view target) {
        for (std::string_view scheme : {"http://", "https://"}) {
            if (target.size() > scheme.size() &&
                beast::iequals(target.substr(0, scheme.size()), scheme)) {
                const auto path = target.find_first_of("/?", scheme.size());
                if (path == std::string_view::npos) {
                    return "/";
                }
                return (target[path] == '?' ? "/" : "") + std::string(target.substr(path));
            }
        }
        return std::string(target);
    }

    // RFC 9110 6.6.1: an origin server with a clock dates every response.
    static std::string date_now() {
        return format_http_date(std::chrono::duration_cast<std::chrono::seconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count());
    }

    // A field sent on several lines is one list, the lines joined by commas (RFC 9110 5.3).
    // (`Name`: an http::field, or the text of a field beast does not know, "X-Forwarded-For".)
    void answer(const http::request<http::string_body>& request) {
        HttpRequest plain;
        plain.method = std::string(request.method_string());
        plain.target = origin_form(request.target());
        plain.remote_address = remote_.address;
        plain.loopback = remote_.loopback;
        plain.client = remote_.client;
        plain.body = request.body();
        plain.if_none_match = field_value(request, http::field::if_none_match);
        plain.if_modified_since = field_value(request, http::field::if_modified_since);
        plain.cookie = field_value(request, http::field::cookie);
        plain.authorization = field_value(request, http::field::authorization);
        plain.secure = stream_.is_tls();
        const Framing framing{request.version(), request.keep_alive(),
                              request.method() == http::verb::head};
        writing_ = true;  // from now until the answer is written: a graceful shutdown waits

        // The handler may answer on another thread (a read of stored games): the answer is
        // written on this session's strand, once; no next request is read until it is written.
        auto answered = std::make_shared<std::atomic<bool>>(false);
        auto respond = [self = shared_from_this(), framing, answered](HttpResponse reply) {
            if (answered->exchange(true)) {
                return;
            }
            asio::dispatch(self->stream_.get_executor(),
                           [self, framing, reply = std::move(reply)]() mutable {
                               self->send(std::move(reply), framing);
                           });
        };
        try {
            state_->http().handle(plain, respond);
        } catch (const std::exception& e) {
            // STYLE errors rule 4: an exception never leaves a handler; the client gets a 500.
            state_->counters.handler_errors.fetch_add(1);
            state_->log(std::string("http handler threw: ") + e.what());
            respond(HttpResponse{500, "text/plain; charset=utf-8", "internal error\n", {}});
        } catch (...) {
            state_->counters.handler_errors.fetch_add(1);
            state_->log("http handler threw a non-exception");
            respond(HttpResponse{500, "text/plain; charset=utf-8", "internal error\n", {}});
        }
    }

    /// What the response takes from its request.
    struct Framing {
        unsigned version = 11;
        bool keep_alive = false;
        bool head = false;
    };

    void send(HttpResponse reply, Framing framing) {
        auto& response =
            response_.emplace(static_cast<http::status>(reply.status), framing.version);
        for (const auto& [name, value] : reply.headers) {
            response.set(name, value);
        }
        response.set(http::field::server, "arbiter");
        response.set(http::field::date, date_now());
        if (!reply.content_type.empty()) {
            response.set(http::field::content_type, reply.content_type);
        }
        response.keep_alive(framing.keep_alive && !closing_);
        // A 304 has no content, and a Content-Length there could only be the 200's (RFC 9110
        // 8.6, 15.4.5): neither is sent.
        const bool not_modified = reply.status == 304;
        const auto length = reply.body.size();
        if (!framing.head && !not_modified) {
            response.body() = std::move(reply.body);
        }
        // HEAD: the length the GET would have, and no body (RFC 9110 section 9.3.2).
        if (!not_modified) {
            response.content_length(length);
        }
        write();
    }

    void reply_error(http::status status) {
        auto& response = response_.emplace(status, 11);
        response.set(http::field::server, "arbiter");
        response.set(http::field::date, date_now());
        response.set(http::field::content_type, "text/plain; charset=utf-8");
        response.body() = std::string(http::obsolete_reason(status)) + "\n";
        response.keep_alive(false);
        response.prepare_payload();
        write();
    }

    // A refused connection holds one of few slots: it gets less time than an admitted one.
    std::chrono::steady_clock::duration timeout() const {
        const auto limit = state_->limits().handshake_timeout;
        return ticket_->refused()
                   ? std::min<std::chrono::steady_clock::duration>(limit, std::chrono::seconds(2))
                   : limit;
    }

    void write() {
        writing_ = true;
        stream_.next_layer().expires_after(timeout());
        http::async_write(
            stream_, *response_,
            [self = shared_from_this()](error_code ec, std::size_t) { self->on_write(ec); });
    }

    void on_write(error_code ec) {
        writing_ = false;
        const bool keep_alive = response_->keep_alive();
        response_.reset();
        if (ec) {
            return;
        }
        if (!keep_alive || closing_) {
            return close_gracefully();
        }
        read();
    }

    // Over TLS the response is delimited by Content-Length, so no close_notify exchange is
    // awaited (a peer that never answers it would hold the connection).
    void close_gracefully() {
        error_code ignored;
        stream_.next_layer().socket().shutdown(Socket::shutdown_send, ignored);
        stream_.next_layer().close();
    }

    FrontStream stream_;
    beast::flat_buffer buffer_;
    std::shared_ptr<SharedState> state_;
    RemoteInfo remote_;
    std::optional<ConnectionTicket> ticket_;
    std::optional<http::request_parser<http::string_body>> parser_;
    std::optional<http::response<http::string_body>> response_;
    bool writing_ = false;  // a request is being answered: its answer made or written
    bool closing_ = false;
};

}  // namespace

void start_http_session(Socket socket, asio::ssl::context* tls, std::shared_ptr<SharedState> state,
                        RemoteInfo remote, ConnectionTicket ticket) {
    auto stream =
        tls != nullptr ? FrontStream(std::move(socket), *tls) : FrontStream(std::move(socket));
    std::make_shared<HttpSession>(std::move(stream), std::move(state), std::move(remote),
                                  std::move(ticket))
        ->run();
}

}  // namespace arbiter::server::net::detail
