// The room as an actor around its table: a manual executor and clock, a repository that commits
// (or fails) only when told, and peers that keep what they are sent.
#include "server/app/room.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <deque>
#include <map>

#include "server/app/metrics.hpp"

namespace arbiter::server::app {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using rules::Side;

/// Time that moves only when told.
class ManualTime final : public TimeSource {
  public:
    std::chrono::steady_clock::time_point now() const override { return now_; }
    std::int64_t unix_ms() const override {
        return 1'764'000'000'000 +
               std::chrono::duration_cast<std::chrono::milliseconds>(now_.time_since_epoch())
                   .count();
    }
    void advance(std::chrono::milliseconds by) { now_ += by; }

  private:
    std::chrono::steady_clock::time_point now_{};
};

/// Runs what was posted when the test says so; timers fire when the manual time reaches them.
class ManualExecutor final : public Executor {
  public:
    explicit ManualExecutor(ManualTime& time) : time_(time) {}

    void post(std::function<void()> task) override { tasks_.push_back(std::move(task)); }
    std::shared_ptr<Timer> post_after(std::chrono::milliseconds delay,
                                      std::function<void()> task) override {
        auto timer = std::make_shared<ManualTimer>();
        timers_.push_back({time_.now() + delay, timer, std::move(task)});
        return timer;
    }
    /// Runs the oldest task posted, if any; whether there was one.
    bool run_one() {
        if (tasks_.empty()) {
            return false;
        }
        auto task = std::move(tasks_.front());
        tasks_.pop_front();
        task();
        return true;
    }
    /// Runs every task posted, and those they post, until none is left.
    void drain() {
        while (!tasks_.empty()) {
            auto task = std::move(tasks_.front());
            tasks_.pop_front();
            task();
        }
    }
    /// Moves the time on by `by`, firing the timers due meanwhile, and drains.
    void advance(std::chrono::milliseconds by) {
        time_.advance(by);
        for (auto timer = timers_.begin(); timer != timers_.end();) {
            if (timer->due <= time_.now()) {
                if (!timer->handle->cancelled) {
                    post(std::move(timer->task));
                }
                timer = timers_.erase(timer);
            } else {
                ++timer;
            }
        }
        drain();
    }
    std::size_t armed() const {
        return static_cast<std::size_t>(
            std::count_if(timers_.begin(), timers_.end(),
                          [](const Armed& armed) { return !armed.handle->cancelled; }));
    }

  private:
    struct ManualTimer final : Timer {
        void cancel() override { cancelled = true; }
        bool cancelled = false;
    };
    struct Armed {
        std::chrono::steady_clock::time_point due;
        std::shared_ptr<ManualTimer> handle;
        std::function<void()> task;
    };
    ManualTime& time_;
    std::deque<std::function<void()>> tasks_;
    std::vector<Armed> timers_;
};

/// Keeps each write and its callback until the test commits or fails it.
class HeldRepository final : public storage::GameRepository {
  public:
    void write(storage::GameIntent intent, Done done) override {
        writes.push_back(std::move(intent));
        waiting.push_back(std::move(done));
    }
    /// Answers the oldest write waiting: stored, or failed as a disk fails.
    void complete(bool ok = true) {
        if (ok) {
            answer({});
        } else {
            answer(unexpected(storage::StorageError{"disk I/O error"}));
        }
    }
    /// Answers the oldest write waiting as a rated end computed from a rating row that changed.
    void complete_stale() {
        storage::StorageError stale{"the chess blitz rating of user 2 changed"};
        stale.stale = true;
        answer(unexpected(std::move(stale)));
    }
    /// Answers the oldest write waiting as a cluster node's write of a game another node owns.
    void complete_fenced() {
        storage::StorageError fenced{"game g1 belongs to node b at epoch 2: the write was fenced"};
        fenced.fenced = true;
        answer(unexpected(std::move(fenced)));
    }
    void answer(Expected<void, storage::StorageError> result) {
        ASSERT_FALSE(waiting.empty());
        auto done = std::move(waiting.front());
        waiting.pop_front();
        done(std::move(result));
    }
    /// Commits on the caller's thread with `commit_here`'s outcome while it is set; otherwise
    /// declines, as a store under load does, and the room write()s.
    std::optional<Expected<void, storage::StorageError>> write_here(
        storage::GameIntent& intent) override {
        if (!commit_here) {
            return std::nullopt;
        }
        writes.push_back(std::move(intent));
        committed_here += 1;
        return *commit_here;
    }
    void flush() override {}
    Expected<std::vector<storage::StoredGame>, storage::StorageError> load_unfinished() override {
        return std::vector<storage::StoredGame>{};
    }
    Expected<std::optional<storage::StoredGame>, storage::StorageError> load(
        const std::string&) override {
        return std::optional<storage::StoredGame>{};
    }
    Expected<std::vector<storage::GameRow>, storage::StorageError> list(
        const storage::GameQuery&) override {
        return std::vector<storage::GameRow>{};
    }
    bool writable() override { return true; }
    std::uint64_t size_bytes() override { return 0; }
    Expected<void, storage::StorageError> backup(const std::string&) override { return {}; }

    /// The last write, as the intent `T` it must be.
    template <typename T>
    const T& last() const {
        return std::get<T>(writes.back());
    }

    std::vector<storage::GameIntent> writes;
    std::deque<Done> waiting;
    std::optional<Expected<void, storage::StorageError>> commit_here;
    int committed_here = 0;
};

/// A connection that keeps every message it is sent, parsed.
class RecordingPeer final : public net::Peer {
  public:
    explicit RecordingPeer(std::uint64_t id) : id_(id) {}
    std::uint64_t id() const noexcept override { return id_; }
    const std::string& address() const noexcept override { return address_; }
    bool responsive() const noexcept override { return answering; }
    std::optional<std::chrono::milliseconds> round_trip() const noexcept override {
        return measured_round_trip;
    }
    bool send(std::shared_ptr<const std::string> text) override {
        received.push_back(json::parse(*text));
        return true;
    }
    void close(net::CloseCode, std::string_view) override {}

