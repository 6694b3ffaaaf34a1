// Network: the io_contexts (one per thread), the listener, signals, and the drain on stop()
// (Seastar's gate idea: stop taking work, let what is in flight finish for a bounded time, then
// end).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <openssl/ssl.h>
#include <pthread.h>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "server/net/asio.hpp"
#include "server/net/listener.hpp"
#include "server/net/server.hpp"
#include "server/net/shared_state.hpp"
#include "server/net/strand_executor.hpp"

namespace arbiter::server::net {

namespace {

using namespace detail;
using Clock = std::chrono::steady_clock;

// Queued frames get at most this long to flush on shutdown, so that a stop never waits for a
// reader that stopped reading.
constexpr std::chrono::milliseconds kGracePeriod{2000};
// After the forced close, pending handlers (and on_close calls) get this long to run.
constexpr std::chrono::milliseconds kForcedCloseWait{500};
constexpr std::chrono::milliseconds kDrainPoll{10};
// A memory shed scans every connection: at most this often, so that a total hovering at the
// budget's mark costs a few scans a second, not one per frame.
constexpr std::chrono::milliseconds kShedInterval{200};

// A certificate or key that does not load is a start-up failure with the file named, never a
// server that accepts connections it cannot serve.
std::unique_ptr<asio::ssl::context> make_tls_context(const NetConfig& config) {
    if (config.tls_cert_file.empty() && config.tls_key_file.empty()) {
        return nullptr;
    }
    if (config.tls_cert_file.empty() || config.tls_key_file.empty()) {
        throw std::runtime_error("TLS needs both a certificate and a key");
    }
    auto context = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
    // TLS 1.2 is the oldest version still considered safe (RFC 8996 deprecates 1.0 and 1.1).
    context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                         asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                         asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use);
    error_code ec;
    if (context->use_certificate_chain_file(config.tls_cert_file, ec); ec) {
        throw std::runtime_error("cannot load TLS certificate " + config.tls_cert_file + ": " +
                                 ec.message());
    }
    if (context->use_private_key_file(config.tls_key_file, asio::ssl::context::pem, ec); ec) {
        throw std::runtime_error("cannot load TLS key " + config.tls_key_file + ": " +
                                 ec.message());
    }
    if (SSL_CTX_check_private_key(context->native_handle()) != 1) {
        throw std::runtime_error("TLS key " + config.tls_key_file + " does not match certificate " +
                                 config.tls_cert_file);
    }
    return context;
}

}  // namespace

struct Network::Impl {
    Impl(NetConfig config_in, std::shared_ptr<PeerHandler> peers, std::shared_ptr<HttpHandler> http)
        : config(std::move(config_in)),
          contexts(make_contexts(config.threads)),
          state(std::make_shared<SharedState>(
              config.limits, RequestPolicy{config.trusted_proxies, config.allowed_origins},
              std::move(peers), std::move(http), config.log)),
          control(asio::make_strand(*contexts.front())),
          drain_timer(control),
          shed_timer(control),
          tls(make_tls_context(config)) {
        state->on_over_budget([this] { asio::post(control, [this] { schedule_shed(); }); });
        listener = std::make_shared<Listener>(
            *contexts.front(), [this]() -> asio::io_context& { return next_context(); },
            config.bind_address, config.port, tls.get(), state);
        listener->start();
        // From now on, not from run(): SIGTERM sent as soon as the server says it listens (or
        // while it restores its games) is queued for run() to handle as a clean shutdown, where
        // the default action killed the process. SIGHUP too: the terminal that ran the server
        // closed (`make run` in an SSH session that dropped) stops it as cleanly.
        signals.emplace(control, SIGINT, SIGTERM, SIGHUP);
    }

    // Concurrency hint 1: each io_context has one thread, so work it queues for itself goes on
    // that thread's private queue and never wakes another.
    static std::vector<std::unique_ptr<asio::io_context>> make_contexts(unsigned threads) {
        std::vector<std::unique_ptr<asio::io_context>> made;
        for (unsigned i = 0; i < std::max(threads, 1U); ++i) {
            made.push_back(std::make_unique<asio::io_context>(1));
        }
        return made;
    }

    // The io_contexts in turn, for each new connection and strand (any thread).
    asio::io_context& next_context() {
        return *contexts[turn.fetch_add(1, std::memory_order_relaxed) % contexts.size()];
    }

    void stop_contexts() {
        for (auto& context : contexts) {
            context->stop();
        }
    }

    // On `control`. Graceful first: sessions close with going_away after their queued frames.
    void begin_drain() {
        listener->stop();
        if (signals) {
            error_code ignored;
            signals->cancel(ignored);
        }
        state->shut_down_all(false);
        drain_deadline = Clock::now() + kGracePeriod;
        poll_drain();
    }

