#pragma once
/// \file
/// Test doubles for the server's game logic, shared by the app unit tests: time that moves when
/// told, executors and a reader that run when told, a connection that keeps what it was sent, and
/// storage in memory. No sockets, no threads of their own, no disk.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/core/overloaded.hpp"
#include "server/app/read_worker.hpp"
#include "server/net/peer.hpp"
#include "server/net/runtime.hpp"
#include "server/storage/repository.hpp"

namespace arbiter::server::fakes {

/// Time that stands still until advance().
class ManualTime final : public TimeSource {
  public:
    std::chrono::steady_clock::time_point now() const override {
        std::lock_guard lock(mutex_);
        return now_;
    }
    std::int64_t unix_ms() const override {
        std::lock_guard lock(mutex_);
        return unix_ms_;
    }
    void advance(std::chrono::milliseconds by) {
        std::lock_guard lock(mutex_);
        now_ += by;
        unix_ms_ += by.count();
    }

  private:
    mutable std::mutex mutex_;
    std::chrono::steady_clock::time_point now_{std::chrono::hours(1)};
    std::int64_t unix_ms_ = 1'700'000'000'000;
};

/// A strand that runs what was posted only when the test says so, never inside post(). Timers are
/// due by a ManualTime and run from run() once it has passed their time.
class ManualExecutor final : public Executor {
  public:
    explicit ManualExecutor(const TimeSource& time) : time_(time) {}

    void post(std::function<void()> task) override {
        std::lock_guard lock(mutex_);
        tasks_.push_back(std::move(task));
    }
    std::shared_ptr<Timer> post_after(std::chrono::milliseconds delay,
                                      std::function<void()> task) override {
        auto timer = std::make_shared<ManualTimer>();
        std::lock_guard lock(mutex_);
        timers_.push_back({time_.now() + delay, timer, std::move(task)});
        return timer;
    }
    /// Runs tasks, and timers that are due, until there are none; returns how many ran.
    std::size_t run() {
        std::size_t ran = 0;
        while (auto task = next()) {
            (*task)();
            ++ran;
        }
        return ran;
    }
    /// Drops the tasks and timers waiting.
    void clear() {
        std::deque<std::function<void()>> tasks;
        std::vector<Armed> timers;
        {
            std::lock_guard lock(mutex_);
            tasks.swap(tasks_);
            timers.swap(timers_);
        }
    }
    /// Tasks waiting to run (not counting timers).
    std::size_t queued() const {
        std::lock_guard lock(mutex_);
        return tasks_.size();
    }

  private:
    class ManualTimer final : public Timer {
      public:
        void cancel() override { cancelled = true; }
        std::atomic<bool> cancelled{false};
    };
    struct Armed {
        std::chrono::steady_clock::time_point due;
        std::shared_ptr<ManualTimer> timer;
        std::function<void()> task;
    };

    std::optional<std::function<void()>> next() {
        std::lock_guard lock(mutex_);
        std::erase_if(timers_, [](const Armed& armed) { return armed.timer->cancelled.load(); });
        for (auto it = timers_.begin(); it != timers_.end(); ++it) {
            if (it->due <= time_.now()) {
                tasks_.push_back(std::move(it->task));
                timers_.erase(it);
                break;
            }
        }
        if (tasks_.empty()) {
            return std::nullopt;
        }
        auto task = std::move(tasks_.front());
        tasks_.pop_front();
        return task;
    }

    const TimeSource& time_;
    mutable std::mutex mutex_;
    std::deque<std::function<void()>> tasks_;
    std::vector<Armed> timers_;
};

/// Makes ManualExecutors and runs them all.
class ManualExecutors {
  public:
    explicit ManualExecutors(const TimeSource& time) : time_(time) {}

