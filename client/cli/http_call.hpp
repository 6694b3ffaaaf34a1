#pragma once
/// \file
/// One blocking HTTP/1.1 request to the server a ws:// URL names (the accounts' API shares the
/// game port): `arbiter-cli login` and `logout`. Boost.Beast stays inside http_call.cpp.

#include <chrono>
#include <optional>
#include <string>

#include "client/cli/ws_client.hpp"
#include "common/core/expected.hpp"

namespace arbiter::client {

/// A request: `bearer` is sent as `Authorization: Bearer <token>` when set.
struct HttpCall {
    std::string method;  ///< "POST", "DELETE"
    std::string target;  ///< "/api/session"
    std::string body;    ///< JSON, or empty
    std::optional<std::string> bearer;
};

/// What the server answered.
struct HttpAnswer {
    unsigned status = 0;
    std::string body;
};

/// Sends `call` to the host and port of `server` and reads the answer, within `timeout`. The
/// error says what failed (no connection, a timeout).
Expected<HttpAnswer, std::string> http_call(const WsUrl& server, const HttpCall& call,
                                            std::chrono::milliseconds timeout);

}  // namespace arbiter::client
