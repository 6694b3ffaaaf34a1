// The account intents and reads of every engine (issue 40; account_store.hpp): each intent
// changes what accounts.hpp says and nothing else, and a write that does not apply (a name taken,
// a session for no user) changes nothing while the games' writes go on.

#include <gtest/gtest.h>

#include <future>
#include <string>

#include "repository_engines.hpp"
#include "storage_test_support.hpp"

namespace arbiter::server::storage {
namespace {

using testing::write_account_and_wait;

// Every test here runs on each engine of the binary (repository_engines.hpp).
class StorageAccounts : public testing::EngineTest {
  protected:
    /// Signs `username` up and returns its stored row.
    UserRow sign_up(const std::string& username, const std::string& key) {
        auto created =
            write_account_and_wait(*repository_, CreateUser{username, key, "$argon2id$h", 1000});
        EXPECT_TRUE(created) << (created ? "" : created.error().message);
        auto found = repository_->find_user(key);
        EXPECT_TRUE(found && found->has_value());
        return found && found->has_value() ? **found : UserRow{};
    }

    bool session_exists(const std::string& token_hash) {
        auto found = repository_->find_session(token_hash);
        EXPECT_TRUE(found);
        return found && found->has_value();
    }
};

TEST_P(StorageAccounts, CreatedUserIsFoundByKeyAndByIdAsTyped) {
    const UserRow user = sign_up("Magnus_C", "magnus_c");
    EXPECT_GT(user.id, 0);
    EXPECT_EQ(user.username, "Magnus_C");
    EXPECT_EQ(user.password_hash, "$argon2id$h");
    EXPECT_EQ(user.created_ms, 1000);
    EXPECT_FALSE(user.deleted_ms.has_value());
    auto by_id = repository_->find_user_by_id(user.id);
    ASSERT_TRUE(by_id && by_id->has_value());
    EXPECT_EQ(**by_id, user);
}

TEST_P(StorageAccounts, UnknownUserAndSessionAreNotFound) {
    auto user = repository_->find_user("nobody");
    ASSERT_TRUE(user);
    EXPECT_FALSE(user->has_value());
    auto by_id = repository_->find_user_by_id(42);
    ASSERT_TRUE(by_id);
    EXPECT_FALSE(by_id->has_value());
    EXPECT_FALSE(session_exists("abc"));
}

TEST_P(StorageAccounts, TakenKeyIsRefusedAsTakenAndKeepsTheFirstUser) {
    const UserRow first = sign_up("Anna", "anna");
    auto again =
        write_account_and_wait(*repository_, CreateUser{"ANNA", "anna", "$argon2id$other", 2000});
    ASSERT_FALSE(again);
    EXPECT_TRUE(again.error().taken) << again.error().message;
    auto found = repository_->find_user("anna");
    ASSERT_TRUE(found && found->has_value());
    EXPECT_EQ(**found, first);
}

TEST_P(StorageAccounts, TakenNameInABatchFailsAloneWhileTheOthersCommit) {
    sign_up("anna", "anna");
    std::promise<bool> taken;
    repository_->write_account(CreateUser{"Anna", "anna", "h", 1},
                               [&](Expected<void, StorageError> result) {
                                   taken.set_value(!result && result.error().taken);
                               });
    repository_->write_account(CreateUser{"bert", "bert", "h", 1}, {});
    repository_->write(testing::created(testing::make_game("g1", 5)), {});
    repository_->flush();
    EXPECT_TRUE(taken.get_future().get());
    auto bert = repository_->find_user("bert");
    ASSERT_TRUE(bert);
    EXPECT_TRUE(bert->has_value());
    auto game = repository_->load("g1");
    ASSERT_TRUE(game);
    EXPECT_TRUE(game->has_value());
}

TEST_P(StorageAccounts, KeyThatIsNotTheLowerCaseNameIsRefused) {
    auto created = write_account_and_wait(*repository_, CreateUser{"Anna", "Anna", "h", 1});
    ASSERT_FALSE(created);
    EXPECT_FALSE(created.error().taken);
}

TEST_P(StorageAccounts, SessionIsCreatedFoundAndDeleted) {
    const UserRow user = sign_up("anna", "anna");
    const SessionRow session{"hash-1", user.id, 10, 10};
    ASSERT_TRUE(write_account_and_wait(*repository_, CreateSession{session}));
    auto found = repository_->find_session("hash-1");
    ASSERT_TRUE(found && found->has_value());
    EXPECT_EQ(**found, session);

    ASSERT_TRUE(write_account_and_wait(*repository_, DeleteSession{"hash-1"}));
    EXPECT_FALSE(session_exists("hash-1"));
    // A sign-out sent twice is not an error.
    EXPECT_TRUE(write_account_and_wait(*repository_, DeleteSession{"hash-1"}));
}

TEST_P(StorageAccounts, SessionForNoUserIsRefused) {
    auto created =
        write_account_and_wait(*repository_, CreateSession{SessionRow{"hash-1", 77, 1, 1}});
    EXPECT_FALSE(created);
    EXPECT_FALSE(session_exists("hash-1"));
}

TEST_P(StorageAccounts, DeleteOtherSessionsKeepsOnlyTheNamedOneOfThatUser) {
    const UserRow anna = sign_up("anna", "anna");
    const UserRow bert = sign_up("bert", "bert");
    for (const char* hash : {"a1", "a2", "a3"}) {
        ASSERT_TRUE(
            write_account_and_wait(*repository_, CreateSession{SessionRow{hash, anna.id, 1, 1}}));
    }
    ASSERT_TRUE(
        write_account_and_wait(*repository_, CreateSession{SessionRow{"b1", bert.id, 1, 1}}));

    ASSERT_TRUE(write_account_and_wait(*repository_, DeleteOtherSessions{anna.id, "a2"}));
    EXPECT_FALSE(session_exists("a1"));
    EXPECT_TRUE(session_exists("a2"));
    EXPECT_FALSE(session_exists("a3"));
    EXPECT_TRUE(session_exists("b1"));
}

TEST_P(StorageAccounts, PasswordChangeEndsEveryOtherSessionInTheSameWrite) {
    const UserRow anna = sign_up("anna", "anna");
    for (const char* hash : {"a1", "a2"}) {
        ASSERT_TRUE(
            write_account_and_wait(*repository_, CreateSession{SessionRow{hash, anna.id, 1, 1}}));
    }
    ASSERT_TRUE(
        write_account_and_wait(*repository_, SetPasswordHash{anna.id, "$argon2id$new", "a1"}));
    auto found = repository_->find_user("anna");
    ASSERT_TRUE(found && found->has_value());
    EXPECT_EQ((*found)->password_hash, "$argon2id$new");
    EXPECT_TRUE(session_exists("a1"));
    EXPECT_FALSE(session_exists("a2"));
}

TEST_P(StorageAccounts, RehashKeepsEverySession) {
    const UserRow anna = sign_up("anna", "anna");
    ASSERT_TRUE(
        write_account_and_wait(*repository_, CreateSession{SessionRow{"a1", anna.id, 1, 1}}));
    ASSERT_TRUE(
        write_account_and_wait(*repository_, SetPasswordHash{anna.id, "$argon2id$new", {}}));
    EXPECT_TRUE(session_exists("a1"));
}

TEST_P(StorageAccounts, PasswordOfNoUserIsRefused) {
    EXPECT_FALSE(write_account_and_wait(*repository_, SetPasswordHash{9, "h", {}}));
}

TEST_P(StorageAccounts, DeletedUserKeepsItsRowAndNameLosesItsSessionsAndCannotSignIn) {
    const UserRow anna = sign_up("Anna", "anna");
    const UserRow bo = sign_up("Bo_b", "bo_b");
    ASSERT_TRUE(write_account_and_wait(*repository_, CreateSession{{"h1", anna.id, 1, 1}}));
    ASSERT_TRUE(write_account_and_wait(*repository_, CreateSession{{"h2", anna.id, 1, 1}}));
    ASSERT_TRUE(write_account_and_wait(*repository_, CreateSession{{"h3", bo.id, 1, 1}}));

    ASSERT_TRUE(write_account_and_wait(*repository_, DeleteUser{anna.id, 5000}));
    const auto found = repository_->find_user("anna");
    ASSERT_TRUE(found && found->has_value());
    EXPECT_EQ((*found)->deleted_ms, 5000);
    EXPECT_FALSE(session_exists("h1"));
    EXPECT_FALSE(session_exists("h2"));
    EXPECT_TRUE(session_exists("h3"));
    // Its name stays taken, it cannot sign in, and it cannot be deleted twice.
    EXPECT_FALSE(
        write_account_and_wait(*repository_, CreateUser{"ANNA", "anna", "$argon2id$h", 9}));
    EXPECT_FALSE(write_account_and_wait(*repository_, CreateSession{{"h4", anna.id, 1, 1}}));
    EXPECT_FALSE(write_account_and_wait(*repository_, DeleteUser{anna.id, 6000}));
    EXPECT_FALSE(write_account_and_wait(*repository_, DeleteUser{anna.id + 100, 6000}));
}

TEST_P(StorageAccounts, LoadAccountsHoldsEveryUserWithoutHashesAndEverySession) {
    const UserRow anna = sign_up("Anna", "anna");
    const UserRow gone = sign_up("Gone", "gone");
    ASSERT_TRUE(write_account_and_wait(*repository_, CreateSession{{"h1", anna.id, 1, 1}}));
    ASSERT_TRUE(write_account_and_wait(*repository_, DeleteUser{gone.id, 5000}));
    const auto loaded = repository_->load_accounts();
    ASSERT_TRUE(loaded) << loaded.error().message;
    EXPECT_EQ(loaded->users, (std::vector<AccountSnapshot::User>{{anna.id, "Anna", "anna", false},
                                                                 {gone.id, "Gone", "gone", true}}));
    EXPECT_EQ(loaded->sessions, (std::vector<AccountSnapshot::Session>{{"h1", anna.id}}));
}

TEST_P(StorageAccounts, AccountsOutliveARestart) {
    const UserRow anna = sign_up("anna", "anna");
    ASSERT_TRUE(
        write_account_and_wait(*repository_, CreateSession{SessionRow{"a1", anna.id, 1, 1}}));
    reopen();
    auto found = repository_->find_user("anna");
    ASSERT_TRUE(found && found->has_value());
    EXPECT_EQ(**found, anna);
    EXPECT_TRUE(session_exists("a1"));
}

INSTANTIATE_TEST_SUITE_P(Engines, StorageAccounts,
                         ::testing::ValuesIn(testing::engines_under_test()), testing::engine_name);

}  // namespace
}  // namespace arbiter::server::storage
