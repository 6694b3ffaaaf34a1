// The client examples of schema/protocol.md must decode: the prose contract and decode() agree.
// (Their schema conformance, and that of the server examples, is the schema test's job.)

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/protocol/codec.hpp"

namespace arbiter::protocol::test {
namespace {

// Inline code spans `{"type":...}` between "## Client to server" and the next "## " heading.
std::vector<std::string> client_examples(const std::string& markdown) {
    std::vector<std::string> examples;
    std::istringstream lines(markdown);
    bool in_client_section = false;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("## ", 0) == 0) {
            in_client_section = line == "## Client to server";
            continue;
        }
        if (!in_client_section) {
            continue;
        }
        for (std::size_t start = line.find("`{\"type\":"); start != std::string::npos;
             start = line.find("`{\"type\":", start + 1)) {
            const std::size_t end = line.find("}`", start);
            if (end == std::string::npos) {
                break;
            }
            examples.push_back(line.substr(start + 1, end - start));
        }
    }
    return examples;
}

TEST(ProtocolDocs, EveryClientExampleDecodes) {
    std::ifstream file(std::string(ARBITER_SOURCE_DIR) + "/schema/protocol.md");
    ASSERT_TRUE(file) << "cannot read schema/protocol.md";
    std::ostringstream text;
    text << file.rdbuf();
    const std::vector<std::string> examples = client_examples(text.str());
    std::set<std::size_t> types_shown;
    for (const std::string& example : examples) {
        const auto decoded = decode(example);
        EXPECT_TRUE(decoded.has_value())
            << example << " -> " << (decoded ? "" : decoded.error().message);
        if (decoded) {
            // draw, takeback and rematch share one alternative: count them by their kind too.
            const auto* offer = std::get_if<OfferRequest>(&decoded->body);
            types_shown.insert(offer != nullptr ? 100 + static_cast<std::size_t>(offer->kind)
                                                : decoded->body.index());
        }
    }
    // Every client message type has an example: 15 alternatives, one of them 3 offer kinds.
    EXPECT_EQ(types_shown.size(), std::variant_size_v<ClientBody> - 1 + 3);
}

}  // namespace
}  // namespace arbiter::protocol::test
