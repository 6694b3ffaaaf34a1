// Accounts (issue 40) over an in-memory store: what each operation answers, that sign-in
// errors never say whether the name or the password was wrong, that hashing waits on its
// bounded worker (busy when full), and that the throttle slows repeated failures.

#include "server/app/accounts.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "fakes.hpp"
#include "server/app/secrets.hpp"

namespace arbiter::server::app {
namespace {

using fakes::ManualReads;
using storage::SessionRow;
using storage::StorageError;
using storage::UserRow;

/// The store as the SQLite one behaves, in memory; writes answer at once.
class MemoryAccounts final : public storage::AccountStore {
  public:
    void write_account(storage::AccountIntent intent, Done done) override {
        auto result = std::visit([this](auto& change) { return apply(change); }, intent);
        if (done) {
            done(std::move(result));
        }
    }
    Expected<std::optional<UserRow>, StorageError> find_user(const std::string& key) override {
        for (const auto& [id, user] : users_) {
            if (user.username_key == key) {
                return std::optional<UserRow>(user);
            }
        }
        return std::optional<UserRow>();
    }
    Expected<std::optional<UserRow>, StorageError> find_user_by_id(std::int64_t id) override {
        const auto found = users_.find(id);
        return found == users_.end() ? std::optional<UserRow>() : found->second;
    }
    Expected<std::optional<SessionRow>, StorageError> find_session(
        const std::string& hash) override {
        const auto found = sessions_.find(hash);
        return found == sessions_.end() ? std::optional<SessionRow>() : found->second;
    }
    Expected<storage::AccountSnapshot, StorageError> load_accounts() override {
        storage::AccountSnapshot snapshot;
        for (const auto& [id, user] : users_) {
            snapshot.users.push_back(
                {id, user.username, user.username_key, user.deleted_ms.has_value()});
        }
        for (const auto& [hash, session] : sessions_) {
            snapshot.sessions.push_back({hash, session.user_id});
        }
        return snapshot;
    }

    std::map<std::int64_t, UserRow> users_;
    std::map<std::string, SessionRow> sessions_;

  private:
    Expected<void, StorageError> apply(const storage::CreateUser& create) {
        if (find_user(create.username_key)->has_value()) {
            return unexpected(StorageError{"taken", true});
        }
        const std::int64_t id = static_cast<std::int64_t>(users_.size()) + 1;
        users_[id] = UserRow{id,
                             create.username,
                             create.username_key,
                             create.password_hash,
                             create.created_ms,
                             std::nullopt};
        return {};
    }
    Expected<void, StorageError> apply(const storage::CreateSession& create) {
        const auto user = users_.find(create.session.user_id);
        if (user == users_.end() || user->second.deleted_ms) {
            return unexpected(StorageError{"no user"});
        }
        sessions_[create.session.token_hash] = create.session;
        return {};
    }
    Expected<void, StorageError> apply(const storage::DeleteSession& end) {
        sessions_.erase(end.token_hash);
        return {};
    }
    Expected<void, StorageError> apply(const storage::DeleteOtherSessions& end) {
        std::erase_if(sessions_, [&](const auto& item) {
            return item.second.user_id == end.user_id && item.first != end.keep_token_hash;
        });
        return {};
    }
    Expected<void, StorageError> apply(const storage::DeleteUser& deletion) {
        const auto user = users_.find(deletion.user_id);
        if (user == users_.end() || user->second.deleted_ms) {
            return unexpected(StorageError{"no user"});
        }
        user->second.deleted_ms = deletion.deleted_ms;
        std::erase_if(sessions_,
                      [&](const auto& item) { return item.second.user_id == deletion.user_id; });
        return {};
    }
    Expected<void, StorageError> apply(const storage::SetPasswordHash& change) {
        users_[change.user_id].password_hash = change.password_hash;
        if (change.keep_token_hash) {
            return apply(storage::DeleteOtherSessions{change.user_id, *change.keep_token_hash});
        }
        return {};
    }
};

template <class T>
struct Answer {
    std::optional<Expected<T, AccountError>> value;
    Accounts::Reply<T> reply() {
        return [this](Expected<T, AccountError> result) { value = std::move(result); };
    }
    AccountProblem problem() const {
        EXPECT_TRUE(value.has_value());
        EXPECT_FALSE(value.has_value() && value->has_value());
        return value && !value->has_value() ? value->error().problem : AccountProblem::storage;
    }
};

class AccountsTest : public ::testing::Test {
  protected:
    AccountsTest()
        : accounts_(store_, directory_, hashing_, reads_, minimal_password_cost(),
                    AccountClocks{[this] { return wall_ms_; }, [this] { return steady_; }}) {}

