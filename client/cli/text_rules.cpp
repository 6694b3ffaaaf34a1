#include "client/cli/text_rules.hpp"

namespace arbiter::client {

Expected<void, std::string> check_text(std::string_view text, const TextRule& rule,
                                       std::string_view what) {
    if (!is_utf8(text)) {
        return unexpected(std::string(what) + " is not valid UTF-8 text");
    }
    if (protocol::text::obeys(text, rule)) {
        return {};
    }
    const std::string range = rule.min_length == 0 ? "at most " + std::to_string(rule.max_length)
                                                   : std::to_string(rule.min_length) + " to " +
                                                         std::to_string(rule.max_length);
    return unexpected(std::string(what) + " is " + range + " characters" +
                      std::string(protocol::text::charset_text(rule.charset)));
}

}  // namespace arbiter::client