    void poll_drain() {
        if (state->open_count() == 0 || (forced && Clock::now() >= drain_deadline)) {
            guards.clear();
            stop_contexts();
            return;
        }
        if (!forced && Clock::now() >= drain_deadline) {
            forced = true;
            state->shut_down_all(true);
            drain_deadline = Clock::now() + kForcedCloseWait;
        }
        drain_timer.expires_after(kDrainPoll);
        drain_timer.async_wait([this](error_code ec) {
            if (!ec) {
                poll_drain();
            }
        });
    }

    // On `control`, once per crossing of the budget's high-water mark (SharedState::queued): the
    // shed runs now, or when kShedInterval has passed since the last one.
    void schedule_shed() {
        const auto due = last_shed + kShedInterval;
        if (Clock::now() >= due) {
            return run_shed();
        }
        shed_timer.expires_at(due);
        shed_timer.async_wait([this](error_code ec) {
            if (!ec) {
                run_shed();
            }
        });
    }

    void run_shed() {
        last_shed = Clock::now();
        state->shed();
    }

    void on_signal(error_code ec, int signal_number) {
        if (ec) {
            return;
        }
        state->log("signal " + std::to_string(signal_number) + ": shutting down");
        if (!signal_callback) {
            return request_stop();
        }
        try {
            signal_callback();
        } catch (const std::exception& e) {
            state->log(std::string("signal callback threw: ") + e.what());
            request_stop();
        }
    }

    void request_stop() {
        if (stop_requested.exchange(true)) {
            return;
        }
        asio::post(control, [this] { begin_drain(); });
    }

    void run_loop(asio::io_context& ioc) {
        for (;;) {
            try {
                ioc.run();
                return;
            } catch (const std::exception& e) {
                // Handlers catch their own exceptions; this is a last line of defence.
                state->log(std::string("io_context: ") + e.what());
            }
        }
    }

    NetConfig config;
    // Declared before their users: destroyed after them.
    std::vector<std::unique_ptr<asio::io_context>> contexts;
    std::atomic<std::size_t> turn{0};
    std::shared_ptr<SharedState> state;
    asio::strand<asio::io_context::executor_type> control;
    asio::steady_timer drain_timer;
    asio::steady_timer shed_timer;
    Clock::time_point last_shed;
    // Before the listener: sessions use it until they end, and they end before it is destroyed.
    std::unique_ptr<asio::ssl::context> tls;
    std::shared_ptr<Listener> listener;
    std::optional<asio::signal_set> signals;
    std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards;
    std::function<void()> signal_callback;
    std::atomic<bool> stop_requested{false};
    Clock::time_point drain_deadline;
    bool forced = false;
};

Network::Network(NetConfig config, std::shared_ptr<PeerHandler> peers,
                 std::shared_ptr<HttpHandler> http)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(peers), std::move(http))) {}

Network::~Network() {
    // run() has returned (its caller joined it); what is still open is closed as the io_context
    // destroys its handlers, and WebSocket sessions still owe their on_close.
    impl_->stop_requested.store(true);
    impl_->stop_contexts();
    impl_->signals.reset();
}

std::uint16_t Network::port() const noexcept {
    return impl_->listener->port();
}

std::shared_ptr<Executor> Network::make_strand() {
    return make_strand_executor(impl_->next_context(), impl_->state);
}

void Network::run(std::function<void()> on_signal) {
    auto& impl = *impl_;
    impl.signal_callback = std::move(on_signal);
    for (auto& context : impl.contexts) {
        impl.guards.emplace_back(context->get_executor());
    }
    impl.signals->async_wait(
        [&impl](error_code ec, int signal_number) { impl.on_signal(ec, signal_number); });
    std::vector<std::thread> pool;
    pool.reserve(impl.contexts.size() - 1);
    for (std::size_t i = 1; i < impl.contexts.size(); ++i) {
        pool.emplace_back([&impl, &context = *impl.contexts[i]] {
            // The calling thread runs a loop too but keeps the process's name (ps, pidof).
            pthread_setname_np(pthread_self(), "arbiter-net");
            impl.run_loop(context);
        });
    }
    impl.run_loop(*impl.contexts.front());
    for (auto& thread : pool) {
        thread.join();
    }
}

void Network::stop() {
    impl_->request_stop();
}

std::size_t Network::connection_count() const noexcept {
    return impl_->state->open_count();
}

NetStats Network::stats() const noexcept {
    return impl_->state->stats();
}

}  // namespace arbiter::server::net