    std::shared_ptr<Executor> make() {
        auto executor = std::make_shared<ManualExecutor>(time_);
        std::lock_guard lock(mutex_);
        made_.push_back(executor);
        return executor;
    }
    /// Runs every executor until none has anything to run; returns how many tasks ran.
    std::size_t run() {
        std::size_t total = 0;
        for (;;) {
            std::vector<std::shared_ptr<ManualExecutor>> executors;
            {
                std::lock_guard lock(mutex_);
                executors = made_;
            }
            std::size_t ran = 0;
            for (const auto& executor : executors) {
                ran += executor->run();
            }
            if (ran == 0) {
                return total;
            }
            total += ran;
        }
    }
    /// Drops what is queued everywhere (a test's end: queued work may hold what posted it).
    void clear() {
        std::lock_guard lock(mutex_);
        for (const auto& executor : made_) {
            executor->clear();
        }
        made_.clear();
    }

  private:
    const TimeSource& time_;
    std::mutex mutex_;
    std::vector<std::shared_ptr<ManualExecutor>> made_;
};

/// A reader that queues reads until run(), and takes at most `capacity` of them (whatever their
/// priority, which it keeps: priorities()).
class ManualReads final : public app::ReadQueue {
  public:
    explicit ManualReads(std::size_t capacity = 64) : capacity_(capacity) {}

    using app::ReadQueue::try_post;
    bool try_post(std::function<void()> read, app::ReadPriority priority) override {
        std::lock_guard lock(mutex_);
        if (reads_.size() >= capacity_) {
            return false;
        }
        reads_.push_back(std::move(read));
        priorities_.push_back(priority);
        return true;
    }
    /// The priority of each read posted, in the order posted.
    std::vector<app::ReadPriority> priorities() const {
        std::lock_guard lock(mutex_);
        return priorities_;
    }
    /// Runs the reads queued, and those they queue; returns how many ran.
    std::size_t run() {
        std::size_t ran = 0;
        for (;;) {
            std::function<void()> read;
            {
                std::lock_guard lock(mutex_);
                if (reads_.empty()) {
                    return ran;
                }
                read = std::move(reads_.front());
                reads_.pop_front();
            }
            read();
            ++ran;
        }
    }
    std::size_t queued() const {
        std::lock_guard lock(mutex_);
        return reads_.size();
    }

  private:
    const std::size_t capacity_;
    mutable std::mutex mutex_;
    std::deque<std::function<void()>> reads_;
    std::vector<app::ReadPriority> priorities_;
};

/// A connection that keeps every frame it was sent, and how it was closed.
class FakePeer final : public net::Peer {
  public:
    /// `client`: whom the limits count it against; by default a client on this machine, limited
    /// per connection.
    explicit FakePeer(std::uint64_t id, std::string address = "127.0.0.1",
                      net::ClientAddress client = {"", true})
        : id_(id), address_(std::move(address)), client_(std::move(client)) {}

    std::uint64_t id() const noexcept override { return id_; }
    const std::string& address() const noexcept override { return address_; }
    const net::ClientAddress& client() const noexcept override { return client_; }
    const std::optional<std::string>& upgrade_cookie() const noexcept override { return cookie_; }
    /// The Cookie field its upgrade carried (before on_open).
    void set_upgrade_cookie(std::string cookie) { cookie_ = std::move(cookie); }
    bool send(std::shared_ptr<const std::string> text) override {
        std::lock_guard lock(mutex_);
        sent_.push_back(std::move(text));
        return true;
    }
    void close(net::CloseCode code, std::string_view /*reason*/) override {
        std::lock_guard lock(mutex_);
        closed_ = code;
    }
    void set_player(bool player) noexcept override { player_.store(player); }
    /// What the game logic last said: it holds a seat (Peer::set_player).
    bool player() const noexcept { return player_.load(); }

