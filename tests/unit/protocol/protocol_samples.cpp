// protocol_samples: prints protocol messages as JSON lines for the schema test
// (tests/schema/validate.mjs), so that the schemas are checked against what the C++ code really
// writes and reads.
//
//   protocol_samples server          every server message, from encode(), in several variants
//   protocol_samples client          one valid frame of every client type (each must decode)
//   protocol_samples client-invalid  frames that decode() refuses (the schema must refuse them too)

#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/protocol/codec.hpp"
#include "tests/unit/protocol/samples.hpp"

namespace {

using namespace arbiter::protocol;  // NOLINT(google-build-using-namespace): a small tool

int print_client(const std::vector<std::string_view>& frames, bool valid) {
    int failures = 0;
    for (std::string_view frame : frames) {
        const bool decoded = decode(frame).has_value();
        if (decoded != valid) {
            std::cerr << "protocol_samples: decode() " << (decoded ? "accepted" : "refused") << " "
                      << frame << "\n";
            ++failures;
        }
        std::cout << frame << "\n";
    }
    return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string_view mode = argc == 2 ? argv[1] : "";
    if (mode == "server") {
        for (const ServerMessage& message : samples::server_messages()) {
            std::cout << encode(message) << "\n";
        }
        return 0;
    }
    if (mode == "client") {
        return print_client(samples::client_frames(), true);
    }
    if (mode == "client-invalid") {
        return print_client(samples::invalid_client_frames(), false);
    }
    std::cerr << "usage: protocol_samples server|client|client-invalid\n";
    return 2;
}
