#include "server/app/hello_identity.hpp"

#include "server/app/account_http.hpp"
#include "server/app/secrets.hpp"

namespace arbiter::server::app {

HelloOutcome decide_hello(const std::optional<AccountUser>& current, const protocol::Hello& hello,
                          const AccountDirectory& directory) {
    if (hello.token) {
        if (auto user = directory.session_user(token_hash(*hello.token))) {
            return {HelloOutcome::SignedIn{std::move(*user)}};
        }
        return {HelloOutcome::Refused{protocol::ErrorCode::unauthorized,
                                      "the session has ended: sign in again"}};
    }
    // A connection signed in (by its cookie, or an earlier hello's token) stays so: a client
    // that says hello again with its display name must not sign itself out by it.
    if (current && !directory.deleted(current->id)) {
        return {HelloOutcome::SignedIn{*current}};
    }
    if (directory.registered(hello.name)) {
        return {HelloOutcome::Refused{
            protocol::ErrorCode::name_taken,
            "that name belongs to a registered player: choose another, or sign in"}};
    }
    return {HelloOutcome::Guest{hello.name}};
}

std::optional<AccountUser> cookie_user(const std::optional<std::string>& cookie,
                                       const AccountDirectory& directory) {
    const auto token = session_token_of(std::nullopt, cookie);
    if (!token) {
        return std::nullopt;
    }
    return directory.session_user(token_hash(*token));
}

}  // namespace arbiter::server::app
