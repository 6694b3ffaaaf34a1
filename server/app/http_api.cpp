#include "server/app/http_api.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>

#include "common/protocol/codec.hpp"
#include "common/rules/game.hpp"
#include "server/app/explore_http.hpp"
#include "server/app/http_validators.hpp"
#include "server/app/log.hpp"
#include "server/app/secrets.hpp"
#include "server/app/stored_views.hpp"

namespace arbiter::server::app {

namespace {

net::HttpResponse text_response(unsigned status, std::string body) {
    net::HttpResponse response;
    response.status = status;
    response.body = std::move(body);
    response.body += "\n";
    return response;
}

net::HttpResponse json_response(std::string body) {
    net::HttpResponse response;
    response.content_type = "application/json";
    response.body = std::move(body);
    return response;
}

bool valid_game_id(std::string_view id) {
    if (id.empty() || id.size() > 32) {
        return false;
    }
    for (const char c : id) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '-' || c == '_';
        if (!ok) {
            return false;
        }
    }
    return true;
}

std::string_view content_type_for(const std::filesystem::path& path) {
    static const std::map<std::string, std::string_view> kTypes = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".json", "application/json"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".woff2", "font/woff2"},
        {".wav", "audio/wav"},
        {".txt", "text/plain; charset=utf-8"},
        {".map", "application/json"}};
    auto it = kTypes.find(path.extension().string());
    return it == kTypes.end() ? std::string_view("application/octet-stream") : it->second;
}

std::int64_t unix_nanoseconds(std::filesystem::file_time_type time) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::file_clock::to_sys(time).time_since_epoch())
        .count();
}

// What the browser client may load and who may frame it (CSP level 3: 'self' includes this
// host's ws: and wss:).
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'";

}  // namespace

std::optional<std::string> url_decode(std::string_view text, bool query) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '%') {
            if (i + 2 >= text.size()) {
                return std::nullopt;
            }
            unsigned value = 0;
            const auto [end, ec] =
                std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
            if (ec != std::errc{} || end != text.data() + i + 3) {
                return std::nullopt;
            }
            out.push_back(static_cast<char>(value));
            i += 2;
        } else if (c == '+' && query) {
            out.push_back(' ');
        } else {
            out.push_back(c);
        }
    }
    return out;
}

