#include "server/net/strand_executor.hpp"

#include <atomic>
#include <exception>
#include <string>
#include <utility>

#include <boost/asio/defer.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "server/net/asio.hpp"

namespace arbiter::server::net::detail {

namespace {

// STYLE errors rule 4: no exception leaves an Asio handler.
void run_guarded(const std::function<void()>& task, SharedState& state) {
    try {
        task();
    } catch (const std::exception& e) {
        state.counters.handler_errors.fetch_add(1);
        state.log(std::string("executor task threw: ") + e.what());
    } catch (...) {
        state.counters.handler_errors.fetch_add(1);
        state.log("executor task threw a non-exception");
    }
}

class StrandTimer final : public Timer, public std::enable_shared_from_this<StrandTimer> {
  public:
    StrandTimer(const Strand& strand, std::function<void()> task,
                std::shared_ptr<SharedState> state)
        : timer_(strand), task_(std::move(task)), state_(std::move(state)) {}

    void arm(std::chrono::milliseconds delay) {
        timer_.expires_after(delay);
        timer_.async_wait([self = shared_from_this()](error_code ec) {
            // `done_` decides the race with cancel(): whoever sets it first wins.
            if (ec || self->done_.exchange(true)) {
                return;
            }
            auto task = std::move(self->task_);
            run_guarded(task, *self->state_);
        });
    }

    void cancel() override {
        if (done_.exchange(true)) {
            return;
        }
        // The steady_timer belongs to the strand; release the task there too.
        asio::defer(timer_.get_executor(), [self = shared_from_this()] {
            self->timer_.cancel();
            self->task_ = nullptr;
        });
    }

  private:
    asio::steady_timer timer_;
    std::function<void()> task_;
    std::shared_ptr<SharedState> state_;
    std::atomic<bool> done_{false};
};

class StrandExecutor final : public Executor {
  public:
    StrandExecutor(asio::io_context& ioc, std::shared_ptr<SharedState> state)
        : strand_(asio::make_strand(ioc)), state_(std::move(state)) {}

    void post(std::function<void()> task) override {
        // defer, not post: from the thread of this strand's io_context (a request routed to its
        // room, a commit made on that thread) the room's work runs next on that thread's private
        // queue. From any other thread (another io_context's, the writer, engines) it is a post
        // that wakes this strand's thread.
        asio::defer(strand_,
                    [task = std::move(task), state = state_] { run_guarded(task, *state); });
    }

    std::shared_ptr<Timer> post_after(std::chrono::milliseconds delay,
                                      std::function<void()> task) override {
        auto timer = std::make_shared<StrandTimer>(strand_, std::move(task), state_);
        timer->arm(delay);
        return timer;
    }

  private:
    Strand strand_;
    std::shared_ptr<SharedState> state_;
};

}  // namespace

std::shared_ptr<Executor> make_strand_executor(asio::io_context& ioc,
                                               std::shared_ptr<SharedState> state) {
    return std::make_shared<StrandExecutor>(ioc, std::move(state));
}

}  // namespace arbiter::server::net::detail
