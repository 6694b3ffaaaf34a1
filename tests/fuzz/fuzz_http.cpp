// libFuzzer target: the server's plain-HTTP path, HttpApi::handle(), with a fuzzed method, target
// and body, against a real SQLite repository holding a few games and a real web root (no
// network). Input: method '\n' target '\n' body.
//
// Besides the sanitizers it checks that a static-file answer never reads outside the web root (the
// file next to it and the database must never be served), and that every answer
// has a known status and a JSON body wherever the API promises JSON.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "common/rules/game.hpp"
#include "server/app/http_api.hpp"
#include "server/app/metrics.hpp"
#include "server/app/read_worker.hpp"
#include "server/storage/sqlite_repository.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

namespace fs = std::filesystem;
using arbiter::fuzz::check;
namespace storage = arbiter::server::storage;
namespace rules = arbiter::rules;

constexpr std::string_view kSecret = "ARBITER-FUZZ-SECRET-7f3a";

void write_file(const fs::path& path, std::string_view text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

// One stored game of `variant`: `plies` legal moves from the start, in the given status.
void store_game(storage::GameRepository& repository, const std::string& id, rules::Variant variant,
                int plies, const std::string& status) {
    auto game = rules::make_game(variant, "startpos");
    check(game.has_value(), "start position");
    storage::GameRow header;
    header.id = id;
    header.variant = variant;
    header.initial_position = "startpos";
    header.status = status;
    header.seats = {storage::SeatRow{"Ana", "aa"}, storage::SeatRow{"Bo \xE7\x8E\x8B", "bb"}};
    header.created_ms = 1700000000000;
    header.updated_ms = header.created_ms;
    if (status == "ended") {
        header.result = "1/2-1/2";
        header.reason = "agreement";
    }
    repository.write(storage::GameWrite{header, std::nullopt, std::nullopt}, {});
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
        header.ply = row.ply;
        header.seq = row.seq;
        repository.write(storage::GameWrite{header, std::nullopt, row}, {});
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
        store_game(*repository, "chess1", rules::Variant::chess, 12, "playing");
        store_game(*repository, "xiangqi1", rules::Variant::xiangqi, 9, "ended");
        store_game(*repository, "draughts1", rules::Variant::draughts, 14, "waiting");
        store_game(*repository, "chess-2_x", rules::Variant::chess, 0, "aborted");
        repository->flush();
        api = std::make_unique<arbiter::server::app::HttpApi>(
            *repository, metrics, root / "web", [] { return std::string("arbiter_x 1\n"); }, reads);
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
    return status == 200 || status == 400 || status == 404 || status == 405 || status == 503;
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
    request.body = second == std::string_view::npos ? "" : std::string(input.substr(second + 1));
    request.remote_address = "127.0.0.1";
    request.loopback = true;

    // The answer may come from the reader thread (the API's reads of stored games).
    std::promise<arbiter::server::net::HttpResponse> answer;
    fixture().api->handle(request, [&answer](arbiter::server::net::HttpResponse response) {
        answer.set_value(std::move(response));
    });
    const auto response = answer.get_future().get();
    check(known_status(response.status), "unexpected status", request.target);
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
