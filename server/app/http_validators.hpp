#pragma once
/// \file
/// Caching validators of the static files (RFC 9110 8.8): a weak ETag and Last-Modified, the
/// HTTP-date they are written in, and the conditional requests (13.1, 13.2.2) that a browser
/// revalidates its copy with, answered 304 Not Modified when it is current. Pure: the file's
/// size and modification time, and the time now, are passed in.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "server/net/http_date.hpp"

namespace arbiter::server::app {

// The HTTP-dates of Last-Modified and If-Modified-Since.
using net::format_http_date;
using net::parse_http_date;

/// The validators of one version of a file.
struct FileValidators {
    /// Weak (W/"size-mtime", hex): file systems stamp times with a coarse clock, so two writes
    /// of the same size close together may share one.
    std::string etag;
    /// Last-Modified, in whole seconds since the epoch.
    std::int64_t modified_seconds = 0;
};

/// The validators of a file of `size` bytes last written `mtime_ns` after the epoch. A
/// modification time after `now_seconds` reads as now (RFC 9110 8.8.2.1).
FileValidators file_validators(std::uint64_t size, std::int64_t mtime_ns, std::int64_t now_seconds);

/// The conditional headers of a GET or HEAD; nullopt when a header is absent.
struct Conditions {
    std::optional<std::string> if_none_match;
    std::optional<std::string> if_modified_since;
};

/// Whether an If-None-Match value (RFC 9110 13.1.2: "*" or a list of tags) names `etag`, by weak
/// comparison (8.8.3.2). A value that is not such a list names nothing.
bool none_match_names(std::string_view if_none_match, std::string_view etag);

/// True when a GET or HEAD with `conditions` is answered 304 Not Modified (RFC 9110 13.2.2):
/// If-None-Match decides when present ("*", or a tag equal to the file's by weak comparison,
/// 13.1.2); otherwise If-Modified-Since, not after the file's last modification. An
/// If-Modified-Since that is not one valid HTTP-date is ignored (13.1.3).
bool not_modified(const FileValidators& file, const Conditions& conditions,
                  std::int64_t now_seconds);

}  // namespace arbiter::server::app
