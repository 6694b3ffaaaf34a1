#pragma once
/// \file
/// The statements both engines' writers run (the intents of games, accounts and analyses),
/// written once with SQLite's `?N` parameters (PostgreSQL's writer turns them into `$N`:
/// pg::numbered_parameters). The same tables and
/// columns in both schemas make the same text right for both; a statement whose SQL differs
/// between the engines (booleans, the journal, an upsert's column names) stays with its writer.
/// Each intent updates only the columns it names (intent_writer.cpp says why for SQLite).
/// Internal to arbiter_storage.

#include <cstdint>
#include <string>
#include <string_view>

#include "server/storage/stored_game.hpp"

namespace arbiter::server::storage::detail {

// A move's row, ?1 game, ?2 the move's ply, ?3 ?4 the clocks, ?5 seq, ?6 updated_ms: only if
// the game is at the ply before, so that no move lands after a gap or over a stored one.
inline constexpr std::string_view kAppendSql =
    "UPDATE games SET ply = ?2, first_clock_ms = ?3, second_clock_ms = ?4, seq = ?5, "
    "updated_ms = ?6, offers = '' WHERE id = ?1 AND ply = ?2 - 1";
// The same, for the move that ends its game: ?7 status, ?8 result, ?9 reason.
inline constexpr std::string_view kAppendEndingSql =
    "UPDATE games SET ply = ?2, first_clock_ms = ?3, second_clock_ms = ?4, seq = ?5, "
    "updated_ms = ?6, offers = '', status = ?7, result = ?8, reason = ?9 "
    "WHERE id = ?1 AND ply = ?2 - 1";
// The same parameters, the ply being the one taken back to: never past the game's ply.
inline constexpr std::string_view kTakeBackSql =
    "UPDATE games SET ply = ?2, first_clock_ms = ?3, second_clock_ms = ?4, seq = ?5, "
    "updated_ms = ?6, offers = '' WHERE id = ?1 AND ply >= ?2";

inline constexpr std::string_view kInsertGameSql =
    "INSERT INTO games (id, variant, initial_position, is_private, clock_initial_ms, "
    "clock_increment_ms, status, result, reason, first_name, first_token_hash, second_name, "
    "second_token_hash, first_clock_ms, second_clock_ms, seq, ply, created_ms, updated_ms, "
    "rematch_of, rematch_next, first_engine, first_engine_level, second_engine, "
    "second_engine_level, offers, first_user_id, second_user_id, rated, rating_min, rating_max, "
    "first_rating, second_rating, first_rating_diff, second_rating_diff, "
    "first_rating_provisional, second_rating_provisional, first_rating_after_provisional, "
    "second_rating_after_provisional) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
    "?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, "
    "?37, ?38, ?39)";

inline constexpr std::string_view kSelectMoveSql =
    "SELECT move FROM moves WHERE game_id = ?1 AND ply = ?2";
inline constexpr std::string_view kSelectPlySql = "SELECT ply FROM games WHERE id = ?1";
inline constexpr std::string_view kDeleteMovesAfterSql =
    "DELETE FROM moves WHERE game_id = ?1 AND ply > ?2";
inline constexpr std::string_view kSetOffersSql =
    "UPDATE games SET offers = ?2, first_clock_ms = ?3, second_clock_ms = ?4, seq = ?5 "
    "WHERE id = ?1";
inline constexpr std::string_view kRecordEventSql =
    "UPDATE games SET first_clock_ms = ?2, second_clock_ms = ?3, seq = ?4 WHERE id = ?1";
inline constexpr std::string_view kInsertChatSql =
    "INSERT INTO chat_messages (game_id, seq, room, author, seat, text, at_ms) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
inline constexpr std::string_view kEndGameSql =
    "UPDATE games SET status = ?2, result = ?3, reason = ?4, offers = '', "
    "first_clock_ms = ?5, second_clock_ms = ?6, seq = ?7, updated_ms = ?8 WHERE id = ?1";
inline constexpr std::string_view kLinkRematchSql =
    "UPDATE games SET rematch_next = ?2, offers = '', seq = ?3 WHERE id = ?1";
inline constexpr std::string_view kStoreClocksSql =
    "UPDATE games SET first_clock_ms = ?2, second_clock_ms = ?3, updated_ms = ?4, "
    "flag_at_ms = ?5, flag_at_seq = ?6 WHERE id = ?1";
// A rated game's end: ?1 user, ?2 variant, ?3 speed, ?4 at, ?5 game, ?6 rating, ?7 deviation.
inline constexpr std::string_view kInsertRatingHistorySql =
    "INSERT INTO rating_history (user_id, variant, speed, at_ms, game_id, rating, deviation) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

// --- accounts (account_store.hpp) ---------------------------------------------------------

/// What both engines answer when an account's write changed no row: the username was taken
/// (StorageError::taken), or there is no such user to `what` ("sign in", "delete", "change").
StorageError username_taken(const std::string& username);
StorageError no_user_to(std::int64_t user_id, std::string_view what);
/// What both engines answer when a rating row no longer counts the games a rated end was
/// computed from (StorageError::stale).
StorageError stale_rating(std::int64_t user_id, std::string_view variant, std::string_view speed);
// ?1 username, ?2 its key, ?3 the password hash, ?4 created_ms. A taken key changes no row, and
// says so through the count of changed rows: no constraint error to tell apart from a real one.
inline constexpr std::string_view kInsertUserSql =
    "INSERT INTO users (username, username_key, password_hash, created_ms) "
    "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (username_key) DO NOTHING";
// ?1 token hash, ?2 user, ?3 created_ms, ?4 last_seen_ms. The user must exist and not be
// deleted; the SELECT finds nothing otherwise, and no row changes. (PostgreSQL types the SELECT
// list's parameters by the columns they are inserted into.)
inline constexpr std::string_view kInsertSessionSql =
    "INSERT INTO sessions (token_hash, user_id, created_ms, last_seen_ms) "
    "SELECT ?1, id, ?3, ?4 FROM users WHERE id = ?2 AND deleted_ms IS NULL";
inline constexpr std::string_view kDeleteSessionSql = "DELETE FROM sessions WHERE token_hash = ?1";
// ?1 user, ?2 the token hash of the session that stays.
inline constexpr std::string_view kDeleteOtherSessionsSql =
    "DELETE FROM sessions WHERE user_id = ?1 AND token_hash != ?2";
// ?1 user, ?2 deleted_ms: no row changes when the user is deleted already.
inline constexpr std::string_view kMarkUserDeletedSql =
    "UPDATE users SET deleted_ms = ?2 WHERE id = ?1 AND deleted_ms IS NULL";
inline constexpr std::string_view kDeleteUserSessionsSql =
    "DELETE FROM sessions WHERE user_id = ?1";
inline constexpr std::string_view kSetPasswordHashSql =
    "UPDATE users SET password_hash = ?2 WHERE id = ?1";

// --- analyses (analysis_store.hpp) ----------------------------------------------------------
// The columns of an `analyses` row, in the order the readers read them.
inline constexpr std::string_view kAnalysisColumns =
    "game_id, status, engine, done, total, plies, accuracy, counts, requested_ms, updated_ms";
// The analysis as it stands: ?1...?10 in kAnalysisColumns order. A row there already keeps its
// requested_ms. A game that is not stored fails on the foreign key.
inline constexpr std::string_view kUpsertAnalysisSql =
    "INSERT INTO analyses (game_id, status, engine, done, total, plies, accuracy, counts, "
    "requested_ms, updated_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
    "ON CONFLICT (game_id) DO UPDATE SET status = excluded.status, engine = excluded.engine, "
    "done = excluded.done, total = excluded.total, plies = excluded.plies, "
    "accuracy = excluded.accuracy, counts = excluded.counts, updated_ms = excluded.updated_ms";

/// A seat taken ("first" or "second"): ?2 name, ?3 token hash, ?4 engine, ?5 level, ?6 seq,
/// ?7 updated_ms, ?8 the account, ?9 its rating then, ?10 whether that was provisional.
std::string seat_sql(std::string_view seat);
/// A move's row: ?1 game, then kMoveColumns in order; a row already at that ply stays.
std::string insert_move_sql();

}  // namespace arbiter::server::storage::detail