    /// The frames sent so far, as sent (shared frames are the same object).
    std::vector<std::shared_ptr<const std::string>> frames() const {
        std::lock_guard lock(mutex_);
        return sent_;
    }
    /// The frames sent so far, parsed.
    std::vector<nlohmann::json> messages() const {
        std::vector<nlohmann::json> parsed;
        for (const auto& text : frames()) {
            parsed.push_back(nlohmann::json::parse(*text));
        }
        return parsed;
    }
    /// The `id`s of the messages that carried one, in the order sent.
    std::vector<std::string> reply_ids() const {
        std::vector<std::string> ids;
        for (const auto& message : messages()) {
            if (message.contains("id")) {
                ids.push_back(message["id"].get<std::string>());
            }
        }
        return ids;
    }
    /// The message answering `id`, or null.
    nlohmann::json reply_to(const std::string& id) const {
        for (const auto& message : messages()) {
            if (message.value("id", "") == id) {
                return message;
            }
        }
        return nullptr;
    }
    std::optional<net::CloseCode> closed() const {
        std::lock_guard lock(mutex_);
        return closed_;
    }
    void forget() {
        std::lock_guard lock(mutex_);
        sent_.clear();
    }

  private:
    const std::uint64_t id_;
    const std::string address_;
    const net::ClientAddress client_;
    std::optional<std::string> cookie_;
    mutable std::mutex mutex_;
    std::vector<std::shared_ptr<const std::string>> sent_;
    std::optional<net::CloseCode> closed_;
    std::atomic<bool> player_{false};
};

/// Storage in memory: writes land at once (or fail when told), loads read what was written. It
/// counts loads and write-lock probes, can run a hook inside a load, and can hold a load until
/// released.
class FakeRepository final : public storage::GameRepository {
  public:
    void write(storage::GameIntent intent, Done done) override {
        {
            std::lock_guard lock(mutex_);
            writes += 1;
            if (!fail_writes) {
                apply(std::move(intent));
            }
        }
        if (fail_writes) {
            done(unexpected(storage::StorageError{"disk full"}));
        } else {
            done({});
        }
    }
    void flush() override {}
    Expected<std::vector<storage::StoredGame>, storage::StorageError> load_unfinished() override {
        std::lock_guard lock(mutex_);
        std::vector<storage::StoredGame> unfinished;
        for (const auto& [id, game] : games_) {
            if (!protocol::is_finished(game.header.status)) {
                unfinished.push_back(game);
            }
        }
        return unfinished;
    }
    Expected<std::optional<storage::StoredGame>, storage::StorageError> load(
        const std::string& id) override {
        loads += 1;
        if (on_load) {
            on_load(id);
        }
        if (hold_reads) {
            entered.set_value();
            released.get_future().wait();
        }
        if (fail_loads) {
            return unexpected(storage::StorageError{"disk gone"});
        }
        std::lock_guard lock(mutex_);
        auto it = games_.find(id);
        if (it == games_.end()) {
            return std::optional<storage::StoredGame>{};
        }
        return std::optional<storage::StoredGame>{it->second};
    }
    Expected<std::vector<storage::GameRow>, storage::StorageError> list(
        const storage::GameQuery&) override {
        std::lock_guard lock(mutex_);
        std::vector<storage::GameRow> rows;
        for (const auto& [id, game] : games_) {
            rows.push_back(game.header);
        }
        return rows;
    }
    bool writable() override {
        probes += 1;
        probed_on = std::this_thread::get_id();
        return writable_now.load();
    }
    std::uint64_t size_bytes() override { return 0; }
    Expected<void, storage::StorageError> backup(const std::string&) override { return {}; }

    /// Puts `game` in storage as if written earlier.
    void store(storage::StoredGame game) {
        std::lock_guard lock(mutex_);
        games_[game.header.id] = std::move(game);
    }
    /// The game as stored now, if it is.
    std::optional<storage::StoredGame> stored(const std::string& id) const {
        std::lock_guard lock(mutex_);
        auto it = games_.find(id);
        return it == games_.end() ? std::nullopt : std::optional(it->second);
    }

    std::atomic<int> writes{0};
    std::atomic<int> loads{0};
    std::atomic<bool> fail_writes{false};
    std::atomic<bool> fail_loads{false};
    /// Runs at the start of each load, on the loading thread, before the lock of the store.
    std::function<void(const std::string&)> on_load;

    std::atomic<int> probes{0};
    std::atomic<bool> writable_now{true};
    std::atomic<bool> hold_reads{false};
    std::atomic<std::thread::id> probed_on;
    std::promise<void> entered;
    std::promise<void> released;

