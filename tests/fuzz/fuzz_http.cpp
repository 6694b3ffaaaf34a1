// libFuzzer target: the server's plain-HTTP path, HttpApi::handle(), with a fuzzed method, target,
// conditional headers and body, against a real SQLite repository holding a few games and a real
// web root (no network). Input: method '\n' target '\n', then any lines "If-None-Match: ..." or
// "If-Modified-Since: ..." (RFC 9110 13.1), then the body.
//
// Besides the sanitizers it checks that a static-file answer never reads outside the web root (the
// file next to it and the database must never be served), that every answer has a known status
// and a JSON body wherever the API promises JSON, and the conditional requests: a 304 has no
// body and comes only when a condition holds; a file served whole is a 304 when asked again with
// its own ETag or Last-Modified; and the HTTP-date a file is served with reads back as itself.

#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/rules/game.hpp"
#include "server/app/http_api.hpp"
#include "server/app/metrics.hpp"
#include "server/app/read_worker.hpp"
#include "server/app/secrets.hpp"
#include "server/net/http_date.hpp"
#include "server/storage/sqlite_repository.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

namespace fs = std::filesystem;
using arbiter::fuzz::check;
namespace storage = arbiter::server::storage;
namespace rules = arbiter::rules;
namespace protocol = arbiter::protocol;

constexpr std::string_view kSecret = "ARBITER-FUZZ-SECRET-7f3a";

