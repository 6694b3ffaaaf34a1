#pragma once
/// \file
/// HTTP-dates (RFC 9110 5.6.7): the Date header of every response, and the validators of static
/// files (server/app/http_validators). Pure: the time is passed in.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace arbiter::server::net {

/// An HTTP-date in its preferred format, IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT".
std::string format_http_date(std::int64_t unix_seconds);

/// Seconds since the epoch of an HTTP-date in any of the three formats that a recipient must
/// accept: IMF-fixdate, RFC 850 ("Sunday, 06-Nov-94 08:49:37 GMT", whose two-digit year is read
/// as at most 50 years after `now_seconds`) and asctime ("Sun Nov  6 08:49:37 1994"). nullopt
/// for anything else, a list of dates included.
std::optional<std::int64_t> parse_http_date(std::string_view text, std::int64_t now_seconds);

}  // namespace arbiter::server::net
