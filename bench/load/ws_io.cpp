// arbiter-load's only Beast TU: the client connection, the event loop and the bare servers (echo
// and relay). The Asio and Beast bodies come compiled from arbiter_net (asio_impl.cpp, separate
// compilation).
#include "bench/load/ws_io.hpp"

#include <charconv>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket/stream.hpp>

namespace arbiter::bench::load {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

class ClientLink final : public Link, public std::enable_shared_from_this<ClientLink> {
  public:
    ClientLink(asio::io_context& context, LinkHandler handler)
        : ws_(tcp::socket(context)), handler_(std::move(handler)) {}

    void start(const Endpoint& endpoint, const LinkOptions& options) {
        auto& socket = ws_.next_layer();
        error_code ec;
        socket.open(tcp::v4(), ec);
        if (!ec && options.receive_buffer > 0) {
            socket.set_option(asio::socket_base::receive_buffer_size(options.receive_buffer), ec);
        }
        if (!ec && !options.source_address.empty()) {
            // Several 127.0.0.x source addresses lift the server's per-address limit on loopback.
            auto source = asio::ip::make_address_v4(options.source_address, ec);
            if (!ec) {
                socket.bind(tcp::endpoint(source, 0), ec);
            }
        }
        auto address = asio::ip::make_address_v4(endpoint.host, ec);
        if (ec) {
            return finish(0, "connect: " + ec.message());
        }
        host_ = endpoint.host + ":" + std::to_string(endpoint.port);
        path_ = endpoint.path;
        socket.async_connect(
            tcp::endpoint(address, endpoint.port),
            [self = shared_from_this()](error_code error) { self->on_connect(error); });
    }

    void send(std::string text) override {
        if (finished_) {
            return;
        }
        queue_.push_back(std::move(text));
        if (open_ && !writing_) {
            write_next();
        }
    }

    void pause_reading() override { paused_ = true; }

    void resume_reading() override {
        if (paused_ && open_ && !finished_) {
            paused_ = false;
            if (!reading_) {
                read_next();
            }
        }
        paused_ = false;
    }

    void close() override {
        if (!open_ || finished_ || closing_) {
            return;
        }
        closing_ = true;
        ws_.async_close(websocket::close_code::normal, [self = shared_from_this()](error_code) {});
    }

  private:
    void on_connect(error_code ec) {
        if (ec) {
            return finish(0, "connect: " + ec.message());
        }
        ws_.next_layer().set_option(tcp::no_delay(true), ec);
        ws_.async_handshake(host_, path_, [self = shared_from_this()](error_code error) {
            self->on_handshake(error);
        });
    }

    void on_handshake(error_code ec) {
        if (ec) {
            return finish(0, "handshake: " + ec.message());
        }
        open_ = true;
        ws_.text(true);
        if (handler_.on_open) {
            handler_.on_open();
        }
        if (!queue_.empty() && !writing_) {
            write_next();
        }
        if (!paused_) {
            read_next();
        }
    }

    void read_next() {
        reading_ = true;
        ws_.async_read(buffer_, [self = shared_from_this()](error_code ec, std::size_t) {
            self->on_read(ec);
        });
    }

    void on_read(error_code ec) {
        reading_ = false;
        if (finished_) {
            return;  // a write failed meanwhile and the handler is gone
        }
        if (ec) {
            const int code = ec == websocket::error::closed ? ws_.reason().code : 0;
            return finish(code, "read: " + ec.message());
        }
        const auto data = buffer_.cdata();
        handler_.on_message(std::string_view(static_cast<const char*>(data.data()), data.size()));
        buffer_.consume(buffer_.size());
        if (!paused_ && !finished_) {
            read_next();
        }
    }

    void write_next() {
        writing_ = true;
        ws_.async_write(
            asio::buffer(queue_.front()),
            [self = shared_from_this()](error_code ec, std::size_t) { self->on_write(ec); });
    }

    void on_write(error_code ec) {
        if (ec) {
            return finish(0, "write: " + ec.message());
        }
        writing_ = false;
        queue_.pop_front();
        if (!queue_.empty() && !finished_) {
            write_next();
        }
    }

    void finish(int code, std::string what) {
        if (finished_) {
            return;
        }
        finished_ = true;
        open_ = false;
        error_code ignored;
        ws_.next_layer().close(ignored);
        if (handler_.on_close) {
            handler_.on_close(code, std::move(what));
        }
        handler_ = {};
    }

