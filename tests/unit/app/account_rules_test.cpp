// Sign-up rules (usernames, passwords) and Argon2id password hashes.
#include <gtest/gtest.h>

#include <string>

#include "server/app/account_rules.hpp"
#include "server/app/password_hash.hpp"

namespace arbiter::server::app {
namespace {

TEST(AccountRules, UsernamesAreThreeToTwentyLettersDigitsUnderscoresOrDashes) {
    for (const char* name : {"bob", "Alice_99", "x-y-z", "ABCDEFGHIJKLMNOPQRST", "a_b"}) {
        EXPECT_TRUE(check_username(name)) << name;
    }
    for (const char* name : {"", "ab", "ABCDEFGHIJKLMNOPQRSTU", "bob smith", "bob!", "émile",
                             "bob\n", "a.b", "<script>",
                             "\xE2\x80\x8B"
                             "bob"}) {
        const auto checked = check_username(name);
        ASSERT_FALSE(checked) << name;
        EXPECT_EQ(checked.error(), "a username is 3 to 20 letters, digits, '_' or '-'");
    }
}

TEST(AccountRules, ReservedUsernamesAreRefusedInAnyCase) {
    for (const char* name : {"admin", "Admin", "ARBITER", "Guest", "anonymous", "deleted"}) {
        const auto checked = check_username(name);
        ASSERT_FALSE(checked) << name;
        EXPECT_NE(checked.error().find("reserved"), std::string::npos);
    }
    EXPECT_TRUE(check_username("admins"));
}

TEST(AccountRules, UsernamesAreUniqueIgnoringCase) {
    EXPECT_EQ(username_key("Alice_99"), "alice_99");
    EXPECT_EQ(username_key("ALICE_99"), username_key("alice_99"));
    EXPECT_NE(username_key("alice-99"), username_key("alice_99"));
}

TEST(AccountRules, PasswordsAreLongEnoughUncommonAndNotTheUsername) {
    EXPECT_TRUE(check_password("correct horse battery", "alice"));
    EXPECT_TRUE(check_password(std::string(kMaxPasswordLength, 'k'), "alice"));
    const auto short_one = check_password("x7#kq2!", "alice");
    ASSERT_FALSE(short_one);
    EXPECT_EQ(short_one.error(), "a password is at least 8 characters");
    EXPECT_FALSE(check_password(std::string(kMaxPasswordLength + 1, 'k'), "alice"));
    const auto same = check_password("AliceInChains", "aliceinchains");
    ASSERT_FALSE(same);
    EXPECT_EQ(same.error(), "the password may not be the username");
    for (const char* common :
         {"password", "Password1", "QWERTY123", "12345678", "iloveyou", "sunshine", "checkmate"}) {
        const auto checked = check_password(common, "alice");
        ASSERT_FALSE(checked) << common;
        EXPECT_NE(checked.error().find("most common"), std::string::npos);
    }
}

TEST(AccountRules, CommonPasswordsAreFoundIgnoringCase) {
    EXPECT_TRUE(is_common_password("123456"));
    EXPECT_TRUE(is_common_password("0000"));  // its first entry
    EXPECT_TRUE(is_common_password("zxcvbnm1"));
    EXPECT_TRUE(is_common_password("ZaQ12wSx"));
    EXPECT_FALSE(is_common_password("tr0ub4dor&3 staple"));
    EXPECT_FALSE(is_common_password(""));
}

TEST(PasswordHash, AHashVerifiesItsPasswordAndNoOther) {
    const auto stored = hash_password("correct horse battery", minimal_password_cost());
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->rfind("$argon2id$", 0), 0u) << *stored;
    EXPECT_EQ(stored->find("correct"), std::string::npos) << "the password is not in its hash";
    EXPECT_TRUE(verify_password(*stored, "correct horse battery"));
    EXPECT_FALSE(verify_password(*stored, "correct horse batterY"));
    EXPECT_FALSE(verify_password(*stored, ""));
}

TEST(PasswordHash, EachHashHasItsOwnSalt) {
    const auto first = hash_password("same password", minimal_password_cost());
    const auto second = hash_password("same password", minimal_password_cost());
    ASSERT_TRUE(first && second);
    EXPECT_NE(*first, *second);
    EXPECT_TRUE(verify_password(*second, "same password"));
}

TEST(PasswordHash, WhatIsNotAnArgonHashMatchesNothing) {
    EXPECT_FALSE(verify_password("", ""));
    EXPECT_FALSE(verify_password("plain text", "plain text"));
    EXPECT_FALSE(verify_password(std::string(1000, '$'), "x"));
}

TEST(PasswordHash, AHashAtAnotherCostIsMadeAgain) {
    const auto cheap = hash_password("rehash me please", minimal_password_cost());
    ASSERT_TRUE(cheap);
    EXPECT_FALSE(password_needs_rehash(*cheap, minimal_password_cost()));
    EXPECT_TRUE(password_needs_rehash(*cheap, interactive_password_cost()));
    EXPECT_TRUE(password_needs_rehash("garbage", interactive_password_cost()));
    const auto real = hash_password("rehash me please", interactive_password_cost());
    ASSERT_TRUE(real);
    EXPECT_TRUE(verify_password(*real, "rehash me please"));
    EXPECT_FALSE(password_needs_rehash(*real, interactive_password_cost()));
}

}  // namespace
}  // namespace arbiter::server::app
