// The accounts' HTTP API (issue 40): where a session token is read from, the cookie that keeps
// it, the request bodies, and the status of each answer, over an in-memory store.

#include "server/app/account_http.hpp"

#include <gtest/gtest.h>

#include "common/protocol/account_api.hpp"

namespace arbiter::server::app {
namespace {

TEST(SessionToken, BearerComesFirstAndItsSchemeIgnoresCase) {
    EXPECT_EQ(session_token_of("Bearer abc", "arbiter_session=def"), "abc");
    EXPECT_EQ(session_token_of("bearer abc", std::nullopt), "abc");
}

TEST(SessionToken, CookieIsFoundAmongOthers) {
    EXPECT_EQ(session_token_of(std::nullopt, "theme=dark; arbiter_session=def; lang=fr"), "def");
    EXPECT_EQ(session_token_of("Basic dXNlcg==", "arbiter_session=def"), "def");
}

TEST(SessionToken, NoneWhenAbsentOrEmpty) {
    EXPECT_FALSE(session_token_of(std::nullopt, std::nullopt));
    EXPECT_FALSE(session_token_of(std::nullopt, "arbiter_session="));
    EXPECT_FALSE(session_token_of(std::nullopt, "xarbiter_session=abc"));
    EXPECT_FALSE(session_token_of("Bearer", std::nullopt));
}

TEST(SessionCookie, HttpOnlyStrictAndSecureOnlyUnderTls) {
    EXPECT_EQ(session_cookie("abc", false),
              "arbiter_session=abc; HttpOnly; SameSite=Strict; Path=/");
    EXPECT_EQ(session_cookie("abc", true),
              "arbiter_session=abc; HttpOnly; SameSite=Strict; Path=/; Secure");
    EXPECT_EQ(session_cookie("", false),
              "arbiter_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0");
}

TEST(AccountBodies, CredentialsNeedBothFieldsAsStrings) {
    const auto ok = protocol::decode_credentials(R"({"username":"anna","password":"pw"})");
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->username, "anna");
    EXPECT_EQ(ok->password, "pw");
    EXPECT_FALSE(protocol::decode_credentials(R"({"username":"anna"})"));
    EXPECT_FALSE(protocol::decode_credentials(R"({"username":"anna","password":7})"));
    EXPECT_FALSE(protocol::decode_credentials("[1]"));
    EXPECT_FALSE(protocol::decode_credentials("{"));
}

TEST(AccountBodies, RefusalNeverRepeatsAValue) {
    const auto refused =
        protocol::decode_credentials(R"({"username":"anna","password":["s3cret"]})");
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().find("s3cret"), std::string::npos);
}

TEST(AccountPaths, OnlyTheAccountsApi) {
    EXPECT_TRUE(is_account_path("/api/account"));
    EXPECT_TRUE(is_account_path("/api/session"));
    EXPECT_TRUE(is_account_path("/api/account/password"));
    EXPECT_FALSE(is_account_path("/api/users/anna"));  // the players' API (player_http.hpp)
    EXPECT_FALSE(is_account_path("/api/games"));
    EXPECT_FALSE(is_account_path("/api/accounts"));
}

}  // namespace
}  // namespace arbiter::server::app