    websocket::stream<tcp::socket> ws_;
    LinkHandler handler_;
    beast::flat_buffer buffer_;
    std::deque<std::string> queue_;
    std::string host_;
    std::string path_;
    bool open_ = false;
    bool paused_ = false;
    bool reading_ = false;
    bool writing_ = false;
    bool closing_ = false;
    bool finished_ = false;
};

// The echo server's session: read one frame, write it back, read the next (one write in flight).
class EchoSession : public std::enable_shared_from_this<EchoSession> {
  public:
    explicit EchoSession(tcp::socket socket) : ws_(std::move(socket)) {}

    void run() {
        error_code ignored;
        ws_.next_layer().set_option(tcp::no_delay(true), ignored);
        ws_.async_accept([self = shared_from_this()](error_code ec) {
            if (!ec) {
                self->read();
            }
        });
    }

  private:
    void read() {
        ws_.async_read(buffer_, [self = shared_from_this()](error_code ec, std::size_t) {
            if (ec) {
                return;
            }
            self->ws_.text(self->ws_.got_text());
            self->ws_.async_write(self->buffer_.data(), [self](error_code error, std::size_t) {
                if (error) {
                    return;
                }
                self->buffer_.consume(self->buffer_.size());
                self->read();
            });
        });
    }

    websocket::stream<tcp::socket> ws_;
    beast::flat_buffer buffer_;
};

class RelaySession;

// Relay sessions waiting for their partner, by pair number.
class RelayPairs {
  public:
    /// The partner, when it named the pair first; otherwise `session` waits for it.
    std::shared_ptr<RelaySession> meet(std::uint64_t pair,
                                       const std::shared_ptr<RelaySession>& session) {
        const std::lock_guard lock(mutex_);
        auto [waiting, inserted] = waiting_.try_emplace(pair, session);
        if (inserted) {
            return nullptr;
        }
        auto partner = waiting->second.lock();
        if (!partner) {
            waiting->second = session;  // the first one left: this one waits instead
            return nullptr;
        }
        waiting_.erase(waiting);
        return partner;
    }

  private:
    std::mutex mutex_;
    std::unordered_map<std::uint64_t, std::weak_ptr<RelaySession>> waiting_;
};

// The relay server's session: its first frame names its pair; every later frame goes back to it
// and to its partner, whose session may run on the other thread (a post to its strand, as a
// game server's room reaches its players). Reads go on while frames wait to be written.
class RelaySession : public std::enable_shared_from_this<RelaySession> {
  public:
    RelaySession(tcp::socket socket, RelayPairs& pairs) : ws_(std::move(socket)), pairs_(pairs) {}

    void run() {
        error_code ignored;
        ws_.next_layer().set_option(tcp::no_delay(true), ignored);
        ws_.async_accept([self = shared_from_this()](error_code ec) {
            if (!ec) {
                self->ws_.text(true);
                self->read();
            }
        });
    }

    /// Queues a frame for this session's client; on its strand. Its own client keeps at most
    /// two frames in flight; a client that sends without reading is closed at the bound.
    void deliver(std::shared_ptr<const std::string> frame) {
        if (queue_.size() >= kMaxQueued) {
            error_code ignored;
            ws_.next_layer().close(ignored);
            return;
        }
        queue_.push_back(std::move(frame));
        if (!writing_) {
            write_next();
        }
    }

    /// The partner has named the pair too; on this session's strand.
    void pair_with(const std::shared_ptr<RelaySession>& partner, std::uint64_t pair) {
        partner_ = partner;
        deliver(std::make_shared<const std::string>(R"({"paired":)" + std::to_string(pair) + "}"));
    }

    /// Runs `task` on this session's strand.
    template <typename Task>
    void post(Task task) {
        asio::post(ws_.get_executor(), std::move(task));
    }

  private:
    void read() {
        ws_.async_read(buffer_, [self = shared_from_this()](error_code ec, std::size_t) {
            if (!ec) {
                self->on_frame();
            }
        });
    }

    void on_frame() {
        const auto data = buffer_.cdata();
        const std::string_view text(static_cast<const char*>(data.data()), data.size());
        if (!named_) {
            named_ = true;
            name_pair(text);
        } else {
            auto frame = std::make_shared<const std::string>(text);
            deliver(frame);
            if (auto partner = partner_.lock()) {
                partner->post([partner, frame = std::move(frame)] { partner->deliver(frame); });
            }
        }
        buffer_.consume(buffer_.size());
        read();
    }