    /// What round_trip() says: the server's pings measured this (nullopt: nothing yet).
    std::optional<std::chrono::milliseconds> measured_round_trip;

    /// The messages of `type` received so far.
    std::vector<json> of_type(std::string_view type) const {
        std::vector<json> found;
        for (const auto& message : received) {
            if (message["type"] == type) {
                found.push_back(message);
            }
        }
        return found;
    }

    /// The message answering `id`, or null.
    json reply_to(std::string_view id) const {
        for (const auto& message : received) {
            if (message.value("id", "") == id) {
                return message;
            }
        }
        return nullptr;
    }

    std::vector<json> received;
    bool answering = true;  ///< what responsive() says: false for a half-open connection

  private:
    std::uint64_t id_;
    std::string address_ = "127.0.0.1";
};

/// A host that lets every member in and remembers what it was told.
class RecordingHost final : public RoomHost {
  public:
    void listing_changed(const protocol::GameSummary& summary, bool) override {
        listed.push_back(std::string(protocol::to_string(summary.status)));
    }
    void start_rematch(const storage::GameRow&, const std::string& id,
                       std::array<SeatSpec, 2>) override {
        rematches.push_back(id);
    }
    std::optional<std::string> open_game_refusal(const std::shared_ptr<net::Peer>&) override {
        return std::nullopt;
    }
    bool member_joined(const std::shared_ptr<net::Peer>&, const std::string&, bool,
                       const std::string&) override {
        return true;
    }
    void member_left(const std::shared_ptr<net::Peer>&, const std::string&, bool, bool) override {}
    bool unload_room(const std::string&, const GameRoom*,
                     std::optional<std::chrono::steady_clock::time_point> flag_at) override {
        unloaded += 1;
        parked_flag = flag_at;
        return true;
    }
    void reroute(RoomRequest) override {}
    void disown_room(const std::string& game, const GameRoom*) override {
        disowned.push_back(game);
    }

    std::vector<std::string> listed;
    std::vector<std::string> disowned;
    std::vector<std::string> rematches;
    int unloaded = 0;
    std::optional<std::chrono::steady_clock::time_point> parked_flag;  ///< the last unload's
};

/// An engine that remembers each question; the test answers it.
class HeldAgent final : public SeatAgent {
  public:
    void ask(MoveQuestion question, std::function<void(MoveAnswer)> done) override {
        questions.push_back(std::move(question));
        answer = std::move(done);
    }
    void cancel() override { answer = nullptr; }
    void restart() override {}
    void close() override { answer = nullptr; }

    std::vector<MoveQuestion> questions;
    std::function<void(MoveAnswer)> answer;
};

/// Offers one engine, "held", whose agent the test holds.
class HeldEngines final : public EngineDirectory {
  public:
    std::vector<protocol::EngineInfo> offered() const override { return {}; }
    Expected<std::string, std::string> seat_name(const std::string&, rules::Variant,
                                                 int) const override {
        return std::string("Held (level 1)");
    }
    std::shared_ptr<SeatAgent> make_agent(const std::string&, rules::Variant, int,
                                          std::shared_ptr<Executor>) override {
        return agent;
    }

    std::shared_ptr<HeldAgent> agent = std::make_shared<HeldAgent>();
};

struct RoomTest : ::testing::Test {
    ManualTime time;
    std::shared_ptr<ManualExecutor> executor = std::make_shared<ManualExecutor>(time);
    HeldRepository repository;
    RecordingHost host;
    Metrics metrics;
    RoomContext context{repository, time, host, metrics, RoomConfig{}, nullptr};
    std::shared_ptr<RecordingPeer> white = std::make_shared<RecordingPeer>(1);
    std::shared_ptr<RecordingPeer> black = std::make_shared<RecordingPeer>(2);
    std::shared_ptr<GameRoom> room;

    /// Creates the chess room `g1` with `seats` (a seat left empty is open) and begins its
    /// creation: its CreateGame write waits in the repository.
    void begin_room(std::array<std::optional<SeatSpec>, 2> seats,
                    std::optional<protocol::ClockSpec> clock = std::nullopt) {
        storage::GameRow header;
        header.id = "g1";
        header.variant = rules::Variant::chess;
        auto game = rules::make_game(rules::Variant::chess, "").value();
        header.initial_position = game->initial_position();
        if (clock) {
            header.clock_initial_ms = clock->initial_ms;
            header.clock_increment_ms = clock->increment_ms;
        }
        header.status = seats[1] ? protocol::GameStatus::playing : protocol::GameStatus::waiting;
        room = GameRoom::create(context, executor, header, std::move(game), std::move(seats), "c1");
        room->begin_creation();
        executor->drain();
    }
    /// White "Ana" seated, and Black "Bo" unless `black_seat` says otherwise.
    std::array<std::optional<SeatSpec>, 2> seats_of(std::optional<SeatSpec> black_seat) {
        return {SeatSpec{"Ana", "token-a", {white}, "", 0}, std::move(black_seat)};
    }
    SeatSpec bo() { return SeatSpec{"Bo", "token-b", {black}, "", 0}; }

    /// A chess game with both seats taken, its creation committed.
    void open_game(std::optional<protocol::ClockSpec> clock = std::nullopt) {
        begin_room(seats_of(bo()), clock);
        ASSERT_EQ(repository.waiting.size(), 1u);
        repository.complete();
        executor->drain();
    }

    void submit(const std::shared_ptr<RecordingPeer>& peer, protocol::ClientBody body,
                std::optional<std::string> id = std::nullopt) {
        room->submit(RoomRequest{peer, std::move(id), std::move(body), "", time.now()});
        executor->drain();
    }

    void move(const std::shared_ptr<RecordingPeer>& peer, std::string text, std::uint32_t ply,
              std::optional<std::string> id = std::nullopt) {
        submit(peer, protocol::MoveRequest{"g1", std::move(text), ply}, std::move(id));
    }

