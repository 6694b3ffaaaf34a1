#pragma once
/// \file
/// Structured logging: one line per event, as JSON lines, logfmt or human text, with a level.
/// Every value is escaped for its format, so no field can break a line or forge another one.
/// Never log a token or any other secret: log ids, addresses, codes and counts only.

#include <atomic>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arbiter::server::app {

enum class LogFormat { text, logfmt, json };
enum class LogLevel { trace, debug, info, warn, error };

/// One `key=value` of an event. Keys are our own snake_case constants; values may hold any
/// bytes (player names, error messages) and are escaped when the line is written.
struct LogField {
    LogField(std::string_view key_in, std::string_view value_in) : key(key_in), value(value_in) {}
    LogField(std::string_view key_in, const char* value_in) : key(key_in), value(value_in) {}
    LogField(std::string_view key_in, const std::string& value_in) : key(key_in), value(value_in) {}
    template <std::integral Number>
    LogField(std::string_view key_in, Number number)
        : key(key_in), value(std::to_string(number)), is_number(true) {}
    LogField(std::string_view key_in, bool flag)
        : key(key_in), value(flag ? "true" : "false"), is_number(true) {}

    std::string_view key;
    std::string value;
    bool is_number = false;  ///< written bare in JSON (numbers and booleans)
};

/// "json", "logfmt" or "text"; nullopt for anything else.
std::optional<LogFormat> parse_log_format(std::string_view name);
/// The level's name as written in each line ("info", "warn", ...).
std::string_view level_name(LogLevel level);

/// One complete line without its newline. `event` is a snake_case name (empty for free text,
/// which then goes in a `msg` field). Pure: the unit tests call it directly.
std::string format_log_line(LogFormat format, std::string_view time, LogLevel level,
                            std::string_view event, std::initializer_list<LogField> fields);

/// Configures logging to standard error; false (and nothing changed) for an unknown level.
/// Free-text spdlog calls elsewhere are written in the same format, as a `msg` field.
bool configure_logging(LogFormat format, const std::string& level);

/// Writes one event when `level` is enabled. Thread-safe.
void log_event(LogLevel level, std::string_view event, std::initializer_list<LogField> fields = {});

/// Lets one line a second through, for events that come by the thousand (a flood refused, a
/// failing disk): the metrics count them all. Thread-safe.
class OncePerSecond {
  public:
    /// Whether a line may be written at `now`; if so, the next one waits a second from it.
    bool allow(std::chrono::steady_clock::time_point now) noexcept;

  private:
    static constexpr auto kNever = std::chrono::steady_clock::duration::min();
    std::atomic<std::chrono::steady_clock::rep> last_{kNever.count()};
};

/// Lets a sample of an event's lines through, for events that one client can cause by the
/// thousand (refused requests: 2,000 lines a second from 100 connections): at most one line a
/// second of each kind (an error code), and that line says how many of its kind were left out
/// since the one before. The metrics count them all. Time is a value. Thread-safe.
class SampledLog {
  public:
    /// `kinds`: the kinds of line, 0 .. kinds - 1, each sampled on its own.
    explicit SampledLog(std::size_t kinds) : kinds_(kinds) {}

    /// Whether a line of `kind` may be written at `now`: nullopt when not (it is counted as left
    /// out), else how many of its kind were left out before it.
    std::optional<std::uint64_t> allow(std::size_t kind, std::chrono::steady_clock::time_point now);

  private:
    struct Kind {
        std::optional<std::chrono::steady_clock::time_point> last;  ///< the last line written
        std::uint64_t left_out = 0;                                 ///< since then
    };
    std::mutex mutex_;
    std::vector<Kind> kinds_;
};

}  // namespace arbiter::server::app
