#include "server/storage/game_rows.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

namespace arbiter::server::storage::detail {

namespace {

// The column order shared by the header writes (parameters ?1…?26) and by every SELECT of a header.
constexpr std::string_view game_columns =
    "id, variant, initial_position, is_private, clock_initial_ms, clock_increment_ms, status, "
    "result, reason, first_name, first_token_hash, second_name, second_token_hash, "
    "first_clock_ms, second_clock_ms, seq, ply, created_ms, updated_ms, rematch_of, rematch_next, "
    "first_engine, first_engine_level, second_engine, second_engine_level, offers";

// A whole header is written by an UPDATE of the existing row, or an INSERT when there is none
// (only the writer thread writes, so nothing can insert the row between the two). Both take the
// parameters ?1...?26 in game_columns order, so one bind_game() serves both. Either statement
// evaluates the IN lists of the status/result/variant CHECKs, which SQLite compiles into ephemeral
// tables opened and dropped on every run: a move therefore takes update_progress_sql below.
//
// created_ms (?18) is kept from the first write: it orders the game list and is the key of
// `before` paging, so a later header must not move a game to another page.
constexpr std::string_view update_game_sql =
    "UPDATE games SET variant = ?2, initial_position = ?3, is_private = ?4, "
    "clock_initial_ms = ?5, clock_increment_ms = ?6, status = ?7, result = ?8, reason = ?9, "
    "first_name = ?10, first_token_hash = ?11, second_name = ?12, second_token_hash = ?13, "
    "first_clock_ms = ?14, second_clock_ms = ?15, seq = ?16, ply = ?17, updated_ms = ?19, "
    "rematch_of = ?20, rematch_next = ?21, first_engine = ?22, first_engine_level = ?23, "
    "second_engine = ?24, second_engine_level = ?25, offers = ?26 WHERE id = ?1";

// A move changes only these columns of its game's header. SQLite checks a CHECK constraint only
// when the UPDATE sets one of its columns, and the IN lists of the status/result/variant CHECKs
// are what compiles into the ephemeral tables, so this statement has none of them (56 VDBE
// opcodes against 170). Bound by bind_progress().
constexpr std::string_view update_progress_sql =
    "UPDATE games SET first_clock_ms = ?2, second_clock_ms = ?3, seq = ?4, ply = ?5, "
    "updated_ms = ?6 WHERE id = ?1";

constexpr std::string_view insert_game_sql =
    "INSERT INTO games (id, variant, initial_position, is_private, clock_initial_ms, "
    "clock_increment_ms, status, result, reason, first_name, first_token_hash, second_name, "
    "second_token_hash, first_clock_ms, second_clock_ms, seq, ply, created_ms, updated_ms, "
    "rematch_of, rematch_next, first_engine, first_engine_level, second_engine, "
    "second_engine_level, offers) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
    "?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)";

constexpr std::string_view move_columns =
    "ply, move, notation, position, clock_ms, think_ms, seq, played_ms, in_check";

// A journal row: the move's columns (read_move), then the header columns it changes
// (read_progress), from index 9 on.
constexpr std::string_view journal_columns =
    "ply, move, notation, position, clock_ms, think_ms, seq, played_ms, in_check, first_clock_ms, "
    "second_clock_ms, game_seq, game_ply, updated_ms";
constexpr int journal_progress_index = 9;

// The rowid is given, one past the last one this connection knows of: deleting a game's rows
// (file_game) can leave the journal's largest rowid smaller, and SQLite would then give the next
// row a rowid that a filing begun before already counts as its own (file_journal_part).
constexpr std::string_view insert_journal_sql =
    "INSERT INTO move_journal (game_id, ply, move, notation, position, clock_ms, think_ms, seq, "
    "played_ms, in_check, first_clock_ms, second_clock_ms, game_seq, game_ply, updated_ms, rowid) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)";

// Filing copies journal rows into `moves` in the order they were journaled, which is each game's
// ply order. A row whose game is gone is skipped (its moves would have been deleted with it), and
// a ply already in `moves` keeps the move there, as an append does (the journal takes only a
// game's next ply, so neither happens unless the file was changed behind the writer). Rowid order
// is the scan's own, so SQLite sorts nothing; `ORDER BY game_id, ply` sorted every filing in a
// temporary B-tree, a fifth of the filing's instructions (callgrind, arbiter-storage-bench), and
// wrote the same pages.
constexpr std::string_view file_moves_select =
    "INSERT INTO moves (game_id, ply, move, notation, position, clock_ms, think_ms, seq, "
    "played_ms, in_check) SELECT game_id, ply, move, notation, position, clock_ms, think_ms, seq, "
    "played_ms, in_check "
    "FROM move_journal AS j WHERE EXISTS (SELECT 1 FROM games WHERE id = j.game_id)";
constexpr std::string_view file_moves_order = " ORDER BY j.rowid ON CONFLICT DO NOTHING";

// A part of a filing (WriteStatements::file_journal_part), or all of it: the rows up to ?1 of
// the games from ?2 up to ?3 (NULL: no upper bound) in id order. Comparing ids costs a row a few
// hundred instructions; an IN list of the part's ids was an index probe per row, which made a move
// ~5 % dearer (callgrind). The range is tested before the look-up of the game's row.
constexpr std::string_view file_moves_part_sql =
    "INSERT INTO moves (game_id, ply, move, notation, position, clock_ms, think_ms, seq, "
    "played_ms, in_check) SELECT game_id, ply, move, notation, position, clock_ms, think_ms, seq, "
    "played_ms, in_check "
    "FROM move_journal AS j WHERE j.rowid <= ?1 AND j.game_id >= ?2 AND (?3 IS NULL OR "
    "j.game_id < ?3) AND EXISTS (SELECT 1 FROM games WHERE id = j.game_id)";

// Each game's row takes the header columns of its last journal row (SQLite's bare columns of a
// max() aggregate come from the row that holds the maximum), read back from the journal when
// they are not all in memory (see WriteStatements::file_headers).
constexpr std::string_view file_headers_sql =
    "UPDATE games SET first_clock_ms = j.first_clock_ms, second_clock_ms = j.second_clock_ms, "
    "seq = j.game_seq, ply = j.game_ply, updated_ms = j.updated_ms FROM (SELECT game_id, "
    "first_clock_ms, second_clock_ms, game_seq, game_ply, updated_ms, max(rowid) FROM "
    "move_journal GROUP BY game_id) AS j WHERE games.id = j.game_id";

void bind_optional_text(sqlite::Statement& statement, int index,
                        const std::optional<std::string>& text) {
    if (text) {
        statement.bind(index, std::string_view(*text));
    } else {
        statement.bind_null(index);
    }
}

void bind_game(sqlite::Statement& statement, const GameRow& game) {
    statement.bind(1, std::string_view(game.id))
        .bind(2, rules::to_string(game.variant))
        .bind(3, std::string_view(game.initial_position))
        .bind(4, std::int64_t{game.is_private ? 1 : 0})
        .bind(5, game.clock_initial_ms)
        .bind(6, game.clock_increment_ms)
        .bind(7, std::string_view(game.status))
        .bind(8, std::string_view(game.result))
        .bind(9, std::string_view(game.reason))
        .bind(10, std::string_view(game.seats[0].name))
        .bind(11, std::string_view(game.seats[0].token_hash))
        .bind(12, std::string_view(game.seats[1].name))
        .bind(13, std::string_view(game.seats[1].token_hash))
        .bind(14, game.clock_ms[0])
        .bind(15, game.clock_ms[1])
        // A seq beyond INT64_MAX wraps negative and is refused by the CHECK (seq >= 0).
        .bind(16, static_cast<std::int64_t>(game.seq))
        .bind(17, std::int64_t{game.ply})
        .bind(18, game.created_ms)
        .bind(19, game.updated_ms);
    bind_optional_text(statement, 20, game.rematch_of);
    bind_optional_text(statement, 21, game.rematch_next);
    statement.bind(22, std::string_view(game.seats[0].engine))
        .bind(23, std::int64_t{game.seats[0].engine_level})
        .bind(24, std::string_view(game.seats[1].engine))
        .bind(25, std::int64_t{game.seats[1].engine_level})
        .bind(26, std::string_view(game.offers));
}

void bind_progress(sqlite::Statement& statement, const GameRow& game) {
    statement.bind(1, std::string_view(game.id))
        .bind(2, game.clock_ms[0])
        .bind(3, game.clock_ms[1])
        .bind(4, static_cast<std::int64_t>(game.seq))
        .bind(5, std::int64_t{game.ply})
        .bind(6, game.updated_ms);
}

// The parameters ?1...?10 of a move row: its game, then move_columns in order (an insert into
// `moves` and one into the journal both start so). The text is not copied: the caller runs the
// statement while `game_id` and `move` live.
sqlite::Statement& bind_move(sqlite::Statement& statement, std::string_view game_id,
                             const MoveRow& move) {
    return statement.bind_unowned(1, game_id)
        .bind(2, std::int64_t{move.ply})
        .bind_unowned(3, move.move)
        .bind_unowned(4, move.notation)
        .bind_unowned(5, move.position)
        .bind(6, move.clock_ms)
        .bind(7, move.think_ms)
        // Beyond INT64_MAX a seq wraps negative and is refused by the CHECK (seq >= 0).
        .bind(8, static_cast<std::int64_t>(move.seq))
        .bind(9, move.played_ms)
        .bind(10, move.check ? std::optional<std::int64_t>(*move.check ? 1 : 0) : std::nullopt);
}

std::optional<std::string> column_optional_text(const sqlite::Statement& statement, int index) {
    if (statement.column_is_null(index)) {
        return std::nullopt;
    }
    return statement.column_text(index);
}

Expected<GameRow, StorageError> read_game(const sqlite::Statement& row) {
    GameRow game;
    game.id = row.column_text(0);
    const std::string variant = row.column_text(1);
    const auto parsed = rules::parse_variant(variant);
    if (!parsed) {
        return unexpected(
            StorageError{"game " + game.id + " has an unknown variant '" + variant + "'"});
    }
    game.variant = *parsed;
    game.initial_position = row.column_text(2);
    game.is_private = row.column_int64(3) != 0;
    game.clock_initial_ms = row.column_optional_int64(4);
    game.clock_increment_ms = row.column_optional_int64(5);
    game.status = row.column_text(6);
    game.result = row.column_text(7);
    game.reason = row.column_text(8);
    game.seats[0] = SeatRow{row.column_text(9), row.column_text(10), row.column_text(21),
                            static_cast<int>(row.column_int64(22))};
    game.seats[1] = SeatRow{row.column_text(11), row.column_text(12), row.column_text(23),
                            static_cast<int>(row.column_int64(24))};
    game.clock_ms = {row.column_int64(13), row.column_int64(14)};
    game.seq = static_cast<std::uint64_t>(row.column_int64(15));
    game.ply = static_cast<std::uint32_t>(row.column_int64(16));
    game.created_ms = row.column_int64(17);
    game.updated_ms = row.column_int64(18);
    game.rematch_of = column_optional_text(row, 19);
    game.rematch_next = column_optional_text(row, 20);
    game.offers = row.column_text(25);
    return game;
}

MoveRow read_move(const sqlite::Statement& row) {
    MoveRow move;
    move.ply = static_cast<std::uint32_t>(row.column_int64(0));
    move.move = row.column_text(1);
    move.notation = row.column_text(2);
    move.position = row.column_text(3);
    move.clock_ms = row.column_optional_int64(4);
    move.think_ms = row.column_optional_int64(5);
    move.seq = static_cast<std::uint64_t>(row.column_int64(6));
    move.played_ms = row.column_int64(7);
    if (auto check = row.column_optional_int64(8)) {
        move.check = *check != 0;
    }
    return move;
}

// The columns of a header that a move changes (see only_progress_differs and bind_progress).
void copy_progress(const GameRow& from, GameRow& to) {
    to.clock_ms = from.clock_ms;
    to.seq = from.seq;
    to.ply = from.ply;
    to.updated_ms = from.updated_ms;
}

// The header columns of a journal row, from journal_progress_index on.
void read_progress(const sqlite::Statement& row, int first, GameRow& header) {
    header.clock_ms = {row.column_int64(first), row.column_int64(first + 1)};
    header.seq = static_cast<std::uint64_t>(row.column_int64(first + 2));
    header.ply = static_cast<std::uint32_t>(row.column_int64(first + 3));
    header.updated_ms = row.column_int64(first + 4);
}

Expected<std::vector<MoveRow>, StorageError> load_moves(sqlite::Statement& select_moves,
                                                        const std::string& game_id) {
    std::vector<MoveRow> moves;
    select_moves.reset();
    select_moves.bind(1, std::string_view(game_id));
    auto read = select_moves.each_row([&] { moves.push_back(read_move(select_moves)); });
    if (!read) {
        return unexpected(std::move(read).error());
    }
    return moves;
}

Expected<sqlite::Statement, StorageError> prepare_select_moves(sqlite::Connection& connection) {
    return connection.prepare("SELECT " + std::string(move_columns) +
                              " FROM moves WHERE game_id = ?1 ORDER BY ply");
}

Expected<sqlite::Statement, StorageError> prepare_select_journal(sqlite::Connection& connection) {
    return connection.prepare("SELECT " + std::string(journal_columns) +
                              " FROM move_journal WHERE game_id = ?1 ORDER BY rowid");
}

// Adds the game's journaled moves after its filed ones, and the header columns of the last one,
// as filing them would.
Expected<void, StorageError> merge_journal(sqlite::Statement& select_journal, StoredGame& game) {
    select_journal.reset();
    select_journal.bind(1, std::string_view(game.header.id));
    return select_journal.each_row([&] {
        MoveRow move = read_move(select_journal);
        if (game.moves.empty() || move.ply > game.moves.back().ply) {
            game.moves.push_back(std::move(move));
        }
        read_progress(select_journal, journal_progress_index, game.header);
    });
}

// Steps a header query to the end, collecting the rows.
Expected<std::vector<GameRow>, StorageError> collect_games(sqlite::Statement& select) {
    std::vector<GameRow> games;
    auto read = select.each_row([&]() -> Expected<void, StorageError> {
        auto game = read_game(select);
        if (!game) {
            return unexpected(std::move(game).error());
        }
        games.push_back(std::move(game).value());
        return {};
    });
    if (!read) {
        return unexpected(std::move(read).error());
    }
    return games;
}

}  // namespace

// --- writes ------------------------------------------------------------------------------------

Expected<WriteStatements, StorageError> WriteStatements::prepare(sqlite::Connection& connection,
                                                                 bool use_journal) {
    WriteStatements statements;
    statements.connection_ = &connection;
    statements.use_journal_ = use_journal;
    std::pair<sqlite::Statement*, std::string> sources[] = {
        {&statements.update_game_, std::string(update_game_sql)},
        {&statements.insert_game_, std::string(insert_game_sql)},
        {&statements.update_progress_, std::string(update_progress_sql)},
        {&statements.delete_moves_from_, "DELETE FROM moves WHERE game_id = ?1 AND ply >= ?2"},
        {&statements.insert_move_, "INSERT INTO moves (game_id, " + std::string(move_columns) +
                                       ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) ON "
                                       "CONFLICT (game_id, ply) DO NOTHING"},
        {&statements.select_move_, "SELECT move FROM moves WHERE game_id = ?1 AND ply = ?2"},
        {&statements.select_last_ply_, "SELECT max(ply) FROM moves WHERE game_id = ?1"},
        {&statements.insert_journal_, std::string(insert_journal_sql)},
        {&statements.file_game_moves_,
         std::string(file_moves_select) + " AND game_id = ?1" + std::string(file_moves_order)},
        {&statements.drop_game_journal_, "DELETE FROM move_journal WHERE game_id = ?1"},
        {&statements.file_moves_part_,
         std::string(file_moves_part_sql) + std::string(file_moves_order)},
        {&statements.file_headers_, std::string(file_headers_sql)},
        {&statements.file_moves_after_,
         std::string(file_moves_select) + " AND j.rowid > ?1" + std::string(file_moves_order)},
        {&statements.drop_journal_, "DELETE FROM move_journal"},
        {&statements.count_journal_,
         "SELECT game_id, count(*), max(rowid) FROM move_journal GROUP BY game_id"},
        {&statements.data_version_, "PRAGMA data_version"},
    };
    for (auto& [target, sql] : sources) {
        auto prepared = connection.prepare(sql, true);
        if (!prepared) {
            return unexpected(std::move(prepared).error());
        }
        *target = std::move(prepared).value();
    }
    return statements;
}

