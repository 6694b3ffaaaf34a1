// One WebSocket connection: the only TU that instantiates websocket::stream. Text frames only,
// one write in flight, an outgoing queue bounded by count and bytes (STYLE: chat-multi's unbounded
// queue is what we leave), and PeerHandler calls on the connection's strand in order. The server's
// own pings (liveness.hpp) measure the round trip and drop a connection that falls silent.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/defer.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket/stream.hpp>

#include "server/net/liveness.hpp"
#include "server/net/sessions.hpp"
#include "server/net/token_bucket.hpp"

namespace arbiter::server::net::detail {

namespace {

namespace http = beast::http;
namespace websocket = beast::websocket;
using Clock = std::chrono::steady_clock;

// A read buffer above this is released after each message, so an idle connection holds none
// (the budget is 16 KB of server memory per idle connection, NetMemory).
constexpr std::size_t kKeepBufferBytes = 1024;
/// How much of a refused message (over the size limit, or binary) one read takes and drops.
constexpr std::size_t kDiscardChunkBytes = std::size_t{16} * 1024;

class WebsocketSession;

// The Peer the game logic holds. It only points at the session, so the socket and its buffers
// go away when the connection ends even if the game logic keeps the Peer a little longer.
// What the session learns of the link is kept here in atomics: the game logic reads it from
// its rooms' strands while the session's strand writes it.
class PeerHandle final : public Peer {
  public:
    PeerHandle(std::uint64_t id, std::string address, ClientAddress client,
               std::optional<std::string> cookie, std::weak_ptr<WebsocketSession> session,
               std::chrono::milliseconds unresponsive_after)
        : id_(id),
          address_(std::move(address)),
          client_(std::move(client)),
          cookie_(std::move(cookie)),
          session_(std::move(session)),
          unresponsive_after_(unresponsive_after),
          last_heard_(Clock::now().time_since_epoch().count()) {}
    std::uint64_t id() const noexcept override { return id_; }
    const std::string& address() const noexcept override { return address_; }
    const ClientAddress& client() const noexcept override { return client_; }
    const std::optional<std::string>& upgrade_cookie() const noexcept override { return cookie_; }
    std::optional<std::chrono::milliseconds> round_trip() const noexcept override {
        const auto micros = round_trip_us_.load(std::memory_order_relaxed);
        if (micros < 0) {
            return std::nullopt;
        }
        return std::chrono::round<std::chrono::milliseconds>(std::chrono::microseconds(micros));
    }
    bool responsive() const noexcept override {
        const Clock::time_point heard{Clock::duration(last_heard_.load(std::memory_order_relaxed))};
        return Clock::now() - heard <= unresponsive_after_;
    }
    bool send(std::shared_ptr<const std::string> text) override;
    void close(CloseCode code, std::string_view reason) override;
    void set_player(bool player) noexcept override {
        player_.store(player, std::memory_order_relaxed);
    }
    bool player() const noexcept { return player_.load(std::memory_order_relaxed); }

    // On the session's strand.
    void note_heard(Clock::time_point at) noexcept {
        last_heard_.store(at.time_since_epoch().count(), std::memory_order_relaxed);
    }
    void note_round_trip(std::optional<std::chrono::microseconds> round_trip) noexcept {
        round_trip_us_.store(round_trip ? round_trip->count() : -1, std::memory_order_relaxed);
    }

