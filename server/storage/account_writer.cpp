#include "server/storage/account_writer.hpp"

#include <string>
#include <utility>

#include "server/storage/intent_sql.hpp"

namespace arbiter::server::storage::detail {

Expected<AccountWriter, StorageError> AccountWriter::prepare(sqlite::Connection& connection) {
    AccountWriter writer;
    writer.connection_ = &connection;
    // The statements PostgreSQL's writer runs too (intent_sql.hpp).
    std::pair<sqlite::Statement*, std::string_view> sources[] = {
        {&writer.insert_user_, kInsertUserSql},
        {&writer.insert_session_, kInsertSessionSql},
        {&writer.delete_session_, kDeleteSessionSql},
        {&writer.delete_other_sessions_, kDeleteOtherSessionsSql},
        {&writer.mark_user_deleted_, kMarkUserDeletedSql},
        {&writer.delete_user_sessions_, kDeleteUserSessionsSql},
        {&writer.set_password_hash_, kSetPasswordHashSql},
    };
    for (auto& [target, sql] : sources) {
        auto prepared = connection.prepare(sql, true);
        if (!prepared) {
            return unexpected(std::move(prepared).error());
        }
        *target = std::move(prepared).value();
    }
    return writer;
}

Expected<void, StorageError> AccountWriter::apply(const AccountIntent& intent) {
    return std::visit([this](const auto& change) { return write(change); }, intent);
}

Expected<void, StorageError> AccountWriter::write(const CreateUser& create) {
    insert_user_.reset();
    insert_user_.bind(1, create.username)
        .bind(2, create.username_key)
        .bind(3, create.password_hash)
        .bind(4, create.created_ms);
    if (auto ran = insert_user_.run(); !ran) {
        return ran;
    }
    if (connection_->changes() == 0) {
        return unexpected(username_taken(create.username));
    }
    return {};
}

Expected<void, StorageError> AccountWriter::write(const CreateSession& create) {
    const SessionRow& session = create.session;
    insert_session_.reset();
    insert_session_.bind(1, session.token_hash)
        .bind(2, session.user_id)
        .bind(3, session.created_ms)
        .bind(4, session.last_seen_ms);
    if (auto ran = insert_session_.run(); !ran) {
        return ran;
    }
    if (connection_->changes() == 0) {
        return unexpected(no_user_to(session.user_id, "sign in"));
    }
    return {};
}

Expected<void, StorageError> AccountWriter::write(const DeleteSession& end) {
    delete_session_.reset();
    delete_session_.bind(1, end.token_hash);
    return delete_session_.run();
}

Expected<void, StorageError> AccountWriter::write(const DeleteOtherSessions& end) {
    delete_other_sessions_.reset();
    delete_other_sessions_.bind(1, end.user_id).bind(2, end.keep_token_hash);
    return delete_other_sessions_.run();
}

Expected<void, StorageError> AccountWriter::write(const DeleteUser& deletion) {
    mark_user_deleted_.reset();
    mark_user_deleted_.bind(1, deletion.user_id).bind(2, deletion.deleted_ms);
    if (auto ran = mark_user_deleted_.run(); !ran) {
        return ran;
    }
    if (connection_->changes() == 0) {
        return unexpected(no_user_to(deletion.user_id, "delete"));
    }
    delete_user_sessions_.reset();
    delete_user_sessions_.bind(1, deletion.user_id);
    return delete_user_sessions_.run();
}

Expected<void, StorageError> AccountWriter::write(const SetPasswordHash& change) {
    set_password_hash_.reset();
    set_password_hash_.bind(1, change.user_id).bind(2, change.password_hash);
    if (auto ran = set_password_hash_.run(); !ran) {
        return ran;
    }
    if (connection_->changes() == 0) {
        return unexpected(no_user_to(change.user_id, "change"));
    }
    if (change.keep_token_hash) {
        return write(DeleteOtherSessions{change.user_id, *change.keep_token_hash});
    }
    return {};
}

}  // namespace arbiter::server::storage::detail