// Whether `next` differs from `last` only in what a move changes (clocks, seq, ply, updated_ms).
// created_ms is never rewritten, so it does not count either.
bool only_progress_differs(const GameRow& last, const GameRow& next) {
    // A new field must be compared here and written by the header statements: this trips when
    // GameRow grows so that it cannot be forgotten.
    static_assert(sizeof(GameRow) == 576, "compare the new GameRow field here");
    const auto same_seat = [](const SeatRow& a, const SeatRow& b) {
        return a.name == b.name && a.token_hash == b.token_hash && a.engine == b.engine &&
               a.engine_level == b.engine_level;
    };
    return last.id == next.id && last.variant == next.variant &&
           last.initial_position == next.initial_position && last.is_private == next.is_private &&
           last.clock_initial_ms == next.clock_initial_ms &&
           last.clock_increment_ms == next.clock_increment_ms && last.status == next.status &&
           last.result == next.result && last.reason == next.reason &&
           same_seat(last.seats[0], next.seats[0]) && same_seat(last.seats[1], next.seats[1]) &&
           last.rematch_of == next.rematch_of && last.rematch_next == next.rematch_next &&
           last.offers == next.offers;
}

Expected<void, StorageError> WriteStatements::write_header(const GameRow& header) {
    const auto last = written_.find(header.id);
    if (last != written_.end() && only_progress_differs(last->second.header, header)) {
        update_progress_.reset();
        bind_progress(update_progress_, header);
        if (auto updated = update_progress_.run(); !updated) {
            return updated;
        }
        if (connection_->changes() == 1) {
            // Everything else is equal already: keep just what this write changed.
            copy_progress(header, last->second.header);
            return {};
        }
        // The row is not what this connection last wrote (changed by hand, or deleted): write
        // the whole header.
    }
    update_game_.reset();
    bind_game(update_game_, header);
    if (auto updated = update_game_.run(); !updated) {
        return updated;
    }
    if (connection_->changes() == 0) {
        insert_game_.reset();
        bind_game(insert_game_, header);
        if (auto inserted = insert_game_.run(); !inserted) {
            return inserted;
        }
    }
    if (header.status == "ended" || header.status == "aborted") {
        written_.erase(header.id);  // a finished game is rarely written again: do not keep it
    } else if (last != written_.end()) {
        last->second = Written{header, std::nullopt};
    } else {
        if (written_.size() >= max_remembered_headers) {
            written_.clear();
        }
        written_.emplace(header.id, Written{header, std::nullopt});
    }
    return {};
}

