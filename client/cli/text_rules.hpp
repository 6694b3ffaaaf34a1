#pragma once
/// \file
/// The protocol's rules for the text fields arbiter-cli sends (common/protocol/text_rules.hpp,
/// the server's own), checked where text comes in, on the command line or typed, so that no
/// request carries text the server must refuse: nothing over a size limit, and nothing that is
/// not UTF-8 (which nlohmann's dump() throws on).

#include <string>
#include <string_view>

#include "common/core/expected.hpp"
#include "common/protocol/text_rules.hpp"

namespace arbiter::client {

using protocol::text::is_utf8;
using protocol::text::kEngineRule;
using protocol::text::kGameIdRule;
using protocol::text::kMoveRule;
using protocol::text::kNameRule;
using protocol::text::kPositionRule;
using protocol::text::kTokenRule;
using protocol::text::TextRule;

/// Checks `text` against `rule`. The error is a sentence about `what` ("a move is 1 to 64
/// characters without control characters"), and never quotes the text, which may be huge or
/// not printable.
Expected<void, std::string> check_text(std::string_view text, const TextRule& rule,
                                       std::string_view what);

}  // namespace arbiter::client
