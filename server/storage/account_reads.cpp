#include "server/storage/account_reads.hpp"

#include <string_view>
#include <utility>

namespace arbiter::server::storage::detail {

namespace {

constexpr std::string_view kUserColumns =
    "SELECT id, username, username_key, password_hash, created_ms, deleted_ms FROM users ";

template <class Bind>
Expected<std::optional<UserRow>, StorageError> find_user_where(sqlite::Connection& connection,
                                                               std::string_view where,
                                                               Bind&& bind) {
    auto statement = connection.prepare(std::string(kUserColumns) + std::string(where));
    if (!statement) {
        return unexpected(std::move(statement).error());
    }
    bind(*statement);
    std::optional<UserRow> found;
    auto read = statement->each_row([&] {
        found = UserRow{statement->column_int64(0), statement->column_text(1),
                        statement->column_text(2),  statement->column_text(3),
                        statement->column_int64(4), statement->column_optional_int64(5)};
    });
    if (!read) {
        return unexpected(std::move(read).error());
    }
    return found;
}

}  // namespace

Expected<std::optional<UserRow>, StorageError> find_user_by_key(sqlite::Connection& connection,
                                                                const std::string& key) {
    return find_user_where(connection, "WHERE username_key = ?1",
                           [&](sqlite::Statement& statement) { statement.bind(1, key); });
}

Expected<std::optional<UserRow>, StorageError> find_user_by_id(sqlite::Connection& connection,
                                                               std::int64_t id) {
    return find_user_where(connection, "WHERE id = ?1",
                           [&](sqlite::Statement& statement) { statement.bind(1, id); });
}

Expected<std::optional<SessionRow>, StorageError> find_session(sqlite::Connection& connection,
                                                               const std::string& token_hash) {
    auto statement = connection.prepare(
        "SELECT token_hash, user_id, created_ms, last_seen_ms FROM sessions WHERE token_hash = ?1");
    if (!statement) {
        return unexpected(std::move(statement).error());
    }
    statement->bind(1, token_hash);
    std::optional<SessionRow> found;
    auto read = statement->each_row([&] {
        found = SessionRow{statement->column_text(0), statement->column_int64(1),
                           statement->column_int64(2), statement->column_int64(3)};
    });
    if (!read) {
        return unexpected(std::move(read).error());
    }
    return found;
}

Expected<AccountSnapshot, StorageError> load_accounts(sqlite::Connection& connection) {
    AccountSnapshot snapshot;
    auto users = connection.prepare(
        "SELECT id, username, username_key, deleted_ms IS NOT NULL FROM users ORDER BY id");
    if (!users) {
        return unexpected(std::move(users).error());
    }
    auto read = users->each_row([&] {
        snapshot.users.push_back(AccountSnapshot::User{users->column_int64(0),
                                                       users->column_text(1), users->column_text(2),
                                                       users->column_int64(3) != 0});
    });
    if (!read) {
        return unexpected(std::move(read).error());
    }
    auto sessions = connection.prepare("SELECT token_hash, user_id FROM sessions");
    if (!sessions) {
        return unexpected(std::move(sessions).error());
    }
    read = sessions->each_row([&] {
        snapshot.sessions.push_back(
            AccountSnapshot::Session{sessions->column_text(0), sessions->column_int64(1)});
    });
    if (!read) {
        return unexpected(std::move(read).error());
    }
    return snapshot;
}

}  // namespace arbiter::server::storage::detail
