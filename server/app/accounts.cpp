#include "server/app/accounts.hpp"

#include <future>
#include <memory>
#include <utility>

#include "server/app/account_rules.hpp"
#include "server/app/log.hpp"
#include "server/app/secrets.hpp"

namespace arbiter::server::app {

namespace {

// One message for an unknown name and a wrong password alike: the answer must not tell an
// attacker which names are registered.
constexpr std::string_view kWrongCredentials = "wrong username or password";

AccountError error(AccountProblem problem, std::string reason) {
    return AccountError{problem, std::move(reason), {}};
}

AccountError storage_failed(std::string_view doing, const storage::StorageError& failure) {
    // The store's message names tables and rows, never a password or a token: those are not
    // written anywhere but as hashes.
    log_event(LogLevel::error, "account_storage_failed",
              {{"doing", std::string(doing)}, {"error", failure.message}});
    return error(AccountProblem::storage, "the server could not store this; try again later");
}

bool live(const std::optional<storage::UserRow>& user) {
    return user.has_value() && !user->deleted_ms.has_value();
}

}  // namespace

AccountClocks system_account_clocks() {
    return AccountClocks{[] {
                             return std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                 .count();
                         },
                         [] { return std::chrono::steady_clock::now(); }};
}

Expected<std::string, std::string> delete_account_now(storage::AccountStore& store,
                                                      const std::string& username,
                                                      std::int64_t now_ms) {
    auto user = store.find_user(username_key(username));
    if (!user) {
        return unexpected("could not read the accounts: " + user.error().message);
    }
    if (!user->has_value()) {
        return unexpected("no account named '" + username + "'");
    }
    const storage::UserRow& row = **user;
    if (row.deleted_ms) {
        return "the account '" + row.username + "' was deleted already";
    }
    std::promise<Expected<void, storage::StorageError>> written;
    auto done = written.get_future();
    store.write_account(storage::DeleteUser{row.id, now_ms},
                        [&written](Expected<void, storage::StorageError> result) {
                            written.set_value(std::move(result));
                        });
    if (auto result = done.get(); !result) {
        return unexpected("could not delete the account: " + result.error().message);
    }
    log_event(LogLevel::info, "account_deleted", {{"user", row.username}, {"by", "operator"}});
    return "deleted the account '" + row.username +
           "': its sessions ended, its games and its name stay";
}

Accounts::Accounts(storage::AccountStore& store, AccountDirectory& directory, ReadQueue& hashing,
                   ReadQueue& reads, PasswordCost cost, AccountClocks clocks)
    : store_(store),
      directory_(directory),
      hashing_(hashing),
      reads_(reads),
      cost_(cost),
      clocks_(std::move(clocks)) {}

template <class T>
void Accounts::post(ReadQueue& queue, Reply<T> reply, std::function<void(const Reply<T>&)> work) {
    // Shared: when the queue refuses the work, the work (and its copy of the reply) is dropped.
    auto answer = std::make_shared<Reply<T>>(std::move(reply));
    const bool queued = queue.try_post([answer, work = std::move(work)] { work(*answer); });
    if (!queued) {
        (*answer)(unexpected(error(AccountProblem::busy, "the server is busy; try again shortly")));
    }
}

void Accounts::sign_up(const std::string& username, std::string password,
                       Reply<std::string> reply) {
    if (auto valid = check_username(username); !valid) {
        return reply(unexpected(error(AccountProblem::invalid, valid.error())));
    }
    if (auto valid = check_password(password, username); !valid) {
        return reply(unexpected(error(AccountProblem::invalid, valid.error())));
    }
    post<std::string>(
        hashing_, std::move(reply),
        [this, username, password = std::move(password)](const Reply<std::string>& answer) {
            auto hash = hash_password(password, cost_);
            if (!hash) {
                return answer(
                    unexpected(error(AccountProblem::busy, "the server is out of memory")));
            }
            storage::CreateUser create{username, username_key(username), std::move(*hash),
                                       clocks_.wall_ms()};
            store_.write_account(
                std::move(create),
                [this, answer, username](const Expected<void, storage::StorageError>& written) {
                    if (written) {
                        directory_.signed_up(username);
                        return answer(username);
                    }
                    if (written.error().taken) {
                        return answer(
                            unexpected(error(AccountProblem::taken, "that username is taken")));
                    }
                    answer(unexpected(storage_failed("signing up", written.error())));
                });
        });
}

std::optional<std::chrono::milliseconds> Accounts::sign_in_wait(const std::string& address,
                                                                const std::string& key) {
    std::lock_guard lock(throttle_mutex_);
    return throttle_.wait_before(address, key, clocks_.steady());
}

void Accounts::note_sign_in(const std::string& address, const std::string& key, bool succeeded) {
    std::lock_guard lock(throttle_mutex_);
    if (succeeded) {
        throttle_.note_success(key);
    } else {
        throttle_.note_failure(address, key, clocks_.steady());
    }
}

bool Accounts::verify_on_worker(const std::optional<storage::UserRow>& user,
                                const std::string& password) {
    if (live(user)) {
        return verify_password(user->password_hash, password);
    }
    if (decoy_hash_.empty()) {
        decoy_hash_ = hash_password(new_seat_token(), cost_).value_or("");
    }
    verify_password(decoy_hash_, password);
    return false;
}

void Accounts::sign_in(const std::string& username, std::string password, std::string address,
                       Reply<SignedIn> reply) {
    std::string key = username_key(username);
    if (const auto wait = sign_in_wait(address, key)) {
        return reply(unexpected(AccountError{
            AccountProblem::slowed, "too many failed sign-ins; wait before trying again", *wait}));
    }
    if (key.size() > kMaxUsernameLength || password.size() > kMaxPasswordLength) {
        // Cannot be registered, so cannot be right; not worth a hash.
        note_sign_in(address, key, false);
        return reply(
            unexpected(error(AccountProblem::wrong_credentials, std::string(kWrongCredentials))));
    }
    post<SignedIn>(
        hashing_, std::move(reply),
        [this, key = std::move(key), password = std::move(password),
         address = std::move(address)](const Reply<SignedIn>& answer) {
            auto user = store_.find_user(key);
            if (!user) {
                return answer(unexpected(storage_failed("signing in", user.error())));
            }
            const bool verified = verify_on_worker(*user, password);
            note_sign_in(address, key, verified);
            if (!verified) {
                return answer(unexpected(
                    error(AccountProblem::wrong_credentials, std::string(kWrongCredentials))));
            }
            const storage::UserRow& row = **user;
            if (password_needs_rehash(row.password_hash, cost_)) {
                if (auto rehashed = hash_password(password, cost_)) {
                    store_.write_account(storage::SetPasswordHash{row.id, *rehashed, {}}, {});
                }
            }
            std::string token = new_seat_token();
            const std::int64_t now = clocks_.wall_ms();
            std::string hash = token_hash(token);
            store_.write_account(
                storage::CreateSession{storage::SessionRow{hash, row.id, now, now}},
                [this, answer, hash, user = AccountUser{row.id, row.username},
                 signed_in = SignedIn{row.username, token}](
                    const Expected<void, storage::StorageError>& written) {
                    if (!written) {
                        return answer(unexpected(storage_failed("signing in", written.error())));
                    }
                    // Known to the hub before the token reaches its owner.
                    directory_.signed_in(hash, user);
                    answer(signed_in);
                });
        });
}

void Accounts::sign_out(const std::string& token, Reply<void> reply) {
    std::string hash = token_hash(token);
    store_.write_account(
        storage::DeleteSession{hash},
        [this, hash, reply = std::move(reply)](const Expected<void, storage::StorageError>& done) {
            if (!done) {
                return reply(unexpected(storage_failed("signing out", done.error())));
            }
            directory_.signed_out(hash);
            reply({});
        });
}

Expected<storage::UserRow, AccountError> Accounts::verify_session_password(
    const std::string& session_hash, const std::string& password, const std::string& address,
    std::string_view doing) {
    auto session = store_.find_session(session_hash);
    if (!session) {
        return unexpected(storage_failed(doing, session.error()));
    }
    if (!session->has_value()) {
        return unexpected(error(AccountProblem::not_signed_in, "not signed in"));
    }
    auto user = store_.find_user_by_id((*session)->user_id);
    if (!user) {
        return unexpected(storage_failed(doing, user.error()));
    }
    if (!live(*user)) {
        return unexpected(error(AccountProblem::not_signed_in, "not signed in"));
    }
    storage::UserRow row = std::move(**user);
    if (const auto wait = sign_in_wait(address, row.username_key)) {
        return unexpected(AccountError{
            AccountProblem::slowed, "too many failed sign-ins; wait before trying again", *wait});
    }
    const bool verified = verify_password(row.password_hash, password);
    note_sign_in(address, row.username_key, verified);
    if (!verified) {
        return unexpected(error(AccountProblem::wrong_credentials, std::string(kWrongCredentials)));
    }
    return row;
}

void Accounts::change_password(std::string token, std::string password, std::string new_password,
                               std::string address, Reply<void> reply) {
    post<void>(hashing_, std::move(reply),
               [this, token = std::move(token), password = std::move(password),
                new_password = std::move(new_password),
                address = std::move(address)](const Reply<void>& answer) {
                   const std::string session_hash = token_hash(token);
                   auto row = verify_session_password(session_hash, password, address,
                                                      "changing a password");
                   if (!row) {
                       return answer(unexpected(std::move(row).error()));
                   }
                   if (auto valid = check_password(new_password, row->username); !valid) {
                       return answer(unexpected(error(AccountProblem::invalid, valid.error())));
                   }
                   auto hash = hash_password(new_password, cost_);
                   if (!hash) {
                       return answer(
                           unexpected(error(AccountProblem::busy, "the server is out of memory")));
                   }
                   store_.write_account(
                       storage::SetPasswordHash{row->id, std::move(*hash), session_hash},
                       [this, answer, user_id = row->id,
                        session_hash](const Expected<void, storage::StorageError>& written) {
                           if (!written) {
                               return answer(unexpected(
                                   storage_failed("changing a password", written.error())));
                           }
                           directory_.other_sessions_ended(user_id, session_hash);
                           answer({});
                       });
               });
}

void Accounts::delete_account(std::string token, std::string password, std::string address,
                              Reply<void> reply) {
    post<void>(hashing_, std::move(reply),
               [this, token = std::move(token), password = std::move(password),
                address = std::move(address)](const Reply<void>& answer) {
                   auto row = verify_session_password(token_hash(token), password, address,
                                                      "deleting an account");
                   if (!row) {
                       return answer(unexpected(std::move(row).error()));
                   }
                   store_.write_account(storage::DeleteUser{row->id, clocks_.wall_ms()},
                                        [this, answer, user_id = row->id, username = row->username](
                                            const Expected<void, storage::StorageError>& done) {
                                            if (!done) {
                                                return answer(unexpected(storage_failed(
                                                    "deleting an account", done.error())));
                                            }
                                            directory_.account_deleted(user_id);
                                            log_event(LogLevel::info, "account_deleted",
                                                      {{"user", username}, {"by", "owner"}});
                                            answer({});
                                        });
               });
}

void Accounts::user_of(std::string token, Reply<SessionUser> reply) {
    post<SessionUser>(
        reads_, std::move(reply),
        [this, token = std::move(token)](const Reply<SessionUser>& answer) {
            auto session = store_.find_session(token_hash(token));
            if (!session) {
                return answer(unexpected(storage_failed("reading a session", session.error())));
            }
            if (!session->has_value()) {
                return answer(unexpected(error(AccountProblem::not_signed_in, "not signed in")));
            }
            auto user = store_.find_user_by_id((*session)->user_id);
            if (!user) {
                return answer(unexpected(storage_failed("reading a session", user.error())));
            }
            if (!live(*user)) {
                return answer(unexpected(error(AccountProblem::not_signed_in, "not signed in")));
            }
            answer(SessionUser{(*user)->id, (*user)->username});
        });
}

void Accounts::profile(const std::string& username, Reply<Profile> reply) {
    post<Profile>(
        reads_, std::move(reply),
        [this, key = username_key(username)](const Reply<Profile>& answer) {
            auto user = store_.find_user(key);
            if (!user) {
                return answer(unexpected(storage_failed("reading a profile", user.error())));
            }
            if (!live(*user)) {
                return answer(unexpected(error(AccountProblem::not_found, "no such player")));
            }
            answer(Profile{(*user)->username, (*user)->created_ms});
        });
}

}  // namespace arbiter::server::app
