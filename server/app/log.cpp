#include "server/app/log.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <memory>
#include <utility>

namespace arbiter::server::app {

namespace {

constexpr char kHex[] = "0123456789abcdef";

// Length of the valid UTF-8 sequence at `text[at]`, or 0 when the bytes there are not one
// (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
std::size_t utf8_length(std::string_view text, std::size_t at) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
    const auto lead = byte(0);
    std::size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        low = lead == 0xe0 ? 0xa0 : 0x80;
        high = lead == 0xed ? 0x9f : 0xbf;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        low = lead == 0xf0 ? 0x90 : 0x80;
        high = lead == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (at + length > text.size() || byte(1) < low || byte(1) > high) {
        return 0;
    }
    for (std::size_t i = 2; i < length; ++i) {
        if (byte(i) < 0x80 || byte(i) > 0xbf) {
            return 0;
        }
    }
    return length;
}

// The body of a double-quoted string, valid in JSON and in logfmt (Go's strconv.Unquote):
// quotes, backslashes and control characters escaped, invalid UTF-8 replaced by U+FFFD, so a
// value can never end its line or its string early.
void append_escaped(std::string& out, std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x80) {
            const auto length = utf8_length(text, i);
            if (length == 0) {
                out += "\\ufffd";
                ++i;
            } else {
                out.append(text.substr(i, length));
                i += length;
            }
            continue;
        }
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (c < 0x20 || c == 0x7f) {
                    out += "\\u00";
                    out += kHex[c >> 4];
                    out += kHex[c & 0x0f];
                } else {
                    out += static_cast<char>(c);
                }
        }
        ++i;
    }
}

void append_quoted(std::string& out, std::string_view text) {
    out += '"';
    append_escaped(out, text);
    out += '"';
}

// logfmt leaves a value bare when it has no space, quote, '=', backslash or control byte.
void append_logfmt_value(std::string& out, std::string_view text) {
    bool bare = !text.empty();
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte <= 0x20 || byte == 0x7f || byte >= 0x80 || c == '"' || c == '=' || c == '\\') {
            bare = false;
            break;
        }
    }
    if (bare) {
        out += text;
    } else {
        append_quoted(out, text);
    }
}

std::string utc_now() {
    const auto now = std::chrono::system_clock::now();
    const auto millis =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() %
        1000;
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[32];
    const auto length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
    std::string out(text, length);
    out += '.';
    out += static_cast<char>('0' + millis / 100);
    out += static_cast<char>('0' + millis / 10 % 10);
    out += static_cast<char>('0' + millis % 10);
    out += 'Z';
    return out;
}

LogLevel from_spdlog(spdlog::level::level_enum level) {
    switch (level) {
        case spdlog::level::trace:
            return LogLevel::trace;
        case spdlog::level::debug:
            return LogLevel::debug;
        case spdlog::level::info:
            return LogLevel::info;
        case spdlog::level::warn:
            return LogLevel::warn;
        default:
            return LogLevel::error;
    }
}

spdlog::level::level_enum to_spdlog(LogLevel level) {
    switch (level) {
        case LogLevel::trace:
            return spdlog::level::trace;
        case LogLevel::debug:
            return spdlog::level::debug;
        case LogLevel::info:
            return spdlog::level::info;
        case LogLevel::warn:
            return spdlog::level::warn;
        case LogLevel::error:
            return spdlog::level::err;
    }
    return spdlog::level::err;
}

// Free-text messages from spdlog calls (other modules, libraries) get the same line shape,
// their text escaped as a `msg` field. Structured events arrive already formatted.
class LineFormatter final : public spdlog::formatter {
  public:
    LineFormatter(LogFormat format, bool preformatted)
        : format_(format), preformatted_(preformatted) {}

    void format(const spdlog::details::log_msg& message, spdlog::memory_buf_t& dest) override {
        const std::string_view payload(message.payload.data(), message.payload.size());
        if (preformatted_) {
            dest.append(payload.data(), payload.data() + payload.size());
        } else {
            const auto line = format_log_line(format_, utc_now(), from_spdlog(message.level), "",
                                              {LogField("msg", payload)});
            dest.append(line.data(), line.data() + line.size());
        }
        dest.push_back('\n');
    }

    std::unique_ptr<spdlog::formatter> clone() const override {
        return std::make_unique<LineFormatter>(format_, preformatted_);
    }

  private:
    LogFormat format_;
    bool preformatted_;
};

struct EventLog {
    std::shared_ptr<spdlog::logger> logger;
    LogFormat format = LogFormat::text;
};

