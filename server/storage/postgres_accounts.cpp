#include "server/storage/postgres_accounts.hpp"

#include <string_view>
#include <utility>
#include <variant>

#include "server/storage/intent_sql.hpp"

namespace arbiter::server::storage::detail {

namespace {

constexpr std::string_view kUserColumns =
    "SELECT id, username, username_key, password_hash, created_ms, deleted_ms FROM users ";

Expected<std::optional<UserRow>, StorageError> find_user_where(pg::Connection& connection,
                                                               std::string_view where,
                                                               const pg::Params& params) {
    auto rows = connection.query(std::string(kUserColumns) + std::string(where), params);
    if (!rows) {
        return unexpected(std::move(rows).error());
    }
    if (rows->rows() == 0) {
        return std::optional<UserRow>();
    }
    return std::optional<UserRow>(UserRow{rows->integer(0, 0), rows->text(0, 1), rows->text(0, 2),
                                          rows->text(0, 3), rows->integer(0, 4),
                                          rows->optional_integer(0, 5)});
}

}  // namespace

Expected<void, StorageError> PostgresAccountWriter::prepare(pg::Connection& connection) {
    using pg::numbered_parameters;
    // SQLite's writer runs the same statements (intent_sql.hpp).
    const std::pair<std::string, std::string_view> statements[] = {
        {"account_insert_user", kInsertUserSql},
        {"account_insert_session", kInsertSessionSql},
        {"account_delete_session", kDeleteSessionSql},
        {"account_delete_other_sessions", kDeleteOtherSessionsSql},
        {"account_mark_user_deleted", kMarkUserDeletedSql},
        {"account_delete_user_sessions", kDeleteUserSessionsSql},
        {"account_set_password_hash", kSetPasswordHashSql},
    };
    for (const auto& [name, sql] : statements) {
        if (auto prepared = connection.prepare(name, numbered_parameters(sql)); !prepared) {
            return prepared;
        }
    }
    return {};
}

Expected<void, StorageError> PostgresAccountWriter::apply(const AccountIntent& intent) {
    return std::visit([this](const auto& change) { return write(change); }, intent);
}

Expected<std::uint64_t, StorageError> PostgresAccountWriter::changed(const std::string& name,
                                                                     const pg::Params& params) {
    auto ran = connection_->run(name, params);
    if (!ran) {
        return unexpected(std::move(ran).error());
    }
    return ran->changed();
}

Expected<void, StorageError> PostgresAccountWriter::write(const CreateUser& create) {
    auto inserted = changed("account_insert_user", pg::Params()
                                                       .text(create.username)
                                                       .text(create.username_key)
                                                       .text(create.password_hash)
                                                       .integer(create.created_ms));
    if (!inserted) {
        return unexpected(std::move(inserted).error());
    }
    if (*inserted == 0) {
        return unexpected(username_taken(create.username));
    }
    return {};
}

Expected<void, StorageError> PostgresAccountWriter::write(const CreateSession& create) {
    const SessionRow& session = create.session;
    auto inserted = changed("account_insert_session", pg::Params()
                                                          .text(session.token_hash)
                                                          .integer(session.user_id)
                                                          .integer(session.created_ms)
                                                          .integer(session.last_seen_ms));
    if (!inserted) {
        return unexpected(std::move(inserted).error());
    }
    if (*inserted == 0) {
        return unexpected(no_user_to(session.user_id, "sign in"));
    }
    return {};
}

Expected<void, StorageError> PostgresAccountWriter::write(const DeleteSession& end) {
    auto deleted = changed("account_delete_session", pg::Params().text(end.token_hash));
    if (!deleted) {
        return unexpected(std::move(deleted).error());
    }
    return {};
}

Expected<void, StorageError> PostgresAccountWriter::write(const DeleteOtherSessions& end) {
    auto deleted = changed("account_delete_other_sessions",
                           pg::Params().integer(end.user_id).text(end.keep_token_hash));
    if (!deleted) {
        return unexpected(std::move(deleted).error());
    }
    return {};
}

Expected<void, StorageError> PostgresAccountWriter::write(const DeleteUser& deletion) {
    auto marked = changed("account_mark_user_deleted",
                          pg::Params().integer(deletion.user_id).integer(deletion.deleted_ms));
    if (!marked) {
        return unexpected(std::move(marked).error());
    }
    if (*marked == 0) {
        return unexpected(no_user_to(deletion.user_id, "delete"));
    }
    auto ended = changed("account_delete_user_sessions", pg::Params().integer(deletion.user_id));
    if (!ended) {
        return unexpected(std::move(ended).error());
    }
    return {};
}

Expected<void, StorageError> PostgresAccountWriter::write(const SetPasswordHash& change) {
    auto set = changed("account_set_password_hash",
                       pg::Params().integer(change.user_id).text(change.password_hash));
    if (!set) {
        return unexpected(std::move(set).error());
    }
    if (*set == 0) {
        return unexpected(no_user_to(change.user_id, "change"));
    }
    if (change.keep_token_hash) {
        return write(DeleteOtherSessions{change.user_id, *change.keep_token_hash});
    }
    return {};
}

// --- reads -------------------------------------------------------------------------------------

Expected<std::optional<UserRow>, StorageError> find_postgres_user_by_key(pg::Connection& connection,
                                                                         const std::string& key) {
    return find_user_where(connection, "WHERE username_key = $1", pg::Params().text(key));
}

Expected<std::optional<UserRow>, StorageError> find_postgres_user_by_id(pg::Connection& connection,
                                                                        std::int64_t id) {
    return find_user_where(connection, "WHERE id = $1", pg::Params().integer(id));
}

Expected<std::optional<SessionRow>, StorageError> find_postgres_session(
    pg::Connection& connection, const std::string& token_hash) {
    auto rows = connection.query(
        "SELECT token_hash, user_id, created_ms, last_seen_ms FROM sessions WHERE token_hash = $1",
        pg::Params().text(token_hash));
    if (!rows) {
        return unexpected(std::move(rows).error());
    }
    if (rows->rows() == 0) {
        return std::optional<SessionRow>();
    }
    return std::optional<SessionRow>(SessionRow{rows->text(0, 0), rows->integer(0, 1),
                                                rows->integer(0, 2), rows->integer(0, 3)});
}

Expected<AccountSnapshot, StorageError> load_postgres_accounts(pg::Connection& connection) {
    AccountSnapshot snapshot;
    auto users = connection.query(
        "SELECT id, username, username_key, deleted_ms IS NOT NULL FROM users ORDER BY id");
    if (!users) {
        return unexpected(std::move(users).error());
    }
    snapshot.users.reserve(static_cast<std::size_t>(users->rows()));
    for (int r = 0; r < users->rows(); ++r) {
        snapshot.users.push_back(AccountSnapshot::User{users->integer(r, 0), users->text(r, 1),
                                                       users->text(r, 2), users->boolean(r, 3)});
    }
    // In byte order of the hashes, as SQLite's table (keyed by them) gives them.
    auto sessions = connection.query(
        "SELECT token_hash, user_id FROM sessions ORDER BY token_hash COLLATE \"C\"");
    if (!sessions) {
        return unexpected(std::move(sessions).error());
    }
    snapshot.sessions.reserve(static_cast<std::size_t>(sessions->rows()));
    for (int r = 0; r < sessions->rows(); ++r) {
        snapshot.sessions.push_back(
            AccountSnapshot::Session{sessions->text(r, 0), sessions->integer(r, 1)});
    }
    return snapshot;
}

}  // namespace arbiter::server::storage::detail