    /// A timed chess game whose first two moves (e4 e5) are committed: white's clock runs.
    void open_timed_game_after_e4_e5(protocol::ClockSpec clock) {
        open_game(clock);
        move(white, "e2e4", 0);
        repository.complete();
        executor->drain();
        move(black, "e7e5", 1);
        repository.complete();
        executor->drain();
    }
};

TEST_F(RoomTest, ACreatedGameIsToldToItsSeatsOnlyAfterItsCommit) {
    begin_room(seats_of(bo()));
    ASSERT_EQ(repository.writes.size(), 1u);
    const auto& created = std::get<storage::CreateGame>(repository.writes[0]);
    EXPECT_EQ(created.header.seq, 1u);
    EXPECT_EQ(created.header.seats[0].name, "Ana");
    EXPECT_TRUE(white->received.empty());
    repository.complete();
    executor->drain();
    ASSERT_EQ(white->of_type("created").size(), 1u);
    EXPECT_EQ(white->of_type("created")[0]["id"], "c1");
    EXPECT_EQ(white->of_type("created")[0]["token"], "token-a");
    ASSERT_EQ(black->of_type("state").size(), 1u);
    EXPECT_EQ(black->of_type("state")[0]["you"], "black");
    EXPECT_EQ(host.listed, (std::vector<std::string>{"playing"}));
}

TEST_F(RoomTest, AMoveIsCommittedThenBroadcast) {
    open_game();
    white->received.clear();
    black->received.clear();
    move(white, "e2e4", 0, "m1");
    ASSERT_EQ(repository.writes.size(), 2u);
    ASSERT_TRUE(std::holds_alternative<storage::AppendMove>(repository.writes.back()));
    const auto& write = repository.last<storage::AppendMove>();
    EXPECT_EQ(write.move.move, "e2e4");
    EXPECT_EQ(write.move.ply, 1u);
    EXPECT_EQ(write.seq, 2u);
    EXPECT_TRUE(white->received.empty()) << "nobody hears of a move before its commit";
    EXPECT_TRUE(black->received.empty());

    repository.complete();
    executor->drain();
    ASSERT_EQ(white->received.size(), 1u);
    ASSERT_EQ(black->received.size(), 1u);
    EXPECT_EQ(white->received[0]["type"], "moved");
    EXPECT_EQ(white->received[0]["id"], "m1") << "the mover's copy answers its request";
    EXPECT_FALSE(black->received[0].contains("id"));
    EXPECT_EQ(black->received[0]["notation"], "e4");
    EXPECT_EQ(black->received[0]["seq"], 2);
    EXPECT_EQ(metrics.moves_accepted(), 1u);
}

// A store that commits on the room's thread (an idle SQLite writer): the same events as a
// queued write's commit, from the room's strand, and no write left waiting.
TEST_F(RoomTest, AMoveCommittedOnTheRoomsThreadIsBroadcastFromItsStrand) {
    open_game();
    white->received.clear();
    black->received.clear();
    repository.commit_here = Expected<void, storage::StorageError>{};
    room->submit(RoomRequest{white, "m1", protocol::MoveRequest{"g1", "e2e4", 0}, "", time.now()});
    ASSERT_TRUE(executor->run_one());  // the request: decided and committed here
    EXPECT_EQ(repository.committed_here, 1);
    EXPECT_TRUE(repository.waiting.empty()) << "nothing was queued";
    EXPECT_EQ(repository.last<storage::AppendMove>().move.move, "e2e4");
    EXPECT_TRUE(white->received.empty() && black->received.empty())
        << "the outcome waits on the strand, as a queued write's does";
    executor->drain();
    ASSERT_EQ(white->of_type("moved").size(), 1u);
    EXPECT_EQ(white->of_type("moved")[0]["id"], "m1");
    ASSERT_EQ(black->of_type("moved").size(), 1u);
    EXPECT_EQ(black->of_type("moved")[0]["notation"], "e4");
    EXPECT_EQ(metrics.moves_accepted(), 1u);

    // The next move too, and the room took both in turn.
    move(black, "e7e5", 1, "m2");
    executor->drain();
    EXPECT_EQ(repository.committed_here, 2);
    EXPECT_EQ(white->of_type("moved").size(), 2u);
    EXPECT_EQ(black->of_type("moved").at(1)["id"], "m2");
}

TEST_F(RoomTest, AMoveWhoseCommitOnTheRoomsThreadFailsIsAnsweredUnavailable) {
    open_game();
    white->received.clear();
    black->received.clear();
    repository.commit_here =
        Expected<void, storage::StorageError>{unexpected(storage::StorageError{"disk I/O error"})};
    move(white, "e2e4", 0, "m1");
    executor->drain();
    ASSERT_EQ(white->received.size(), 1u);
    EXPECT_EQ(white->received[0]["type"], "error");
    EXPECT_EQ(white->received[0]["code"], "unavailable");
    EXPECT_TRUE(black->received.empty());

    // Nothing of it stayed: the same move goes through the queue next.
    repository.commit_here.reset();
    move(white, "e2e4", 0, "m2");
    ASSERT_EQ(repository.waiting.size(), 1u);
    EXPECT_EQ(repository.last<storage::AppendMove>().seq, 2u) << "the failed move took no number";
    repository.complete();
    executor->drain();
    EXPECT_EQ(white->of_type("moved").at(0)["id"], "m2");
}

TEST_F(RoomTest, AFailedCommitIsAnsweredUnavailableAndLeavesNothingBehind) {
    open_game();
    white->received.clear();
    black->received.clear();
    move(white, "e2e4", 0, "m1");
    repository.complete(/*ok=*/false);
    executor->drain();
    ASSERT_EQ(white->received.size(), 1u);
    EXPECT_EQ(white->received[0]["type"], "error");
    EXPECT_EQ(white->received[0]["code"], "unavailable");
    EXPECT_EQ(white->received[0]["id"], "m1");
    EXPECT_TRUE(black->received.empty());

    // The game is as before: the state shows no move, and the same move goes through again.
    auto spectator = std::make_shared<RecordingPeer>(3);
    submit(spectator, protocol::Watch{"g1", std::nullopt}, "w1");
    const auto state = spectator->of_type("state").at(0);
    EXPECT_EQ(state["ply"], 0);
    EXPECT_EQ(state["seq"], 1);
    EXPECT_TRUE(state["moves"].empty());
    move(white, "e2e4", 0, "m2");
    ASSERT_EQ(repository.waiting.size(), 1u);
    EXPECT_EQ(repository.last<storage::AppendMove>().seq, 2u) << "the failed move took no number";
    repository.complete();
    executor->drain();
    EXPECT_EQ(white->of_type("moved").at(0)["id"], "m2");
}

// Every request whose decision writes is answered `unavailable`, by its id, when the write fails:
// a move, each offer, an abort, a resignation, a claim and a rematch offer.
// A cluster node's room whose write is fenced can commit nothing more: another node owns the
// game. The request is refused as any failed write is, and the room asks to leave memory, so
// that its members resume at the owner rather than be refused forever.
TEST_F(RoomTest, AFencedWriteRefusesItsRequestAndTheRoomLeavesForTheOwner) {
    open_game();
    move(white, "e2e4", 0, "m1");
    repository.complete(false);  // an ordinary failure: the room stays
    executor->drain();
    EXPECT_TRUE(host.disowned.empty());
    move(white, "e2e4", 0, "m2");
    repository.complete_fenced();
    executor->drain();
    EXPECT_EQ(white->reply_to("m2")["code"], "unavailable");
    EXPECT_EQ(host.disowned, (std::vector<std::string>{"g1"}));
    EXPECT_TRUE(black->of_type("moved").empty());
}

TEST_F(RoomTest, EveryRequestWhoseWriteFailsIsAnsweredUnavailable) {
    using protocol::OfferAction;
    using protocol::OfferKind;
    open_game();
    move(white, "e2e4", 0, "m0");
    repository.complete();
    executor->drain();
    const auto refused_after_failed_write = [&](const std::shared_ptr<RecordingPeer>& peer,
                                                protocol::ClientBody body, const std::string& id) {
        const auto writes = repository.writes.size();
        submit(peer, std::move(body), id);
        ASSERT_EQ(repository.writes.size(), writes + 1) << id << " writes";
        repository.complete(/*ok=*/false);
        executor->drain();
        const auto reply = peer->reply_to(id);
        ASSERT_FALSE(reply.is_null()) << id << " is answered";
        EXPECT_EQ(reply["type"], "error") << id;
        EXPECT_EQ(reply["code"], "unavailable") << id;
    };
    refused_after_failed_write(black, protocol::MoveRequest{"g1", "e7e5", 1}, "move");
    refused_after_failed_write(
        white, protocol::OfferRequest{"g1", OfferKind::draw, OfferAction::offer}, "draw");
    refused_after_failed_write(
        white, protocol::OfferRequest{"g1", OfferKind::takeback, OfferAction::offer}, "takeback");
    refused_after_failed_write(black, protocol::Abort{"g1"}, "abort");
    refused_after_failed_write(white, protocol::Resign{"g1"}, "resign");
    room->leave(black);
    executor->drain();
    repository.complete();  // black's presence
    executor->drain();
    time.advance(60'000ms);
    refused_after_failed_write(white, protocol::Claim{"g1", protocol::ClaimKind::win}, "claim");
    submit(white, protocol::Resign{"g1"}, "resigned");
    repository.complete();
    executor->drain();
    refused_after_failed_write(
        white, protocol::OfferRequest{"g1", OfferKind::rematch, OfferAction::offer}, "rematch");
}

// A join whose write fails is answered `unavailable` and seats nobody: the game still waits.
TEST_F(RoomTest, AJoinWhoseWriteFailsSeatsNobody) {
    begin_room(seats_of(std::nullopt));
    repository.complete();
    executor->drain();
    submit(black, protocol::Join{"g1"}, "j1");
    repository.complete(/*ok=*/false);
    executor->drain();
    EXPECT_EQ(black->reply_to("j1")["code"], "unavailable");
    EXPECT_TRUE(black->of_type("joined").empty());
    EXPECT_EQ(host.listed.back(), "waiting");
    submit(black, protocol::Join{"g1"}, "j2");
    repository.complete();
    executor->drain();
    EXPECT_EQ(black->reply_to("j2")["type"], "joined");
}

// A creation whose write fails is answered `unavailable` by the creator's request id, and the
// room leaves memory without ever being listed.
TEST_F(RoomTest, ACreationWhoseWriteFailsIsAnsweredAndLeavesMemory) {
    begin_room(seats_of(std::nullopt));
    repository.complete(/*ok=*/false);
    executor->drain();
    ASSERT_EQ(white->received.size(), 1u);
    EXPECT_EQ(white->received[0]["type"], "error");
    EXPECT_EQ(white->received[0]["code"], "unavailable");
    EXPECT_EQ(white->received[0]["id"], "c1");
    EXPECT_TRUE(host.listed.empty()) << "never listed";
    EXPECT_EQ(host.unloaded, 1);
}

TEST(SpectatorNotices, AtMostOneCountPerIntervalTheLatest) {
    using TimePoint = SpectatorNotices::TimePoint;
    SpectatorNotices notices(250ms);
    const TimePoint start{};
    EXPECT_EQ(notices.changed(start), 0ms) << "the first change goes out at once";
    EXPECT_EQ(notices.changed(start), std::nullopt) << "already due: it carries this one too";
    EXPECT_TRUE(notices.send(start, 2));
    EXPECT_EQ(notices.changed(start + 100ms), 150ms) << "not before the interval is over";
    EXPECT_EQ(notices.changed(start + 200ms), std::nullopt);
    EXPECT_TRUE(notices.send(start + 250ms, 5));
    // Changes that cancel out send nothing.
    EXPECT_EQ(notices.changed(start + 600ms), 0ms);
    EXPECT_FALSE(notices.send(start + 600ms, 5));
    EXPECT_EQ(notices.changed(start + 700ms), 0ms) << "nothing was sent since 250 ms";
}

// Watch/unwatch churn: the players hear the count at most once per interval (250 ms), and then
// the latest, not once per change.
TEST_F(RoomTest, SpectatorChurnSendsAtMostOneCountPerInterval) {
    open_game();
    auto first = std::make_shared<RecordingPeer>(3);
    auto churner = std::make_shared<RecordingPeer>(4);
    submit(first, protocol::Watch{"g1", std::nullopt}, "w");
    ASSERT_EQ(white->of_type("spectators").size(), 1u);
    EXPECT_EQ(white->of_type("spectators")[0]["count"], 1);
    for (int i = 0; i < 50; ++i) {
        submit(churner, protocol::Watch{"g1", std::nullopt}, "w" + std::to_string(i));
        room->unwatch(churner);
        executor->advance(4ms);
    }
    submit(churner, protocol::Watch{"g1", std::nullopt}, "last");
    EXPECT_EQ(white->of_type("spectators").size(), 1u) << "nothing more within the interval";
    executor->advance(50ms);
    const auto counts = white->of_type("spectators");
    ASSERT_EQ(counts.size(), 2u);
    EXPECT_EQ(counts[1]["count"], 2) << "the latest count";
    EXPECT_EQ(black->of_type("spectators").size(), 2u);
    executor->advance(1'000ms);
    EXPECT_EQ(white->of_type("spectators").size(), 2u) << "a quiet moment sends nothing";
}

TEST(SpectatorNotices, NewNamesAtTheSameCountAreSent) {
    using TimePoint = SpectatorNotices::TimePoint;
    SpectatorNotices notices(250ms);
    const TimePoint start{};
    EXPECT_EQ(notices.changed(start), 0ms);
    EXPECT_TRUE(notices.send(start, 1, {{"Ann", false}}));
    EXPECT_EQ(notices.changed(start + 300ms), 0ms);
    EXPECT_TRUE(notices.send(start + 300ms, 1, {{"Bo", true}})) << "one watcher left, another came";
    EXPECT_EQ(notices.changed(start + 600ms), 0ms);
    EXPECT_FALSE(notices.send(start + 600ms, 1, {{"Bo", true}})) << "nothing changed";
}

// `spectators` names the watchers, longest watching first, marked guest unless signed in, and
// names no more than 50 (protocol.md, spectators).
TEST_F(RoomTest, SpectatorsNamesTheFirstFiftyWatchersInOrderOfArrival) {
    open_game();
    std::vector<std::shared_ptr<RecordingPeer>> watchers;
    for (int i = 0; i < 60; ++i) {
        auto watcher = std::make_shared<RecordingPeer>(10 + i);
        std::optional<AccountUser> user;
        if (i == 0) {
            user = AccountUser{7, "Ann"};
        }
        room->submit(RoomRequest{watcher, "w" + std::to_string(i),
                                 protocol::Watch{"g1", std::nullopt},
                                 i == 0 ? "Ann" : "Guest" + std::to_string(i), time.now(), user});
        executor->drain();
        watchers.push_back(watcher);
    }
    executor->advance(300ms);
    const auto lists = white->of_type("spectators");
    ASSERT_FALSE(lists.empty());
    const auto& last = lists.back();
    EXPECT_EQ(last["count"], 60);
    ASSERT_EQ(last["watchers"].size(), 50u);
    EXPECT_EQ(last["watchers"][0], (nlohmann::json{{"name", "Ann"}, {"guest", false}}));
    EXPECT_EQ(last["watchers"][1], (nlohmann::json{{"name", "Guest1"}, {"guest", true}}));
    EXPECT_EQ(last["watchers"][49]["name"], "Guest49");

    // Ann leaves and one more comes: the list moves up, the count stays, and the change is sent.
    room->unwatch(watchers[0]);
    auto late = std::make_shared<RecordingPeer>(99);
    room->submit(
        RoomRequest{late, "w-late", protocol::Watch{"g1", std::nullopt}, "Late", time.now()});
    executor->drain();
    executor->advance(300ms);
    const auto after = white->of_type("spectators").back();
    EXPECT_EQ(after["count"], 60);
    EXPECT_EQ(after["watchers"][0]["name"], "Guest1");
    EXPECT_EQ(after["watchers"][49]["name"], "Guest50");
}

// The state says only how many watch: a player who comes back hears their names at once.
TEST_F(RoomTest, AResumingPlayerHearsWhoWatches) {
    open_game();
    auto watcher = std::make_shared<RecordingPeer>(3);
    room->submit(
        RoomRequest{watcher, "w", protocol::Watch{"g1", std::nullopt}, "Cleo", time.now()});
    executor->drain();
    auto again = std::make_shared<RecordingPeer>(4);
    submit(again, protocol::Resume{"g1", "token-b", std::nullopt}, "r1");
    const auto lists = again->of_type("spectators");
    ASSERT_EQ(lists.size(), 1u);
    EXPECT_EQ(lists[0]["count"], 1);
    EXPECT_EQ(lists[0]["watchers"][0], (nlohmann::json{{"name", "Cleo"}, {"guest", true}}));
}

TEST_F(RoomTest, RequestsWaitBehindACommitInTheirOrder) {
    open_game();
    move(white, "e2e4", 0, "m1");
    move(black, "e7e5", 1, "m2");
    submit(white, protocol::Resign{"g1"}, "r1");
    ASSERT_EQ(repository.waiting.size(), 1u) << "one write at a time";
    repository.complete();
    executor->drain();
    ASSERT_EQ(repository.waiting.size(), 1u) << "the next request ran after the commit";
    EXPECT_EQ(repository.last<storage::AppendMove>().move.move, "e7e5");
    repository.complete();
    executor->drain();
    ASSERT_EQ(repository.waiting.size(), 1u);
    EXPECT_EQ(repository.last<storage::EndGame>().ending.reason, protocol::EndReason::resign);
    repository.complete();
    executor->drain();
    std::vector<std::string> seen;
    for (const auto& message : black->received) {
        if (message["type"] == "moved" || message["type"] == "ended") {
            seen.push_back(message["type"].get<std::string>() + " " +
                           std::to_string(message["seq"].get<int>()));
        }
    }
    EXPECT_EQ(seen, (std::vector<std::string>{"moved 2", "moved 3", "ended 4"}));
    EXPECT_EQ(black->of_type("ended").at(0)["result"], "0-1");
}

// A room holds at most max_pending requests behind a commit: one more is refused at once, by its
// id, and never runs.
TEST_F(RoomTest, ARequestBeyondTheQueueIsRefusedBusyAndNeverRuns) {
    context.config.max_pending = 1;
    open_game();
    move(white, "e2e4", 0, "m1");                 // committing
    move(black, "e7e5", 1, "m2");                 // waits behind it
    submit(white, protocol::Resign{"g1"}, "r1");  // one too many
    const auto refused = white->of_type("error");
    ASSERT_EQ(refused.size(), 1u);
    EXPECT_EQ(refused[0]["code"], "unavailable");
    EXPECT_EQ(refused[0]["id"], "r1");
    repository.complete();
    executor->drain();
    repository.complete();
    executor->drain();
    EXPECT_TRUE(repository.waiting.empty()) << "the refused resignation was never run";
    EXPECT_EQ(black->of_type("moved").size(), 2u);
    EXPECT_TRUE(black->of_type("ended").empty());
}

TEST_F(RoomTest, ARefusalIsAnsweredAtOnceWithoutAWrite) {
    open_game();
    move(black, "e7e5", 0, "m1");
    EXPECT_EQ(repository.writes.size(), 1u);
    const auto errors = black->of_type("error");
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0]["code"], "not_your_turn");
    EXPECT_EQ(errors[0]["id"], "m1");
}

TEST_F(RoomTest, AReSentMoveIsAnsweredWithItsFirstEventAgain) {
    open_game();
    move(white, "e2e4", 0, "m1");
    repository.complete();
    executor->drain();
    move(white, "e4", 0, "m1-again");
    EXPECT_EQ(repository.waiting.size(), 0u) << "never played twice";
    const auto moved = white->of_type("moved");
    ASSERT_EQ(moved.size(), 2u);
    EXPECT_EQ(moved[1]["id"], "m1-again");
    EXPECT_EQ(moved[1]["seq"], moved[0]["seq"]);
}

TEST_F(RoomTest, TheFlagTimerEndsTheGameOnTime) {
    open_timed_game_after_e4_e5(protocol::ClockSpec{5'000, 0});
    ASSERT_GE(executor->armed(), 1u) << "White's flag";
    executor->advance(4'999ms);
    EXPECT_TRUE(repository.waiting.empty()) << "not before the time is up";
    executor->advance(2ms);
    ASSERT_EQ(repository.waiting.size(), 1u);
    EXPECT_EQ(repository.last<storage::EndGame>().ending.reason, protocol::EndReason::timeout);
    EXPECT_EQ(repository.last<storage::EndGame>().clock_ms,
              (std::array<std::int64_t, 2>{0, 5'000}));
    repository.complete();
    executor->drain();
    const auto ended = black->of_type("ended");
    ASSERT_EQ(ended.size(), 1u);
    EXPECT_EQ(ended[0]["reason"], "timeout");
    EXPECT_EQ(ended[0]["result"], "0-1");
    EXPECT_EQ(host.listed.back(), "ended");
}

// protocol.md, Lag compensation: the room gives the table the mover's connection's round trip
// and the think time it reported; the table credits the lag, which is stored and sent.
TEST_F(RoomTest, AMoveIsCreditedTheLagOfItsConnection) {
    open_timed_game_after_e4_e5(protocol::ClockSpec{60'000, 0});
    white->measured_round_trip = 200ms;
    time.advance(300ms);
    submit(white, protocol::MoveRequest{"g1", "g1f3", 2, 90});
    const auto& write = repository.last<storage::AppendMove>();
    EXPECT_EQ(write.move.think_ms, 300);
    EXPECT_EQ(write.move.lag_ms, 210) << "300 ms on the server, 90 of them thinking";
    EXPECT_EQ(write.move.clock_ms, 60'000 - 90);
    repository.complete();
    executor->drain();
    EXPECT_EQ(black->of_type("moved").back()["clock"]["white_ms"], 59'910);

    // Black's connection has no round trip measured: it is charged the whole time.
    time.advance(400ms);
    submit(black, protocol::MoveRequest{"g1", "b8c6", 3, 0});
    EXPECT_EQ(repository.last<storage::AppendMove>().move.lag_ms, 0);
    EXPECT_EQ(repository.last<storage::AppendMove>().move.clock_ms, 60'000 - 400);
}

TEST_F(RoomTest, ALeavingPlayerIsAnnouncedAndTheOpponentMayClaimLater) {
    open_game();
    room->leave(black);
    executor->drain();
    ASSERT_EQ(repository.waiting.size(), 1u);
    repository.complete();
    executor->drain();
    const auto presence = white->of_type("presence");
    ASSERT_EQ(presence.size(), 1u);
    EXPECT_EQ(presence[0]["connected"], false);
    EXPECT_EQ(presence[0]["claim_after_ms"], 60'000);
    submit(white, protocol::Claim{"g1", protocol::ClaimKind::win}, "c1");
    EXPECT_EQ(white->of_type("error").at(0)["code"], "not_allowed");
    time.advance(60'000ms);
    submit(white, protocol::Claim{"g1", protocol::ClaimKind::win}, "c2");
    ASSERT_EQ(repository.waiting.size(), 1u);
    repository.complete();
    executor->drain();
    EXPECT_EQ(white->of_type("ended").at(0)["reason"], "abandoned");
    EXPECT_EQ(white->of_type("ended").at(0)["id"], "c2");
}

// The player leaves a timed game while the engine thinks about its first move; the engine then
// moves and the clock runs. When the unload timer (armed before both sides had moved) fires, the
// game leaves memory all the same (a day's clock must not pin it there), but only once storage
// has its clocks and the moment its flag falls, and the host is told that moment so that it
// brings the game back to flag it on time.
TEST_F(RoomTest, ATimedGameLeftDuringTheEnginesFirstThinkLeavesMemoryWithItsFlagDeadline) {
    HeldEngines engines;
    context.engines = &engines;
    begin_room(seats_of(SeatSpec{"Held (level 1)", "token-e", {}, "held", 1}),
               protocol::ClockSpec{300'000, 0});
    repository.complete();
    executor->drain();

    move(white, "e2e4", 0);
    repository.complete();
    executor->drain();
    ASSERT_EQ(engines.agent->questions.size(), 1u);
    ASSERT_TRUE(engines.agent->answer);

    room->leave(white);
    executor->drain();
    while (!repository.waiting.empty()) {
        repository.complete();  // the player's presence
        executor->drain();
    }
    executor->post([answer = engines.agent->answer] { answer(std::string("e7e5")); });
    executor->drain();
    ASSERT_EQ(repository.waiting.size(), 1u);
    EXPECT_EQ(repository.last<storage::AppendMove>().move.move, "e7e5");
    repository.complete();
    executor->drain();
    const auto flag_at = time.now() + 300'000ms;  // White's clock runs from the engine's move

    executor->advance(context.config.disconnect_timeout + 1ms);
    ASSERT_EQ(repository.waiting.size(), 1u) << "the clocks and the deadline are stored first";
    const auto parked = repository.last<storage::StoreClocks>();
    ASSERT_TRUE(parked.parked_flag);
    EXPECT_EQ(parked.parked_flag->at_ms,
              time.unix_ms() + 300'000 - context.config.disconnect_timeout.count() - 1);
    EXPECT_EQ(parked.clock_ms[0], 300'000 - context.config.disconnect_timeout.count() - 1);
    EXPECT_EQ(host.unloaded, 0) << "not before the deadline is stored";
    repository.complete();
    executor->drain();
    EXPECT_EQ(host.unloaded, 1);
    ASSERT_TRUE(host.parked_flag);
    EXPECT_EQ(*host.parked_flag, flag_at);
    executor->advance(300'000ms);
    EXPECT_TRUE(repository.waiting.empty()) << "out of memory: the host's timer flags it";
}

// The link of Black's connection died without a FIN; before its silence is long enough to drop
// it, Black comes back on a new connection. White is told Black was gone and is back.
TEST_F(RoomTest, AResumeThatReplacesAHalfOpenConnectionTellsTheOthersGoneThenBack) {
    open_game();
    black->answering = false;
    auto again = std::make_shared<RecordingPeer>(3);
    submit(again, protocol::Resume{"g1", "token-b", std::nullopt}, "r1");
    EXPECT_EQ(again->of_type("state").at(0)["id"], "r1");
    EXPECT_EQ(black->of_type("seat_lost").size(), 1u);
    for (int write = 0; write < 2; ++write) {
        ASSERT_EQ(repository.waiting.size(), 1u) << "presence " << write;
        repository.complete();
        executor->drain();
    }
    const auto presence = white->of_type("presence");
    ASSERT_EQ(presence.size(), 2u);
    EXPECT_EQ(presence[0]["seat"], "black");
    EXPECT_EQ(presence[0]["connected"], false);
    EXPECT_EQ(presence[1]["connected"], true);
    EXPECT_EQ(presence[1]["seq"], presence[0]["seq"].get<int>() + 1);
    EXPECT_EQ(again->of_type("presence").size(), 2u) << "the resumed seat hears them in order too";
    EXPECT_TRUE(black->of_type("presence").empty()) << "the replaced connection is out of it";
    // Back for good: no claim against Black.
    submit(white, protocol::Claim{"g1", protocol::ClaimKind::win}, "c1");
    EXPECT_EQ(white->of_type("error").at(0)["code"], "not_allowed");
}

// The same takeover from a connection that still answers (another device of a player who never
// left) is no presence at all.
TEST_F(RoomTest, AResumeThatReplacesAnAnsweringConnectionIsSilent) {
    open_game();
    auto again = std::make_shared<RecordingPeer>(3);
    submit(again, protocol::Resume{"g1", "token-b", std::nullopt}, "r1");
    EXPECT_EQ(black->of_type("seat_lost").size(), 1u);
    EXPECT_TRUE(repository.waiting.empty());
    EXPECT_TRUE(white->of_type("presence").empty());
}

// ---- rated games (issue 40) -----------------------------------------------------------------

struct RatedRoomTest : RoomTest {
    RatingBook book;

    /// A rated blitz chess game between accounts 1 (Ana, white) and 2 (Bo, black), created.
    void open_rated_game() {
        context.ratings = &book;
        storage::GameRow header;
        header.id = "g1";
        header.variant = rules::Variant::chess;
        auto game = rules::make_game(rules::Variant::chess, "").value();
        header.initial_position = game->initial_position();
        header.clock_initial_ms = 180'000;
        header.clock_increment_ms = 2'000;
        header.status = protocol::GameStatus::playing;
        header.rated = true;
        SeatSpec ana{"Ana", "token-a", {white}, "", 0, 1, protocol::PlayerRating{1500, true}};
        SeatSpec bo{"Bo", "token-b", {black}, "", 0, 2, protocol::PlayerRating{1500, true}};
        room = GameRoom::create(context, executor, header, std::move(game),
                                {std::move(ana), std::move(bo)}, "c1");
        room->begin_creation();
        executor->drain();
        repository.complete();
        executor->drain();
    }
};

TEST_F(RatedRoomTest, TheEndOfARatedGameCarriesItsRatingsInTheIntentAndTheEvent) {
    open_rated_game();
    submit(white, protocol::Resign{"g1"}, "r1");
    const auto& end = repository.last<storage::EndGame>();
    ASSERT_TRUE(end.ratings.has_value());
    EXPECT_EQ(end.ratings->speed, "blitz");
    EXPECT_EQ(end.ratings->seats[0].user_id, 1);
    EXPECT_EQ(end.ratings->seats[1].user_id, 2);
    EXPECT_LT(end.ratings->seats[0].diff, 0);
    EXPECT_EQ(end.ratings->seats[1].diff, -end.ratings->seats[0].diff);
    EXPECT_TRUE(black->of_type("ended").empty()) << "nobody hears of the end before its commit";
    repository.complete();
    executor->drain();
    const auto ended = black->of_type("ended").at(0);
    EXPECT_EQ(ended["ratings"]["black"]["before"], 1500);
    EXPECT_EQ(ended["ratings"]["black"]["diff"], end.ratings->seats[1].diff);
    EXPECT_EQ(ended["ratings"]["white"]["after"], 1500 + end.ratings->seats[0].diff);
    EXPECT_GT(
        book.current(2, Perf{rules::Variant::chess, RatedSpeed::blitz}, time.unix_ms()).rating,
        1500.0);
}

TEST_F(RatedRoomTest, ARatedEndWhoseCommitFailsChangesNoRating) {
    open_rated_game();
    submit(white, protocol::Resign{"g1"}, "r1");
    const int diff = repository.last<storage::EndGame>().ratings->seats[1].diff;
    repository.complete(/*ok=*/false);
    executor->drain();
    const Perf pool{rules::Variant::chess, RatedSpeed::blitz};
    EXPECT_EQ(book.current(1, pool, time.unix_ms()), glicko2::Rating{});
    EXPECT_EQ(book.current(2, pool, time.unix_ms()), glicko2::Rating{});
    // The resignation again rates from the ratings as they were, once.
    submit(white, protocol::Resign{"g1"}, "r2");
    EXPECT_EQ(repository.last<storage::EndGame>().ratings->seats[1].diff, diff);
}

// Two rated games of a player ending at once on two nodes: the second end's write finds the
// player's row counting one more game than it was rated from (stale). Its room reads the stored
// rows again and rates once more, from them, before anybody hears of the end.
TEST_F(RatedRoomTest, ARatedEndFoundStaleIsRatedAgainFromTheStoredRows) {
    const Perf pool{rules::Variant::chess, RatedSpeed::blitz};
    // What the other node committed meanwhile: Bo won a game there.
    const storage::RatingRow bo_elsewhere{rules::Variant::chess, "blitz", 1662.3, 290.3, 0.06, 1,
                                          time.unix_ms(),        2};
    int reads = 0;
    book.set_source([&](std::int64_t user) {
        ++reads;
        return Expected<std::vector<storage::RatingRow>, storage::StorageError>(
            user == 2 ? std::vector<storage::RatingRow>{bo_elsewhere}
                      : std::vector<storage::RatingRow>{});
    });
    open_rated_game();
    submit(white, protocol::Resign{"g1"}, "r1");
    EXPECT_EQ(repository.last<storage::EndGame>().ratings->seats[1].games_before, 0);
    const std::size_t writes = repository.writes.size();
    repository.complete_stale();
    executor->drain();
    EXPECT_EQ(reads, 2);
    EXPECT_TRUE(black->of_type("ended").empty()) << "nothing is told of a stale end";
    EXPECT_TRUE(white->reply_to("r1").is_null());
    ASSERT_EQ(repository.writes.size(), writes + 1) << "the end is written again";
    const auto& again = repository.last<storage::EndGame>();
    ASSERT_TRUE(again.ratings.has_value());
    EXPECT_EQ(again.ratings->seats[1].games_before, 1);
    EXPECT_EQ(again.ratings->seats[0].games_before, 0);
    repository.complete();
    executor->drain();
    const auto ended = black->of_type("ended").at(0);
    EXPECT_EQ(ended["ratings"]["black"]["before"], 1662) << "rated from the stored row";
    EXPECT_EQ(book.entry(2, pool)->games, 2);
}

// A rated end that stays stale (the rows cannot be read, or keep moving) is refused as any
// failed write, after a bounded number of tries, and rates nobody.
TEST_F(RatedRoomTest, ARatedEndThatStaysStaleIsRefusedAfterItsTries) {
    book.set_source([](std::int64_t) {
        return Expected<std::vector<storage::RatingRow>, storage::StorageError>(
            std::vector<storage::RatingRow>{});
    });
    open_rated_game();
    submit(white, protocol::Resign{"g1"}, "r1");
    for (int attempt = 0; attempt < GameRoom::kRatingAttempts; ++attempt) {
        repository.complete_stale();
        executor->drain();
    }
    EXPECT_TRUE(repository.waiting.empty());
    EXPECT_EQ(white->reply_to("r1")["code"], "unavailable");
    EXPECT_FALSE(book.entry(1, Perf{rules::Variant::chess, RatedSpeed::blitz}).has_value());
}

TEST_F(RatedRoomTest, AnAbortChangesNoRating) {
    open_rated_game();
    submit(white, protocol::Abort{"g1"}, "a1");
    EXPECT_FALSE(repository.last<storage::EndGame>().ratings.has_value());
}

TEST_F(RatedRoomTest, AConnectionSignedInAsASeatsAccountResumesItWithoutTheToken) {
    open_rated_game();
    auto other_device = std::make_shared<RecordingPeer>(3);
    room->submit(RoomRequest{other_device, "x1", protocol::Resume{"g1", "", std::nullopt}, "",
                             time.now(), AccountUser{1, "Ana"}});
    executor->drain();
    EXPECT_EQ(other_device->reply_to("x1")["type"], "state");
    EXPECT_EQ(other_device->reply_to("x1")["you"], "white");
    EXPECT_EQ(white->of_type("seat_lost").size(), 1u);
    auto stranger = std::make_shared<RecordingPeer>(4);
    room->submit(RoomRequest{stranger, "x2", protocol::Resume{"g1", "", std::nullopt}, "",
                             time.now(), AccountUser{3, "Cy"}});
    executor->drain();
    EXPECT_EQ(stranger->reply_to("x2")["code"], "forbidden");
}

}  // namespace
}  // namespace arbiter::server::app
