#include "server/app/account_http.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include "common/protocol/account_api.hpp"
#include "server/app/account_rules.hpp"
#include "server/app/http_api.hpp"

namespace arbiter::server::app {

namespace {

net::HttpResponse json_answer(unsigned status, std::string body) {
    net::HttpResponse response;
    response.status = status;
    response.content_type = "application/json";
    response.body = std::move(body);
    // An answer about who is signed in is this client's alone.
    response.headers.emplace_back("Cache-Control", "no-store");
    return response;
}

net::HttpResponse no_content() {
    net::HttpResponse response;
    response.status = 204;
    response.content_type.clear();
    response.headers.emplace_back("Cache-Control", "no-store");
    return response;
}

net::HttpResponse refusal(unsigned status, std::string_view code, std::string_view message) {
    return json_answer(status, protocol::encode_api_error(code, message));
}

net::HttpResponse failure(const AccountError& error) {
    switch (error.problem) {
        case AccountProblem::invalid:
            return refusal(400, "invalid", error.reason);
        case AccountProblem::taken:
            return refusal(409, "taken", error.reason);
        case AccountProblem::wrong_credentials:
            return refusal(401, "wrong_credentials", error.reason);
        case AccountProblem::not_signed_in:
            return refusal(401, "not_signed_in", error.reason);
        case AccountProblem::not_found:
            return refusal(404, "not_found", error.reason);
        case AccountProblem::slowed: {
            auto response = refusal(429, "slowed", error.reason);
            // Whole seconds, rounded up (RFC 9110 10.2.3): a client that waits that long gets in.
            const auto seconds = std::max<std::int64_t>(
                1, std::chrono::ceil<std::chrono::seconds>(error.retry_after).count());
            response.headers.emplace_back("Retry-After", std::to_string(seconds));
            return response;
        }
        case AccountProblem::busy: {
            auto response = refusal(503, "busy", error.reason);
            response.headers.emplace_back("Retry-After", "1");
            return response;
        }
        case AccountProblem::storage:
            return refusal(500, "storage", error.reason);
    }
    return refusal(500, "internal", "internal error");
}

net::HttpResponse not_allowed(std::string_view allow) {
    auto response = refusal(405, "method_not_allowed", "method not allowed");
    response.headers.emplace_back("Allow", std::string(allow));
    return response;
}

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
        text.remove_suffix(1);
    }
    return text;
}

// The address the sign-in throttle counts against: the client's key (the proxy-reported client
// when configured), else the peer address.
const std::string& address_of(const net::HttpRequest& request) {
    return request.client.key.empty() ? request.remote_address : request.client.key;
}

// The answer to a request that ended a session (sign-out, deletion): 204, and the cookie cleared.
Accounts::Reply<void> signed_out(net::HttpHandler::Respond respond, bool secure) {
    return [respond = std::move(respond), secure](const Expected<void, AccountError>& done) {
        if (!done) {
            return respond(failure(done.error()));
        }
        auto response = no_content();
        response.headers.emplace_back("Set-Cookie", session_cookie("", secure));
        respond(std::move(response));
    };
}

}  // namespace

std::optional<std::string> session_token_of(const std::optional<std::string>& authorization,
                                            const std::optional<std::string>& cookie) {
    if (authorization) {
        // RFC 6750 2.1: "Bearer" is case-insensitive, one space, then the token.
        const std::string_view value = trimmed(*authorization);
        constexpr std::string_view kScheme = "bearer ";
        if (value.size() > kScheme.size() &&
            std::equal(kScheme.begin(), kScheme.end(), value.begin(), [](char a, char b) {
                return a == static_cast<char>(std::tolower(static_cast<unsigned char>(b)));
            })) {
            return std::string(trimmed(value.substr(kScheme.size())));
        }
    }
    if (cookie) {
        // RFC 6265 5.4: "name=value" pairs separated by "; " (lines joined by ", " upstream).
        std::string_view rest = *cookie;
        while (!rest.empty()) {
            const auto end = rest.find_first_of(";,");
            const std::string_view pair = trimmed(rest.substr(0, end));
            rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
            const auto equals = pair.find('=');
            if (equals != std::string_view::npos && pair.substr(0, equals) == kSessionCookie &&
                equals + 1 < pair.size()) {
                return std::string(pair.substr(equals + 1));
            }
        }
    }
    return std::nullopt;
}