void WriteStatements::forget_written() {
    written_.clear();
    journal_known_ = false;
    filing_.reset();  // the next part begins a filing again; what was filed stays filed
}

void WriteStatements::note_other_commits() {
    data_version_.reset();
    const auto row = data_version_.step();
    std::optional<std::int64_t> version;
    if (row && *row) {
        version = data_version_.column_int64(0);
    }
    data_version_.reset();
    // Unreadable counts as changed: forgetting only costs the next writes their short path.
    if (!version || version != data_version_seen_) {
        forget_written();
    }
    data_version_seen_ = version;
}

Expected<void, StorageError> WriteStatements::know_journal() {
    if (journal_known_) {
        return {};
    }
    journal_rows_ = 0;
    journaled_games_.clear();
    last_journal_row_ = 0;  // an empty journal's
    count_journal_.reset();
    auto counted = count_journal_.each_row([&] {
        journaled_games_.insert(count_journal_.column_text(0));
        journal_rows_ += static_cast<std::size_t>(count_journal_.column_int64(1));
        last_journal_row_ = std::max(last_journal_row_, count_journal_.column_int64(2));
    });
    if (!counted) {
        return counted;
    }
    journal_known_ = true;
    return {};
}

Expected<bool, StorageError> WriteStatements::journal(const GameWrite& change) {
    if (!use_journal_ || !change.append || change.truncate_from_ply) {
        return false;
    }
    const auto last = written_.find(change.header.id);
    if (last == written_.end() || !only_progress_differs(last->second.header, change.header)) {
        return false;
    }
    Written& written = last->second;
    const std::string_view id(change.header.id);
    if (!written.last_ply) {
        // Unknown only until the game's first journaled move after any other write, which filed
        // the game's journal: `moves` holds all of it then. (If rows were left, the write goes
        // the other way and files them.)
        if (journaled_games_.contains(change.header.id)) {
            return false;
        }
        select_last_ply_.reset();
        select_last_ply_.bind(1, id);
        auto row = select_last_ply_.step();
        if (!row) {
            select_last_ply_.reset();
            return unexpected(std::move(row).error());
        }
        written.last_ply = static_cast<std::uint32_t>(select_last_ply_.column_int64(0));
        select_last_ply_.reset();
    }
    if (change.append->ply != *written.last_ply + 1) {
        return false;  // a resend or a gap: the append's own checks decide
    }
    // The game's row is as this connection wrote it: a row deleted behind the writer made it
    // forget the game (note_other_commits), and the header statements write the row whole again.
    const MoveRow& move = *change.append;
    const GameRow& header = change.header;
    insert_journal_.reset();
    bind_move(insert_journal_, id, move)
        .bind(11, header.clock_ms[0])
        .bind(12, header.clock_ms[1])
        .bind(13, static_cast<std::int64_t>(header.seq))
        .bind(14, std::int64_t{header.ply})
        .bind(15, header.updated_ms)
        .bind(16, last_journal_row_ + 1);
    if (auto inserted = insert_journal_.run(); !inserted) {
        return unexpected(std::move(inserted).error());
    }
    last_journal_row_ += 1;
    copy_progress(header, written.header);
    written.last_ply = move.ply;
    journal_rows_ += 1;
    if (!journaled_games_.contains(header.id)) {
        journaled_games_.insert(header.id);
    }
    if (filing_ && !filing_->journaled_since.contains(header.id)) {
        filing_->journaled_since.insert(header.id);
    }
    return true;
}

