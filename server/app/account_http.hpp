#pragma once
/// \file
/// The accounts' HTTP API (issue 40; schema/protocol.md, "Accounts"):
///   POST   /api/account           {"username","password"}  201 | 400 reason | 409 taken
///   POST   /api/session           {"username","password"}  200 {"username","token"} + cookie
///                                                          | 401 | 429 + Retry-After
///   DELETE /api/session           (cookie or Bearer token)  204, the cookie cleared
///   DELETE /api/account           {"password"} + (cookie or Bearer token)  204, the cookie
///                                 cleared | 401 | 429
///   POST   /api/account/password  {"password","new_password"} 204, every other session ended
/// (A player's profile, GET /api/users/{name}, is the players' API: player_http.hpp.)
/// Origin was checked by the network layer for every method but GET and HEAD. Passwords and
/// tokens appear in no log and in no answer but the sign-in's own.

#include <optional>
#include <string>
#include <string_view>

#include "server/app/accounts.hpp"
#include "server/net/peer.hpp"

namespace arbiter::server::app {

/// The cookie that carries a browser's session.
inline constexpr std::string_view kSessionCookie = "arbiter_session";

/// The session token a request carries: `Authorization: Bearer <token>` first, else the
/// arbiter_session cookie; nullopt when neither is there.
std::optional<std::string> session_token_of(const std::optional<std::string>& authorization,
                                            const std::optional<std::string>& cookie);

/// The Set-Cookie value that keeps `token` in the browser (no script may read it, no other
/// site's request carries it), `Secure` when the request came over TLS. An empty token gives the
/// value that clears the cookie.
std::string session_cookie(std::string_view token, bool secure);

/// Whether `path` is one of the accounts' paths (the API above).
bool is_account_path(std::string_view path);

/// Answers a request to one of the accounts' paths. Thread-safe.
class AccountHttp {
  public:
    explicit AccountHttp(Accounts& accounts) : accounts_(accounts) {}

    void handle(const net::HttpRequest& request, std::string_view path,
                net::HttpHandler::Respond respond);

  private:
    void sign_up(const net::HttpRequest& request, net::HttpHandler::Respond respond);
    void sign_in(const net::HttpRequest& request, net::HttpHandler::Respond respond);
    void sign_out(const net::HttpRequest& request, net::HttpHandler::Respond respond);
    void change_password(const net::HttpRequest& request, net::HttpHandler::Respond respond);
    void delete_account(const net::HttpRequest& request, net::HttpHandler::Respond respond);

    Accounts& accounts_;
};

}  // namespace arbiter::server::app