void write_file(const fs::path& path, std::string_view text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

// One stored game of `variant`: `plies` legal moves from the start, in the given status.
void store_game(storage::GameRepository& repository, const std::string& id, rules::Variant variant,
                int plies, protocol::GameStatus status) {
    auto game = rules::make_game(variant, "startpos");
    check(game.has_value(), "start position");
    storage::GameRow header;
    header.id = id;
    header.variant = variant;
    header.initial_position = "startpos";
    header.status = status == protocol::GameStatus::ended ? protocol::GameStatus::playing : status;
    header.seats = {storage::SeatRow{"Ana", "aa", "", 0},
                    storage::SeatRow{"Bo \xE7\x8E\x8B", "bb", "", 0}};
    header.created_ms = 1700000000000;
    header.updated_ms = header.created_ms;
    repository.write(storage::CreateGame{header}, {});
    for (int ply = 1; ply <= plies; ++ply) {
        const auto legal = (*game)->legal_moves();
        const auto played = (*game)->play(legal[static_cast<std::size_t>(ply) % legal.size()]);
        storage::MoveRow row;
        row.ply = static_cast<std::uint32_t>(ply);
        row.move = played->wire;
        row.notation = played->notation;
        row.position = (*game)->position();
        row.clock_ms = 60000 - ply;
        row.seq = static_cast<std::uint64_t>(ply) + 1;
        row.played_ms = header.created_ms + ply;
        const std::uint64_t seq = row.seq;
        repository.write(storage::AppendMove{id, std::move(row), {}, seq, std::nullopt}, {});
    }
    if (status == protocol::GameStatus::ended) {
        const storage::GameEnding agreed{status, rules::Outcome::draw,
                                         protocol::EndReason::agreement};
        repository.write(
            storage::EndGame{
                id, agreed, {}, static_cast<std::uint64_t>(plies) + 1, header.created_ms + plies},
            {});
    }
}

// Everything the handler needs, made once per process in a private temp folder.
struct Fixture {
    fs::path root;
    std::unique_ptr<storage::SqliteRepository> repository;
    arbiter::server::app::Metrics metrics;
    // Wide enough that the fuzzer, which waits for each answer, never meets a full queue.
    arbiter::server::app::ReadWorker reads{64};
    std::unique_ptr<arbiter::server::app::HttpApi> api;

    Fixture() {
        root = fs::temp_directory_path() / ("arbiter-fuzz-http-" + std::to_string(::getpid()));
        fs::remove_all(root);
        write_file(root / "secret.txt", kSecret);
        write_file(root / "web" / "index.html", "<!doctype html><title>Arbiter</title>");
        write_file(root / "web" / "app.js", "console.log('arbiter');");
        write_file(root / "web" / "assets" / "index.html", "assets");
        write_file(root / "web" / "assets" / "style.css", "body{}");
        storage::SqliteOptions options;
        options.synchronous = storage::Synchronous::normal;
        auto opened = storage::SqliteRepository::open((root / "games.db").string(), options);
        check(opened.has_value(), "open the repository");
        repository = std::move(opened).value();
        store_game(*repository, "chess1", rules::Variant::chess, 12, protocol::GameStatus::playing);
        store_game(*repository, "xiangqi1", rules::Variant::xiangqi, 9,
                   protocol::GameStatus::ended);
        store_game(*repository, "draughts1", rules::Variant::draughts, 14,
                   protocol::GameStatus::waiting);
        store_game(*repository, "chess-2_x", rules::Variant::chess, 0,
                   protocol::GameStatus::aborted);
        repository->flush();
        // Every fuzzed request comes from one client: a rate the fuzzer never reaches, so that
        // each request gets to the parsing it is here to exercise (the 429 has its own tests).
        api = std::make_unique<arbiter::server::app::HttpApi>(
            *repository, metrics, root / "web", [] { return std::string("arbiter_x 1\n"); }, reads,
            arbiter::server::app::ApiLimits{1e12, 1e12});
        // The API tags its reads with OpenSSL's SHA-256, whose first call on a thread allocates
        // that thread's state, freed when the thread ends. Made here, once, on the reader thread:
        // within a fuzzed input libFuzzer's leak check would count it as that input's leak.
        std::promise<void> warmed;
        check(reads.try_post([&warmed] {
            static_cast<void>(arbiter::server::app::sha256_hex("warm-up"));
            warmed.set_value();
        }),
              "warm the reader thread");
        warmed.get_future().wait();
    }
    ~Fixture() {
        reads.stop();
        api.reset();
        repository.reset();
        std::error_code ignored;
        fs::remove_all(root, ignored);
    }
};

Fixture& fixture() {
    static Fixture instance;
    return instance;
}

bool known_status(unsigned status) {
    return status == 200 || status == 304 || status == 400 || status == 404 || status == 405 ||
           status == 426 || status == 503;
}

// When `input` starts with the header line `name` ("If-None-Match: "): the line's value, and
// `input` moves past the line.
std::optional<std::string> take_header(std::string_view& input, std::string_view name) {
    if (!input.starts_with(name)) {
        return std::nullopt;
    }
    const auto end = input.find('\n');
    const bool last = end == std::string_view::npos;
    std::string value(input.substr(name.size(), last ? end : end - name.size()));
    input = last ? std::string_view() : input.substr(end + 1);
    return value;
}

const std::string* header_of(const arbiter::server::net::HttpResponse& response,
                             std::string_view name) {
    for (const auto& [key, value] : response.headers) {
        if (key == name) {
            return &value;
        }
    }
    return nullptr;
}

std::int64_t now_seconds() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

arbiter::server::net::HttpResponse answer(const arbiter::server::net::HttpRequest& request) {
    // The answer may come from the reader thread (the API's reads of stored games).
    std::promise<arbiter::server::net::HttpResponse> answer;
    fixture().api->handle(request, [&answer](arbiter::server::net::HttpResponse response) {
        answer.set_value(std::move(response));
    });
    return answer.get_future().get();
}

// An answer served whole with validators is not modified for its own validators: a file's ETag
// and Last-Modified, a stored game's (or list's) ETag.
void check_validators(arbiter::server::net::HttpRequest request,
                      const arbiter::server::net::HttpResponse& served) {
    const std::string* etag = header_of(served, "ETag");
    const std::string* modified = header_of(served, "Last-Modified");
    const bool api = request.target.starts_with("/api/");
    check(etag != nullptr && (api || modified != nullptr), "a file without validators",
          request.target);
    if (api) {
        check(modified == nullptr && !etag->starts_with("W/"), "an API answer with a file's tags",
              request.target);
    }
    request.if_none_match = *etag;
    request.if_modified_since.reset();
    const auto again = answer(request);
    check(again.status == 304 && again.body.empty(), "its own ETag is not a 304", request.target);
    if (api) {
        return;  // the API's answers have no Last-Modified
    }
    const auto modified_seconds = arbiter::server::net::parse_http_date(*modified, now_seconds());
    check(modified_seconds.has_value() &&
              arbiter::server::net::format_http_date(*modified_seconds) == *modified,
          "a Last-Modified that does not read back", *modified);
    request.if_none_match.reset();
    request.if_modified_since = *modified;
    check(answer(request).status == 304, "its own Last-Modified is not a 304", request.target);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view input = arbiter::fuzz::as_text(data, size);
    arbiter::server::net::HttpRequest request;
    const auto first = input.find('\n');
    request.method = std::string(input.substr(0, first));
    input = first == std::string_view::npos ? std::string_view() : input.substr(first + 1);
    const auto second = input.find('\n');
    request.target = std::string(input.substr(0, second));
    input = second == std::string_view::npos ? std::string_view() : input.substr(second + 1);
    for (bool more = true; more;) {
        auto none_match = take_header(input, "If-None-Match: ");
        auto modified_since = none_match ? std::nullopt : take_header(input, "If-Modified-Since: ");
        more = none_match || modified_since;
        if (none_match) {
            request.if_none_match = std::move(none_match);
        } else if (modified_since) {
            request.if_modified_since = std::move(modified_since);
        }
    }
    request.body = std::string(input);
    if (request.if_modified_since) {
        // Any date read in one of the three formats is written as IMF-fixdate and reads back.
        namespace net = arbiter::server::net;
        const auto now = now_seconds();
        // Up to the end of 9999: its leap second reads as 10000-01-01, which has no HTTP-date.
        constexpr std::int64_t kYear10000 = 253'402'300'800;
        if (const auto since = net::parse_http_date(*request.if_modified_since, now);
            since && *since < kYear10000) {
            check(net::parse_http_date(net::format_http_date(*since), now) == since,
                  "an HTTP-date that does not read back", *request.if_modified_since);
        }
    }
    request.remote_address = "127.0.0.1";
    request.loopback = true;

    const auto response = answer(request);
    check(known_status(response.status), "unexpected status", request.target);
    // 426 names the WebSocket endpoint asked without its upgrade, and only that path.
    const std::string_view path =
        std::string_view(request.target).substr(0, request.target.find('?'));
    const bool asked = request.method == "GET" || request.method == "HEAD";
    check((response.status == 426) == (path == "/ws" && asked),
          "426 for a path other than /ws, or /ws without 426", request.target);
    if (response.status == 426) {
        const std::string* upgrade = header_of(response, "Upgrade");
        check(upgrade != nullptr && *upgrade == "websocket", "a 426 without Upgrade: websocket",
              request.target);
    }
    if (response.status == 304) {
        check(response.body.empty(), "a 304 with a body", request.target);
        const std::string* etag = header_of(response, "ETag");
        check(etag != nullptr, "a 304 without its ETag", request.target);
        if (request.if_none_match) {
            // "*", or the file's opaque tag somewhere in the list.
            std::string_view tag = *etag;
            if (tag.starts_with("W/")) {
                tag.remove_prefix(2);
            }
            check(request.if_none_match->find('*') != std::string::npos ||
                      request.if_none_match->find(tag) != std::string::npos,
                  "a 304 for an If-None-Match without the file's tag", *request.if_none_match);
        } else {
            check(request.if_modified_since.has_value(), "a 304 without a condition",
                  request.target);
        }
    } else if (response.status == 200 && header_of(response, "ETag") != nullptr) {
        check_validators(request, response);
    }
    // A served file is the whole file: an answer that is the secret file or the database means
    // a path escaped the web root (error messages may quote the target, so no substring test).
    check(response.body != kSecret && !response.body.starts_with("SQLite format 3"),
          "served a file outside the web root", request.target);
    if (response.status == 200 && response.content_type == "application/json") {
        check(!nlohmann::json::parse(response.body, nullptr, false).is_discarded(),
              "a JSON answer that does not parse", request.target);
    }
    return 0;
}
