#include "server/storage/intent_sql.hpp"

#include "server/storage/row_terms.hpp"

namespace arbiter::server::storage::detail {

std::string seat_sql(std::string_view seat) {
    const std::string s(seat);
    return "UPDATE games SET " + s + "_name = ?2, " + s + "_token_hash = ?3, " + s +
           "_engine = ?4, " + s + "_engine_level = ?5, status = 'playing', seq = ?6, " +
           "updated_ms = ?7, " + s + "_user_id = ?8, " + s + "_rating = ?9, " + s +
           "_rating_provisional = ?10 WHERE id = ?1";
}

std::string insert_move_sql() {
    return "INSERT INTO moves (game_id, " + std::string(kMoveColumns) +
           ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT (game_id, ply) DO "
           "NOTHING";
}

StorageError username_taken(const std::string& username) {
    return StorageError{"the username '" + username + "' is taken", true};
}

StorageError no_user_to(std::int64_t user_id, std::string_view what) {
    return StorageError{"no user " + std::to_string(user_id) + " to " + std::string(what)};
}

StorageError stale_rating(std::int64_t user_id, std::string_view variant, std::string_view speed) {
    StorageError stale{"the " + std::string(variant) + " " + std::string(speed) +
                       " rating of user " + std::to_string(user_id) +
                       " changed since this end was rated (another game of theirs ended): "
                       "nothing was changed"};
    stale.stale = true;
    return stale;
}

}  // namespace arbiter::server::storage::detail
