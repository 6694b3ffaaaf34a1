#pragma once
/// \file
/// Plain HTTP on the game port: the REST API over stored games, health, metrics, and the
/// browser client's static files.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/core/expected.hpp"
#include "server/app/account_http.hpp"
#include "server/app/analysis_http.hpp"
#include "server/app/metrics.hpp"
#include "server/app/player_http.hpp"
#include "server/app/read_worker.hpp"
#include "server/app/request_rates.hpp"
#include "server/net/peer.hpp"
#include "server/storage/repository.hpp"

namespace arbiter::server::app {

/// The REST API's rate per client (--api-rate, --api-burst).
struct ApiLimits {
    double requests_per_second = 10;
    double burst = 40;
};

class HttpApi final : public net::HttpHandler {
  public:
    /// Extra Prometheus lines computed at scrape time (connections, rooms, ...).
    using GaugeSource = std::function<std::string()>;

    /// `web_root`: the folder of the browser client; empty serves no files at all (never the
    /// working directory). `reads`: where the answers that read stored games are made, off the
    /// network threads. `limits`: each client's rate of /api/ requests (a client on this
    /// machine, net::ClientAddress::local, has none); past it the answer is 429. `accounts`:
    /// the accounts' API (account_http.hpp); `players`: the players' (player_http.hpp), read on
    /// the reader thread; without them those paths are 404. `analysis`: the analysis API
    /// (analysis_http.hpp); without it those paths are 404.
    HttpApi(storage::GameRepository& repository, Metrics& metrics, std::filesystem::path web_root,
            GaugeSource gauges, ReadWorker& reads, ApiLimits limits = {},
            AccountHttp* accounts = nullptr, PlayerHttp* players = nullptr,
            AnalysisHttp* analysis = nullptr);

    void handle(const net::HttpRequest& request, Respond respond) override;

    /// A cluster node's lease, for /healthz: whether it is held, and a line that says so.
    using LeaseStatus = std::function<std::pair<bool, std::string>()>;
    /// Before the server starts: /healthz answers 503 while the lease is not held.
    void set_lease_status(LeaseStatus status) { lease_status_ = std::move(status); }

  private:
    /// 429 with Retry-After when `request`'s client is over its rate of API requests.
    std::optional<net::HttpResponse> over_api_rate(const net::HttpRequest& request);
    /// Answers `request` with `read()` made on the reader thread, or 503 when too many reads
    /// wait. A 200 carries a strong ETag, the SHA-256 of its body: asked again with it in
    /// If-None-Match while nothing changed (a game between moves, a finished one for good),
    /// the answer is a 304 without the body.
    void read_stored(const net::HttpRequest& request, Respond respond,
                     std::function<net::HttpResponse()> read);
    net::HttpResponse games(std::string_view query);
    net::HttpResponse game(const std::string& id);
    net::HttpResponse export_game(const std::string& id);
    /// 200 while the database is writable (and a cluster node's lease held), else 503; probed on
    /// the reader thread.
    void health(Respond respond);
    net::HttpResponse metrics();
    /// A file of the web root, with validators: 304 when the client's copy is current.
    net::HttpResponse static_file(std::string_view path, const net::HttpRequest& request);

    storage::GameRepository& repository_;
    Metrics& metrics_;
    std::filesystem::path web_root_;
    GaugeSource gauges_;
    ReadWorker& reads_;
    AccountHttp* accounts_;
    PlayerHttp* players_;
    AnalysisHttp* analysis_;
    RequestRates api_rates_;
    LeaseStatus lease_status_;
    /// /healthz: the last probe of the database (see health()).
    static constexpr std::chrono::seconds kHealthProbeInterval{1};
    std::atomic<bool> writable_;
    std::atomic<std::chrono::steady_clock::rep> last_probe_;
    std::atomic<bool> probing_{false};
};

/// Percent-decoding of one URL component ('+' is a space in queries); nullopt when malformed.
std::optional<std::string> url_decode(std::string_view text, bool query);

/// How query_parameters reads a parameter given with an empty value, or given twice.
struct QueryRules {
    bool empty_is_absent = false;  ///< "?variant=" is no value, as a form sends "any"
    bool refuse_repeats = false;   ///< a second one is refused (else the last value stands)
};
/// The parameters of `query` among `known`, percent-decoded; the reason it is refused: an
/// unknown name, a malformed encoding, or (per `rules`) a repeated name.
Expected<std::map<std::string, std::string>, std::string> query_parameters(
    std::string_view query, std::initializer_list<std::string_view> known, QueryRules rules);

}  // namespace arbiter::server::app
