// AccountDirectory and decide_hello (issue 40): who a connection is, decided from memory alone.
// Each rule of hello (protocol.md) has a test that accepts and one that refuses.

#include "server/app/account_directory.hpp"

#include <gtest/gtest.h>

#include "server/app/hello_identity.hpp"
#include "server/app/secrets.hpp"

namespace arbiter::server::app {
namespace {

using storage::AccountSnapshot;

AccountSnapshot two_users() {
    AccountSnapshot snapshot;
    snapshot.users = {{1, "Anna", "anna", false}, {2, "Gone", "gone", true}};
    snapshot.sessions = {{token_hash("anna-token"), 1}, {token_hash("gone-token"), 2}};
    return snapshot;
}

/// Anna (id 1, session "anna-token") and Gone (id 2, deleted, a session left over).
class Loaded {
  public:
    Loaded() { directory_.load(two_users()); }
    operator AccountDirectory&() { return directory_; }

  private:
    AccountDirectory directory_;
};

TEST(AccountDirectory, LoadsLiveSessionsAndEveryNameDeletedOnesIncluded) {
    Loaded loaded;
    const AccountDirectory& directory = loaded;
    EXPECT_EQ(directory.session_user(token_hash("anna-token")), (AccountUser{1, "Anna"}));
    EXPECT_EQ(directory.session_user(token_hash("gone-token")), std::nullopt);
    EXPECT_EQ(directory.session_user(token_hash("nobody")), std::nullopt);
    EXPECT_EQ(directory.session_count(), 1U);
    EXPECT_TRUE(directory.registered("ANNA"));
    EXPECT_TRUE(directory.registered("gOnE"));
    EXPECT_FALSE(directory.registered("Annabel"));
    EXPECT_TRUE(directory.deleted(2));
    EXPECT_FALSE(directory.deleted(1));
}

TEST(AccountDirectory, FollowsSignInSignOutAndPasswordChange) {
    Loaded loaded;
    AccountDirectory& directory = loaded;
    directory.signed_up("Bo_b");
    EXPECT_TRUE(directory.registered("bo_B"));
    directory.signed_in("h1", {3, "Bo_b"});
    directory.signed_in("h2", {3, "Bo_b"});
    directory.signed_in("h3", {3, "Bo_b"});
    EXPECT_EQ(directory.session_user("h2"), (AccountUser{3, "Bo_b"}));
    directory.signed_out("h3");
    EXPECT_EQ(directory.session_user("h3"), std::nullopt);
    directory.other_sessions_ended(3, "h1");
    EXPECT_EQ(directory.session_user("h1"), (AccountUser{3, "Bo_b"}));
    EXPECT_EQ(directory.session_user("h2"), std::nullopt);
    EXPECT_EQ(directory.session_user(token_hash("anna-token")), (AccountUser{1, "Anna"}));
}

TEST(AccountDirectory, ADeletedAccountSignsNobodyInAndKeepsItsName) {
    Loaded loaded;
    AccountDirectory& directory = loaded;
    directory.account_deleted(1);
    EXPECT_EQ(directory.session_user(token_hash("anna-token")), std::nullopt);
    EXPECT_TRUE(directory.deleted(1));
    EXPECT_TRUE(directory.registered("anna"));
    EXPECT_EQ(directory.session_count(), 0U);
}

// ---- hello ----------------------------------------------------------------------------------

template <class T>
const T* outcome_as(const HelloOutcome& outcome) {
    return std::get_if<T>(&outcome.result);
}

TEST(DecideHello, AValidTokenSignsInWhateverTheName) {
    Loaded loaded;
    const AccountDirectory& directory = loaded;
    const auto outcome = decide_hello(std::nullopt, {"whoever", "anna-token"}, directory);
    const auto* signed_in = outcome_as<HelloOutcome::SignedIn>(outcome);
    ASSERT_NE(signed_in, nullptr);
    EXPECT_EQ(signed_in->user, (AccountUser{1, "Anna"}));
}

TEST(DecideHello, AnUnknownOrEndedTokenIsUnauthorizedEvenWhenSignedIn) {
    Loaded loaded;
    const AccountDirectory& directory = loaded;
    for (const char* token : {"no-such-token", "gone-token"}) {
        const auto outcome = decide_hello(AccountUser{1, "Anna"}, {"Ann", token}, directory);
        const auto* refused = outcome_as<HelloOutcome::Refused>(outcome);
        ASSERT_NE(refused, nullptr) << token;
        EXPECT_EQ(refused->code, protocol::ErrorCode::unauthorized);
    }
}

TEST(DecideHello, WithoutATokenASignedInConnectionStaysSignedIn) {
    Loaded loaded;
    const AccountDirectory& directory = loaded;
    const auto outcome = decide_hello(AccountUser{1, "Anna"}, {"Someone else", {}}, directory);
    const auto* signed_in = outcome_as<HelloOutcome::SignedIn>(outcome);
    ASSERT_NE(signed_in, nullptr);
    EXPECT_EQ(signed_in->user, (AccountUser{1, "Anna"}));
}

TEST(DecideHello, AGuestTakesAFreeName) {
    Loaded loaded;
    const AccountDirectory& directory = loaded;
    const auto outcome = decide_hello(std::nullopt, {"Annabel", {}}, directory);
    const auto* guest = outcome_as<HelloOutcome::Guest>(outcome);
    ASSERT_NE(guest, nullptr);
    EXPECT_EQ(guest->name, "Annabel");
}

TEST(DecideHello, AGuestCannotTakeARegisteredNameInAnyCaseNorADeletedOne) {
    Loaded loaded;
    const AccountDirectory& directory = loaded;
    for (const char* name : {"anna", "ANNA", "Gone"}) {
        const auto outcome = decide_hello(std::nullopt, {name, {}}, directory);
        const auto* refused = outcome_as<HelloOutcome::Refused>(outcome);
        ASSERT_NE(refused, nullptr) << name;
        EXPECT_EQ(refused->code, protocol::ErrorCode::name_taken);
    }
}

TEST(DecideHello, AConnectionOfADeletedAccountIsAGuestAgain) {
    Loaded loaded;
    const AccountDirectory& directory = loaded;
    const auto outcome = decide_hello(AccountUser{2, "Gone"}, {"Newcomer", {}}, directory);
    EXPECT_NE(outcome_as<HelloOutcome::Guest>(outcome), nullptr);
}

TEST(CookieUser, TheSessionCookieSignsInAndAnythingElseIsAGuest) {
    Loaded loaded;
    const AccountDirectory& directory = loaded;
    EXPECT_EQ(cookie_user("theme=dark; arbiter_session=anna-token", directory),
              (AccountUser{1, "Anna"}));
    EXPECT_EQ(cookie_user("arbiter_session=wrong", directory), std::nullopt);
    EXPECT_EQ(cookie_user("arbiter_session=gone-token", directory), std::nullopt);
    EXPECT_EQ(cookie_user(std::nullopt, directory), std::nullopt);
}

}  // namespace
}  // namespace arbiter::server::app