Expected<void, StorageError> WriteStatements::file_game(const std::string& game_id) {
    const auto journaled = journaled_games_.find(game_id);
    if (journaled == journaled_games_.end()) {
        return {};
    }
    for (sqlite::Statement* statement : {&file_game_moves_, &drop_game_journal_}) {
        statement->reset();
        statement->bind(1, std::string_view(game_id));
        if (auto done = statement->run(); !done) {
            return done;
        }
    }
    journal_rows_ -= std::min<std::size_t>(journal_rows_, connection_->changes());
    journaled_games_.erase(journaled);
    if (filing_) {
        filing_->journaled_since.erase(game_id);
    }
    return {};
}

Expected<std::size_t, StorageError> WriteStatements::count_journaled() {
    if (auto known = know_journal(); !known) {
        return unexpected(known.error());
    }
    return journal_rows_;
}

// Each journaled game's row takes the header columns of its last journal row. This connection
// wrote every such row since it last filed, and remembers its columns (journal() copies them into
// written_), so it sets them from memory: one UPDATE by key per game. Reading them back
// (file_headers_sql) groups the journal by game in a temporary B-tree, about a sixth of what a
// move cost the writer (callgrind, arbiter-storage-bench). After a rollback, or once written_
// started afresh, a journaled game may be missing from memory, and then the journal is read.
Expected<void, StorageError> WriteStatements::file_headers(std::span<const std::string> games) {
    // A game whose rows left the journal since the filing began (file_game()) has the header it
    // was written with.
    auto still_journaled = [&](const std::string& id) { return journaled_games_.contains(id); };
    const bool remembered = std::all_of(games.begin(), games.end(), [&](const std::string& id) {
        const auto written = written_.find(id);
        return !still_journaled(id) ||
               (written != written_.end() && written->second.last_ply.has_value());
    });
    if (!remembered) {
        file_headers_.reset();  // every journaled game's, which also covers these
        return file_headers_.run();
    }
    for (const std::string& id : games) {
        if (!still_journaled(id)) {
            continue;
        }
        update_progress_.reset();
        bind_progress(update_progress_, written_.find(id)->second.header);
        if (auto updated = update_progress_.run(); !updated) {
            return updated;
        }
    }
    return {};
}