    void sign_up(const std::string& name, const std::string& password) {
        Answer<std::string> answer;
        accounts_.sign_up(name, password, answer.reply());
        hashing_.run();
        ASSERT_TRUE(answer.value && answer.value->has_value());
    }

    Expected<SignedIn, AccountError> sign_in(const std::string& name, const std::string& password,
                                             const std::string& address = "1.2.3.4") {
        Answer<SignedIn> answer;
        accounts_.sign_in(name, password, address, answer.reply());
        hashing_.run();
        EXPECT_TRUE(answer.value.has_value());
        return answer.value.value_or(unexpected(AccountError{}));
    }

    MemoryAccounts store_;
    AccountDirectory directory_;
    ManualReads hashing_{4};
    ManualReads reads_;
    std::int64_t wall_ms_ = 1'700'000'000'000;
    std::chrono::steady_clock::time_point steady_{std::chrono::hours(5)};
    Accounts accounts_;
};

TEST_F(AccountsTest, SignUpStoresAnArgon2HashNeverThePassword) {
    sign_up("Anna_B", "correct horse battery");
    ASSERT_EQ(store_.users_.size(), 1U);
    const UserRow& user = store_.users_.begin()->second;
    EXPECT_EQ(user.username, "Anna_B");
    EXPECT_EQ(user.username_key, "anna_b");
    EXPECT_EQ(user.created_ms, wall_ms_);
    EXPECT_TRUE(user.password_hash.starts_with("$argon2id$"));
    EXPECT_EQ(user.password_hash.find("correct horse"), std::string::npos);
}

TEST_F(AccountsTest, SignUpBreakingARuleSaysWhyAndHashesNothing) {
    Answer<std::string> answer;
    accounts_.sign_up("ab", "correct horse battery", answer.reply());
    EXPECT_EQ(answer.problem(), AccountProblem::invalid);
    EXPECT_FALSE(answer.value->error().reason.empty());
    EXPECT_EQ(hashing_.queued(), 0U);

    Answer<std::string> common;
    accounts_.sign_up("anna", "password", common.reply());
    EXPECT_EQ(common.problem(), AccountProblem::invalid);
}

TEST_F(AccountsTest, SignUpOfATakenNameIgnoringCaseIsTaken) {
    sign_up("anna", "correct horse battery");
    Answer<std::string> answer;
    accounts_.sign_up("ANNA", "another good phrase", answer.reply());
    hashing_.run();
    EXPECT_EQ(answer.problem(), AccountProblem::taken);
}

TEST_F(AccountsTest, SignInGivesATokenStoredOnlyAsItsHash) {
    sign_up("Anna", "correct horse battery");
    const auto signed_in = sign_in("anna", "correct horse battery");
    ASSERT_TRUE(signed_in);
    EXPECT_EQ(signed_in->username, "Anna");
    EXPECT_EQ(signed_in->token.size(), 32U);
    ASSERT_EQ(store_.sessions_.size(), 1U);
    EXPECT_EQ(store_.sessions_.begin()->first, token_hash(signed_in->token));
}

TEST_F(AccountsTest, WrongPasswordAndUnknownNameGetTheSameAnswer) {
    sign_up("anna", "correct horse battery");
    const auto wrong_password = sign_in("anna", "not the password");
    const auto unknown_name = sign_in("nobody", "correct horse battery");
    ASSERT_FALSE(wrong_password);
    ASSERT_FALSE(unknown_name);
    EXPECT_EQ(wrong_password.error().problem, AccountProblem::wrong_credentials);
    EXPECT_EQ(unknown_name.error().problem, AccountProblem::wrong_credentials);
    EXPECT_EQ(wrong_password.error().reason, unknown_name.error().reason);
    EXPECT_TRUE(store_.sessions_.empty());
}

TEST_F(AccountsTest, RepeatedFailuresAreSlowedThenLetThroughAfterTheDelay) {
    sign_up("anna", "correct horse battery");
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(sign_in("anna", "wrong guess").error().problem,
                  AccountProblem::wrong_credentials);
    }
    const auto slowed = sign_in("anna", "correct horse battery");
    ASSERT_FALSE(slowed);
    EXPECT_EQ(slowed.error().problem, AccountProblem::slowed);
    EXPECT_EQ(slowed.error().retry_after, std::chrono::milliseconds(1000));
    steady_ += std::chrono::seconds(1);
    EXPECT_TRUE(sign_in("anna", "correct horse battery", "9.9.9.9"));
}

TEST_F(AccountsTest, FullHashingQueueAnswersBusy) {
    sign_up("anna", "correct horse battery");
    std::vector<Answer<SignedIn>> answers(5);
    for (auto& answer : answers) {
        accounts_.sign_in("anna", "correct horse battery", "1.2.3.4", answer.reply());
    }
    EXPECT_EQ(answers[4].problem(), AccountProblem::busy);
    hashing_.run();
    EXPECT_TRUE(answers[0].value && answers[0].value->has_value());
}

TEST_F(AccountsTest, SignOutEndsTheSession) {
    sign_up("anna", "correct horse battery");
    const auto signed_in = sign_in("anna", "correct horse battery");
    ASSERT_TRUE(signed_in);
    Answer<void> answer;
    accounts_.sign_out(signed_in->token, answer.reply());
    ASSERT_TRUE(answer.value && answer.value->has_value());
    EXPECT_TRUE(store_.sessions_.empty());
}

TEST_F(AccountsTest, PasswordChangeNeedsTheOldOneAndEndsEveryOtherSession) {
    sign_up("anna", "correct horse battery");
    const auto here = sign_in("anna", "correct horse battery");
    const auto elsewhere = sign_in("anna", "correct horse battery");
    ASSERT_TRUE(here && elsewhere);

    Answer<void> wrong;
    accounts_.change_password(here->token, "not it", "a brand new phrase", "1.2.3.4",
                              wrong.reply());
    hashing_.run();
    EXPECT_EQ(wrong.problem(), AccountProblem::wrong_credentials);

    Answer<void> changed;
    accounts_.change_password(here->token, "correct horse battery", "a brand new phrase", "1.2.3.4",
                              changed.reply());
    hashing_.run();
    ASSERT_TRUE(changed.value && changed.value->has_value());
    EXPECT_EQ(store_.sessions_.count(token_hash(here->token)), 1U);
    EXPECT_EQ(store_.sessions_.count(token_hash(elsewhere->token)), 0U);
    EXPECT_FALSE(sign_in("anna", "correct horse battery"));
    EXPECT_TRUE(sign_in("anna", "a brand new phrase"));
}

TEST_F(AccountsTest, PasswordChangeWithoutASessionIsNotSignedIn) {
    Answer<void> answer;
    accounts_.change_password("no-such-token", "a", "b", "1.2.3.4", answer.reply());
    hashing_.run();
    EXPECT_EQ(answer.problem(), AccountProblem::not_signed_in);
}

TEST_F(AccountsTest, UserOfATokenAndProfilesAreReadOnTheReadsQueue) {
    sign_up("Anna", "correct horse battery");
    const auto signed_in = sign_in("anna", "correct horse battery");
    ASSERT_TRUE(signed_in);

    Answer<SessionUser> user;
    accounts_.user_of(signed_in->token, user.reply());
    EXPECT_FALSE(user.value.has_value());
    reads_.run();
    ASSERT_TRUE(user.value && user.value->has_value());
    EXPECT_EQ((*user.value)->username, "Anna");

    Answer<Profile> profile;
    accounts_.profile("ANNA", profile.reply());
    reads_.run();
    ASSERT_TRUE(profile.value && profile.value->has_value());
    EXPECT_EQ((*profile.value)->username, "Anna");
    EXPECT_EQ((*profile.value)->created_ms, wall_ms_);

    Answer<Profile> missing;
    accounts_.profile("nobody", missing.reply());
    reads_.run();
    EXPECT_EQ(missing.problem(), AccountProblem::not_found);
}

// ---- the in-memory directory follows each committed change ----------------------------------

TEST_F(AccountsTest, DirectoryKnowsANameOnceSignedUpAndASessionOnceSignedIn) {
    EXPECT_FALSE(directory_.registered("anna"));
    sign_up("Anna", "correct horse battery");
    EXPECT_TRUE(directory_.registered("ANNA"));
    const auto signed_in = sign_in("anna", "correct horse battery");
    ASSERT_TRUE(signed_in);
    const auto user = directory_.session_user(token_hash(signed_in->token));
    ASSERT_TRUE(user);
    EXPECT_EQ(user->username, "Anna");
    EXPECT_EQ(user->id, store_.users_.begin()->first);
}

TEST_F(AccountsTest, DirectoryForgetsASessionOnSignOutAndOthersOnAPasswordChange) {
    sign_up("anna", "correct horse battery");
    const auto here = sign_in("anna", "correct horse battery");
    const auto elsewhere = sign_in("anna", "correct horse battery");
    const auto third = sign_in("anna", "correct horse battery");
    ASSERT_TRUE(here && elsewhere && third);

    Answer<void> out;
    accounts_.sign_out(third->token, out.reply());
    EXPECT_FALSE(directory_.session_user(token_hash(third->token)));
    EXPECT_TRUE(directory_.session_user(token_hash(elsewhere->token)));

    Answer<void> changed;
    accounts_.change_password(here->token, "correct horse battery", "a brand new phrase", "1.2.3.4",
                              changed.reply());
    hashing_.run();
    ASSERT_TRUE(changed.value && changed.value->has_value());
    EXPECT_TRUE(directory_.session_user(token_hash(here->token)));
    EXPECT_FALSE(directory_.session_user(token_hash(elsewhere->token)));
}

// ---- deleting an account --------------------------------------------------------------------

TEST_F(AccountsTest, DeletionNeedsThePasswordThenEndsEverySessionAndKeepsTheName) {
    sign_up("Anna", "correct horse battery");
    const auto here = sign_in("anna", "correct horse battery");
    const auto elsewhere = sign_in("anna", "correct horse battery");
    ASSERT_TRUE(here && elsewhere);

    Answer<void> wrong;
    accounts_.delete_account(here->token, "not it", "1.2.3.4", wrong.reply());
    hashing_.run();
    EXPECT_EQ(wrong.problem(), AccountProblem::wrong_credentials);
    EXPECT_FALSE(store_.users_.begin()->second.deleted_ms);

    Answer<void> deleted;
    accounts_.delete_account(here->token, "correct horse battery", "1.2.3.4", deleted.reply());
    hashing_.run();
    ASSERT_TRUE(deleted.value && deleted.value->has_value());
    EXPECT_EQ(store_.users_.begin()->second.deleted_ms, wall_ms_);
    EXPECT_TRUE(store_.sessions_.empty());
    const std::int64_t id = store_.users_.begin()->first;
    EXPECT_TRUE(directory_.deleted(id));
    EXPECT_FALSE(directory_.session_user(token_hash(here->token)));
    EXPECT_FALSE(directory_.session_user(token_hash(elsewhere->token)));
    EXPECT_TRUE(directory_.registered("anna"));

    // The same answer as a wrong password, and the name cannot be registered again.
    const auto again = sign_in("anna", "correct horse battery");
    ASSERT_FALSE(again);
    EXPECT_EQ(again.error().problem, AccountProblem::wrong_credentials);
    Answer<std::string> taken;
    accounts_.sign_up("ANNA", "another good phrase", taken.reply());
    hashing_.run();
    EXPECT_EQ(taken.problem(), AccountProblem::taken);
}

TEST_F(AccountsTest, DeletionWithoutASessionIsNotSignedIn) {
    Answer<void> answer;
    accounts_.delete_account("no-such-token", "correct horse battery", "1.2.3.4", answer.reply());
    hashing_.run();
    EXPECT_EQ(answer.problem(), AccountProblem::not_signed_in);
}

TEST_F(AccountsTest, OperatorDeletesByNameAndRefusesAnUnknownOne) {
    sign_up("Anna", "correct horse battery");
    ASSERT_TRUE(sign_in("anna", "correct horse battery"));
    const auto deleted = delete_account_now(store_, "ANNA", 42);
    ASSERT_TRUE(deleted) << deleted.error();
    EXPECT_NE(deleted->find("Anna"), std::string::npos);
    EXPECT_EQ(store_.users_.begin()->second.deleted_ms, 42);
    EXPECT_TRUE(store_.sessions_.empty());
    EXPECT_TRUE(delete_account_now(store_, "anna", 43));  // already deleted: told, unchanged
    EXPECT_EQ(store_.users_.begin()->second.deleted_ms, 42);
    EXPECT_FALSE(delete_account_now(store_, "nobody", 44));
}

}  // namespace
}  // namespace arbiter::server::app