    // `{"pair":N}`: the number after the colon.
    void name_pair(std::string_view text) {
        const auto colon = text.find(':');
        std::uint64_t pair = 0;
        if (colon == std::string_view::npos ||
            std::from_chars(text.data() + colon + 1, text.data() + text.size(), pair).ec !=
                std::errc()) {
            return;  // not a relay client: its frames go back to it alone
        }
        auto self = shared_from_this();
        if (auto partner = pairs_.meet(pair, self)) {
            partner->post([partner, self, pair] { partner->pair_with(self, pair); });
            pair_with(partner, pair);
        }
    }

    void write_next() {
        writing_ = true;
        ws_.async_write(asio::buffer(*queue_.front()),
                        [self = shared_from_this()](error_code ec, std::size_t) {
                            self->writing_ = false;
                            self->queue_.pop_front();
                            if (!ec && !self->queue_.empty()) {
                                self->write_next();
                            }
                        });
    }

    static constexpr std::size_t kMaxQueued = 64;

    websocket::stream<tcp::socket> ws_;  // its executor is the session's strand
    RelayPairs& pairs_;
    beast::flat_buffer buffer_;
    std::deque<std::shared_ptr<const std::string>> queue_;
    std::weak_ptr<RelaySession> partner_;
    bool named_ = false;
    bool writing_ = false;
};

void accept_next(asio::io_context& context, tcp::acceptor& acceptor, RelayPairs* pairs) {
    acceptor.async_accept(asio::make_strand(context),
                          [&context, &acceptor, pairs](error_code ec, tcp::socket socket) {
                              if (!ec && pairs != nullptr) {
                                  std::make_shared<RelaySession>(std::move(socket), *pairs)->run();
                              } else if (!ec) {
                                  std::make_shared<EchoSession>(std::move(socket))->run();
                              }
                              accept_next(context, acceptor, pairs);
                          });
}

}  // namespace

struct EventLoop::Impl {
    asio::io_context context{1};
    asio::executor_work_guard<asio::io_context::executor_type> work{context.get_executor()};
    std::thread thread;
};

EventLoop::EventLoop() : impl_(std::make_unique<Impl>()) {}

EventLoop::~EventLoop() {
    stop();
}

std::shared_ptr<Link> EventLoop::connect(const Endpoint& endpoint, const LinkOptions& options,
                                         LinkHandler handler) {
    auto link = std::make_shared<ClientLink>(impl_->context, std::move(handler));
    asio::post(impl_->context, [link, endpoint, options] { link->start(endpoint, options); });
    return link;
}

void EventLoop::after(std::chrono::microseconds delay, std::function<void()> task) {
    if (delay.count() <= 0) {
        asio::post(impl_->context, std::move(task));
        return;
    }
    auto timer = std::make_shared<asio::steady_timer>(impl_->context, delay);
    timer->async_wait([timer, task = std::move(task)](error_code ec) {
        if (!ec) {
            task();
        }
    });
}

void EventLoop::start() {
    impl_->thread = std::thread([this] { impl_->context.run(); });
}

void EventLoop::stop() {
    if (!impl_) {
        return;
    }
    impl_->work.reset();
    impl_->context.stop();
    if (impl_->thread.joinable()) {
        impl_->thread.join();
    }
}

void run_bare_server(const std::string& address, std::uint16_t port, unsigned threads,
                     BareMode mode, const std::function<void(std::uint16_t)>& on_listening) {
    asio::io_context context{static_cast<int>(threads)};
    tcp::acceptor acceptor(context);
    const tcp::endpoint endpoint(asio::ip::make_address(address), port);
    acceptor.open(endpoint.protocol());
    acceptor.set_option(asio::socket_base::reuse_address(true));
    acceptor.bind(endpoint);
    acceptor.listen(asio::socket_base::max_listen_connections);
    on_listening(acceptor.local_endpoint().port());
    RelayPairs pairs;
    accept_next(context, acceptor, mode == BareMode::relay ? &pairs : nullptr);
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < threads; ++i) {
        pool.emplace_back([&context] { context.run(); });
    }
    context.run();
    for (auto& thread : pool) {
        thread.join();
    }
}

}  // namespace arbiter::bench::load
