// arbiter-server's command line: defaults, accepted values, and a clear refusal (exit 2) for
// every value that would otherwise start a server with a limit that is not what was meant.
#include "server/app/config.hpp"
#include "server/storage/sqlite_repository.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <initializer_list>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace arbiter::server::app {
namespace {

std::variant<ServerConfig, ExitWith> parse(std::initializer_list<std::string> flags) {
    std::vector<std::string> words{"arbiter-server"};
    words.insert(words.end(), flags.begin(), flags.end());
    std::vector<const char*> argv;
    for (const auto& word : words) {
        argv.push_back(word.c_str());
    }
    return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

ServerConfig accepted(std::initializer_list<std::string> flags) {
    auto result = parse(flags);
    if (const auto* exit = std::get_if<ExitWith>(&result)) {
        ADD_FAILURE() << "refused: " << exit->text;
        return {};
    }
    return std::get<ServerConfig>(std::move(result));
}

// The refusal's text (empty if the flags were accepted).
std::string refusal(std::initializer_list<std::string> flags) {
    auto result = parse(flags);
    const auto* exit = std::get_if<ExitWith>(&result);
    if (exit == nullptr) {
        return {};
    }
    EXPECT_EQ(exit->code, 2) << exit->text;
    return exit->text;
}

// At most two network threads, as many as the cores; one fewer where a network thread commits
// its moves itself at a low rate (SQLite at NORMAL), so that the writer keeps a core under load.
TEST(ServerConfigDefaults, NetworkThreadsFollowTheCoresAndWhereMovesCommit) {
    EXPECT_EQ(default_network_threads(0, false), 1U) << "cores unknown";
    EXPECT_EQ(default_network_threads(1, false), 1U);
    EXPECT_EQ(default_network_threads(2, false), 2U);
    EXPECT_EQ(default_network_threads(64, false), 2U);
    EXPECT_EQ(default_network_threads(0, true), 1U);
    EXPECT_EQ(default_network_threads(1, true), 1U);
    EXPECT_EQ(default_network_threads(2, true), 1U);
    EXPECT_EQ(default_network_threads(3, true), 2U);
    EXPECT_EQ(default_network_threads(64, true), 2U);

    const unsigned cores = std::thread::hardware_concurrency();
    EXPECT_EQ(accepted({}).threads, default_network_threads(cores, false)) << "FULL by default";
    EXPECT_EQ(accepted({"--sync", "normal"}).threads, default_network_threads(cores, true));
    EXPECT_EQ(accepted({"--sync", "normal", "--threads", "3"}).threads, 3U) << "given, kept";
    EXPECT_EQ(accepted({"--sync", "normal", "--db", "postgresql://127.0.0.1:1/arbiter"}).threads,
              default_network_threads(cores, false))
        << "PostgreSQL commits on its writer";
}

TEST(ServerCommandLine, DefaultsAreTheDocumentedOnes) {
    const ServerConfig config = accepted({});
    EXPECT_EQ(config.net.bind_address, "127.0.0.1");
    EXPECT_EQ(config.net.port, 8080);
    EXPECT_TRUE(config.synchronous_full);
    EXPECT_EQ(config.journal_rows, storage::SqliteOptions{}.journal_rows);
    EXPECT_EQ(config.net.limits.max_frame_bytes, 64U * 1024);
    EXPECT_EQ(config.net.limits.max_queue_messages, 1024U);
    EXPECT_EQ(config.net.limits.socket_send_buffer_bytes, 64U * 1024);
    // An eighth of this machine's memory, 16 MiB to 2 GiB (memory_budget_test has the rule).
    EXPECT_GE(config.net.limits.max_outgoing_bytes, 16U << 20);
    EXPECT_LE(config.net.limits.max_outgoing_bytes, 2ULL << 30);
    EXPECT_EQ(config.net.limits.idle_timeout, std::chrono::seconds(8));
    EXPECT_EQ(config.net.limits.ping_interval, std::chrono::milliseconds(2000));
    EXPECT_EQ(config.hub.room.disconnect_timeout, std::chrono::seconds(60));
    EXPECT_EQ(config.hub.messages_per_second, 20);
    EXPECT_EQ(config.hub.max_open_games, 8U);
    EXPECT_EQ(config.hub.max_creates_per_minute, 20U);
    EXPECT_EQ(config.hub.prune_aborted_after, std::chrono::hours(24));
    EXPECT_EQ(config.api_requests_per_second, 10);
    EXPECT_EQ(config.api_burst, 40);
    EXPECT_EQ(config.net.limits.max_pings_per_second, 4);
    EXPECT_EQ(config.time_slice_us, 100U);
    EXPECT_TRUE(config.net.allowed_origins.empty());
    // A reverse proxy on this machine is believed; nobody else.
    ASSERT_EQ(config.net.trusted_proxies.size(), 2U);
    EXPECT_TRUE(config.net.trusted_proxies[0].contains(*net::IpAddress::parse("127.0.0.1")));
    EXPECT_TRUE(config.net.trusted_proxies[1].contains(*net::IpAddress::parse("::1")));
}

TEST(ServerCommandLine, TrustedProxiesAndAllowedOriginsAreRepeatableAndChecked) {
    const ServerConfig config =
        accepted({"--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "2001:db8::1",
                  "--allowed-origin", "https://play.example.net", "--allowed-origin", "*"});
    ASSERT_EQ(config.net.trusted_proxies.size(), 2U);
    EXPECT_TRUE(config.net.trusted_proxies[0].contains(*net::IpAddress::parse("10.9.8.7")));
    EXPECT_FALSE(config.net.trusted_proxies[0].contains(*net::IpAddress::parse("127.0.0.1")));
    EXPECT_EQ(config.net.allowed_origins,
              (std::vector<std::string>{"https://play.example.net", "*"}));
    EXPECT_TRUE(accepted({"--trusted-proxy", "none"}).net.trusted_proxies.empty());
    for (const auto& flags : {std::initializer_list<std::string>{"--trusted-proxy", "10.0.0.1/8"},
                              std::initializer_list<std::string>{"--trusted-proxy", "proxy.lan"},
                              std::initializer_list<std::string>{"--trusted-proxy", "none",
                                                                 "--trusted-proxy", "10.0.0.1"}}) {
        EXPECT_NE(refusal(flags).find("--trusted-proxy"), std::string::npos);
    }
    EXPECT_NE(refusal({"--allowed-origin", "play.example.net"}).find("--allowed-origin"),
              std::string::npos);
}

TEST(ServerCommandLine, ValuesAtTheEdgesAreTaken) {
    const ServerConfig config = accepted({"--port",
                                          "0",
                                          "--sync",
                                          "normal",
                                          "--threads",
                                          "256",
                                          "--socket-send-buffer",
                                          "0",
                                          "--max-frame-bytes",
                                          "256",
                                          "--max-queue-messages",
                                          "1",
                                          "--max-outgoing-bytes",
                                          "1048576",
                                          "--max-connections",
                                          "1000000",
                                          "--idle-timeout",
                                          "86400",
                                          "--ping-interval-ms",
                                          "50",
                                          "--close-timeout-ms",
                                          "250",
                                          "--journal-rows",
                                          "0",
                                          "--disconnect-timeout",
                                          "0",
                                          "--prune-aborted-after",
                                          "0",
                                          "--max-open-games",
                                          "1",
                                          "--max-queued-reads",
                                          "1",
                                          "--rate",
                                          "0.5",
                                          "--burst",
                                          "1"});
    EXPECT_EQ(config.net.port, 0);
    EXPECT_FALSE(config.synchronous_full);
    EXPECT_EQ(config.threads, 256U);
    EXPECT_EQ(config.net.limits.socket_send_buffer_bytes, 0U);
    EXPECT_EQ(config.net.limits.max_frame_bytes, 256U);
    EXPECT_EQ(config.net.limits.max_queue_messages, 1U);
    EXPECT_EQ(config.net.limits.max_outgoing_bytes, 1U << 20);
    EXPECT_EQ(config.net.limits.max_connections, 1'000'000U);
    EXPECT_EQ(config.net.limits.idle_timeout, std::chrono::seconds(86'400));
    EXPECT_EQ(config.net.limits.ping_interval, std::chrono::milliseconds(50));
    EXPECT_EQ(config.net.limits.close_timeout, std::chrono::milliseconds(250));
    EXPECT_EQ(config.journal_rows, 0U);
    EXPECT_EQ(config.hub.room.disconnect_timeout, std::chrono::seconds(0));
    EXPECT_EQ(config.hub.prune_aborted_after, std::chrono::seconds(0)) << "0: never";
    EXPECT_EQ(config.hub.max_open_games, 1U);
    EXPECT_EQ(config.max_queued_reads, 1U);
    EXPECT_EQ(config.hub.messages_per_second, 0.5);
}

// 0 keeps the kernel's slice; otherwise the kernel's own bounds (scheduling.hpp).
TEST(ServerCommandLine, TheTimeSliceIsTheKernelsDefaultOrWithinItsBounds) {
    EXPECT_EQ(accepted({"--time-slice-us", "0"}).time_slice_us, 0U);
    EXPECT_EQ(accepted({"--time-slice-us", "100"}).time_slice_us, 100U);
    EXPECT_EQ(accepted({"--time-slice-us", "100000"}).time_slice_us, 100'000U);
}

TEST(ServerCommandLine, EachOutOfRangeValueIsRefusedByName) {
    const struct {
        std::initializer_list<std::string> flags;
        const char* names;
    } cases[] = {
        {{"--port", "65536"}, "--port"},
        {{"--sync", "off"}, "--sync"},
        {{"--threads", "0"}, "--threads"},
        {{"--time-slice-us", "99"}, "--time-slice-us"},
        {{"--time-slice-us", "100001"}, "--time-slice-us"},
        {{"--log-format", "xml"}, "--log-format"},
        {{"--tls-cert", "a.pem"}, "--tls-key"},
        {{"--socket-send-buffer", "67108865"}, "--socket-send-buffer"},
        {{"--max-frame-bytes", "255"}, "--max-frame-bytes"},
        {{"--max-queue-messages", "0"}, "--max-queue-messages"},
        {{"--max-queue-bytes", "1023"}, "--max-queue-bytes"},
        {{"--max-outgoing-bytes", "1048575"}, "--max-outgoing-bytes"},
        {{"--max-connections", "0"}, "--max-connections"},
        {{"--max-connections-per-address", "0"}, "--max-connections-per-address"},
        {{"--idle-timeout", "0"}, "--idle-timeout"},
        {{"--ping-interval-ms", "49"}, "--ping-interval-ms"},
        {{"--ping-interval-ms", "3600001"}, "--ping-interval-ms"},
        {{"--close-timeout-ms", "0"}, "--close-timeout-ms"},
        {{"--disconnect-timeout", "86401"}, "--disconnect-timeout"},
        {{"--prune-aborted-after", "315360001"}, "--prune-aborted-after"},
        {{"--max-engine-processes", "4097"}, "--max-engine-processes"},
        {{"--engine-timeout-ms", "0"}, "--engine-timeout-ms"},
        {{"--engine-margin-ms", "600001"}, "--engine-margin-ms"},
        {{"--journal-rows", "1000001"}, "--journal-rows"},
        {{"--max-open-games", "0"}, "--max-open-games"},
        {{"--max-queued-reads", "0"}, "--max-queued-reads"},
        {{"--engine-threads", "0"}, "--engine-threads"},
        {{"--rate", "0"}, "--rate"},
        {{"--max-creates-per-minute", "0"}, "--max-creates-per-minute"},
        {{"--api-rate", "0"}, "--api-rate"},
        {{"--api-burst", "0.5"}, "--api-burst"},
        {{"--api-rate", "inf"}, "--api-rate"},
        {{"--max-pings-per-second", "0"}, "--max-pings-per-second"},
        {{"--max-pings-per-second", "nan"}, "--max-pings-per-second"},
        {{"--rate", "nan"}, "--rate"},
        {{"--rate", "inf"}, "--rate"},
        {{"--burst", "inf"}, "--burst"},
        {{"--burst", "0.5"}, "--burst"},
        {{"--engine", "stockfish=/nonexistent/stockfish"}, "is not executable"},
        {{"--engine", "fsf:chess,draughts=/bin/true"},
         "'draughts' is not a game a UCI engine plays"},
    };
    for (const auto& c : cases) {
        const std::string text = refusal(c.flags);
        EXPECT_NE(text.find(c.names), std::string::npos)
            << *c.flags.begin() << " gave: " << (text.empty() ? "(accepted)" : text);
    }
}

TEST(ServerCommandLine, AnEngineIsOfferedForTheGamesListedAfterItsName) {
    const ServerConfig config =
        accepted({"--engine", "fsf:chess,xiangqi=/bin/true", "--engine", "stockfish=/bin/true"});
    ASSERT_EQ(config.engines.uci.size(), 2U);
    EXPECT_EQ(config.engines.uci[0].name, "fsf");
    EXPECT_EQ(config.engines.uci[0].path, "/bin/true");
    EXPECT_EQ(config.engines.uci[0].variants,
              (std::vector<rules::Variant>{rules::Variant::chess, rules::Variant::xiangqi}));
    EXPECT_EQ(config.engines.uci[1].variants, std::vector<rules::Variant>{rules::Variant::chess});
}

TEST(ServerCommandLine, MinusOneIsNotTheLargestLimit) {
    // boost::lexical_cast reads "-1" into an unsigned as its largest value; each such flag is
    // refused rather than turning a limit off.
    for (const char* flag :
         {"--max-connections", "--max-queue-messages", "--max-queue-bytes", "--max-outgoing-bytes",
          "--max-frame-bytes", "--idle-timeout", "--disconnect-timeout",
          "--max-connections-per-address", "--engine-timeout-ms", "--close-timeout-ms",
          "--journal-rows", "--max-open-games", "--max-queued-reads", "--ping-interval-ms",
          "--max-creates-per-minute", "--prune-aborted-after"}) {
        const std::string text = refusal({flag, "-1"});
        EXPECT_FALSE(text.empty()) << flag << " -1 was accepted";
        EXPECT_NE(text.find(flag), std::string::npos) << text;
    }
}

TEST(ServerCommandLine, MaxDbBytesMinusOneIsNotNoBound) {
    // "-1" reads as 18446744073709551615: a typo would turn the database bound off, which the
    // README promises never happens to a flag.
    const std::string text = refusal({"--max-db-bytes", "-1"});
    EXPECT_FALSE(text.empty()) << "--max-db-bytes -1 was accepted";
    EXPECT_NE(text.find("--max-db-bytes"), std::string::npos) << text;
    EXPECT_EQ(accepted({"--max-db-bytes", "1073741824"}).max_db_bytes, 1073741824U);
    EXPECT_EQ(accepted({"--max-db-bytes", "0"}).max_db_bytes, 0U);
}

// protocol.md, Chat: the operator's two chat flags.
TEST(ServerCommandLine, SpectatorChatIsOnUnlessTurnedOff) {
    EXPECT_TRUE(accepted({}).hub.room.spectator_chat);
    EXPECT_EQ(accepted({}).hub.room.chat_words, nullptr);
    EXPECT_FALSE(accepted({"--no-spectator-chat"}).hub.room.spectator_chat);
}

TEST(ServerCommandLine, TheChatWordListIsReadAtStartAndChecked) {
    const std::string dir = ::testing::TempDir();
    const std::string words = dir + "/chat_words_ok.txt";
    std::ofstream(words) << "# words\nheck\n";
    const ServerConfig config = accepted({"--chat-words", words});
    ASSERT_NE(config.hub.room.chat_words, nullptr);
    EXPECT_EQ(config.hub.room.chat_words->mask("oh heck"), "oh ****");
    const std::string broken = dir + "/chat_words_broken.txt";
    std::ofstream(broken) << "fine\nnot fine\n";
    EXPECT_NE(refusal({"--chat-words", broken}).find("line 2: not one word"), std::string::npos);
    EXPECT_NE(refusal({"--chat-words", dir + "/no_such_file.txt"}).find("cannot be read"),
              std::string::npos);
}

// --db takes a PostgreSQL URI (issue 43) for every store; a file whose name merely begins so is
// a file, and --sync keeps its two levels (synchronous_commit on or off there).
TEST(ServerCommandLine, APostgresqlUriIsADatabaseAndAFileNameIsNot) {
    for (const char* uri : {"postgresql://arbiter:secret@127.0.0.1:5432/arbiter",
                            "postgres://arbiter@127.0.0.1/arbiter"}) {
        EXPECT_TRUE(is_postgres_uri(uri)) << uri;
        const ServerConfig config = accepted({"--db", uri, "--sync", "normal"});
        EXPECT_EQ(config.database, uri);
        EXPECT_FALSE(config.synchronous_full);
        EXPECT_TRUE(accepted({"--db", uri}).synchronous_full);
    }
    for (const char* file : {"postgresql.db", "./postgres://x", "arbiter.db"}) {
        EXPECT_FALSE(is_postgres_uri(file)) << file;
    }
    EXPECT_EQ(accepted({"--db", "postgresql.db"}).database, "postgresql.db");
}

// The flags only a SQLite file means anything to are refused with PostgreSQL, not ignored, and
// the refusal does not repeat the URI (it may hold a password).
TEST(ServerCommandLine, SqliteOnlyFlagsAreRefusedWithPostgresql) {
    const std::string uri = "postgresql://arbiter:secret@127.0.0.1:5432/arbiter";
    const std::string backup = refusal({"--db", uri, "--backup", "copy.db"});
    EXPECT_NE(backup.find("pg_dump"), std::string::npos) << backup;
    const std::string bounded = refusal({"--db", uri, "--max-db-bytes", "1000000"});
    EXPECT_NE(bounded.find("--max-db-bytes"), std::string::npos) << bounded;
    const std::string journal = refusal({"--db", uri, "--journal-rows", "16"});
    EXPECT_NE(journal.find("--journal-rows"), std::string::npos) << journal;
    for (const std::string& text : {backup, bounded, journal}) {
        EXPECT_EQ(text.find("secret"), std::string::npos) << "the password was printed: " << text;
    }
    // Their defaults are no request, and the same flags stay SQLite's with a file.
    EXPECT_EQ(accepted({"--db", uri, "--max-db-bytes", "0"}).max_db_bytes, 0U);
    EXPECT_EQ(accepted({"--db", "games.db", "--backup", "copy.db"}).backup_to, "copy.db");
    EXPECT_EQ(accepted({"--db", "games.db", "--journal-rows", "16"}).journal_rows, 16U);
}

// A cluster node (README.md, "Several nodes"): --node-id with a PostgreSQL database and a bus,
// the lease's timings safe, or a refusal that names the flag.
TEST(ServerCommandLine, ANodeNeedsPostgresqlABusAndSafeLeaseTimings) {
    const std::string uri = "postgresql://arbiter:secret@127.0.0.1:5432/arbiter";
    const auto node =
        accepted({"--db", uri, "--node-id", "node-a", "--bus", "redis://127.0.0.1:6379",
                  "--lease-ttl-ms", "5000", "--heartbeat-ms", "1500", "--sweep-ms", "500"});
    EXPECT_TRUE(node.cluster.enabled());
    EXPECT_EQ(node.cluster.node_id, "node-a");
    EXPECT_EQ(node.cluster.bus, "redis://127.0.0.1:6379");
    EXPECT_EQ(node.cluster.lease.ttl, std::chrono::milliseconds(5000));
    EXPECT_EQ(node.cluster.lease.heartbeat_interval, std::chrono::milliseconds(1500));
    EXPECT_EQ(node.cluster.sweep_interval, std::chrono::milliseconds(500));
    const auto defaults = accepted({"--db", uri, "--node-id", "n1", "--bus", "redis://r:6379"});
    EXPECT_EQ(defaults.cluster.lease.ttl, std::chrono::milliseconds(3000));
    EXPECT_EQ(defaults.cluster.lease.heartbeat_interval, std::chrono::milliseconds(1000));
    EXPECT_EQ(defaults.cluster.sweep_interval, std::chrono::milliseconds(1000));
    EXPECT_FALSE(accepted({}).cluster.enabled());

    EXPECT_NE(refusal({"--node-id", "a", "--bus", "redis://r:6379"}).find("postgresql"),
              std::string::npos);
    EXPECT_NE(refusal({"--db", uri, "--node-id", "a"}).find("--bus"), std::string::npos);
    EXPECT_NE(
        refusal({"--db", uri, "--node-id", "a b", "--bus", "redis://r:6379"}).find("--node-id"),
        std::string::npos);
    EXPECT_NE(refusal({"--db", uri, "--node-id", "a", "--bus", "http://r:6379"}).find("--bus"),
              std::string::npos);
    EXPECT_NE(refusal({"--db", uri, "--bus", "redis://r:6379"}).find("--node-id"),
              std::string::npos);
    EXPECT_NE(refusal({"--sweep-ms", "100"}).find("--node-id"), std::string::npos);
    // One lost heartbeat must not lose the lease: a ttl under two intervals is refused.
    EXPECT_NE(refusal({"--db", uri, "--node-id", "a", "--bus", "redis://r:6379", "--lease-ttl-ms",
                       "1000", "--heartbeat-ms", "1000"})
                  .find("--lease-ttl-ms"),
              std::string::npos);
    EXPECT_NE(refusal({"--db", uri, "--node-id", "a", "--bus", "redis://r:6379", "--sweep-ms", "0"})
                  .find("--sweep-ms"),
              std::string::npos);
    const std::string text = refusal({"--db", uri, "--node-id", "a"});
    EXPECT_EQ(text.find("secret"), std::string::npos) << "the password was printed: " << text;
}

TEST(ServerCommandLine, AWordThatIsNotAFlagIsRefused) {
    // "--db games.db backup.db" or "--port 8080 8081": a stray word was silently dropped and the
    // server started with something the operator did not ask for.
    for (const auto& flags : {std::initializer_list<std::string>{"--db", "games.db", "old.db"},
                              std::initializer_list<std::string>{"--port", "8080", "8081"},
                              std::initializer_list<std::string>{"serve"}}) {
        const std::string text = refusal(flags);
        EXPECT_FALSE(text.empty()) << "a stray word was accepted";
        EXPECT_NE(text.find("arbiter-server: "), std::string::npos) << text;
    }
}

TEST(ServerCommandLine, UnknownFlagsAndBadNumbersAreRefusedWithTheHelp) {
    for (const auto& flags : {std::initializer_list<std::string>{"--no-such-flag"},
                              std::initializer_list<std::string>{"--port", "http"},
                              std::initializer_list<std::string>{"--threads"}}) {
        const std::string text = refusal(flags);
        EXPECT_NE(text.find("arbiter-server: "), std::string::npos) << text;
        EXPECT_NE(text.find("--max-queue-messages"), std::string::npos) << "no option list";
    }
}

TEST(ServerCommandLine, HelpAndVersionExitZero) {
    for (const char* flag : {"--help", "--version"}) {
        auto result = parse({flag});
        ASSERT_TRUE(std::holds_alternative<ExitWith>(result)) << flag;
        EXPECT_EQ(std::get<ExitWith>(result).code, 0);
        EXPECT_FALSE(std::get<ExitWith>(result).text.empty());
    }
}

}  // namespace
}  // namespace arbiter::server::app