std::string session_cookie(std::string_view token, bool secure) {
    std::string value = std::string(kSessionCookie) + "=" + std::string(token) +
                        "; HttpOnly; SameSite=Strict; Path=/";
    if (token.empty()) {
        value += "; Max-Age=0";
    }
    if (secure) {
        value += "; Secure";
    }
    return value;
}

bool is_account_path(std::string_view path) {
    return path == "/api/account" || path == "/api/session" || path == "/api/account/password";
}

void AccountHttp::handle(const net::HttpRequest& request, std::string_view path,
                         net::HttpHandler::Respond respond) {
    const std::string& method = request.method;
    if (path == "/api/account") {
        if (method == "POST") {
            return sign_up(request, std::move(respond));
        }
        if (method == "DELETE") {
            return delete_account(request, std::move(respond));
        }
        return respond(not_allowed("POST, DELETE"));
    }
    if (path == "/api/session") {
        if (method == "POST") {
            return sign_in(request, std::move(respond));
        }
        if (method == "DELETE") {
            return sign_out(request, std::move(respond));
        }
        return respond(not_allowed("POST, DELETE"));
    }
    if (path == "/api/account/password") {
        return method == "POST" ? change_password(request, std::move(respond))
                                : respond(not_allowed("POST"));
    }
    respond(refusal(404, "not_found", "no such endpoint"));
}

void AccountHttp::sign_up(const net::HttpRequest& request, net::HttpHandler::Respond respond) {
    auto credentials = protocol::decode_credentials(request.body);
    if (!credentials) {
        return respond(refusal(400, "invalid", credentials.error()));
    }
    accounts_.sign_up(
        credentials->username, std::move(credentials->password),
        [respond = std::move(respond)](const Expected<std::string, AccountError>& done) {
            if (!done) {
                return respond(failure(done.error()));
            }
            respond(json_answer(201, protocol::encode_account(*done)));
        });
}

void AccountHttp::sign_in(const net::HttpRequest& request, net::HttpHandler::Respond respond) {
    auto credentials = protocol::decode_credentials(request.body);
    if (!credentials) {
        return respond(refusal(400, "invalid", credentials.error()));
    }
    accounts_.sign_in(
        credentials->username, std::move(credentials->password), address_of(request),
        [respond = std::move(respond),
         secure = request.secure](const Expected<SignedIn, AccountError>& done) {
            if (!done) {
                return respond(failure(done.error()));
            }
            auto response =
                json_answer(200, protocol::encode_signed_in(done->username, done->token));
            response.headers.emplace_back("Set-Cookie", session_cookie(done->token, secure));
            respond(std::move(response));
        });
}

void AccountHttp::sign_out(const net::HttpRequest& request, net::HttpHandler::Respond respond) {
    const auto token = session_token_of(request.authorization, request.cookie);
    if (!token) {
        return respond(refusal(401, "not_signed_in", "not signed in"));
    }
    accounts_.sign_out(*token, signed_out(std::move(respond), request.secure));
}

void AccountHttp::change_password(const net::HttpRequest& request,
                                  net::HttpHandler::Respond respond) {
    auto token = session_token_of(request.authorization, request.cookie);
    if (!token) {
        return respond(refusal(401, "not_signed_in", "not signed in"));
    }
    auto change = protocol::decode_password_change(request.body);
    if (!change) {
        return respond(refusal(400, "invalid", change.error()));
    }
    accounts_.change_password(
        std::move(*token), std::move(change->password), std::move(change->new_password),
        address_of(request),
        [respond = std::move(respond)](const Expected<void, AccountError>& done) {
            if (!done) {
                return respond(failure(done.error()));
            }
            respond(no_content());
        });
}

void AccountHttp::delete_account(const net::HttpRequest& request,
                                 net::HttpHandler::Respond respond) {
    auto token = session_token_of(request.authorization, request.cookie);
    if (!token) {
        return respond(refusal(401, "not_signed_in", "not signed in"));
    }
    auto password = protocol::decode_password_confirmation(request.body);
    if (!password) {
        return respond(refusal(400, "invalid", password.error()));
    }
    accounts_.delete_account(std::move(*token), std::move(*password), address_of(request),
                             signed_out(std::move(respond), request.secure));
}

}  // namespace arbiter::server::app
