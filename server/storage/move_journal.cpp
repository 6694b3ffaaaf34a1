#include "server/storage/move_journal.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

namespace arbiter::server::storage::detail {

namespace {

// The rowid is given, one past the last one this connection knows of: deleting a game's rows
// (file_game) can leave the journal's largest rowid smaller, and SQLite would then give the next
// row a rowid that a filing begun before already counts as its own (file_part).
constexpr std::string_view kInsertSql =
    "INSERT INTO move_journal (game_id, ply, move, notation, position, clock_ms, think_ms, seq, "
    "played_ms, in_check, lag_ms, first_clock_ms, second_clock_ms, game_seq, game_ply, updated_ms, "
    "rowid) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)";

// Filing copies journal rows into `moves` in the order they were journaled, which is each game's
// ply order. A row whose game is gone is skipped (its moves would have been deleted with it), and
// a ply already in `moves` keeps the move there, as an append does (the journal takes only a
// game's next ply, so neither happens unless the file was changed behind the writer). Rowid order
// is the scan's own, so SQLite sorts nothing; `ORDER BY game_id, ply` sorted every filing in a
// temporary B-tree, a fifth of the filing's instructions (callgrind, arbiter-storage-bench), and
// wrote the same pages.
constexpr std::string_view kFileMovesSelect =
    "INSERT INTO moves (game_id, ply, move, notation, position, clock_ms, think_ms, seq, "
    "played_ms, in_check, lag_ms) SELECT game_id, ply, move, notation, position, clock_ms, "
    "think_ms, seq, played_ms, in_check, lag_ms "
    "FROM move_journal AS j WHERE EXISTS (SELECT 1 FROM games WHERE id = j.game_id)";
constexpr std::string_view kFileMovesOrder = " ORDER BY j.rowid ON CONFLICT DO NOTHING";

// A part of a filing (file_part), or all of it: the rows up to ?1 of the games from ?2 up to ?3
// (NULL: no upper bound) in id order. Comparing ids costs a row a few hundred instructions; an IN
// list of the part's ids was an index probe per row, which made a move ~5 % dearer (callgrind).
// The range is tested before the look-up of the game's row.
constexpr std::string_view kFileMovesPartSql =
    "INSERT INTO moves (game_id, ply, move, notation, position, clock_ms, think_ms, seq, "
    "played_ms, in_check, lag_ms) SELECT game_id, ply, move, notation, position, clock_ms, "
    "think_ms, seq, played_ms, in_check, lag_ms "
    "FROM move_journal AS j WHERE j.rowid <= ?1 AND j.game_id >= ?2 AND (?3 IS NULL OR "
    "j.game_id < ?3) AND EXISTS (SELECT 1 FROM games WHERE id = j.game_id)";

// A game's row takes its last journal row's columns, and no offers: the move lapsed them. Set
// from memory, one UPDATE by key per game: reading them back from the journal groups it by game
// in a temporary B-tree, about a sixth of what a move cost the writer (callgrind). None of these
// columns has an IN-list CHECK, which SQLite would compile into an ephemeral table on every run.
constexpr std::string_view kFileHeaderSql =
    "UPDATE games SET first_clock_ms = ?2, second_clock_ms = ?3, seq = ?4, ply = ?5, "
    "updated_ms = ?6, offers = '' WHERE id = ?1";

// Each journaled game, its row count, and its last row's columns (SQLite's bare columns of a
// max() aggregate come from the row that holds the maximum).
constexpr std::string_view kReadGamesSql =
    "SELECT game_id, count(*), max(rowid), first_clock_ms, second_clock_ms, game_seq, game_ply, "
    "updated_ms FROM move_journal GROUP BY game_id";

}  // namespace

Expected<MoveJournal, StorageError> MoveJournal::prepare(sqlite::Connection& connection) {
    MoveJournal journal;
    journal.connection_ = &connection;
    std::pair<sqlite::Statement*, std::string> sources[] = {
        {&journal.insert_, std::string(kInsertSql)},
        {&journal.file_game_moves_,
         std::string(kFileMovesSelect) + " AND game_id = ?1" + std::string(kFileMovesOrder)},
        {&journal.file_header_, std::string(kFileHeaderSql)},
        {&journal.drop_game_, "DELETE FROM move_journal WHERE game_id = ?1"},
        {&journal.file_moves_part_, std::string(kFileMovesPartSql) + std::string(kFileMovesOrder)},
        {&journal.file_moves_after_,
         std::string(kFileMovesSelect) + " AND j.rowid > ?1" + std::string(kFileMovesOrder)},
        {&journal.drop_all_, "DELETE FROM move_journal"},
        {&journal.read_games_, std::string(kReadGamesSql)},
    };
    for (auto& [target, sql] : sources) {
        auto prepared = connection.prepare(sql, true);
        if (!prepared) {
            return unexpected(std::move(prepared).error());
        }
        *target = std::move(prepared).value();
    }
    return journal;
}

void MoveJournal::forget() {
    known_ = false;
    filing_.reset();  // the next part begins a filing again; what was filed stays filed
}

Expected<void, StorageError> MoveJournal::know() {
    if (known_) {
        return {};
    }
    rows_ = 0;
    games_.clear();
    last_row_ = 0;  // an empty journal's
    read_games_.reset();
    auto read = read_games_.each_row([&] {
        games_.insert_or_assign(read_games_.column_text(0), read_progress(read_games_, 3));
        rows_ += static_cast<std::size_t>(read_games_.column_int64(1));
        last_row_ = std::max(last_row_, read_games_.column_int64(2));
    });
    if (!read) {
        return read;
    }
    known_ = true;
    return {};
}

const MoveProgress* MoveJournal::last_of(const std::string& game) const {
    const auto found = games_.find(game);
    return found == games_.end() ? nullptr : &found->second;
}

Expected<void, StorageError> MoveJournal::append(const std::string& game, const MoveRow& move,
                                                 const MoveProgress& progress) {
    insert_.reset();
    bind_move(insert_, game, move)
        .bind(12, progress.clock_ms[0])
        .bind(13, progress.clock_ms[1])
        .bind(14, static_cast<std::int64_t>(progress.seq))
        .bind(15, std::int64_t{progress.ply})
        .bind(16, progress.updated_ms)
        .bind(17, last_row_ + 1);
    if (auto inserted = insert_.run(); !inserted) {
        return inserted;
    }
    last_row_ += 1;
    rows_ += 1;
    if (auto found = games_.find(game); found != games_.end()) {
        found->second = progress;
    } else {
        games_.emplace(game, progress);
    }
    if (filing_ && !filing_->journaled_since.contains(game)) {
        filing_->journaled_since.insert(game);
    }
    return {};
}

Expected<void, StorageError> MoveJournal::file_game(const std::string& game) {
    const auto journaled = games_.find(game);
    if (journaled == games_.end()) {
        return {};
    }
    file_game_moves_.reset();
    file_game_moves_.bind(1, std::string_view(game));
    if (auto filed = file_game_moves_.run(); !filed) {
        return filed;
    }
    if (auto header = file_headers(std::span(&game, 1)); !header) {
        return header;
    }
    drop_game_.reset();
    drop_game_.bind(1, std::string_view(game));
    if (auto dropped = drop_game_.run(); !dropped) {
        return dropped;
    }
    rows_ -= std::min<std::size_t>(rows_, static_cast<std::size_t>(connection_->changes()));
    games_.erase(journaled);
    if (filing_) {
        filing_->journaled_since.erase(game);
    }
    return {};
}

Expected<std::size_t, StorageError> MoveJournal::count() {
    if (auto known = know(); !known) {
        return unexpected(known.error());
    }
    return rows_;
}

Expected<void, StorageError> MoveJournal::file_headers(std::span<const std::string> games) {
    for (const std::string& game : games) {
        // A game whose rows left the journal since the filing began (file_game()) was filed then.
        const MoveProgress* last = last_of(game);
        if (last == nullptr) {
            continue;
        }
        file_header_.reset();
        file_header_.bind(1, std::string_view(game))
            .bind(2, last->clock_ms[0])
            .bind(3, last->clock_ms[1])
            .bind(4, static_cast<std::int64_t>(last->seq))
            .bind(5, std::int64_t{last->ply})
            .bind(6, last->updated_ms);
        if (auto updated = file_header_.run(); !updated) {
            return updated;
        }
    }
    return {};
}

Expected<bool, StorageError> MoveJournal::file_part(std::size_t games) {
    if (auto known = know(); !known) {
        return unexpected(known.error());
    }
    if (!filing_) {
        if (rows_ == 0) {
            return true;
        }
        Filing filing{last_row_, {}, 0, {}};
        filing.games.reserve(games_.size());
        for (const auto& [game, last] : games_) {
            filing.games.push_back(game);
        }
        // In id order, so that a part is a range of ids, and of `moves`, which is kept in that
        // order.
        std::sort(filing.games.begin(), filing.games.end());
        filing_ = std::move(filing);
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
        const std::vector<std::string> later(filing.journaled_since.begin(),
                                             filing.journaled_since.end());
        if (auto headers = file_headers(later); !headers) {
            return unexpected(headers.error());
        }
    }
    drop_all_.reset();
    if (auto dropped = drop_all_.run(); !dropped) {
        return unexpected(std::move(dropped).error());
    }
    rows_ = 0;
    games_.clear();
    filing_.reset();
    return true;
}

}  // namespace arbiter::server::storage::detail