Expected<std::map<std::string, std::string>, std::string> query_parameters(
    std::string_view query, std::initializer_list<std::string_view> known, QueryRules rules) {
    std::map<std::string, std::string> found;
    while (!query.empty()) {
        const auto amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        if (pair.empty()) {
            continue;
        }
        const auto eq = pair.find('=');
        const auto key = url_decode(pair.substr(0, eq), true);
        const auto value = url_decode(
            eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
        if (!key || !value) {
            return unexpected(std::string("malformed query"));
        }
        if (std::find(known.begin(), known.end(), *key) == known.end()) {
            return unexpected("unknown parameter: " + *key);
        }
        if (value->empty() && rules.empty_is_absent) {
            continue;
        }
        if (!found.insert_or_assign(*key, *value).second && rules.refuse_repeats) {
            return unexpected("parameter given twice: " + *key);
        }
    }
    return found;
}

HttpApi::HttpApi(storage::GameRepository& repository, Metrics& metrics,
                 std::filesystem::path web_root, GaugeSource gauges, ReadWorker& reads,
                 ApiLimits limits, AccountHttp* accounts, PlayerHttp* players,
                 AnalysisHttp* analysis)
    : repository_(repository),
      metrics_(metrics),
      web_root_(std::move(web_root)),
      gauges_(std::move(gauges)),
      reads_(reads),
      accounts_(accounts),
      players_(players),
      analysis_(analysis),
      api_rates_(limits.requests_per_second, limits.burst),
      writable_(repository.writable()),
      last_probe_(std::chrono::steady_clock::now().time_since_epoch().count()) {}

void HttpApi::handle(const net::HttpRequest& request, Respond respond) {
    const std::string_view target = request.target;
    const auto question = target.find('?');
    const std::string_view path = target.substr(0, question);
    if (accounts_ != nullptr && is_account_path(path)) {
        if (auto refusal = over_api_rate(request)) {
            return respond(std::move(*refusal));
        }
        return accounts_->handle(request, path, std::move(respond));
    }
    if (analysis_ != nullptr && is_analysis_path(path)) {
        if (auto refusal = over_api_rate(request)) {
            return respond(std::move(*refusal));
        }
        const std::string_view query =
            question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
        return analysis_->handle(request, path, query, std::move(respond));
    }
    if (request.method != "GET" && request.method != "HEAD") {
        auto response = text_response(405, "method not allowed");
        response.headers.emplace_back("Allow", "GET, HEAD");
        return respond(std::move(response));
    }
    const std::string query(question == std::string_view::npos ? std::string_view()
                                                               : target.substr(question + 1));

    if (path == "/healthz") {
        return health(std::move(respond));
    }
    if (path == "/metrics") {
        return respond(metrics());
    }
    if (path.starts_with("/api/")) {
        if (auto refusal = over_api_rate(request)) {
            return respond(std::move(*refusal));
        }
    }
    if (path == kExplorePath) {
        return respond(explore_answer(query));
    }
    if (players_ != nullptr && is_player_path(path)) {
        return read_stored(request, std::move(respond), [this, path = std::string(path), query] {
            return players_->answer(path, query);
        });
    }
    if (path == "/api/games") {
        return read_stored(request, std::move(respond), [this, query] { return games(query); });
    }
    constexpr std::string_view kGamePrefix = "/api/games/";
    if (path.starts_with(kGamePrefix)) {
        std::string_view rest = path.substr(kGamePrefix.size());
        constexpr std::string_view kExport = "/export";
        const bool exporting = rest.ends_with(kExport);
        if (exporting) {
            rest.remove_suffix(kExport.size());
        }
        if (!valid_game_id(rest)) {
            return respond(text_response(404, "no such game"));
        }
        return read_stored(request, std::move(respond), [this, exporting, id = std::string(rest)] {
            return exporting ? export_game(id) : game(id);
        });
    }
    if (path.starts_with("/api/")) {
        return respond(text_response(404, "no such endpoint"));
    }
    if (path == "/ws") {
        // The WebSocket endpoint asked without the upgrade (a browser, curl): it exists, so not
        // 404 but 426 with the protocol to switch to (RFC 9110 15.5.22).
        auto response = text_response(
            426, "this is the game protocol's WebSocket endpoint: connect with a WebSocket client");
        response.headers.emplace_back("Upgrade", "websocket");
        return respond(std::move(response));
    }
    respond(static_file(path, request));
}

std::optional<net::HttpResponse> HttpApi::over_api_rate(const net::HttpRequest& request) {
    if (request.client.local) {
        return std::nullopt;
    }
    // Counted before any read is queued: a refused request costs no read, and the reader stays
    // free for the players' games (100 connections pipelining one long game's record kept it
    // busy, and `resume` of a stored game then failed 19 times out of 20). A 304 is counted as
    // a 200: its ETag is the SHA-256 of the read it still makes.
    const auto wait = api_rates_.take(request.client.key, std::chrono::steady_clock::now());
    if (!wait) {
        return std::nullopt;
    }
    metrics_.api_rate_limited();
    auto refusal = text_response(429, "too many requests; slow down");
    // Whole seconds (RFC 9110 10.2.3), rounded up: a client that waits that long gets in.
    const auto seconds =
        std::max<std::int64_t>(1, std::chrono::ceil<std::chrono::seconds>(*wait).count());
    refusal.headers.emplace_back("Retry-After", std::to_string(seconds));
    return refusal;
}

void HttpApi::read_stored(const net::HttpRequest& request, Respond respond,
                          std::function<net::HttpResponse()> read) {
    // Shared: when the queue refuses the read, the read (and what it holds) is dropped.
    auto answer = std::make_shared<Respond>(std::move(respond));
    const bool queued =
        reads_.try_post([answer, read = std::move(read), if_none_match = request.if_none_match] {
            net::HttpResponse response;
            try {
                response = read();
            } catch (const std::exception& error) {
                log_event(LogLevel::error, "http_read_failed", {{"error", error.what()}});
                response = text_response(500, "internal error");
            }
            if (response.status == 200) {
                // The tag names the bytes, so it is right whatever the answer is made of; the read
                // is made either way, and a 304 saves sending the record or the export again.
                const std::string etag = "\"" + sha256_hex(response.body).substr(0, 32) + "\"";
                if (if_none_match && none_match_names(*if_none_match, etag)) {
                    response = net::HttpResponse{};
                    response.status = 304;
                    response.content_type.clear();
                }
                response.headers.insert(response.headers.begin(),
                                        {{"Cache-Control", "no-cache"}, {"ETag", etag}});
            }
            (*answer)(std::move(response));
        });
    if (!queued) {
        auto busy =
            text_response(503, "the server is busy reading stored games; try again shortly");
        busy.headers.emplace_back("Retry-After", "1");
        (*answer)(std::move(busy));
    }
}

net::HttpResponse HttpApi::games(std::string_view query) {
    storage::GameQuery filter;
    while (!query.empty()) {
        const auto amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        const auto eq = pair.find('=');
        const auto key = url_decode(pair.substr(0, eq), true);
        const auto value = url_decode(
            eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
        if (!key || !value) {
            return text_response(400, "malformed query");
        }
        if (*key != "status" && *key != "variant" && *key != "limit" && *key != "before") {
            return text_response(400, "unknown parameter: " + *key);
        }
        if (value->empty()) {
            // "?status=&variant=chess", as an HTML form sends its "any" choice (and as the
            // README writes the template): an empty value is no filter.
            continue;
        }
        if (*key == "status") {
            filter.status = protocol::parse_game_status(*value);
            if (!filter.status) {
                return text_response(400, "status must be waiting, playing, ended or aborted");
            }
        } else if (*key == "variant") {
            filter.variant = rules::parse_variant(*value);
            if (!filter.variant) {
                return text_response(400, "variant must be chess, xiangqi or draughts");
            }
        } else if (*key == "limit") {
            std::size_t limit = 0;
            const auto [end, ec] =
                std::from_chars(value->data(), value->data() + value->size(), limit);
            if (ec != std::errc{} || end != value->data() + value->size() || limit < 1 ||
                limit > 200) {
                return text_response(400, "limit must be a whole number from 1 to 200");
            }
            filter.limit = limit;
        } else if (*key == "before") {
            if (!valid_game_id(*value)) {
                return text_response(400, "before must be a game id");
            }
            filter.before = *value;
        }
    }
    auto rows = repository_.list(filter);
    if (!rows) {
        return text_response(503, "storage: " + rows.error().message);
    }
    protocol::GamesList list;
    for (const auto& row : *rows) {
        list.games.push_back(summary_of(row));
    }
    return json_response(protocol::encode(protocol::ServerMessage{std::move(list), std::nullopt}));
}

net::HttpResponse HttpApi::game(const std::string& id) {
    auto stored = repository_.load(id);
    if (!stored) {
        return text_response(503, "storage: " + stored.error().message);
    }
    if (!*stored) {
        return text_response(404, "no such game");
    }
    return json_response(
        protocol::encode(protocol::ServerMessage{record_of(**stored), std::nullopt}));
}

net::HttpResponse HttpApi::export_game(const std::string& id) {
    auto stored = repository_.load(id);
    if (!stored) {
        return text_response(503, "storage: " + stored.error().message);
    }
    if (!*stored) {
        return text_response(404, "no such game");
    }
    auto text = export_text(
        **stored, analysis_ != nullptr ? analysis_->evals_of(id) : std::vector<std::string>());
    if (!text) {
        return text_response(500, text.error());
    }
    const bool draughts = (*stored)->header.variant == rules::Variant::draughts;
    net::HttpResponse response;
    response.content_type =
        draughts ? "text/plain; charset=utf-8" : "application/x-chess-pgn; charset=utf-8";
    response.body = std::move(*text);
    const std::string extension = draughts ? "pdn" : "pgn";
    response.headers.emplace_back("Content-Disposition",
                                  "attachment; filename=\"arbiter-" + id + "." + extension + "\"");
    return response;
}

void HttpApi::health(Respond respond) {
    // The probe takes SQLite's write lock, which the move writer holds most of the time under
    // load, and may wait for it: on the reader thread, never on a network thread, whose other
    // connections would wait too. At most one probe a second and one at a time (a flood of
    // checks takes the lock once); meanwhile the last answer stands.
    const auto answer = [this] {
        if (!writable_.load()) {
            return text_response(503, "database not writable");
        }
        if (lease_status_) {
            const auto [held, line] = lease_status_();
            return held ? text_response(200, "ok\n" + line) : text_response(503, line);
        }
        return text_response(200, "ok");
    };
    const auto now = std::chrono::steady_clock::now().time_since_epoch();
    const auto last = std::chrono::steady_clock::duration(last_probe_.load());
    if (now - last >= kHealthProbeInterval && !probing_.exchange(true)) {
        auto waiting = std::make_shared<Respond>(std::move(respond));
        const bool queued = reads_.try_post([this, waiting, answer] {
            writable_.store(repository_.writable());
            last_probe_.store(std::chrono::steady_clock::now().time_since_epoch().count());
            probing_.store(false);
            (*waiting)(answer());
        });
        if (queued) {
            return;
        }
        probing_.store(false);  // the reader's queue is full: the last answer stands
        respond = std::move(*waiting);
    }
    respond(answer());
}

net::HttpResponse HttpApi::metrics() {
    net::HttpResponse response;
    response.content_type = "text/plain; version=0.0.4; charset=utf-8";
    response.body = metrics_.render();
    response.body +=
        "# HELP arbiter_database_bytes Size of the SQLite database file.\n"
        "# TYPE arbiter_database_bytes gauge\narbiter_database_bytes " +
        std::to_string(repository_.size_bytes()) + "\n";
    if (gauges_) {
        response.body += gauges_();
    }
    return response;
}

net::HttpResponse HttpApi::static_file(std::string_view raw_path, const net::HttpRequest& request) {
    if (web_root_.empty()) {
        // An empty path joined to a relative one is that relative path, resolved from the working
        // directory: without --web-root every file there (the database too) was served.
        return text_response(404, "not found: this server has no --web-root");
    }
    auto decoded = url_decode(raw_path, false);
    if (!decoded || decoded->empty() || decoded->front() != '/' ||
        decoded->find('\0') != std::string::npos) {
        return text_response(400, "bad path");
    }
    std::filesystem::path relative = std::filesystem::path(decoded->substr(1)).lexically_normal();
    if (relative.empty() || relative == ".") {
        relative = "index.html";
    }
    // Refuse any path that climbs out of the web root.
    if (relative.is_absolute() || relative.begin()->string() == "..") {
        return text_response(404, "not found");
    }
    std::filesystem::path file = web_root_ / relative;
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec)) {
        file /= "index.html";
    }
    if (!std::filesystem::is_regular_file(file, ec)) {
        return text_response(404, "not found");
    }
    // A symbolic link in the web root may point anywhere (at /etc, at the database): what is
    // served must be under the root once every link is followed. A link within the root is fine.
    std::error_code root_error;
    const auto root = std::filesystem::canonical(web_root_, root_error);
    file = std::filesystem::canonical(file, ec);
    if (ec || root_error ||
        std::mismatch(root.begin(), root.end(), file.begin(), file.end()).first != root.end()) {
        return text_response(404, "not found");
    }
    std::error_code size_error;
    std::error_code time_error;
    const auto size = std::filesystem::file_size(file, size_error);
    const auto written = std::filesystem::last_write_time(file, time_error);
    if (size_error || time_error) {
        return text_response(404, "not found");  // gone since is_regular_file()
    }
    const std::int64_t now_seconds = std::chrono::duration_cast<std::chrono::seconds>(
                                         std::chrono::system_clock::now().time_since_epoch())
                                         .count();
    const auto validators = file_validators(size, unix_nanoseconds(written), now_seconds);
    net::HttpResponse response;
    // The client's files keep their names from one build to the next (app.js, not a hashed
    // name): a browser may keep them but asks each time, and an unchanged file is a 304.
    response.headers = {{"Cache-Control", "no-cache"},
                        {"ETag", validators.etag},
                        {"Last-Modified", format_http_date(validators.modified_seconds)}};
    // The page holds the player's seat tokens: no other site may frame it (a click on a hidden
    // Resign), and it runs only the scripts it was built with. The board draws its own inline
    // style sheet and data: images; the game socket is this host's.
    response.headers.insert(response.headers.end(),
                            {{"Content-Security-Policy", std::string(kContentSecurityPolicy)},
                             {"X-Content-Type-Options", "nosniff"},
                             {"X-Frame-Options", "DENY"},
                             {"Referrer-Policy", "no-referrer"}});
    if (not_modified(validators, {request.if_none_match, request.if_modified_since}, now_seconds)) {
        response.status = 304;
        response.content_type.clear();
        return response;
    }
    std::ifstream in(file, std::ios::binary);
    std::ostringstream body;
    body << in.rdbuf();
    response.content_type = std::string(content_type_for(file));
    response.body = body.str();
    return response;
}

}  // namespace arbiter::server::app