Expected<bool, StorageError> WriteStatements::file_journal_part(std::size_t games) {
    if (auto known = know_journal(); !known) {
        return unexpected(known.error());
    }
    if (!filing_) {
        if (journal_rows_ == 0) {
            return true;
        }
        filing_ =
            Filing{last_journal_row_, {journaled_games_.begin(), journaled_games_.end()}, 0, {}};
        // In id order, so that a part is a range of ids, and of `moves`, which is kept in that
        // order.
        std::sort(filing_->games.begin(), filing_->games.end());
    }
    Filing& filing = *filing_;
    const std::size_t begin = filing.filed;
    const std::size_t total = filing.games.size();
    const std::size_t end = games == 0 ? total : std::min(total, begin + games);
    // One statement a part, which scans the journal once: all of it at once when nothing waits.
    file_moves_part_.reset();
    file_moves_part_.bind(1, filing.last_row).bind(2, std::string_view(filing.games[begin]));
    if (end < total) {
        file_moves_part_.bind(3, std::string_view(filing.games[end]));
    } else {
        file_moves_part_.bind_null(3);
    }
    if (auto filed = file_moves_part_.run(); !filed) {
        return unexpected(std::move(filed).error());
    }
    const auto part = std::span<const std::string>(filing.games).subspan(begin, end - begin);
    if (auto headers = file_headers(part); !headers) {
        return unexpected(headers.error());
    }
    filing.filed = end;
    if (end < total) {
        return false;
    }
    // Every game's rows up to last_row are in `moves` now. Rows journaled since (while the filing
    // let writes go first) are filed too, so that the journal empties at once: deleting only the
    // rows up to last_row went a row at a time, ~2.4 k instructions a move (callgrind), where
    // filing the few later rows writes their games' pages once more.
    if (!filing.journaled_since.empty()) {
        file_moves_after_.reset();
        file_moves_after_.bind(1, filing.last_row);
        if (auto filed = file_moves_after_.run(); !filed) {
            return unexpected(std::move(filed).error());
        }
        std::vector<std::string> later(filing.journaled_since.begin(),
                                       filing.journaled_since.end());
        if (auto headers = file_headers(later); !headers) {
            return unexpected(headers.error());
        }
    }
    drop_journal_.reset();
    if (auto dropped = drop_journal_.run(); !dropped) {
        return unexpected(std::move(dropped).error());
    }
    journal_rows_ = 0;
    journaled_games_.clear();
    filing_.reset();
    return true;
}