std::shared_ptr<spdlog::logger> make_logger(const char* name,
                                            std::shared_ptr<spdlog::sinks::stderr_sink_mt> sink,
                                            LogFormat format, bool preformatted,
                                            spdlog::level::level_enum level) {
    auto logger = std::make_shared<spdlog::logger>(name, std::move(sink));
    logger->set_formatter(std::make_unique<LineFormatter>(format, preformatted));
    logger->set_level(level);
    logger->flush_on(spdlog::level::trace);
    return logger;
}

// Until configure_logging runs (unit tests, early start-up): text at info on standard error.
EventLog& event_log() {
    static EventLog log{
        make_logger("arbiter.events", std::make_shared<spdlog::sinks::stderr_sink_mt>(),
                    LogFormat::text, true, spdlog::level::info),
        LogFormat::text};
    return log;
}

}  // namespace

std::optional<LogFormat> parse_log_format(std::string_view name) {
    if (name == "json") {
        return LogFormat::json;
    }
    if (name == "logfmt") {
        return LogFormat::logfmt;
    }
    if (name == "text") {
        return LogFormat::text;
    }
    return std::nullopt;
}

std::string_view level_name(LogLevel level) {
    switch (level) {
        case LogLevel::trace:
            return "trace";
        case LogLevel::debug:
            return "debug";
        case LogLevel::info:
            return "info";
        case LogLevel::warn:
            return "warn";
        case LogLevel::error:
            return "error";
    }
    return "error";
}

std::string format_log_line(LogFormat format, std::string_view time, LogLevel level,
                            std::string_view event, std::initializer_list<LogField> fields) {
    std::string out;
    out.reserve(64 + 24 * fields.size());
    switch (format) {
        case LogFormat::json:
            out += "{\"time\":";
            append_quoted(out, time);
            out += ",\"level\":\"";
            out += level_name(level);
            out += '"';
            if (!event.empty()) {
                out += ",\"event\":";
                append_quoted(out, event);
            }
            for (const auto& field : fields) {
                out += ',';
                append_quoted(out, field.key);
                out += ':';
                if (field.is_number) {
                    out += field.value;
                } else {
                    append_quoted(out, field.value);
                }
            }
            out += '}';
            return out;
        case LogFormat::logfmt:
            out += "time=";
            out += time;
            out += " level=";
            out += level_name(level);
            if (!event.empty()) {
                out += " event=";
                append_logfmt_value(out, event);
            }
            break;
        case LogFormat::text:
            out += time;
            out += ' ';
            out += level_name(level);
            if (!event.empty()) {
                out += ' ';
                append_logfmt_value(out, event);
            }
            break;
    }
    for (const auto& field : fields) {
        out += ' ';
        out += field.key;
        out += '=';
        append_logfmt_value(out, field.value);
    }
    return out;
}

bool configure_logging(LogFormat format, const std::string& level) {
    const auto parsed = spdlog::level::from_str(level);
    if (parsed == spdlog::level::off && level != "off") {
        return false;
    }
    // One sink (and its mutex) for both loggers: lines never interleave. Called once at
    // start-up, before any other thread logs.
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    spdlog::set_default_logger(make_logger("arbiter", sink, format, false, parsed));
    event_log() = EventLog{make_logger("arbiter.events", sink, format, true, parsed), format};
    return true;
}

void log_event(LogLevel level, std::string_view event, std::initializer_list<LogField> fields) {
    const auto& log = event_log();
    if (!log.logger->should_log(to_spdlog(level))) {
        return;
    }
    const auto line = format_log_line(log.format, utc_now(), level, event, fields);
    log.logger->log(to_spdlog(level), spdlog::string_view_t(line.data(), line.size()));
}

bool OncePerSecond::allow(std::chrono::steady_clock::time_point now) noexcept {
    const auto at = now.time_since_epoch();
    auto last = last_.load();
    if (last != kNever.count() &&
        at - std::chrono::steady_clock::duration(last) < std::chrono::seconds(1)) {
        return false;
    }
    return last_.compare_exchange_strong(last, at.count());
}

std::optional<std::uint64_t> SampledLog::allow(std::size_t kind,
                                               std::chrono::steady_clock::time_point now) {
    std::lock_guard lock(mutex_);
    if (kind >= kinds_.size()) {
        return 0;  // not a kind this log samples: every line of it goes through
    }
    Kind& sampled = kinds_[kind];
    if (sampled.last && now - *sampled.last < std::chrono::seconds(1)) {
        sampled.left_out += 1;
        return std::nullopt;
    }
    sampled.last = now;
    return std::exchange(sampled.left_out, 0);
}

}  // namespace arbiter::server::app
