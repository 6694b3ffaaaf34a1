#include "server/app/http_api.hpp"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include <unistd.h>

#include <gtest/gtest.h>

#include "server/app/secrets.hpp"
#include "tests/unit/app/fakes.hpp"

namespace arbiter::server::app {
namespace {

using fakes::FakeRepository;

/// The answer to a GET (with If-None-Match when given), whichever thread gives it.
net::HttpResponse get(HttpApi& api, const std::string& target,
                      std::optional<std::string> if_none_match = std::nullopt) {
    std::promise<net::HttpResponse> answer;
    auto future = answer.get_future();
    api.handle({"GET", target, "127.0.0.1", true, "", std::move(if_none_match), std::nullopt},
               [&answer](net::HttpResponse response) { answer.set_value(std::move(response)); });
    return future.get();
}

struct HttpApiTest : ::testing::Test {
    FakeRepository repository;
    Metrics metrics;
    ReadWorker reads{1};
    HttpApi api{repository, metrics, "", nullptr, reads};
};

TEST_F(HttpApiTest, StoredGamesAreReadOnTheReaderThread) {
    EXPECT_EQ(get(api, "/api/games/nosuchgame").status, 404u);
    EXPECT_EQ(get(api, "/api/games/nosuchgame/export").status, 404u);
    const auto listed = get(api, "/api/games?status=ended");
    EXPECT_EQ(listed.status, 200u);
    EXPECT_EQ(listed.content_type, "application/json");
    EXPECT_EQ(get(api, "/api/games?limit=0").status, 400u);  // refused on the reader, too
}

const std::string* header_of(const net::HttpResponse& response, std::string_view name) {
    for (const auto& [key, value] : response.headers) {
        if (key == name) {
            return &value;
        }
    }
    return nullptr;
}

TEST_F(HttpApiTest, AStoredReadIsTaggedWithItsBytesAndNotSentAgainForItsTag) {
    const auto listed = get(api, "/api/games");
    ASSERT_EQ(listed.status, 200u);
    const std::string* etag = header_of(listed, "ETag");
    ASSERT_NE(etag, nullptr);
    EXPECT_EQ(*etag, "\"" + sha256_hex(listed.body).substr(0, 32) + "\"");
    ASSERT_NE(header_of(listed, "Cache-Control"), nullptr);
    EXPECT_EQ(*header_of(listed, "Cache-Control"), "no-cache");

    for (const std::string& condition :
         {*etag, "W/" + *etag, "\"x\", " + *etag, std::string("*")}) {
        const auto again = get(api, "/api/games", condition);
        EXPECT_EQ(again.status, 304u) << condition;
        EXPECT_TRUE(again.body.empty());
        EXPECT_TRUE(again.content_type.empty());
        ASSERT_NE(header_of(again, "ETag"), nullptr);
        EXPECT_EQ(*header_of(again, "ETag"), *etag);
    }
    // Another tag, or a refusal: answered in full, and a refusal has no tag.
    EXPECT_EQ(get(api, "/api/games", "\"other\"").body, listed.body);
    const auto missing = get(api, "/api/games/nosuchgame");
    EXPECT_EQ(missing.status, 404u);
    EXPECT_EQ(header_of(missing, "ETag"), nullptr);
}

TEST_F(HttpApiTest, ReadsBeyondTheQueueGet503WithRetryAfter) {
    repository.hold_reads = true;
    std::promise<net::HttpResponse> first;
    api.handle({"GET", "/api/games/held", "127.0.0.1", true, ""},
               [&first](net::HttpResponse response) { first.set_value(std::move(response)); });
    repository.entered.get_future().wait();  // the reader is busy with it
    std::promise<net::HttpResponse> second;
    api.handle({"GET", "/api/games/queued", "127.0.0.1", true, ""},
               [&second](net::HttpResponse response) { second.set_value(std::move(response)); });
    const auto refused = get(api, "/api/games/refused");  // the queue (1) is full
    EXPECT_EQ(refused.status, 503u);
    ASSERT_EQ(refused.headers.size(), 1u);
    EXPECT_EQ(refused.headers[0], (std::pair<std::string, std::string>{"Retry-After", "1"}));
    EXPECT_NE(refused.body.find("busy"), std::string::npos) << refused.body;
    repository.hold_reads = false;
    repository.released.set_value();
    EXPECT_EQ(first.get_future().get().status, 404u);
    EXPECT_EQ(second.get_future().get().status, 404u);
    reads.stop();
}

TEST_F(HttpApiTest, HealthProbesTheDatabaseAtMostOnceASecond) {
    const int at_start = repository.probes.load();  // the constructor's
    for (int i = 0; i < 100; ++i) {
        EXPECT_EQ(get(api, "/healthz").status, 200u);
    }
    EXPECT_LE(repository.probes.load() - at_start, 1) << "a flood of checks takes the lock once";
    repository.writable_now = false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    EXPECT_EQ(get(api, "/healthz").status, 503u) << "a second later the probe runs again";
}

// The probe may wait for SQLite's write lock: not on the thread that asked (a network thread,
// with other connections on it).
TEST_F(HttpApiTest, HealthProbesOnTheReaderThreadAndAnswersFromThere) {
    repository.writable_now = false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    EXPECT_EQ(get(api, "/healthz").status, 503u);
    EXPECT_NE(repository.probed_on.load(), std::this_thread::get_id());
}

TEST_F(HttpApiTest, HealthAnswersTheLastProbeWhenTheReaderIsFull) {
    repository.hold_reads = true;
    std::promise<net::HttpResponse> held;
    api.handle({"GET", "/api/games/held", "127.0.0.1", true, ""},
               [&held](net::HttpResponse response) { held.set_value(std::move(response)); });
    repository.entered.get_future().wait();
    std::promise<net::HttpResponse> queued;
    api.handle({"GET", "/api/games/queued", "127.0.0.1", true, ""},
               [&queued](net::HttpResponse response) { queued.set_value(std::move(response)); });
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // a probe is due
    const int probes = repository.probes.load();
    EXPECT_EQ(get(api, "/healthz").status, 200u) << "answered at once, from the last probe";
    EXPECT_EQ(repository.probes.load(), probes);
    repository.hold_reads = false;
    repository.released.set_value();
    EXPECT_EQ(held.get_future().get().status, 404u);
    EXPECT_EQ(queued.get_future().get().status, 404u);
    reads.stop();
}

// Without a web root, no file is served: an empty root once meant the working directory, where
// the database usually lies.
TEST_F(HttpApiTest, NoWebRootServesNoFileOfTheWorkingDirectory) {
    const std::filesystem::path here = std::filesystem::current_path() / "arbiter-http-api-test.db";
    {
        std::ofstream file(here);
        file << "seat tokens";
    }
    const auto answer = get(api, "/arbiter-http-api-test.db");
    std::filesystem::remove(here);
    EXPECT_EQ(answer.status, 404U);
    EXPECT_EQ(answer.body.find("seat tokens"), std::string::npos);
    EXPECT_EQ(get(api, "/").status, 404U);
}

/// A GET of `target` from `client`, answered.
net::HttpResponse get_from(HttpApi& api, const std::string& target, net::ClientAddress client) {
    std::promise<net::HttpResponse> answer;
    auto future = answer.get_future();
    net::HttpRequest request{"GET", target, "10.0.0.1", false, ""};
    request.client = std::move(client);
    api.handle(request,
               [&answer](net::HttpResponse response) { answer.set_value(std::move(response)); });
    return future.get();
}

TEST_F(HttpApiTest, AClientOverItsApiRateGets429WithRetryAfter) {
    HttpApi limited{repository, metrics, "", nullptr, reads, ApiLimits{0.5, 2}};
    const net::ClientAddress client{"203.0.113.7", false};
    EXPECT_EQ(get_from(limited, "/api/games/g1", client).status, 404u);
    EXPECT_EQ(get_from(limited, "/api/games", client).status, 200u);
    const auto refused = get_from(limited, "/api/games/g1", client);
    EXPECT_EQ(refused.status, 429u);
    const std::string* retry = header_of(refused, "Retry-After");
    ASSERT_NE(retry, nullptr);
    EXPECT_EQ(*retry, "2") << "a token every 2 s, rounded up to whole seconds";
    EXPECT_EQ(get_from(limited, "/api/nothing", client).status, 429u) << "any /api/ path counts";
    // Another address has its own bucket; this machine has none; files and health are not API.
    EXPECT_EQ(get_from(limited, "/api/games/g1", {"2001:db8::/64", false}).status, 404u);
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(get_from(limited, "/api/games/g1", {"127.0.0.1", true}).status, 404u);
    }
    EXPECT_EQ(get_from(limited, "/healthz", client).status, 200u);
    EXPECT_EQ(get_from(limited, "/", client).status, 404u) << "no web root: not a 429";
    EXPECT_NE(metrics.render().find("arbiter_api_rate_limited_total 2"), std::string::npos);
}

// A symbolic link in the web root led anywhere: /etc/passwd, the database.
TEST_F(HttpApiTest, AFileIsServedOnlyWhenItsRealPathIsUnderTheWebRoot) {
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / ("arbiter-web-root-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "root" / "sub");
    {
        std::ofstream(dir / "root" / "index.html") << "page";
        std::ofstream(dir / "secret.db") << "seat tokens";
    }
    fs::create_symlink(dir / "secret.db", dir / "root" / "leak.txt");
    fs::create_directory_symlink(dir, dir / "root" / "sub" / "up");
    fs::create_symlink("index.html", dir / "root" / "alias.html");  // within the root: served
    HttpApi site{repository, metrics, dir / "root", nullptr, reads};
    const auto leak = get(site, "/leak.txt");
    EXPECT_EQ(leak.status, 404u);
    EXPECT_EQ(leak.body.find("seat tokens"), std::string::npos);
    EXPECT_EQ(get(site, "/sub/up/secret.db").status, 404u);
    EXPECT_EQ(get(site, "/sub/up/root/index.html").status, 200u) << "back inside the root";
    EXPECT_EQ(get(site, "/alias.html").body, "page");
    EXPECT_EQ(get(site, "/").body, "page");
    fs::remove_all(dir);
}

TEST(UrlDecode, DecodesPercentAndPlus) {
    EXPECT_EQ(url_decode("a%20b+c", true), "a b c");
    EXPECT_EQ(url_decode("a+b", false), "a+b");
    EXPECT_EQ(url_decode("%2e%2E", false), "..");
}

TEST(UrlDecode, RefusesMalformedEscapes) {
    EXPECT_EQ(url_decode("%", true), std::nullopt);
    EXPECT_EQ(url_decode("%4", true), std::nullopt);
    EXPECT_EQ(url_decode("%zz", true), std::nullopt);
}

}  // namespace
}  // namespace arbiter::server::app
