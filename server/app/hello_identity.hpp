#pragma once
/// \file
/// Who a connection is after its `hello` (protocol.md, hello): signed in by a session token,
/// still signed in, a guest with the name given, or refused with nothing changed. A decision
/// of the connection's account, the message and the directory alone, so that each rule has a
/// unit test; the hub applies it.

#include <optional>
#include <string>
#include <variant>

#include "common/protocol/messages.hpp"
#include "server/app/account_directory.hpp"
#include "server/app/connections.hpp"

namespace arbiter::server::app {

/// What a `hello` does to its connection.
struct HelloOutcome {
    /// Signed in as `user` (a token, or still signed in): the name is its username.
    struct SignedIn {
        AccountUser user;
    };
    /// A guest named `name`.
    struct Guest {
        std::string name;
    };
    /// Refused: an error with `code` and `message`, and the connection stays what it was.
    struct Refused {
        protocol::ErrorCode code = protocol::ErrorCode::bad_request;
        std::string message;
    };
    std::variant<SignedIn, Guest, Refused> result;
};

/// The outcome of `hello` on a connection signed in as `current` (nullopt: a guest).
HelloOutcome decide_hello(const std::optional<AccountUser>& current, const protocol::Hello& hello,
                          const AccountDirectory& directory);

/// The account the WebSocket upgrade's Cookie field (`cookie`) signs in, if any.
std::optional<AccountUser> cookie_user(const std::optional<std::string>& cookie,
                                       const AccountDirectory& directory);

}  // namespace arbiter::server::app
