#include "server/storage/game_reads.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "server/storage/game_rows.hpp"

namespace arbiter::server::storage::detail {

namespace {

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
    return connection.prepare("SELECT " + std::string(kMoveColumns) +
                              " FROM moves WHERE game_id = ?1 ORDER BY ply");
}

Expected<sqlite::Statement, StorageError> prepare_select_journal(sqlite::Connection& connection) {
    return connection.prepare("SELECT " + std::string(kJournalColumns) +
                              " FROM move_journal WHERE game_id = ?1 ORDER BY rowid");
}

// Adds the game's journaled moves after its filed ones, and the columns of the last one, as
// filing them would.
Expected<void, StorageError> merge_journal(sqlite::Statement& select_journal, StoredGame& game) {
    select_journal.reset();
    select_journal.bind(1, std::string_view(game.header.id));
    return select_journal.each_row([&] {
        MoveRow move = read_move(select_journal);
        if (game.moves.empty() || move.ply > game.moves.back().ply) {
            game.moves.push_back(std::move(move));
        }
        apply_progress(read_progress(select_journal, kJournalProgressIndex), game.header);
    });
}

Expected<sqlite::Statement, StorageError> prepare_select_chat(sqlite::Connection& connection) {
    return connection.prepare(
        "SELECT seq, room, author, seat, text, at_ms FROM chat_messages WHERE game_id = ?1 "
        "ORDER BY seq");
}

// The game's chat messages (migration 0012), oldest first. The rows' texts are the CHECKs'.
Expected<void, StorageError> load_chat(sqlite::Statement& select_chat, StoredGame& game) {
    select_chat.reset();
    select_chat.bind(1, std::string_view(game.header.id));
    return select_chat.each_row([&] {
        ChatRow row;
        row.seq = static_cast<std::uint64_t>(select_chat.column_int64(0));
        row.room = select_chat.column_text(1) == "spectators" ? protocol::ChatRoom::spectators
                                                              : protocol::ChatRoom::players;
        row.from = select_chat.column_text(2);
        if (!select_chat.column_is_null(3)) {
            row.seat =
                select_chat.column_text(3) == "second" ? rules::Side::second : rules::Side::first;
        }
        row.text = select_chat.column_text(4);
        row.at_ms = select_chat.column_int64(5);
        game.chat.push_back(std::move(row));
    });
}

// Steps a header query to the end, collecting the rows; the first row that cannot be read
// stops it.
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

Expected<std::optional<StoredGame>, StorageError> load_game(sqlite::Connection& connection,
                                                            const std::string& id) {
    auto select =
        connection.prepare("SELECT " + std::string(kGameColumns) + " FROM games WHERE id = ?1");
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
    auto select_chat = prepare_select_chat(connection);
    if (!select_chat) {
        return unexpected(std::move(select_chat).error());
    }
    if (auto chat = load_chat(*select_chat, game); !chat) {
        return unexpected(chat.error());
    }
    return std::optional<StoredGame>(std::move(game));
}

Expected<std::vector<StoredGame>, StorageError> load_unfinished_games(
    sqlite::Connection& connection) {
    auto select = connection.prepare("SELECT " + std::string(kGameColumns) +
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
    auto select_chat = prepare_select_chat(connection);
    if (!select_chat) {
        return unexpected(std::move(select_chat).error());
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
        if (auto chat = load_chat(*select_chat, games.back()); !chat) {
            return unexpected(chat.error());
        }
    }
    return games;
}

std::string list_games_sql(const GameQuery& query) {
    // The WHERE clause is assembled from constant fragments only; every value is a bound
    // parameter with a fixed number, so fragments may be left out freely. Leaving them out
    // (rather than `?1 IS NULL OR status = ?1`) lets SQLite search the index for the filters
    // given: (status, created_ms, id), (variant, created_ms, id) or (status, variant, created_ms,
    // id), each read newest first with no sort.
    std::string sql = "SELECT " + std::string(kGameColumns) + " FROM games WHERE 1";
    if (query.status) {
        sql += " AND status = ?1";
    }
    return sql + list_tail_sql(query.variant.has_value(), query.include_private,
                               query.before.has_value());
}

std::string list_tail_sql(bool variant, bool include_private, bool before) {
    std::string sql;
    if (variant) {
        sql += " AND variant = ?2";
    }
    if (!include_private) {
        sql += " AND is_private = 0";
    }
    if (before) {
        // Keyset paging on (created_ms, id): strictly after the given game in list order, so
        // games created in the same millisecond are neither repeated nor skipped. An unknown id
        // makes the subquery NULL, and the comparison then matches nothing: an empty page.
        sql += " AND (created_ms, id) < (SELECT created_ms, id FROM games WHERE id = ?3)";
    }
    return sql + " ORDER BY created_ms DESC, id DESC LIMIT ?4";
}

Expected<std::vector<GameRow>, StorageError> list_games(sqlite::Connection& connection,
                                                        const GameQuery& query) {
    const std::size_t limit = std::min(query.limit, kMaxListLimit);
    if (limit == 0) {
        return std::vector<GameRow>();
    }
    const std::string sql = list_games_sql(query);
    auto select = connection.prepare(sql);
    if (!select) {
        return unexpected(std::move(select).error());
    }
    if (query.status) {
        select->bind(1, status_text(*query.status));
    }
    if (query.variant) {
        select->bind(2, rules::to_string(*query.variant));
    }
    if (query.before) {
        select->bind(3, std::string_view(*query.before));
    }
    select->bind(4, static_cast<std::int64_t>(limit));
    auto games = collect_games(*select);
    if (!games) {
        return games;
    }
    if (auto overlaid = overlay_journal(connection, *games); !overlaid) {
        return unexpected(overlaid.error());
    }
    return games;
}

Expected<void, StorageError> overlay_journal(sqlite::Connection& connection,
                                             std::vector<GameRow>& games) {
    if (games.empty()) {
        return {};
    }
    // A game with journaled moves is listed as it is after the last of them.
    auto latest = connection.prepare(
        "SELECT game_id, first_clock_ms, second_clock_ms, game_seq, game_ply, updated_ms, "
        "max(rowid) FROM move_journal GROUP BY game_id");
    if (!latest) {
        return unexpected(std::move(latest).error());
    }
    std::unordered_map<std::string_view, GameRow*> listed;
    for (GameRow& game : games) {
        listed.emplace(game.id, &game);
    }
    return latest->each_row([&] {
        if (const auto found = listed.find(latest->column_text(0)); found != listed.end()) {
            apply_progress(read_progress(*latest, 1), *found->second);
        }
    });
}

}  // namespace arbiter::server::storage::detail