Expected<void, StorageError> WriteStatements::apply(const GameWrite& change) {
    if (auto known = know_journal(); !known) {
        return known;
    }
    auto journaled = journal(change);
    if (!journaled) {
        return unexpected(std::move(journaled).error());
    }
    if (*journaled) {
        return {};
    }
    // Any other write to a game comes after its journaled moves.
    if (auto filed = file_game(change.header.id); !filed) {
        return filed;
    }
    if (const auto written = written_.find(change.header.id); written != written_.end()) {
        written->second.last_ply.reset();
    }
    if (auto header = write_header(change.header); !header) {
        return header;
    }
    if (change.truncate_from_ply) {
        delete_moves_from_.reset();
        delete_moves_from_.bind(1, std::string_view(change.header.id))
            .bind(2, std::int64_t{*change.truncate_from_ply});
        if (auto truncated = delete_moves_from_.run(); !truncated) {
            return truncated;
        }
    }
    if (change.append) {
        return append(change.header.id, *change.append);
    }
    return {};
}

Expected<void, StorageError> WriteStatements::append(const std::string& game_id,
                                                     const MoveRow& move) {
    insert_move_.reset();
    bind_move(insert_move_, game_id, move);
    if (auto inserted = insert_move_.run(); !inserted) {
        return inserted;
    }
    if (connection_->changes() == 1) {
        return {};
    }
    // The ply is taken. The same move again is a resend of an acknowledged move (idempotent);
    // another move would silently rewrite history, so it is refused.
    select_move_.reset();
    select_move_.bind(1, std::string_view(game_id)).bind(2, std::int64_t{move.ply});
    auto row = select_move_.step();
    if (!row) {
        return unexpected(std::move(row).error());
    }
    const std::string existing = *row ? select_move_.column_text(0) : std::string();
    select_move_.reset();
    if (existing == move.move) {
        return {};
    }
    return unexpected(StorageError{"game " + game_id + " already has move '" + existing +
                                   "' at ply " + std::to_string(move.ply) + ", not '" + move.move +
                                   "'"});
}

