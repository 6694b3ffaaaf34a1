// PostgresRepository's accounts, players and analyses (database.hpp): their writes go to the one
// writer with the games' (postgres_repository.cpp), their reads each in one snapshot of the
// reads' connection.
#include <utility>

#include "server/storage/postgres_accounts.hpp"
#include "server/storage/postgres_analyses.hpp"
#include "server/storage/postgres_players.hpp"
#include "server/storage/postgres_repository.hpp"

namespace arbiter::server::storage {

// --- accounts ----------------------------------------------------------------------------------

void PostgresRepository::write_account(AccountIntent intent, AccountStore::Done done) {
    submit(std::move(intent), std::move(done));
}

Expected<std::optional<UserRow>, StorageError> PostgresRepository::find_user(
    const std::string& key) {
    return read_snapshot("finding a user",
                         [&] { return detail::find_postgres_user_by_key(reader_, key); });
}

Expected<std::optional<UserRow>, StorageError> PostgresRepository::find_user_by_id(
    std::int64_t id) {
    return read_snapshot("finding a user",
                         [&] { return detail::find_postgres_user_by_id(reader_, id); });
}

Expected<std::optional<SessionRow>, StorageError> PostgresRepository::find_session(
    const std::string& token_hash) {
    return read_snapshot("finding a session",
                         [&] { return detail::find_postgres_session(reader_, token_hash); });
}

Expected<AccountSnapshot, StorageError> PostgresRepository::load_accounts() {
    // One snapshot: no session without its user.
    return read_snapshot("loading accounts",
                         [&] { return detail::load_postgres_accounts(reader_); });
}

// --- players -----------------------------------------------------------------------------------

Expected<std::vector<RatingRow>, StorageError> PostgresRepository::ratings_of(
    std::int64_t user_id) {
    return read_snapshot("reading ratings",
                         [&] { return detail::postgres_ratings_of(reader_, user_id); });
}

Expected<GameCounts, StorageError> PostgresRepository::game_counts(std::int64_t user_id) {
    return read_snapshot("counting games",
                         [&] { return detail::postgres_game_counts(reader_, user_id); });
}

Expected<std::vector<GameRow>, StorageError> PostgresRepository::user_games(
    const UserGamesQuery& query) {
    return read_snapshot("listing a player's games",
                         [&] { return detail::postgres_user_games(reader_, query); });
}

Expected<std::vector<RatingPoint>, StorageError> PostgresRepository::rating_history(
    std::int64_t user_id) {
    return read_snapshot("reading a rating history",
                         [&] { return detail::postgres_rating_history(reader_, user_id); });
}

Expected<void, StorageError> PostgresRepository::leaderboard(const LeaderboardQuery& query,
                                                             const EachLeader& each) {
    return read_snapshot("reading a leaderboard",
                         [&] { return detail::postgres_leaderboard(reader_, query, each); });
}

Expected<std::vector<RatingRow>, StorageError> PostgresRepository::load_ratings() {
    return read_snapshot("loading ratings",
                         [&] { return detail::postgres_ratings_of(reader_, std::nullopt); });
}

// --- analyses ----------------------------------------------------------------------------------

void PostgresRepository::write_analysis(SaveAnalysis save, AnalysisStore::Done done) {
    submit(std::move(save), std::move(done));
}

Expected<std::optional<AnalysisRow>, StorageError> PostgresRepository::find_analysis(
    const std::string& game_id) {
    return read_snapshot("finding an analysis",
                         [&] { return detail::find_postgres_analysis(reader_, game_id); });
}

Expected<std::vector<AnalysisRow>, StorageError> PostgresRepository::unfinished_analyses() {
    return read_snapshot("loading unfinished analyses",
                         [&] { return detail::unfinished_postgres_analyses(reader_); });
}

}  // namespace arbiter::server::storage