  private:
    const std::uint64_t id_;
    const std::string address_;
    const ClientAddress client_;
    const std::optional<std::string> cookie_;
    const std::weak_ptr<WebsocketSession> session_;
    const std::chrono::milliseconds unresponsive_after_;
    std::atomic<Clock::rep> last_heard_;           ///< steady_clock ticks
    std::atomic<std::int64_t> round_trip_us_{-1};  ///< -1: none measured yet
    std::atomic<bool> player_{false};              ///< holds a seat (set by the game logic)
};

class WebsocketSession final : public Connection,
                               public std::enable_shared_from_this<WebsocketSession> {
  public:
    WebsocketSession(FrontStream stream, std::shared_ptr<SharedState> state, RemoteInfo remote,
                     ConnectionTicket ticket)
        : ws_(std::move(stream)),
          state_(std::move(state)),
          remote_(std::move(remote)),
          ticket_(std::move(ticket)),
          liveness_timer_(ws_.get_executor()),
          pings_(state_->limits().max_pings_per_second,
                 state_->limits().max_pings_per_second * NetLimits::kPingBurstSeconds,
                 std::chrono::steady_clock::now()) {}

    ~WebsocketSession() override {
        // The io_context was stopped before this connection finished (stop()'s grace period
        // ran out): on_close is still owed exactly once.
        if (opened_) {
            notify_close();
        }
    }

    void run(http::request<http::string_body> request) {
        // The peer first: a memory shed on another thread reads it (queue_use) once tracked.
        peer_ = std::make_shared<PeerHandle>(ticket_->id(), remote_.address, remote_.client,
                                             field_value(request, http::field::cookie),
                                             weak_from_this(),
                                             Liveness::unresponsive_after(liveness_times()));
        state_->track(ticket_->id(), weak_from_this());
        auto timeouts = websocket::stream_base::timeout::suggested(beast::role_type::server);
        timeouts.handshake_timeout = state_->limits().handshake_timeout;
        // The session's own pings replace beast's keep-alive: beast's have an empty payload, so
        // their pongs measure nothing, and it pings only after half the idle timeout of silence.
        timeouts.idle_timeout = websocket::stream_base::none();
        timeouts.keep_alive_pings = false;
        ws_.set_option(timeouts);
        // Called only within a read, which holds the session: `this` outlives every call. One
        // callback for both uses: pongs measure the round trip, and a client's pings (beast
        // answers each with a pong on its own) are held to a rate.
        ws_.control_callback([this](websocket::frame_type kind, beast::string_view payload) {
            on_control(kind, std::string_view(payload.data(), payload.size()));
        });
        ws_.set_option(websocket::stream_base::decorator([](websocket::response_type& response) {
            response.set(http::field::server, "arbiter");
        }));
        // permessage-deflate stays off (the default): its zlib state costs ~100 KB a connection.
        // No limit of beast's own: read() holds messages to max_frame_bytes itself.
        ws_.read_message_max(0);
        if (const auto bytes = state_->limits().socket_send_buffer_bytes; bytes > 0) {
            error_code ignored;  // the kernel's default buffer is a fine fallback
            beast::get_lowest_layer(ws_).socket().set_option(
                asio::socket_base::send_buffer_size(static_cast<int>(bytes)), ignored);
        }
        ws_.auto_fragment(false);
        ws_.text(true);
        // The handler owns the upgrade request: beast reads it while it builds the 101 response.
        auto shared_request =
            std::make_shared<http::request<http::string_body>>(std::move(request));
        asio::dispatch(ws_.get_executor(), [self = shared_from_this(), shared_request] {
            self->ws_.async_accept(*shared_request,
                                   [self, shared_request](error_code ec) { self->on_accept(ec); });
        });
    }

    // Any thread. The counters cover frames posted but not yet on the strand too, so the
    // bound holds for everything this connection keeps in memory.
    bool send(std::shared_ptr<const std::string> text) {
        if (!text) {
            return false;
        }
        if (closing_.load()) {
            state_->counters.dropped_frames.fetch_add(1);
            return false;
        }
        const auto& limits = state_->limits();
        const auto size = text->size();
        const auto messages = queued_messages_.fetch_add(1) + 1;
        const auto bytes = queued_bytes_.fetch_add(size) + size;
        const bool over_budget = state_->queued(size);
        if (closes_over_budget(over_budget, bytes, peer_->player())) {
            unqueue(size);
            state_->counters.dropped_frames.fetch_add(1);
            shed();
            return false;
        }
        if (messages > limits.max_queue_messages || bytes > limits.max_queue_bytes) {
            unqueue(size);
            state_->counters.dropped_frames.fetch_add(1);
            if (!closing_.exchange(true)) {
                state_->counters.slow_consumer_closes.fetch_add(1);
                asio::post(ws_.get_executor(), [self = shared_from_this()] {
                    self->drop_queue();
                    self->start_close({websocket::close_code::try_again_later, "slow consumer"});
                    // The game logic lets go of it now rather than when the close handshake
                    // ends: a reader that stopped reading takes the whole close deadline, and
                    // every room it watched would go on sending it frames that are dropped
                    // (1,000 stalled spectators of 10 games each: ~700,000 sends a second).
                    // It gets no message after this: a close is requested, so reads only wait
                    // for the peer's close frame.
                    if (self->opened_) {
                        self->notify_close();
                    }
                });
            }
            return false;
        }
        state_->note_queue_bytes(bytes);
        // One strand post per burst, and none while a write is in flight: the write's completion
        // takes the inbox. A reader that stopped reading thus costs an append per frame until
        // the bound closes it, not a post and a wake-up of a network thread per frame (1,000
        // stalled spectators of busy games: ~750,000 frames/s before they are closed).
        bool post = false;
        {
            std::lock_guard lock(inbox_mutex_);
            inbox_.push_back(std::move(text));
            post = !inbox_watched_;
            inbox_watched_ = true;
        }
        if (post) {
            // defer: a frame sent from a network thread (a room's broadcast) is written by that
            // thread after the current handler, without waking the other one for it.
            asio::defer(ws_.get_executor(), [self = shared_from_this()] { self->on_inbox(); });
        }
        return true;
    }

    // Any thread: the close frame goes after the frames already queued.
    void close(CloseCode code, std::string_view reason) {
        if (closing_.exchange(true)) {
            return;
        }
        // RFC 6455 section 5.5: a control frame's payload is at most 125 bytes (2 for the code).
        websocket::close_reason close_reason(static_cast<std::uint16_t>(code));
        close_reason.reason = std::string(reason.substr(0, 123));
        asio::post(ws_.get_executor(), [self = shared_from_this(), close_reason] {
            self->close_after_queue(close_reason);
        });
    }

    void shut_down(bool force) override {
        if (!force) {
            return close(CloseCode::going_away, "server shutting down");
        }
        closing_.store(true);
        asio::post(ws_.get_executor(), [self = shared_from_this()] { self->close_socket(); });
    }

    std::optional<QueueHolder> queue_use() const noexcept override {
        return QueueHolder{peer_->id(), queued_bytes_.load(), peer_->player(), closing_.load()};
    }

    // Any thread: the outgoing memory budget is exceeded and this connection is among those
    // holding the most. Like a slow consumer: the queue goes at once, and the game logic lets go
    // of it now rather than when the close handshake ends.
    void shed() override {
        if (closing_.exchange(true)) {
            return;
        }
        state_->counters.memory_sheds.fetch_add(1);
        asio::post(ws_.get_executor(), [self = shared_from_this()] {
            self->drop_queue();
            self->start_close({websocket::close_code::try_again_later, "server memory budget"});
            if (self->opened_) {
                self->notify_close();
            }
        });
    }

  private:
    void on_accept(error_code ec) {
        if (ec) {
            return;  // a failed handshake: no on_open, so no on_close
        }
        opened_ = true;
        const auto now = Clock::now();
        liveness_.emplace(liveness_times(), now);
        peer_->note_heard(now);
        guarded("on_open", [&] { state_->peers().on_open(peer_); });
        read();
        arm_liveness(liveness_->tick(now, false).wake);
    }

    LivenessTimes liveness_times() const {
        return {state_->limits().ping_interval, state_->limits().idle_timeout};
    }

    void heard(Clock::time_point now) {
        if (liveness_) {
            liveness_->heard(now);
            peer_->note_heard(now);
        }
    }

    // A ping, a pong or a close frame from the peer, on the strand, during a read.
    void on_control(websocket::frame_type kind, std::string_view payload) {
        const auto now = Clock::now();
        if (kind == websocket::frame_type::ping) {
            on_ping();
        }
        if (kind == websocket::frame_type::pong && liveness_) {
            liveness_->pong(payload, now);
            peer_->note_round_trip(liveness_->round_trip());
        }
        heard(now);
    }

    void arm_liveness(Clock::time_point at) {
        liveness_timer_.expires_at(at);
        liveness_timer_.async_wait([self = shared_from_this()](error_code ec) {
            if (!ec) {
                self->on_liveness_timer();
            }
        });
    }

    // Pings when one is due; drops the connection once it has been silent for the idle timeout.
    void on_liveness_timer() {
        if (finished_ || close_requested_) {
            return;  // closing: the close deadline bounds it now
        }
        auto tick = liveness_->tick(Clock::now(), !ping_in_flight_);
        if (tick.gone) {
            // A peer that answers nothing is gone (its link dropped without a FIN, or it stopped
            // reading): no close handshake to wait for, and a reset so that the kernel does not
            // keep retransmitting the frames queued for it. The read ends, and on_close tells
            // the game logic now rather than when TCP gives up, minutes later.
            state_->counters.idle_closes.fetch_add(1);
            closing_.store(true);
            drop_queue();
            return reset_socket();
        }
        if (tick.ping) {
            // Beast lets a ping go while a write is in flight (it waits for that frame); one
            // ping of ours at a time, so a ping due while the last is still being written is
            // skipped.
            ping_in_flight_ = true;
            ws_.async_ping(websocket::ping_data(tick.ping->c_str()),
                           [self = shared_from_this()](error_code) {
                               self->ping_in_flight_ = false;  // a failure: the read sees it
                           });
        }
        arm_liveness(tick.wake);
    }

    // A message is read a piece at a time, never more than one byte past the size limit, so
    // that one over it is answered `too_large` before the close 1009 (protocol.md, Limits):
    // beast's own limit (read_message_max) fails the connection at once, with no room for the
    // error.
    void read() {
        const std::size_t limit = state_->limits().max_frame_bytes;
        const std::size_t room =
            discarding_ || buffer_.size() > limit ? kDiscardChunkBytes : limit + 1 - buffer_.size();
        ws_.async_read_some(buffer_, room, [self = shared_from_this()](error_code ec, std::size_t) {
            self->on_read(ec);
        });
    }

    void on_read(error_code ec) {
        if (ec) {
            return finish();
        }
        heard(Clock::now());
        if (discarding_) {
            // The rest of a refused message, or frames after a close: read only to reach the
            // peer's close frame.
        } else if (!ws_.got_text()) {
            // The protocol is UTF-8 JSON text (protocol.md): binary data is refused with 1003.
            discarding_ = true;
            state_->counters.binary_closes.fetch_add(1);
            closing_.store(true);
            drop_queue();
            start_close({websocket::close_code::unknown_data, "text frames only"});
        } else if (buffer_.size() > state_->limits().max_frame_bytes) {
            discarding_ = true;
            if (!close_requested_) {
                // The error first, then the close frame after it (close() waits for the queue).
                state_->counters.too_large_closes.fetch_add(1);
                guarded("on_too_large", [&] { state_->peers().on_too_large(peer_); });
                close(CloseCode::too_big, "message too big");
            }
        } else if (!ws_.is_message_done()) {
            return read();  // the rest of this message
        } else if (!close_requested_) {
            const std::string_view text(static_cast<const char*>(buffer_.data().data()),
                                        buffer_.size());
            guarded("on_message", [&] { state_->peers().on_message(peer_, text); });
        }
        // After a close is requested, frames are read only to reach the peer's close frame.
        buffer_.consume(buffer_.size());
        if (buffer_.capacity() > kKeepBufferBytes) {
            buffer_.shrink_to_fit();
        }
        read();
    }

    // On the strand, inside beast's read operation: the close is posted, not started from
    // within it.
    void on_ping() {
        if (ping_flooded_ || close_requested_ || pings_.take(std::chrono::steady_clock::now())) {
            return;
        }
        ping_flooded_ = true;
        state_->counters.ping_flood_closes.fetch_add(1);
        closing_.store(true);
        asio::post(ws_.get_executor(), [self = shared_from_this()] {
            self->drop_queue();
            self->start_close({websocket::close_code::policy_error, "ping flood"});
        });
    }

    void on_inbox() {
        if (!writing_) {
            write_next();
        }
    }

    // Moves what send() left in the inbox to the queue; false when it was empty, and then the
    // strand stops watching it (the next send() posts again). On the strand.
    bool take_inbox() {
        std::lock_guard lock(inbox_mutex_);
        if (inbox_.empty()) {
            inbox_watched_ = false;
            return false;
        }
        if (finished_ || close_started_) {
            for (const auto& text : inbox_) {
                unqueue(text->size());
            }
            inbox_.clear();
            return false;
        }
        if (queue_head_ == queue_.size()) {
            // The usual case: the queue is drained, so the two vectors trade storage and no
            // frame allocates (a healthy connection takes one frame at a time).
            queue_.clear();
            queue_head_ = 0;
            queue_.swap(inbox_);
            if (inbox_.capacity() > 16) {
                inbox_.shrink_to_fit();  // after a burst, an idle connection keeps no buffer
            }
        } else {
            queue_.insert(queue_.end(), std::make_move_iterator(inbox_.begin()),
                          std::make_move_iterator(inbox_.end()));
            inbox_.clear();
        }
        return true;
    }

    void write_next() {
        if (queue_head_ == queue_.size() && !take_inbox()) {
            queue_.clear();
            queue_head_ = 0;
            if (queue_.capacity() > 16) {
                queue_.shrink_to_fit();
            }
            if (close_requested_) {
                start_close(pending_close_);
            }
            return;
        }
        writing_ = true;
        const auto& text = *queue_[queue_head_];
        ws_.async_write(
            asio::buffer(text.data(), text.size()),
            [self = shared_from_this()](error_code ec, std::size_t) { self->on_write(ec); });
    }

    void on_write(error_code ec) {
        writing_ = false;
        unqueue(queue_[queue_head_]->size());
        queue_[queue_head_].reset();
        ++queue_head_;
        if (ec) {
            return drop_queue();  // the read side sees the same failure and finishes
        }
        write_next();
    }

    void close_after_queue(const websocket::close_reason& reason) {
        if (close_requested_ || finished_) {
            return;
        }
        close_requested_ = true;
        pending_close_ = reason;
        arm_close_deadline();
        if (!writing_ && queue_head_ == queue_.size()) {
            start_close(reason);
        }
    }

    // Sends the close frame now (beast waits for the write in flight, if any).
    void start_close(const websocket::close_reason& reason) {
        close_requested_ = true;
        if (close_started_ || finished_) {
            return;
        }
        if (!opened_) {
            return close_socket();  // still in the handshake: there is no close frame to send
        }
        close_started_ = true;
        arm_close_deadline();
        ws_.async_close(reason, [self = shared_from_this()](error_code ec) {
            if (ec) {
                self->close_socket();
            }
        });
    }

    void arm_close_deadline() {
        if (close_deadline_) {
            return;
        }
        close_deadline_ = std::make_unique<asio::steady_timer>(ws_.get_executor());
        close_deadline_->expires_after(state_->limits().close_timeout);
        close_deadline_->async_wait([self = shared_from_this()](error_code ec) {
            if (!ec) {
                self->reset_socket();
            }
        });
    }

    // Ends every pending operation with operation_aborted; the read handler then finishes.
    void close_socket() { beast::get_lowest_layer(ws_).close(); }

    // The close handshake did not finish: close with a reset (SO_LINGER 0), as nginx's
    // reset_timedout_connection does. A gentle close of a socket whose peer stopped reading
    // leaves the kernel holding the unsent frames (~94 KB each) in FIN-WAIT-1 until its
    // zero-window probes give up, minutes later, and the peer is never told: 1-15 of 1,000
    // stalled spectators under load were still established on their side after the server let
    // go (bench/load/README.md).
    void reset_socket() {
        error_code ignored;
        beast::get_lowest_layer(ws_).socket().set_option(asio::socket_base::linger(true, 0),
                                                         ignored);
        close_socket();
    }

    void drop_queue() {
        take_inbox();
        // The frame in flight (if any) stays: beast still reads its buffer.
        const auto keep = writing_ ? queue_head_ + 1 : queue_head_;
        for (auto i = keep; i < queue_.size(); ++i) {
            unqueue(queue_[i]->size());
        }
        if (queue_.size() > keep) {
            state_->counters.dropped_frames.fetch_add(queue_.size() - keep);
        }
        queue_.resize(keep);
    }

    void unqueue(std::size_t bytes) noexcept {
        queued_messages_.fetch_sub(1);
        queued_bytes_.fetch_sub(bytes);
        state_->unqueued(bytes);
    }

    void finish() {
        if (finished_) {
            return;
        }
        finished_ = true;
        closing_.store(true);
        drop_queue();
        if (close_deadline_) {
            close_deadline_->cancel();
        }
        liveness_timer_.cancel();
        ticket_.reset();  // the slot is free from on_close on, even while a stuck write drains
        notify_close();
    }

    // on_close, once: when the connection ends, or earlier when it is closed as a slow consumer.
    void notify_close() {
        if (close_notified_) {
            return;
        }
        close_notified_ = true;
        try {
            state_->peers().on_close(peer_);
        } catch (const std::exception& e) {
            state_->counters.handler_errors.fetch_add(1);
            state_->log(std::string("on_close threw: ") + e.what());
        } catch (...) {
            state_->counters.handler_errors.fetch_add(1);
            state_->log("on_close threw a non-exception");
        }
    }

    // STYLE errors rule 4: one try/catch at the dispatch boundary; a handler bug closes 1011.
    template <class Call>
    void guarded(const char* what, Call&& call) {
        try {
            call();
            return;
        } catch (const std::exception& e) {
            state_->log(std::string(what) + " threw: " + e.what());
        } catch (...) {
            state_->log(std::string(what) + " threw a non-exception");
        }
        state_->counters.handler_errors.fetch_add(1);
        closing_.store(true);
        drop_queue();
        start_close({websocket::close_code::internal_error, "internal error"});
    }

    websocket::stream<FrontStream> ws_;
    beast::flat_buffer buffer_;
    std::shared_ptr<SharedState> state_;
    RemoteInfo remote_;
    std::optional<ConnectionTicket> ticket_;
    std::shared_ptr<PeerHandle> peer_;
    std::vector<std::shared_ptr<const std::string>> queue_;  // [queue_head_] is in flight
    std::mutex inbox_mutex_;
    std::vector<std::shared_ptr<const std::string>> inbox_;  // sent, not yet in queue_
    bool inbox_watched_ = false;  // under inbox_mutex_: an on_inbox or a write will take it
    std::size_t queue_head_ = 0;
    std::unique_ptr<asio::steady_timer> close_deadline_;  // only while closing: idle costs none
    asio::steady_timer liveness_timer_;                   // pings, and the silence deadline
    std::optional<Liveness> liveness_;                    // from the handshake on
    websocket::close_reason pending_close_;
    TokenBucket pings_;  ///< the client's ping frames (NetLimits::max_pings_per_second)
    std::atomic<std::size_t> queued_messages_{0};
    std::atomic<std::size_t> queued_bytes_{0};
    std::atomic<bool> closing_{false};  // no more frames accepted
    bool opened_ = false;
    bool writing_ = false;
    bool ping_in_flight_ = false;
    bool close_requested_ = false;
    bool close_started_ = false;
    bool finished_ = false;
    bool close_notified_ = false;  ///< on_close was called
    bool discarding_ = false;      ///< a message was refused: the rest is read and dropped
    bool ping_flooded_ = false;    ///< pings over the rate: a close is on its way
};

bool PeerHandle::send(std::shared_ptr<const std::string> text) {
    auto session = session_.lock();
    return session && session->send(std::move(text));
}

void PeerHandle::close(CloseCode code, std::string_view reason) {
    if (auto session = session_.lock()) {
        session->close(code, reason);
    }
}

}  // namespace

void start_websocket_session(FrontStream stream, http::request<http::string_body> request,
                             std::shared_ptr<SharedState> state, RemoteInfo remote,
                             ConnectionTicket ticket) {
    std::make_shared<WebsocketSession>(std::move(stream), std::move(state), std::move(remote),
                                       std::move(ticket))
        ->run(std::move(request));
}

}  // namespace arbiter::server::net::detail