// --- reads -------------------------------------------------------------------------------------

Expected<std::optional<StoredGame>, StorageError> load_game(sqlite::Connection& connection,
                                                            const std::string& id) {
    auto select =
        connection.prepare("SELECT " + std::string(game_columns) + " FROM games WHERE id = ?1");
    if (!select) {
        return unexpected(std::move(select).error());
    }
    select->bind(1, std::string_view(id));
    auto headers = collect_games(*select);
    if (!headers) {
        return unexpected(std::move(headers).error());
    }
    if (headers->empty()) {
        return std::optional<StoredGame>();
    }
    auto select_moves = prepare_select_moves(connection);
    if (!select_moves) {
        return unexpected(std::move(select_moves).error());
    }
    auto moves = load_moves(*select_moves, id);
    if (!moves) {
        return unexpected(std::move(moves).error());
    }
    StoredGame game{std::move(headers->front()), std::move(moves).value()};
    auto select_journal = prepare_select_journal(connection);
    if (!select_journal) {
        return unexpected(std::move(select_journal).error());
    }
    if (auto merged = merge_journal(*select_journal, game); !merged) {
        return unexpected(merged.error());
    }
    return std::optional<StoredGame>(std::move(game));
}

Expected<std::vector<StoredGame>, StorageError> load_unfinished_games(
    sqlite::Connection& connection) {
    auto select = connection.prepare("SELECT " + std::string(game_columns) +
                                     " FROM games WHERE status IN ('waiting', 'playing') "
                                     "ORDER BY created_ms, id");
    if (!select) {
        return unexpected(std::move(select).error());
    }
    auto headers = collect_games(*select);
    if (!headers) {
        return unexpected(std::move(headers).error());
    }
    auto select_moves = prepare_select_moves(connection);
    if (!select_moves) {
        return unexpected(std::move(select_moves).error());
    }
    auto select_journal = prepare_select_journal(connection);
    if (!select_journal) {
        return unexpected(std::move(select_journal).error());
    }
    std::vector<StoredGame> games;
    games.reserve(headers->size());
    for (GameRow& header : *headers) {
        auto moves = load_moves(*select_moves, header.id);
        if (!moves) {
            return unexpected(std::move(moves).error());
        }
        games.push_back(StoredGame{std::move(header), std::move(moves).value()});
        if (auto merged = merge_journal(*select_journal, games.back()); !merged) {
            return unexpected(merged.error());
        }
    }
    return games;
}

