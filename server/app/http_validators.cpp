#include "server/app/http_validators.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>

namespace arbiter::server::app {

namespace {

// RFC 9110 8.8.3.2, weak comparison: the opaque tags are equal, W/ or not.
std::string_view opaque_tag(std::string_view tag) {
    return tag.starts_with("W/") ? tag.substr(2) : tag;
}

}  // namespace

bool none_match_names(std::string_view header, std::string_view etag) {
    const std::string_view own = opaque_tag(etag);
    std::size_t at = 0;
    for (;;) {
        while (at < header.size() &&
               (header[at] == ' ' || header[at] == '\t' || header[at] == ',')) {
            ++at;
        }
        if (at == header.size()) {
            return false;
        }
        if (header[at] == '*') {
            return true;
        }
        const std::size_t start = at;
        if (header.substr(at).starts_with("W/")) {
            at += 2;
        }
        if (at >= header.size() || header[at] != '"') {
            return false;
        }
        const std::size_t close = header.find('"', at + 1);
        if (close == std::string_view::npos) {
            return false;
        }
        at = close + 1;
        if (opaque_tag(header.substr(start, at - start)) == own) {
            return true;
        }
    }
}

FileValidators file_validators(std::uint64_t size, std::int64_t mtime_ns,
                               std::int64_t now_seconds) {
    char size_hex[20];
    char mtime_hex[20];
    const auto size_end = std::to_chars(size_hex, size_hex + sizeof size_hex, size, 16).ptr;
    const auto mtime_end = std::to_chars(mtime_hex, mtime_hex + sizeof mtime_hex,
                                         static_cast<std::uint64_t>(mtime_ns), 16)
                               .ptr;
    FileValidators validators;
    validators.etag =
        "W/\"" + std::string(size_hex, size_end) + "-" + std::string(mtime_hex, mtime_end) + "\"";
    // Whole seconds, rounded down (also before the epoch).
    const std::int64_t mtime_seconds =
        mtime_ns / 1'000'000'000 - (mtime_ns % 1'000'000'000 < 0 ? 1 : 0);
    validators.modified_seconds = std::min(mtime_seconds, now_seconds);
    return validators;
}

bool not_modified(const FileValidators& file, const Conditions& conditions,
                  std::int64_t now_seconds) {
    if (conditions.if_none_match) {
        return none_match_names(*conditions.if_none_match, file.etag);
    }
    if (conditions.if_modified_since) {
        const auto since = parse_http_date(*conditions.if_modified_since, now_seconds);
        return since && file.modified_seconds <= *since;
    }
    return false;
}

}  // namespace arbiter::server::app
