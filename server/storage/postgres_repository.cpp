#include "server/storage/postgres_repository.hpp"

#include <algorithm>
#include <utility>
#include <variant>

#include "common/core/overloaded.hpp"
#include "server/storage/postgres_accounts.hpp"
#include "server/storage/postgres_analyses.hpp"
#include "server/storage/postgres_intents.hpp"
#include "server/storage/postgres_migrations.hpp"
#include "server/storage/postgres_reads.hpp"

namespace arbiter::server::storage {

namespace {

StorageError prefixed(const std::string& what, const StorageError& error) {
    return StorageError{what + ": " + error.message, error.taken, error.fenced};
}

// The batch did not commit: every write not refused already fails with `error`.
void fail_the_rest(std::vector<Expected<void, StorageError>>& results, const StorageError& error) {
    for (auto& result : results) {
        if (result) {
            result = unexpected(error);
        }
    }
}

// One schema, one kind of writer. A single node (no node identity) restores and writes every
// unfinished game, so it must be the schema's only server; cluster nodes share it, each writing
// the games it owns. A session lock on the writer's connection (exclusive for a single node,
// shared for a cluster node) says which: it ends with the connection (a stop, a crash, a lost
// link), and ready_writer() takes it again after every reconnect, so a server that lost it to
// another commits nothing more.
Expected<void, StorageError> take_writer_lock(pg::Connection& writer, bool cluster_node) {
    auto held = writer.query(
        cluster_node
            ? "SELECT pg_try_advisory_lock_shared(hashtext('arbiter_writers:' || current_schema()))"
            : "SELECT pg_try_advisory_lock(hashtext('arbiter_writers:' || current_schema()))");
    if (!held) {
        return unexpected(prefixed("taking the writers' lock", held.error()));
    }
    if (!held->boolean(0, 0)) {
        return unexpected(StorageError{
            cluster_node ? "a single-node arbiter-server (one without a node id) writes to this "
                           "database: cluster nodes cannot share it with one"
                         : "another arbiter-server writes to this database: a server without a "
                           "node id must be its only one (run every server as a cluster node "
                           "to share it)"});
    }
    return {};
}

}  // namespace

Expected<std::unique_ptr<PostgresRepository>, StorageError> PostgresRepository::open(
    const std::string& conninfo, const PostgresOptions& options) {
    if (options.max_batch == 0) {
        return unexpected(StorageError{"max_batch must be at least 1"});
    }
    if (options.node) {
        if (auto valid = check_node_identity(*options.node); !valid) {
            return unexpected(valid.error());
        }
    }
    auto writer = pg::Connection::open(conninfo);
    if (!writer) {
        return unexpected(std::move(writer).error());
    }
    if (auto migrated = migrate_postgres(*writer, postgres_migrations()); !migrated) {
        return unexpected(migrated.error());
    }
    auto reader = pg::Connection::open(conninfo);
    if (!reader) {
        return unexpected(std::move(reader).error());
    }
    auto probe = pg::Connection::open(conninfo);
    if (!probe) {
        return unexpected(std::move(probe).error());
    }
    std::unique_ptr<PostgresRepository> repository(
        new PostgresRepository(conninfo, options, std::move(writer).value(),
                               std::move(reader).value(), std::move(probe).value()));
    if (options.node) {
        auto ownership = detail::GameOwnership::open(conninfo, *options.node);
        if (!ownership) {
            return unexpected(std::move(ownership).error());
        }
        repository->ownership_ = std::move(ownership).value();
    }
    if (auto ready = repository->ready_writer(); !ready) {
        return unexpected(ready.error());
    }
    repository->thread_ = std::thread([raw = repository.get()] { raw->run(); });
    return repository;
}

std::string PostgresRepository::describe(const std::string& conninfo) {
    return pg::shown_conninfo(conninfo);
}

PostgresRepository::PostgresRepository(std::string conninfo, const PostgresOptions& options,
                                       pg::Connection writer, pg::Connection reader,
                                       pg::Connection probe)
    : conninfo_(std::move(conninfo)),
      options_(options),
      reader_(std::move(reader)),
      probe_(std::move(probe)),
      writer_(std::move(writer)) {}

PostgresRepository::~PostgresRepository() {
    {
        std::lock_guard lock(queue_mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) {
        thread_.join();
    }
}

// --- writes ------------------------------------------------------------------------------------

void PostgresRepository::write(GameIntent intent, Done done) {
    submit(std::move(intent), std::move(done));
}

void PostgresRepository::submit(detail::WriteIntent intent, Done done) {
    {
        std::lock_guard lock(queue_mutex_);
        queue_.push_back(Pending{std::move(intent), std::move(done)});
        ++submitted_;
    }
    wake_.notify_one();
}

void PostgresRepository::flush() {
    std::unique_lock lock(queue_mutex_);
    const std::uint64_t target = submitted_;
    drained_.wait(lock, [&] { return completed_ >= target; });
}

void PostgresRepository::run() {
    for (;;) {
        std::vector<Pending> batch;
        {
            std::unique_lock lock(queue_mutex_);
            wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) {
                return;  // stopping, and every write submitted before has committed
            }
            while (!queue_.empty() && batch.size() < options_.max_batch) {
                batch.push_back(std::move(queue_.front()));
                queue_.pop_front();
            }
        }
        auto results = commit_batch(batch);
        // After COMMIT returned: only now may anyone learn that a write is stored.
        for (std::size_t i = 0; i < batch.size(); ++i) {
            if (batch[i].done) {
                batch[i].done(std::move(results[i]));
            }
        }
        {
            std::lock_guard lock(queue_mutex_);
            completed_ += batch.size();
        }
        drained_.notify_all();
    }
}

Expected<void, StorageError> PostgresRepository::ready_writer() {
    if (writer_ready_ && writer_.connected()) {
        return {};
    }
    if (!writer_.connected()) {
        if (auto reconnected = writer_.reset(); !reconnected) {
            return reconnected;
        }
    }
    writer_ready_ = false;
    const char* level = options_.synchronous == Synchronous::full ? "on" : "off";
    if (auto set = writer_.exec(std::string("SET synchronous_commit = ") + level); !set) {
        return set;
    }
    if (auto locked = take_writer_lock(writer_, ownership_ != nullptr); !locked) {
        return locked;
    }
    if (ownership_) {
        if (auto set = writer_.exec(ownership_->session_settings()); !set) {
            return set;
        }
    }
    if (auto prepared = detail::PostgresIntentWriter::prepare(writer_, ownership_ != nullptr);
        !prepared) {
        return prepared;
    }
    if (auto prepared = detail::PostgresAccountWriter::prepare(writer_); !prepared) {
        return prepared;
    }
    if (auto prepared = detail::PostgresAnalysisWriter::prepare(writer_); !prepared) {
        return prepared;
    }
    writer_ready_ = true;
    return {};
}

std::vector<Expected<void, StorageError>> PostgresRepository::commit_batch(
    const std::vector<Pending>& batch) {
    std::vector<Expected<void, StorageError>> results(batch.size());
    // Games this batch created as this node's: held from their create on (a later intent of the
    // batch writes them under their fence), let go if the transaction does not commit.
    std::vector<std::string> created;
    const auto fail_all = [&](const StorageError& error) {
        fail_the_rest(results, error);
        for (const auto& id : created) {
            ownership_->forget(id);
        }
        return std::move(results);
    };
    if (auto ready = ready_writer(); !ready) {
        return fail_all(prefixed("writing to PostgreSQL", ready.error()));
    }
    if (auto pipelined = commit_pipelined(batch)) {
        return std::move(*pipelined);
    }
    auto transaction = pg::Transaction::begin(writer_);
    if (!transaction) {
        writer_ready_ = writer_.connected();
        return fail_all(prefixed("starting a write", transaction.error()));
    }
    const auto creates = [](const Pending& pending) {
        const auto* game = std::get_if<GameIntent>(&pending.intent);
        return game != nullptr && std::holds_alternative<CreateGame>(*game);
    };
    if (ownership_ && std::any_of(batch.begin(), batch.end(), creates)) {
        auto locked = detail::PostgresIntentWriter(writer_, true)
                          .lock_node_row(ownership_->node_id(), ownership_->incarnation());
        if (!locked) {
            return fail_all(prefixed("writing", locked.error()));
        }
    }
    for (std::size_t i = 0; i < batch.size(); ++i) {
        std::optional<detail::OwnerFence> fence;
        const auto* game = std::get_if<GameIntent>(&batch[i].intent);
        if (ownership_ && game != nullptr) {
            // A game this node does not hold is refused before the database is asked.
            auto held = ownership_->fence_for(*game);
            if (!held) {
                results[i] = unexpected(std::move(held).error());
                continue;
            }
            fence = std::move(held).value();
        }
        // A failed statement aborts the whole transaction in PostgreSQL: each intent in its own
        // savepoint, so that one that does not apply is undone alone and the others commit.
        if (auto saved = writer_.exec("SAVEPOINT intent"); !saved) {
            return fail_all(prefixed("writing", saved.error()));
        }
        results[i] = apply(batch[i].intent, fence ? &*fence : nullptr);
        auto ended =
            writer_.exec(results[i] ? "RELEASE SAVEPOINT intent" : "ROLLBACK TO SAVEPOINT intent");
        if (!ended) {
            return fail_all(prefixed("writing", ended.error()));
        }
        if (results[i] && fence) {
            ownership_->applied(*game, *fence);
            if (const auto* create = std::get_if<CreateGame>(game)) {
                created.push_back(create->header.id);
            }
        }
    }
    if (auto committed = transaction->commit(); !committed) {
        writer_ready_ = writer_.connected();
        return fail_all(prefixed("committing", committed.error()));
    }
    return results;
}

std::optional<std::vector<Expected<void, StorageError>>> PostgresRepository::commit_pipelined(
    const std::vector<Pending>& batch) {
    std::vector<Expected<void, StorageError>> results(batch.size());
    std::vector<pg::Statement> statements{pg::Statement{{}, {}, "BEGIN"}};
    std::vector<detail::Step::Expect> expected;  // each statement's after BEGIN
    detail::PostgresIntentWriter writer(writer_, ownership_ != nullptr);
    for (std::size_t i = 0; i < batch.size(); ++i) {
        const auto* game = std::get_if<GameIntent>(&batch[i].intent);
        // A CreateGame is the fence of the batch's later writes of its game (applied()): those
        // go one by one, as do the other stores' writes.
        if (game == nullptr || std::holds_alternative<CreateGame>(*game)) {
            return std::nullopt;
        }
        std::optional<detail::OwnerFence> fence;
        if (ownership_) {
            // A game this node does not hold is refused before the database is asked.
            auto held = ownership_->fence_for(*game);
            if (!held) {
                results[i] = unexpected(std::move(held).error());
                continue;
            }
            fence = std::move(held).value();
        }
        for (detail::Step& step : writer.plan(*game, fence ? &*fence : nullptr)) {
            statements.push_back(std::move(step.statement));
            expected.push_back(step.expect);
        }
    }
    auto answers = writer_.pipeline(statements);
    if (!answers) {
        writer_ready_ = false;
        fail_the_rest(results, prefixed("writing", answers.error()));
        return results;
    }
    auto transaction = pg::Transaction::begun(writer_);
    bool as_planned = (*answers)[0].has_value();
    for (std::size_t i = 0; as_planned && i < expected.size(); ++i) {
        const auto& answer = (*answers)[i + 1];
        as_planned = answer && detail::Step::answered(expected[i], *answer);
    }
    if (!as_planned) {
        transaction.rollback();
        writer_ready_ = writer_.connected();
        return std::nullopt;
    }
    if (auto committed = transaction.commit(); !committed) {
        writer_ready_ = writer_.connected();
        fail_the_rest(results, prefixed("committing", committed.error()));
        return results;
    }
    ++pipelined_batches_;
    return results;
}

Expected<void, StorageError> PostgresRepository::apply(const detail::WriteIntent& intent,
                                                       const detail::OwnerFence* fence) {
    return std::visit(Overloaded{
                          [&](const GameIntent& game) {
                              return detail::PostgresIntentWriter(writer_, ownership_ != nullptr)
                                  .apply(game, fence);
                          },
                          [this](const AccountIntent& account) {
                              return detail::PostgresAccountWriter(writer_).apply(account);
                          },
                          [this](const SaveAnalysis& save) {
                              return detail::PostgresAnalysisWriter(writer_).apply(save);
                          },
                      },
                      intent);
}

// --- reads -------------------------------------------------------------------------------------

Expected<std::vector<StoredGame>, StorageError> PostgresRepository::load_unfinished() {
    return read_snapshot("loading unfinished games",
                         [&] { return detail::load_unfinished_postgres_games(reader_); });
}

Expected<std::optional<StoredGame>, StorageError> PostgresRepository::load(const std::string& id) {
    return read_snapshot("loading game " + id,
                         [&] { return detail::load_postgres_game(reader_, id); });
}

Expected<std::vector<GameRow>, StorageError> PostgresRepository::list(const GameQuery& query) {
    return read_snapshot("listing games",
                         [&] { return detail::list_postgres_games(reader_, query); });
}

// --- a cluster node's games -------------------------------------------------------------------

namespace {

StorageError single_node(const std::string& what) {
    return StorageError{what + ": this repository is a single node's (no node identity)"};
}

}  // namespace

Expected<std::vector<AdoptedGame>, StorageError> PostgresRepository::adopt_expired(
    std::size_t limit) {
    if (!ownership_) {
        return unexpected(single_node("adopting games"));
    }
    return ownership_->adopt_expired(limit);
}

Expected<std::optional<AdoptedGame>, StorageError> PostgresRepository::adopt(
    const std::string& game) {
    if (!ownership_) {
        return unexpected(single_node("adopting game " + game));
    }
    return ownership_->adopt(game);
}

Expected<std::size_t, StorageError> PostgresRepository::release_games() {
    if (!ownership_) {
        return unexpected(single_node("handing games over"));
    }
    // What was queued before this call commits; what comes after fails fenced (the epochs are
    // forgotten, nothing more is acquired), but for a batch already under way, which the
    // second flush waits for. Only then do the rows lose their owner.
    flush();
    ownership_->hand_over();
    flush();
    return ownership_->release_all();
}

void PostgresRepository::forget_games() {
    if (ownership_) {
        ownership_->hand_over();
    }
}

void PostgresRepository::rejoin(std::uint64_t incarnation) {
    if (ownership_) {
        ownership_->rejoin(incarnation);
    }
}

std::optional<std::uint64_t> PostgresRepository::epoch_of(const std::string& game) const {
    return ownership_ ? ownership_->epoch_of(game) : std::nullopt;
}

Expected<std::optional<GameOwner>, StorageError> PostgresRepository::owner_of(
    const std::string& game) {
    if (!ownership_) {
        return unexpected(single_node("reading the owner of game " + game));
    }
    return ownership_->owner_of(game);
}

std::size_t PostgresRepository::games_owned() const {
    return ownership_ ? ownership_->owned() : 0;
}

Expected<std::vector<LiveNode>, StorageError> PostgresRepository::live_nodes() {
    if (!ownership_) {
        return unexpected(single_node("reading the live nodes"));
    }
    return ownership_->live_nodes();
}

// --- health and maintenance --------------------------------------------------------------------

bool PostgresRepository::writable() {
    std::lock_guard lock(probe_mutex_);
    if (!probe_.connected() && !probe_.reset()) {
        return false;
    }
    auto primary = probe_.query("SELECT NOT pg_is_in_recovery()");
    return primary && primary->rows() == 1 && primary->boolean(0, 0);
}

std::uint64_t PostgresRepository::size_bytes() {
    std::lock_guard lock(probe_mutex_);
    if (!probe_.connected() && !probe_.reset()) {
        return 0;
    }
    auto size = probe_.query("SELECT pg_database_size(current_database())");
    return size && size->rows() == 1 ? static_cast<std::uint64_t>(size->integer(0, 0)) : 0;
}

Expected<void, StorageError> PostgresRepository::backup(const std::string& /*path*/) {
    return unexpected(
        StorageError{"a PostgreSQL database is backed up with pg_dump (or pg_basebackup), not by "
                     "arbiter-server: run `pg_dump --format=custom --file=<file> <database>`"});
}

}  // namespace arbiter::server::storage