Expected<std::vector<GameRow>, StorageError> list_games(sqlite::Connection& connection,
                                                        const GameQuery& query) {
    const std::size_t limit = std::min(query.limit, max_list_limit);
    if (limit == 0) {
        return std::vector<GameRow>();
    }
    // The WHERE clause is assembled from constant fragments only; every value is a bound
    // parameter with a fixed number, so fragments may be left out freely. Leaving them out
    // (rather than `?1 IS NULL OR status = ?1`) lets SQLite use the (status, created_ms, id)
    // index.
    std::string sql = "SELECT " + std::string(game_columns) + " FROM games WHERE 1";
    if (query.status) {
        sql += " AND status = ?1";
    }
    if (query.variant) {
        sql += " AND variant = ?2";
    }
    if (!query.include_private) {
        sql += " AND is_private = 0";
    }
    if (query.before) {
        // Keyset paging on (created_ms, id): strictly after the given game in list order, so
        // games created in the same millisecond are neither repeated nor skipped. An unknown id
        // makes the subquery NULL, and the comparison then matches nothing: an empty page.
        sql += " AND (created_ms, id) < (SELECT created_ms, id FROM games WHERE id = ?3)";
    }
    sql += " ORDER BY created_ms DESC, id DESC LIMIT ?4";

    auto select = connection.prepare(sql);
    if (!select) {
        return unexpected(std::move(select).error());
    }
    if (query.status) {
        select->bind(1, std::string_view(*query.status));
    }
    if (query.variant) {
        select->bind(2, rules::to_string(*query.variant));
    }
    if (query.before) {
        select->bind(3, std::string_view(*query.before));
    }
    select->bind(4, static_cast<std::int64_t>(limit));
    auto games = collect_games(*select);
    if (!games || games->empty()) {
        return games;
    }
    // A game with journaled moves is listed as it is after the last of them.
    auto latest = connection.prepare(
        "SELECT game_id, first_clock_ms, second_clock_ms, game_seq, game_ply, updated_ms, "
        "max(rowid) FROM move_journal GROUP BY game_id");
    if (!latest) {
        return unexpected(std::move(latest).error());
    }
    std::unordered_map<std::string_view, GameRow*> listed;
    for (GameRow& game : *games) {
        listed.emplace(game.id, &game);
    }
    auto overlaid = latest->each_row([&] {
        if (const auto found = listed.find(latest->column_text(0)); found != listed.end()) {
            read_progress(*latest, 1, *found->second);
        }
    });
    if (!overlaid) {
        return unexpected(std::move(overlaid).error());
    }
    return games;
}

}  // namespace arbiter::server::storage::detail