  private:
    /// What the intent makes of its game, as the SQLite store writes it (intents.hpp); an
    /// intent for a game never created changes nothing.
    void apply(storage::GameIntent intent) {
        if (auto* create = std::get_if<storage::CreateGame>(&intent)) {
            std::string id = create->header.id;  // before the header moves out
            games_[std::move(id)] = storage::StoredGame{std::move(create->header), {}};
            return;
        }
        if (const auto* prune = std::get_if<storage::PruneAborted>(&intent)) {
            std::erase_if(games_, [&](const auto& entry) {
                const storage::GameRow& row = entry.second.header;
                return row.status == protocol::GameStatus::aborted && entry.second.moves.empty() &&
                       row.created_ms < prune->before_ms && row.updated_ms < prune->before_ms;
            });
            return;
        }
        // Not storage::game_of: the app's tests do not link the storage library.
        const std::string id = std::visit(
            [](const auto& change) -> std::string {
                if constexpr (requires { change.header.id; }) {
                    return change.header.id;
                } else if constexpr (requires { change.game; }) {
                    return change.game;
                } else {
                    return "";
                }
            },
            intent);
        const auto found = games_.find(id);
        if (found == games_.end()) {
            return;
        }
        storage::StoredGame& game = found->second;
        storage::GameRow& row = game.header;
        const auto end = [&row](const storage::GameEnding& ending) {
            row.status = ending.status;
            row.result = ending.result;
            row.reason = ending.reason;
        };
        std::visit(Overloaded{
                       [](storage::CreateGame&) {},
                       [&](storage::SeatPlayer& seated) {
                           row.seats[seated.side == rules::Side::first ? 0 : 1] = seated.seat;
                           row.status = protocol::GameStatus::playing;
                           row.seq = seated.seq;
                           row.updated_ms = seated.updated_ms;
                       },
                       [&](storage::AppendMove& append) {
                           row.ply = append.move.ply;
                           row.clock_ms = append.clock_ms;
                           row.seq = append.seq;
                           row.updated_ms = append.move.played_ms;
                           row.offers.clear();
                           if (append.ending) {
                               end(*append.ending);
                           }
                           std::erase_if(game.moves, [&](const storage::MoveRow& move) {
                               return move.ply == append.move.ply;
                           });
                           game.moves.push_back(std::move(append.move));
                       },
                       [&](storage::TakeBack& back) {
                           row.ply = back.to_ply;
                           row.clock_ms = back.clock_ms;
                           row.seq = back.seq;
                           row.updated_ms = back.updated_ms;
                           row.offers.clear();
                           std::erase_if(game.moves, [&](const storage::MoveRow& move) {
                               return move.ply > back.to_ply;
                           });
                       },
                       [&](storage::SetOffers& set) {
                           row.offers = std::move(set.offers);
                           row.clock_ms = set.clock_ms;
                           row.seq = set.seq;
                       },
                       [&](storage::RecordEvent& event) {
                           row.clock_ms = event.clock_ms;
                           row.seq = event.seq;
                       },
                       [&](storage::EndGame& ended) {
                           end(ended.ending);
                           row.offers.clear();
                           row.clock_ms = ended.clock_ms;
                           row.seq = ended.seq;
                           row.updated_ms = ended.updated_ms;
                       },
                       [&](storage::LinkRematch& link) {
                           row.rematch_next = std::move(link.next);
                           row.offers.clear();
                           row.seq = link.seq;
                       },
                       [](storage::PruneAborted&) {},
                       [&](storage::PostChat& chat) {
                           row.clock_ms = chat.clock_ms;
                           row.seq = chat.seq;
                           game.chat.push_back(std::move(chat.message));
                       },
                       [&](storage::StoreClocks& clocks) {
                           row.clock_ms = clocks.clock_ms;
                           row.updated_ms = clocks.updated_ms;
                           row.parked_flag = clocks.parked_flag;
                       },
                   },
                   intent);
    }

    mutable std::mutex mutex_;
    std::map<std::string, storage::StoredGame> games_;
};

}  // namespace arbiter::server::fakes
